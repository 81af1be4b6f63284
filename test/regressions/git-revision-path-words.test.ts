/**
 * Regression: under a deny rule on `secrets/**` and an allow rule for git, `git show
 * HEAD:secrets/key.txt` printed the committed file (found by an attack on case P9's family:
 * every path a call touches is judged). The sandbox hides `secrets/`, but git reads the
 * content from its objects, and the path rule judged the word `HEAD:secrets/key.txt` as one
 * path. What follows each `:` of a command word is now judged too (`HEAD:path`, `:0:path`,
 * `-L1,2:path`), as git reads it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { policyExecutor } from '../policy-executor.js';

describe('a git revision:path word is judged by path rules', () => {
  const { t, run } = policyExecutor({
    rules: '[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\ncommand = "git"\naction = "allow"\n',
    executor: { approvalMode: 'allow-all' },
    person: 'deny',
  });

  before(() => {
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET KEY\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: t.ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
  });

  for (const command of ['git show HEAD:secrets/key.txt', 'git cat-file -p HEAD:secrets/key.txt', 'git show :0:secrets/key.txt', 'git show :secrets/key.txt', 'git log -L1,1:secrets/key.txt']) {
    test(command, async () => {
      const r = await run(command);
      assert.equal(r.errorCode, 'POLICY_DENIED', `${command}: ${r.errorCode} ${r.output}`);
      assert.doesNotMatch(String(r.output ?? ''), /SECRET/);
    });
  }

  test('the control: a revision:path of an allowed file is not held against the line', async () => {
    const r = await run('git show HEAD:ok.txt');
    assert.notEqual(r.errorCode, 'POLICY_DENIED', r.error);
  });
});
