/**
 * Two ledgers on one file in one process (what the cockpit-browser test and `toolgate
 * cockpit` do: the cockpit's ledger beside an executor's), while other processes open the
 * file too. Opening the second ledger used to open and close the file's WAL and shared-memory
 * companions to set their mode, and a close drops every POSIX lock the process holds on that
 * file, SQLite's "shared memory in use" lock among them. Another process opening the ledger
 * then took this one for gone: it truncated the shared memory this process had mapped (which
 * then died of SIGBUS when it touched it: the CI run where the cockpit-browser test's process
 * died with no failing test) and, closing, deleted the WAL, so what this process wrote
 * afterwards went to a deleted file no other process saw.
 * Every process started here is killed and awaited; the folders are removed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Ledger } from 'toolgate';
import { REPO_ROOT } from '../helpers.js';
import { killChildren } from '../child-processes.js';

const INDEX = pathToFileURL(path.join(REPO_ROOT, 'dist/src/index.js')).href;
const SQLITE = import.meta.resolve('better-sqlite3');
/** The tracer (Debian's strace package, which .ci/run installs). */
const STRACE = '/usr/bin/strace';
/** strace can delay a syscall here (`-e inject=...:delay_exit=`: strace 4.22 and later, ptrace allowed). */
const STRACE_DELAY = fs.existsSync(STRACE) && spawnSync(STRACE, ['-f', '-o', '/dev/null', '-e', 'inject=ftruncate:delay_exit=1', 'true']).status === 0;

const children: ChildProcess[] = [];
const folders: string[] = [];
const ledgers: Ledger[] = [];
afterEach(async () => {
  await killChildren(children);
  for (const ledger of ledgers.splice(0)) await ledger.close();
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function place(): { state: string; ws: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-two-ledgers-'));
  folders.push(root);
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  return { state: path.join(root, 'state'), ws };
}

function open(state: string, ws: string): Ledger {
  const ledger = Ledger.open({ dir: state, workspace: ws });
  ledgers.push(ledger);
  return ledger;
}

const call = (callId: string, ws: string) => ({ callId, session: 's', tool: 'fixture', version: '1.0.0', arguments: {}, workspace: ws, turn: callId });

/** In another process: open the ledger, read the states of `ids`, close it. */
function statesElsewhere(state: string, ws: string, ids: string[]): Record<string, string | null> {
  const script = `const { Ledger } = await import(${JSON.stringify(INDEX)});
    const ledger = Ledger.open({ dir: ${JSON.stringify(state)}, workspace: ${JSON.stringify(ws)} });
    const states = {};
    for (const id of ${JSON.stringify(ids)}) states[id] = (await ledger.get(id, 's'))?.state ?? null;
    await ledger.close();
    console.log(JSON.stringify(states));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, string | null>;
}

/** The ledger file of `state` (one workspace: one file). */
function ledgerFile(state: string): string {
  return path.join(state, fs.readdirSync(state).find((name) => name.endsWith('.sqlite'))!);
}

describe('two ledgers on one file in one process', () => {
  it('what this process records after another process opened and closed the ledger is seen by other processes', async () => {
    const { state, ws } = place();
    const first = open(state, ws);
    open(state, ws);
    await first.record(call('before', ws));
    assert.deepEqual(statesElsewhere(state, ws, ['before']), { before: 'pending' });
    await first.record(call('after', ws));
    assert.deepEqual(statesElsewhere(state, ws, ['before', 'after']), { before: 'pending', after: 'pending' }, 'the second record went to a WAL another process had deleted');
  });

  it('this process keeps its lock on the shared-memory file (SQLite\'s "in use" byte, 128)', { skip: fs.existsSync('/proc/locks') ? false : 'no /proc/locks (not Linux)' }, async () => {
    const { state, ws } = place();
    const first = open(state, ws);
    await first.pendingApprovals();
    open(state, ws);
    await first.pendingApprovals();
    const inode = fs.statSync(`${ledgerFile(state)}-shm`).ino;
    const mine = fs.readFileSync('/proc/locks', 'utf8').split('\n').map((line) => line.trim().split(/\s+/))
      .filter((f) => f[4] === String(process.pid) && f[5]?.endsWith(`:${inode}`));
    assert.ok(mine.some((f) => f[6] === '128'), `locks of this process on the -shm file: ${JSON.stringify(mine)}`);
  });

  it('a process holding two ledgers survives another process that opens the file slowly (no SIGBUS)', { skip: STRACE_DELAY ? false : 'strace cannot delay a syscall here' }, async () => {
    const { state, ws } = place();
    // The holder: two ledgers on the file, reading every 20 ms.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `const { Ledger } = await import(${JSON.stringify(INDEX)});
      const first = Ledger.open({ dir: ${JSON.stringify(state)}, workspace: ${JSON.stringify(ws)} });
      const call = ${JSON.stringify(call('c', ws))};
      for (let i = 0; i < 50; i++) await first.record({ ...call, callId: 'c' + i, turn: 'c' + i });
      Ledger.open({ dir: ${JSON.stringify(state)}, workspace: ${JSON.stringify(ws)} });
      console.log('ready');
      setInterval(() => void first.get('c1', 's'), 20);`], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(holder);
    let said = '';
    holder.stdout!.on('data', (d) => (said += d));
    holder.stderr!.on('data', (d) => (said += d));
    while (!said.includes('ready')) {
      if (holder.exitCode !== null || holder.signalCode !== null) assert.fail(`the holder ended early: ${said}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Another process opens the file; strace holds each ftruncate it makes for a second: the
    // window in which a process that found nobody's lock has cut the shared memory short.
    const opener = `const { default: Database } = await import(${JSON.stringify(SQLITE)});
      const db = new Database(${JSON.stringify(ledgerFile(state))});
      db.pragma('journal_mode = WAL');
      db.prepare('SELECT count(*) FROM calls').get();
      db.close();`;
    const traced = spawn(STRACE, ['-f', '-o', '/dev/null', '-e', 'inject=ftruncate:delay_exit=1000000', process.execPath, '--input-type=module', '-e', opener], { stdio: 'ignore' });
    children.push(traced);
    const code = await new Promise((resolve) => traced.once('exit', resolve));
    assert.equal(code, 0);
    // Past its next reads.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual({ code: holder.exitCode, signal: holder.signalCode }, { code: null, signal: null }, `the holder died: ${said}`);
  });
});
