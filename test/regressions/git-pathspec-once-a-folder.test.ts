/**
 * Regression: under a deny rule on `config/secrets/**` and an allow rule for git, `git log -p
 * -- config` printed the committed content of `config/secrets/key.txt` (found attacking the
 * grants, task s18, item b): the pathspec `config` names an existing regular file now, which
 * the git content check trusted, but a pathspec matches in every commit, and in an older one
 * `config` was a folder holding the denied file. A pathspec is now trusted only when no deny or
 * ask glob could match below it were it a folder (`couldMatchBelow` in
 * `src/policy/git-content-reads.ts`); otherwise the command asks, and only a person answers.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { bubblewrapAvailable } from 'toolgate/internal';
import { couldMatchBelow } from '../../src/policy/git-content-reads.js';
import { policyExecutor } from '../policy-executor.js';

describe('a git pathspec that names a file now but was a folder of denied files before', () => {
  const { t, run } = policyExecutor({
    rules: '[[rules]]\naction = "deny"\npaths = ["config/secrets/**"]\n[[rules]]\ncommand = "git"\naction = "allow"\n',
    executor: { approvalMode: 'allow-all', ...(bubblewrapAvailable() ? {} : { sandbox: 'none' as const }) },
    person: 'deny',
  });

  before(() => {
    fs.mkdirSync(path.join(t.ws, 'config/secrets'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'config/secrets/key.txt'), 'TOPSECRET KEY\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: t.ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    git('rm', '-rq', 'config');
    fs.writeFileSync(path.join(t.ws, 'config'), 'plain settings\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok 2\n');
    git('add', '-A');
    git('commit', '-qm', 'config is a file now');
  });

  for (const command of ['git log -p -- config', 'git log -p config', 'git diff HEAD~1 HEAD -- config', 'git whatchanged -p -- config']) {
    test(command, async () => {
      // --yes does not settle it: only a person answers, and the handler says no
      const r = await run(command, { confirm: true });
      assert.notEqual(r.errorCode, undefined, `${command} ran: ${r.output}`);
      assert.doesNotMatch(String(r.output ?? ''), /TOPSECRET/);
    });
  }

  test('the control: a pathspec no withheld glob reaches below runs', async () => {
    const r = await run('git log -p -- ok.txt');
    assert.equal(r.errorCode, undefined, `${r.errorCode} ${r.error}`);
    assert.match(String(r.output ?? ''), /ok 2/);
  });

  test('which globs could match below a pathspec', () => {
    assert.equal(couldMatchBelow('config/secrets/**', 'config'), true);
    assert.equal(couldMatchBelow('config/secrets/**', 'ok.txt'), false);
    assert.equal(couldMatchBelow('**/*.pem', 'notes'), true, 'notes/id.pem in some commit');
    assert.equal(couldMatchBelow('.env', 'ok.txt'), false);
    assert.equal(couldMatchBelow('.ENV', '.env'), true, 'deny globs match in any case');
    assert.equal(couldMatchBelow('src/*/key', 'src'), true);
    assert.equal(couldMatchBelow('src/*/key', 'lib'), false);
    assert.equal(couldMatchBelow('{a,b}/key', 'c'), true, 'braces are not read: could');
  });
});
