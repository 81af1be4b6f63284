// Regression (case P9's family, review s20 "noticed and left alone"): with no sandbox, programs
// the analysis has no table for run code it cannot see. Under a deny path rule on `.env` and
// `approvalMode: 'allow-all'`, `make` (a Makefile doing `cat .e""nv`), `npm run x`, `npx`,
// `cargo`, `pytest`, `just`... printed `.env`, and `grep -r KEY` (no file: its working folder)
// did too; with no path rule at all, `make` wrote `.git/hooks/pre-commit` under `--yes`-style
// advance approval. Now a program not on the list of programs the analysis understands
// (src/decisions/understood-programs.ts) is unseen for path purposes: under a deny/ask path
// rule and for the protected paths a person decides; an explicit allow rule naming exactly
// that program is the person's grant for it, a broad or glob allow is not. In the sandbox
// nothing changes (the kernel withholds the file).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ConfirmationRequest } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const SECRET = 'ENVSECRET';

/** A workspace whose build tools all print `.env` (spelled so that no word names it). */
function buildWorkspace(t: TempWorkspace): void {
  const put = (rel: string, text: string, mode = 0o644) => {
    fs.mkdirSync(path.dirname(path.join(t.ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(t.ws, rel), text, { mode });
  };
  put('.env', `${SECRET}\n`);
  put('ok.txt', 'ok\n');
  put('Makefile', 'all:\n\t@cat .e""nv\nother:\n\t@echo other\n');
  put('package.json', JSON.stringify({ name: 'p', version: '1.0.0', scripts: { x: 'cat .e""nv' } }));
  put('node_modules/.bin/showenv', '#!/bin/sh\ncat .e""nv\n', 0o755);
  put('justfile', 'default:\n\tcat .e""nv\n');
  put('test_env.py', 'def test_env():\n    print(open(".e" "nv").read())\n    assert False\n');
}

describe('programs the analysis cannot see, with no sandbox', () => {
  let t: TempWorkspace;
  let userFile: string;
  let asked: ConfirmationRequest[];
  const executors: ToolExecutor[] = [];
  const executor = async (policy: string, options: { sandbox?: 'none' | 'workspace-write'; answer?: 'deny' | 'allow_for_turn'; approvalMode?: 'allow-all' } = {}) => {
    fs.writeFileSync(userFile, policy);
    const made = new ToolExecutor(await portedRegistry(), {
      workspaceRoot: t.ws, policy: { user: userFile, workspace: true }, approvalMode: options.approvalMode ?? 'allow-all', sandbox: options.sandbox ?? 'none',
      confirmationHandler: (request) => {
        asked.push(request);
        return options.answer ?? 'deny';
      },
    });
    executors.push(made);
    return made;
  };
  const run = (ex: ToolExecutor, command: string, turnId?: string) => ex.execute({ name: 'run_command', arguments: { command } }, { confirm: true, ...(turnId !== undefined && { turnId }) });

  before(() => {
    t = tempWorkspace();
    userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    buildWorkspace(t);
  });
  after(async () => {
    for (const ex of executors) await ex.close();
    t.cleanup();
  });

  test('P9: under a deny on .env, make, npm run, npx, yarn, pnpm, cargo, pytest, just, tox, gradle, mvn, go, rake, bundle exec and grep -r with no file ask a person (who says no): .env is not printed', async () => {
    const ex = await executor('[[rules]]\naction = "deny"\npaths = [".env"]\n');
    const lines = [
      'make', 'make all', 'timeout 5 make', 'npm run x', 'npx showenv', 'yarn x', 'pnpm x', 'cargo run', 'cargo test', 'pytest -q -s', 'just', 'tox', 'gradle test',
      'mvn test', 'go test', 'rake', 'bundle exec rake', 'env make', `grep -r ${SECRET}`, `grep -R -e ${SECRET}`, `rgrep ${SECRET}`, `cat ok.txt; make`,
    ];
    for (const command of lines) {
      asked = [];
      const r = await run(ex, command);
      assert.doesNotMatch(String(r.output ?? ''), new RegExp(SECRET), `${command} printed .env`);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${command}: ${r.errorCode ?? 'ran'} ${r.error ?? ''}`);
      assert.ok(asked.length >= 1 && /cannot see|working folder|no word names/.test(asked[0]!.ask.reason), `${command}: asked ${JSON.stringify(asked.map((a) => a.ask.reason))}`);
    }
  });

  test('the control: programs the analysis understands run under the same rule', async () => {
    const ex = await executor('[[rules]]\naction = "deny"\npaths = [".env"]\n');
    for (const command of ['cat ok.txt', 'ls', 'wc -l ok.txt', 'grep -r ok ok.txt', 'echo hi | tr a-z A-Z', '[ -f ok.txt ] && echo y', 'test -f ok.txt', 'jq -n 1', 'pwd', 'head -n1 ok.txt | sed s/o/0/']) {
      const r = await run(ex, command);
      assert.equal(r.errorCode, undefined, `${command}: ${r.errorCode} ${r.error}`);
    }
  });

  test('an explicit allow rule naming exactly the program is the person\'s grant for it; a broad allow, a glob, a workspace file\'s allow and other words are not', async () => {
    const deny = '[[rules]]\naction = "deny"\npaths = [".env"]\n';
    // the person's grant: `make` (exactly as the rule's words cover it) runs, its Makefile's doing included
    const granted = await executor(`${deny}[[rules]]\naction = "allow"\ncommand = "make"\n`);
    asked = [];
    const ran = await run(granted, 'make other');
    assert.equal(ran.errorCode, 'CONFIRMATION_DENIED', 'make other is not the words the rule covers');
    const make = await run(granted, 'make');
    assert.equal(make.errorCode, undefined, `${make.errorCode} ${make.error}`);
    const withOptions = await executor(`${deny}[[rules]]\naction = "allow"\ncommand = "make"\nallow_options = ["*"]\n`);
    assert.equal((await run(withOptions, 'make other')).errorCode, undefined);
    // not a grant for make: a rule for every command, a glob, a rule for another program
    for (const rule of ['tool = "run_command"', 'command = "ma*"', 'command = "npm"', 'command = "*"']) {
      const ex = await executor(`${deny}[[rules]]\naction = "allow"\n${rule}\n`);
      const r = await run(ex, 'make');
      assert.doesNotMatch(String(r.output ?? ''), new RegExp(SECRET), `${rule}: make printed .env`);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${rule}: ${r.errorCode ?? 'ran'}`);
    }
    // a repository's own file cannot grant: it only narrows
    fs.mkdirSync(path.join(t.ws, '.toolgate'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.toolgate', 'policy.toml'), '[[rules]]\naction = "allow"\ncommand = "make"\n');
    try {
      const ex = await executor(deny);
      const r = await run(ex, 'make');
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `workspace allow: ${r.errorCode ?? 'ran'}`);
    } finally {
      fs.rmSync(path.join(t.ws, '.toolgate'), { recursive: true, force: true });
    }
  });

  test('under an ask path rule, a person\'s answer for this exact line is remembered for the turn; another line asks again', async () => {
    const ex = await executor('[[rules]]\naction = "ask"\npaths = [".env"]\n', { answer: 'allow_for_turn' });
    asked = [];
    assert.equal((await run(ex, 'make other', 'turn-1')).errorCode, undefined);
    assert.equal(asked.length, 1);
    assert.equal((await run(ex, 'make other', 'turn-1')).errorCode, undefined);
    assert.equal(asked.length, 1, 'the same line asked again');
    await run(ex, 'npm run x', 'turn-1');
    assert.equal(asked.length, 2, 'another line was not asked');
  });

  test('protected paths: with no path rule, make writing .git/hooks asks a person; --yes-style confirm with nobody to ask refuses it, naming why', async () => {
    fs.mkdirSync(path.join(t.ws, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'Makefile'), 'all:\n\t@echo pwn > .g""it/hooks/pre-commit\n');
    const hook = path.join(t.ws, '.git', 'hooks', 'pre-commit');
    try {
      fs.writeFileSync(userFile, '');
      const nobody = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all', sandbox: 'none' });
      executors.push(nobody);
      const r = await run(nobody, 'make');
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${r.errorCode ?? 'ran'} ${r.error ?? ''}`);
      assert.match(r.error ?? '', /make.*cannot see/);
      assert.match(r.error ?? '', /protected path/);
      assert.match(r.error ?? '', /does not answer this question/);
      assert.equal(fs.existsSync(hook), false, 'make wrote .git/hooks/pre-commit');
      // the person's grant for make: it runs
      const granted = await executor('[[rules]]\naction = "allow"\ncommand = "make"\n');
      const ok = await run(granted, 'make');
      assert.equal(ok.errorCode, undefined, `${ok.errorCode} ${ok.error}`);
      assert.equal(fs.existsSync(hook), true);
    } finally {
      fs.rmSync(path.join(t.ws, '.git'), { recursive: true, force: true });
      buildWorkspace(t);
    }
  });

  test('with bubblewrap nothing changes: make runs unasked and finds .env withheld', { skip: !bubblewrapAvailable() && 'bubblewrap is not available' }, async () => {
    const ex = await executor('[[rules]]\naction = "deny"\npaths = [".env"]\n', { sandbox: 'workspace-write' });
    asked = [];
    const r = await run(ex, 'make');
    assert.deepEqual(asked, []);
    assert.doesNotMatch(String(r.output ?? ''), new RegExp(SECRET));
  });
});
