/**
 * Regression: under a deny rule on `secrets/**` and an allow rule for git, `git show HEAD`,
 * `git grep TOPSECRET HEAD`, `git log -p`, `git diff HEAD~1`, `git archive`, `git
 * format-patch`, `git stash show -p` printed the committed content of the denied files (found
 * by the security trial after case P9's family): the sandbox hides the working file, but git
 * reads its own objects, and no word of those lines names the file. A git command that may
 * print content from git's objects, unless limited to judged paths, now asks, and only a
 * person answers (`src/policy/git-content-reads.ts`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { bubblewrapAvailable } from 'toolgate/internal';
import { policyExecutor } from '../policy-executor.js';

describe('git commands that print committed content ask under a deny rule on paths', () => {
  const { t, run } = policyExecutor({
    rules: [
      '[[rules]]\naction = "deny"\npaths = ["secrets/**"]',
      '[[rules]]\ncommand = "git"\naction = "allow"',
      '[[rules]]\ncommand = "git archive"\naction = "allow"',
      '[[rules]]\ncommand = "git format-patch"\naction = "allow"',
      '[[rules]]\ncommand = "git stash"\naction = "allow"\n',
    ].join('\n'),
    // CI also runs the suite without bubblewrap: the decision is what is tested, not the sandbox
    executor: { approvalMode: 'allow-all', ...(bubblewrapAvailable() ? {} : { sandbox: 'none' as const }) },
    person: 'deny',
  });

  before(() => {
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'TOPSECRET KEY\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: t.ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'TOPSECRET KEY 2\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok 2\n');
    git('commit', '-qam', 'second');
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'TOPSECRET KEY 3\n');
    git('stash', '-q');
  });

  const lines = [
    'git show HEAD', 'git show', 'git grep TOPSECRET HEAD', 'git grep --cached TOPSECRET', 'git log -p', 'git log --patch --oneline', 'git log -p -- .',
    'git diff HEAD~1', 'git diff HEAD~1 HEAD --stat -p', 'git whatchanged -p', 'git archive HEAD', 'git format-patch -1 --stdout', 'git stash show -p',
    'git log -p --author ok.txt', 'git log -S TOPSECRET --oneline',
  ];
  for (const command of lines) {
    test(command, async () => {
      // `confirm` (--yes) does not settle it: only a person answers, and the handler says no
      const r = await run(command, { confirm: true });
      assert.notEqual(r.errorCode, undefined, `${command} ran: ${r.output}`);
      assert.doesNotMatch(String(r.output ?? ''), /TOPSECRET/);
    });
  }

  for (const command of ['git status', 'git log --oneline', 'git show HEAD:ok.txt', 'git log -p -- ok.txt', 'git diff HEAD~1 -- ok.txt', 'git grep ok -- ok.txt']) {
    test(`the control: ${command} runs`, async () => {
      const r = await run(command);
      assert.equal(r.errorCode, undefined, `${command}: ${r.errorCode} ${r.error}`);
      assert.doesNotMatch(String(r.output ?? ''), /TOPSECRET/);
    });
  }
});
