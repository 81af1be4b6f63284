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
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('a git revision:path word is judged by path rules', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  let executor: ToolExecutor;

  before(async () => {
    registry = await portedRegistry();
    t = tempWorkspace();
    const userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\ncommand = "git"\naction = "allow"\n');
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET KEY\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: t.ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all', confirmationHandler: () => 'deny' });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  for (const command of ['git show HEAD:secrets/key.txt', 'git cat-file -p HEAD:secrets/key.txt', 'git show :0:secrets/key.txt', 'git show :secrets/key.txt', 'git log -L1,1:secrets/key.txt']) {
    test(command, async () => {
      const r = await executor.execute({ name: 'run_command', arguments: { command } });
      assert.equal(r.errorCode, 'POLICY_DENIED', `${command}: ${r.errorCode} ${r.output}`);
      assert.doesNotMatch(String(r.output ?? ''), /SECRET/);
    });
  }

  test('the control: a revision:path of an allowed file is not held against the line', async () => {
    const r = await executor.execute({ name: 'run_command', arguments: { command: 'git show HEAD:ok.txt' } });
    assert.notEqual(r.errorCode, 'POLICY_DENIED', r.error);
  });
});
