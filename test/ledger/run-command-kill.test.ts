/**
 * Issue 16's acceptance line "kill -9 during a 60 s run_command; restart; toolgate trace shows
 * it interrupted; it did not run again", with the real `run_command` through the CLI (a state
 * folder in a temp folder): the command appends a marker to a workspace file, then sleeps
 * 60 s; the `toolgate call` process is killed with SIGKILL; then
 * - the command's sleep is gone within a few seconds (the lifeline of `command-process.ts`:
 *   it must not outlive its toolgate, sandboxed or not);
 * - `toolgate trace` shows the call `interrupted`;
 * - the same call id again prints the stored interrupted result and runs nothing; a second
 *   trace (another recovery) changes nothing; the marker is in the file exactly once.
 * Sandboxed by bubblewrap when it is there; without it (`TOOLGATE_BWRAP=/nonexistent/bwrap`),
 * the sandboxed call is checked to be refused with `SANDBOX_UNAVAILABLE` instead. The
 * unsandboxed run (`--dangerously-disable-sandbox`) is tested either way.
 * Every process started here is killed and awaited; the folders are removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { bubblewrapAvailable } from '../../src/internal.js';
import { BIN, runCli } from '../helpers.js';
import { killChildren } from '../child-processes.js';

const HAS_BWRAP = bubblewrapAvailable();

let root: string;
let ws: string;
let state: string;
const children: ChildProcess[] = [];
/** A token in the sleep's command line, to find it (and kill it, should the test fail) from here. */
let token: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-run-kill-'));
  ws = path.join(root, 'ws');
  state = path.join(root, 'state');
  fs.mkdirSync(ws);
  // A sleep of 60 s and a few random thousandths: its command line is unique to this test.
  token = `60.${crypto.randomInt(100, 999)}`;
});
afterEach(async () => {
  await killChildren(children);
  for (const pid of sleepers()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** Pids of processes running `sleep <token>` (seen from this pid namespace). */
function sleepers(): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline === `sleep\0${token}\0`) found.push(Number(entry));
  }
  return found;
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const MARKERS = 'markers.txt';
const callArgs = () => JSON.stringify({ command: `echo ran >> ${MARKERS}; sleep ${token}; echo slept >> ${MARKERS}`, timeout_ms: 120_000 });
const where = () => ['--workspace', ws, '--state-dir', state];

function markers(): string[] {
  const file = path.join(ws, MARKERS);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Start `toolgate call run_command` (a 60 s command), wait for its marker, kill it with SIGKILL; check the sleep goes too. */
async function killDuringRun(extra: string[]): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'call', 'run_command', callArgs(), '--yes', '--call-id', 'long-run', ...where(), ...extra], { stdio: 'ignore' });
  children.push(child);
  await waitFor(() => markers().length === 1 && sleepers().length === 1, 'the command to start (its marker and its sleep)', 60_000);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  await waitFor(() => sleepers().length === 0, 'the sleep to end with its killed toolgate', 10_000);
}

/** After the kill: trace shows the owner gone; a restart recovers it; trace shows it interrupted; the same call id runs nothing again; the marker is there once. */
async function checkInterruptedOnce(): Promise<void> {
  // trace only reads (it never recovers): before a restart the call shows its owner gone.
  const before = await runCli(['trace', ...where()]);
  assert.equal(before.code, 0, before.stderr);
  assert.match(before.stdout, /long-run\s+run_command@1\.0\.0\s+running \(owner gone\)/);
  // The restart: a writing toolgate recovers the call; the same call id answers the stored result.
  const again = await runCli(['call', 'run_command', callArgs(), '--yes', '--call-id', 'long-run', ...where()]);
  assert.notEqual(again.code, 0);
  assert.match(again.stdout + again.stderr, /interrupted: toolgate stopped while this call ran; the tool may have run/);
  const trace = await runCli(['trace', ...where()]);
  assert.equal(trace.code, 0, trace.stderr);
  assert.match(trace.stdout, /long-run\s+run_command@1\.0\.0\s+interrupted/);
  const traced = await runCli(['trace', '--call', 'long-run', '--json', ...where()]);
  assert.equal(traced.code, 0, traced.stderr);
  assert.match(traced.stdout, /"state":\s*"interrupted"/);
  // Give a wrongly started second run time to leave its marker.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(markers(), ['ran'], 'the command ran once, and never finished');
  assert.deepEqual(sleepers(), []);
}

describe('kill -9 during a 60 s run_command (issue 16 acceptance)', () => {
  it('sandboxed: the sleep goes with its toolgate; trace shows the call interrupted; it did not run again', { skip: process.platform !== 'linux' ? 'needs Linux (/proc)' : false }, async () => {
    if (!HAS_BWRAP) {
      // Without bubblewrap (TOOLGATE_BWRAP=/nonexistent/bwrap in CI), the sandboxed call is refused, and nothing runs.
      const refused = await runCli(['call', 'run_command', callArgs(), '--yes', '--call-id', 'long-run', ...where()]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stdout + refused.stderr, /sandbox unavailable/);
      assert.deepEqual(markers(), []);
      return;
    }
    await killDuringRun([]);
    await checkInterruptedOnce();
  });

  it('unsandboxed (--dangerously-disable-sandbox): the command\'s sleep does not outlive the killed toolgate either', { skip: process.platform !== 'linux' ? 'needs Linux (/proc)' : false }, async () => {
    await killDuringRun(['--dangerously-disable-sandbox']);
    await checkInterruptedOnce();
  });
});
