// `toolgate call` off a terminal, refused CONFIRMATION_REQUIRED: the hint after the result said
// "re-run with --yes" for every question, also for one only a person answers (a protected path,
// a line the analysis cannot read with no sandbox, always-ask), where --yes is refused in turn;
// with --yes it said "(a protected path)" whatever the reason, and never how a user without
// bubblewrap runs `make` or `./build.sh` unasked. Found trying the README as a new user with
// TOOLGATE_BWRAP=/nonexistent/bwrap. The result's asking decision now carries `person: true`,
// and the hint follows it (src/cli/confirmation-hint.ts). Every call here is refused before
// anything runs but the last one, which runs with --dangerously-disable-sandbox as written: the
// file passes with bubblewrap and without it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ToolExecutionResult } from 'toolgate';
import { runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('the hint of a refused call names who can answer, and how to run the line unasked', () => {
  let t: TempWorkspace;
  let env: NodeJS.ProcessEnv;
  let policyFile: string;
  before(() => {
    t = tempWorkspace();
    const home = path.join(t.root, 'home');
    fs.mkdirSync(home);
    env = { ...process.env, XDG_CONFIG_HOME: path.join(t.root, 'config'), XDG_STATE_HOME: path.join(t.root, 'state'), HOME: home };
    policyFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.writeFileSync(path.join(t.ws, 'build.sh'), '#!/bin/sh\necho built-by-script\n', { mode: 0o755 });
  });
  after(() => t.cleanup());

  const call = (name: string, args: object, ...flags: string[]) =>
    runCli(['call', name, JSON.stringify(args), '--workspace', t.ws, '--no-ledger', ...flags], { env, cwd: t.root });
  const unsandboxed = ['--dangerously-disable-sandbox'];

  test('call --help says what --dangerously-disable-sandbox leads to: a person asked, not --yes, and the grant by name', async () => {
    const help = await runCli(['call', '--help'], { env, cwd: t.root });
    assert.equal(help.code, 0);
    const flag = help.stdout.slice(help.stdout.indexOf('--dangerously-disable-sandbox\n'));
    assert.match(flag, /asks a person each time, not --yes, unless your policy\s+file allows that program by name/);
    assert.match(flag, /interpreter's code\s+\(python3 -c\) always asks/);
  });

  test('a program the analysis cannot read, with no sandbox: not "re-run with --yes", but a terminal, the sandbox, and the exact allow rule', async () => {
    const r = await call('run_command', { command: './build.sh' }, ...unsandboxed);
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /re-run with --yes/);
    assert.match(r.stderr, /only a person answers this question \(with no sandbox, a line whose program the analysis cannot read\), not --yes: run the call on a terminal/);
    assert.match(r.stderr, /without --dangerously-disable-sandbox/);
    assert.ok(r.stderr.includes(`your policy file, ${policyFile}`), r.stderr);
    assert.match(r.stderr, /\n {2}\[\[rules\]\]\n {2}command = "\.\/build\.sh"\n {2}action = "allow"\n/);

    const yes = await call('run_command', { command: './build.sh' }, '--yes', ...unsandboxed);
    assert.equal(yes.code, 1, yes.stderr);
    assert.match(yes.stderr, /--yes does not answer this question \(with no sandbox, a line whose program the analysis cannot read\): a person answers it/);
    assert.doesNotMatch(yes.stderr, /\(a protected path\)/);
    assert.match(yes.stderr, /command = "\.\/build\.sh"/);
    assert.equal(fs.existsSync(policyFile), false, 'the hint wrote nothing');
  });

  test('the result says which question only a person answers: person on that decision, not on the tool\'s own ask', async () => {
    const r = await call('run_command', { command: './build.sh' }, '--json', ...unsandboxed);
    const result = JSON.parse(r.stdout) as ToolExecutionResult;
    assert.equal(result.errorCode, 'CONFIRMATION_REQUIRED');
    const unseen = result.decisions?.find((d) => d.decider === 'protected-paths');
    assert.equal(unseen?.verdict, 'ask');
    assert.equal(unseen?.person, true);
    const own = result.decisions?.find((d) => d.decider === 'approval');
    assert.equal(own?.verdict, 'ask');
    assert.equal(own?.person, undefined);
  });

  test('an interpreter\'s code is never granted by a rule: the hint offers the sandbox and no rule', async () => {
    const r = await call('run_command', { command: 'python3 -c "print(1)"' }, '--yes', ...unsandboxed);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /--yes does not answer this question/);
    assert.match(r.stderr, /without --dangerously-disable-sandbox/);
    assert.doesNotMatch(r.stderr, /\[\[rules\]\]|command = /);
  });

  test('a protected path, and the always-ask mode: named as such; a plain question still offers --yes', async () => {
    const protectedPath = await call('write_file', { filepath: '.git/config', content: 'x' });
    assert.equal(protectedPath.code, 1);
    assert.match(protectedPath.stderr, /only a person answers this question \(a protected path\), not --yes/);
    assert.doesNotMatch(protectedPath.stderr, /re-run with --yes|\[\[rules\]\]/);

    const alwaysAsk = await call('write_file', { filepath: 'a.txt', content: 'x' }, '--approve', 'always-ask');
    assert.equal(alwaysAsk.code, 1);
    assert.match(alwaysAsk.stderr, /only a person answers this question \(the always-ask approval mode\), not --yes/);
    assert.doesNotMatch(alwaysAsk.stderr, /re-run with --yes/);

    const plain = await call('write_file', { filepath: 'a.txt', content: 'x' });
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /re-run with --yes to approve this call/);
    assert.doesNotMatch(plain.stderr, /only a person/);
    assert.equal(fs.existsSync(path.join(t.ws, 'a.txt')), false);
  });

  test('the rule as the hint prints it grants the program: then it runs unasked, with no sandbox; another program still asks', async () => {
    const r = await call('run_command', { command: './build.sh' }, ...unsandboxed);
    const rule = r.stderr.split('\n').filter((line) => line.startsWith('  ')).join('\n');
    assert.match(rule, /\[\[rules\]\]/);
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(policyFile, `${rule}\n`);

    // the person's question is gone, and so is run_command's own (a user's allow rule lifts it)
    const ran = await call('run_command', { command: './build.sh' }, ...unsandboxed);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /built-by-script/);
    // the grant is the program as written: another program still asks a person
    const other = await call('run_command', { command: './build.sh && ./other.sh' }, '--yes', ...unsandboxed);
    assert.equal(other.code, 1, other.stderr);
    assert.match(other.stderr, /--yes does not answer this question/);
    assert.match(other.stderr, /command = "\.\/other\.sh"/);
    fs.rmSync(policyFile);
  });
});
