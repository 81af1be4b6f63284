/**
 * The ledger's acceptance through real processes killed with SIGKILL:
 * - a call waiting for confirmation: after `kill -9`, `toolgate approvals list` shows it,
 *   `approvals allow ID` runs it once, `toolgate result` prints its result;
 * - a long call: after `kill -9`, `toolgate trace` shows it `interrupted`, and calling it
 *   again with the same call id returns that result without running it again;
 * - a retried `toolgate call --call-id` prints the stored result without running again.
 * Each test's processes are killed and awaited; its folders are removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, REPO_ROOT, runCli } from '../helpers.js';

const ASKER = path.join(REPO_ROOT, 'dist/test/ledger/ledger-asker.js');

let root: string;
let ws: string;
let state: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ledger-cli-'));
  ws = path.join(root, 'ws');
  state = path.join(root, 'state');
  fs.mkdirSync(ws);
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** The ledger flags of every command here, and the fixture tools where a tool runs. */
const where = () => ['--workspace', ws, '--state-dir', state];
const fixtures = () => ['--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'];

/** Start a process, and resolve once `ready()` holds (checked every 50 ms), or fail after 90 s (loading every tool takes long on a busy 2-core machine). */
async function startUntil(args: string[], ready: (stdout: string) => boolean): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const deadline = Date.now() + 90_000;
  while (!ready(stdout)) {
    if (child.exitCode !== null) throw new Error(`the process ended early (${child.exitCode}): ${stdout}\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`the process did not get ready: ${stdout}\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const runs = () => (fs.existsSync(path.join(ws, 'runs.txt')) ? fs.readFileSync(path.join(ws, 'runs.txt'), 'utf8') : '');

describe('ledger through the CLI, with kill -9', () => {
  it('a call waiting for confirmation survives kill -9: approvals list shows it, allow runs it once, result prints it', async () => {
    const asker = await startUntil([ASKER, state, ws, 'ask-kill', 'approved-run'], (out) => out.includes('asked'));
    await kill9(asker);
    assert.equal(runs(), '', 'nothing ran before the answer');

    const listed = await runCli(['approvals', 'list', ...where()]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID\s+AGE\s+TOOL\s+CALL\s+ASKER\s+ANSWER\s+WHY\s+ARGUMENTS/m);
    assert.match(listed.stdout, /append_marker\s+ask-kill\s+gone\s+-\s+approval \[always-ask\]/);
    assert.match(listed.stdout, /"marker":"approved-run"/);
    const [question] = JSON.parse((await runCli(['approvals', '--json', ...where()])).stdout) as Array<{ id: number; callId: string }>;
    assert.equal(question?.callId, 'ask-kill');

    const allowed = await runCli(['approvals', 'allow', String(question!.id), ...where(), ...fixtures()]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /allowed once/);
    assert.match(allowed.stdout, /is gone: running the call here/);
    assert.match(allowed.stdout, /appended approved-run/);
    assert.equal(runs(), 'approved-run\n', 'ran once');

    const again = await runCli(['approvals', 'allow', String(question!.id), ...where(), ...fixtures()]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /answered already/);
    assert.match(again.stdout, /call ask-kill is done/);
    assert.equal(runs(), 'approved-run\n', 'still once');

    const result = await runCli(['result', 'ask-kill', ...where()]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'appended approved-run\n');
    assert.equal((await runCli(['approvals', 'list', ...where()])).stdout, 'no questions are waiting\n');
    const unknown = await runCli(['result', 'no-such-call', ...where()]);
    assert.equal(unknown.code, 1);
  });

  it('approvals deny for a call whose asker is gone: the call ends denied and never runs', async () => {
    const asker = await startUntil([ASKER, state, ws, 'ask-deny', 'denied-run'], (out) => out.includes('asked'));
    await kill9(asker);
    const questions = JSON.parse((await runCli(['approvals', '--json', ...where()])).stdout) as Array<{ id: number; callId: string }>;
    const question = questions.find((q) => q.callId === 'ask-deny');
    assert.ok(question);
    // --no-policy: nothing in this process would ask again; the answer alone must refuse the call.
    const denied = await runCli(['approvals', 'deny', String(question.id), '--no-policy', ...where(), ...fixtures()]);
    assert.equal(denied.code, 0, denied.stderr);
    assert.match(denied.stdout, /ends denied and does not run/);
    assert.ok(!runs().includes('denied-run'), 'the denied call did not run');
    const result = await runCli(['result', 'ask-deny', ...where()]);
    assert.match(result.stdout + result.stderr, /Confirmation denied/);
  });

  it('approvals allow while the asking process lives: that process resumes and runs the call', async () => {
    let out = '';
    const asker = await startUntil([ASKER, state, ws, 'ask-live', 'resumed-run'], (stdout) => (out = stdout).includes('asked'));
    const [question] = JSON.parse((await runCli(['approvals', '--json', ...where()])).stdout) as Array<{ id: number; ownerAlive: boolean }>;
    assert.equal(question?.ownerAlive, true);
    const allowed = await runCli(['approvals', 'allow', String(question!.id), ...where()]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /which asked, resumes the call/);
    const exited = new Promise<number | null>((resolve) => asker.once('exit', resolve));
    asker.stdout!.on('data', (d) => (out += d));
    assert.equal(await exited, 0);
    assert.match(out, /"success":true/);
    assert.equal(runs(), 'resumed-run\n');
  });

  it('kill -9 during a long call: after a restart trace shows it interrupted, and it never runs again', async () => {
    const args = [BIN, 'call', 'append_marker', '{"filepath":"runs.txt","marker":"long-run","sleep_ms":60000}', '--call-id', 'long-1', ...where(), ...fixtures()];
    const caller = await startUntil(args, () => runs() !== '');
    await kill9(caller);

    // trace only reads: it shows the call as stored, its process gone, and repairs nothing.
    const before = await runCli(['trace', ...where()]);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /long-1\s+append_marker@1\.0\.0\s+running \(owner gone\)/);

    // The restart: the same call again (any toolgate that opens the ledger to write recovers it).
    const retried = await runCli(['call', 'append_marker', '{"filepath":"runs.txt","marker":"long-run","sleep_ms":60000}', '--call-id', 'long-1', ...where(), ...fixtures()]);
    assert.equal(retried.code, 1);
    assert.match(retried.stderr, /interrupted: toolgate stopped while this call ran; the tool may have run/);

    const trace = await runCli(['trace', ...where()]);
    assert.equal(trace.code, 0, trace.stderr);
    assert.match(trace.stdout, /long-1\s+append_marker@1\.0\.0\s+interrupted\s+wait \d+ ms, run \d+ ms\s+INTERRUPTED/);
    const json = JSON.parse((await runCli(['trace', '--call', 'long-1', '--json', ...where()])).stdout) as Array<{ state: string; status: string }>;
    assert.deepEqual(json.map((c) => [c.state, c.status]), [['interrupted', 'INTERRUPTED']]);
    const result = await runCli(['result', 'long-1', ...where()]);
    assert.match(result.stdout, /check before repeating/);
    // A window, not a wait for an event: a replay must not happen, and no event marks that it
    // never will.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(runs(), 'long-run\n', 'ran once, never replayed');
  });

  it('an answer recorded while the asker lived, which it never acted on before kill -9, stays listed; allow runs the call once', async () => {
    const asker = await startUntil([ASKER, state, ws, 'ask-stranded', 'stranded-run'], (out) => out.includes('asked'));
    // Stopped, the asker cannot pick the answer up; then it dies.
    asker.kill('SIGSTOP');
    const [question] = JSON.parse((await runCli(['approvals', '--json', ...where()])).stdout) as Array<{ id: number; ownerAlive: boolean }>;
    assert.equal(question?.ownerAlive, true);
    const allowed = await runCli(['approvals', 'allow', String(question!.id), ...where(), ...fixtures()]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /which asked, resumes the call/);
    await kill9(asker);
    assert.equal(runs(), '', 'the asker never ran it');

    const listed = await runCli(['approvals', 'list', ...where()]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${question!.id}\\s+\\S+\\s+append_marker\\s+ask-stranded\\s+gone\\s+allow_once\\s`, 'm'), listed.stdout);
    const again = await runCli(['approvals', 'allow', String(question!.id), ...where(), ...fixtures()]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /answered already \(allow_once/);
    assert.match(again.stdout, /is gone: running the call here/);
    assert.equal(runs(), 'stranded-run\n', 'ran once');
    assert.equal((await runCli(['approvals', 'list', ...where()])).stdout, 'no questions are waiting\n', 'settled');
    const result = await runCli(['result', 'ask-stranded', ...where()]);
    assert.equal(result.stdout, 'appended stranded-run\n');
    const third = await runCli(['approvals', 'allow', String(question!.id), ...where(), ...fixtures()]);
    assert.match(third.stdout, /call ask-stranded is done/);
    assert.equal(runs(), 'stranded-run\n', 'still once');
  });

  it('trace, result and approvals list open the ledger read-only: they recover, prune and write nothing', async () => {
    const missing = await runCli(['trace', ...where()]);
    assert.equal(missing.code, 0, missing.stderr);
    assert.equal(missing.stdout, 'no calls recorded\n');
    assert.match(missing.stderr, /no ledger at .*ledger-[0-9a-f]{16}\.sqlite: nothing has been recorded/);
    assert.equal((await runCli(['approvals', 'list', '--json', ...where()])).stdout, '[]\n');
    assert.equal((await runCli(['result', 'x', ...where()])).code, 1);
    assert.equal(fs.existsSync(state), false, 'reading made no state folder');

    // A question waiting and a call left running by killed processes (the question first: a
    // process that opens the ledger to write recovers running calls, never pending ones).
    const asker = await startUntil([ASKER, state, ws, 'ro-ask', 'ro-asked'], (out) => out.includes('asked'));
    await kill9(asker);
    const caller = await startUntil([BIN, 'call', 'append_marker', '{"filepath":"runs.txt","marker":"ro-run","sleep_ms":60000}', '--call-id', 'ro-1', ...where(), ...fixtures()], () => runs() !== '');
    await kill9(caller);
    const [file] = fs.readdirSync(state).filter((f) => f.endsWith('.sqlite')).map((f) => path.join(state, f));
    // The file and its WAL; not the -shm, the WAL index in shared memory that every SQLite reader updates.
    const snapshot = () => Object.fromEntries(fs.readdirSync(state).filter((f) => !f.endsWith('-shm')).map((f) => {
      const where = path.join(state, f);
      return [f, { sha256: crypto.createHash('sha256').update(fs.readFileSync(where)).digest('hex'), mtime: fs.statSync(where).mtimeMs }];
    }));
    const before = snapshot();
    const trace = await runCli(['trace', '--json', ...where()]);
    assert.equal(trace.code, 0, trace.stderr);
    const calls = JSON.parse(trace.stdout) as Array<{ callId: string; state: string; ownerAlive?: boolean }>;
    assert.deepEqual(calls.map((c) => [c.callId, c.state, c.ownerAlive]), [['ro-1', 'running', false], ['ro-ask', 'pending', false]]);
    const result = await runCli(['result', 'ro-1', ...where()]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /call ro-1 is running: it has no result yet \(its process \d+ is gone/);
    const listed = await runCli(['approvals', 'list', ...where()]);
    assert.match(listed.stdout, /ro-ask\s+gone/);
    assert.deepEqual(snapshot(), before, `${file} and its companions are unchanged`);
  });

  it('a cut output is kept whole in the ledger, and toolgate result prints all of it', async () => {
    const cut = await runCli(['call', 'print_long_output', '{"chars":5000}', '--call-id', 'long-out', ...where(), ...fixtures()]);
    assert.equal(cut.code, 0, cut.stderr);
    assert.ok(cut.stdout.length < 5000);
    assert.match(cut.stderr, /the whole output \(5000 characters\) is kept in the ledger: toolgate result long-out/);
    const whole = await runCli(['result', 'long-out', ...where()]);
    assert.equal(whole.stdout.trimEnd().length, 5000);
  });

  it('toolgate call with the same --call-id twice runs once and prints the stored result; --no-ledger records nothing', async () => {
    const call = (marker: string, ...extra: string[]) => runCli(['call', 'append_marker', JSON.stringify({ filepath: 'runs.txt', marker }), '--call-id', 'same', ...extra, ...where().slice(0, 2), ...fixtures()]);
    const first = await call('first', '--state-dir', state);
    assert.equal(first.code, 0, first.stderr);
    const second = await call('first', '--state-dir', state);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'appended first\n');
    assert.equal(runs(), 'first\n');
    // The same id with other arguments is another request: refused, never the first result.
    const reused = await call('second', '--state-dir', state);
    assert.equal(reused.code, 1);
    assert.match(reused.stderr, /was used before for another request/);
    assert.equal(runs(), 'first\n');
    const unrecorded = await call('third', '--no-ledger');
    assert.equal(unrecorded.code, 0, unrecorded.stderr);
    assert.equal(runs(), 'first\nthird\n');
    const trace = await runCli(['trace', '--session', 'cli', ...where()]);
    assert.equal(trace.stdout.trim().split('\n').length, 1, trace.stdout);
    // The retry is marked as a replay (the refused reuse with other arguments is not one).
    assert.match(trace.stdout, / replayed 1x \(stored result returned, not run again\)$/m);
    const json = JSON.parse((await runCli(['trace', '--json', '--call', 'same', ...where()])).stdout) as Array<{ replays: number }>;
    assert.deepEqual(json.map((c) => c.replays), [1]);
  });
});
