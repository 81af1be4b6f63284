/**
 * Kill soak of the call ledger (issue 16 item 7), through real processes: mixed load against
 * one workspace and state folder, with a process killed by SIGKILL at a random moment
 * `TOOLGATE_SOAK_KILLS` times (default 50), on three lanes at once:
 * - most rounds run `toolgate call append_marker` with a `--call-id` and `--session soak`
 *   (a new call id, or the retry of one whose process was killed), sleeping 0-1500 ms after
 *   appending its unique marker;
 * - every fourth round starts `toolgate mcp --approve always-ask` and creates an MCP task for
 *   `append_marker`: its question waits in the ledger (the client cannot be asked).
 * Then every question still waiting is answered with `toolgate approvals allow` (the asking
 * process is gone: the call runs there), and every CLI call id is retried once more, unkilled.
 * Checks: every recorded call ended `done`, `failed`, `interrupted` or `denied` (none left
 * `running` or `pending`); no marker was appended twice (no side effect happened twice); every
 * call id that ended `done` appended its marker once; every question that was stored was
 * answered and its call ran once (no approval lost).
 *
 * Runs only with `TOOLGATE_SOAK=1` (CI runs it in its own step, about 4 minutes on 2 cores);
 * otherwise skipped. Every process is killed and awaited; the folders are removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ledger } from 'toolgate';
import { TASK_SESSION } from '../../src/mcp/tasks.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, runCli } from '../helpers.js';

const SOAK = process.env.TOOLGATE_SOAK === '1';
const KILLS = Number(process.env.TOOLGATE_SOAK_KILLS ?? 50);
const LANES = 3;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-kill-soak-'));
const ws = path.join(root, 'ws');
const state = path.join(root, 'state');
fs.mkdirSync(ws);
const live = new Set<ChildProcess>();
after(async () => {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

const where = ['--workspace', ws, '--state-dir', state];
const fixtures = ['--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'];
const MARKERS = 'markers.txt';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A seeded generator, so that a failing run can be repeated (`TOOLGATE_SOAK_SEED`). */
const SEED = Number(process.env.TOOLGATE_SOAK_SEED ?? Date.now() % 1_000_000);
let seed = SEED;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

/** What the soak did, for the checks and the numbers it prints. */
const stats = { kills: 0, missed: 0, cliRuns: 0, tasks: 0, allowed: 0, retried: 0 };
/** CLI call ids and their markers; a killed one is retried with the same id and marker. */
const cliCalls = new Map<string, string>();
const retryQueue: string[] = [];
/** How long CLI runs took unkilled, to aim the kills (ms). */
let typicalMs = 4000;

function startCall(callId: string, marker: string, sleepMs: number): ChildProcess {
  const args = JSON.stringify({ filepath: MARKERS, marker, sleep_ms: sleepMs });
  const child = spawn(process.execPath, [BIN, 'call', 'append_marker', args, '--call-id', callId, '--session', 'soak', ...where, ...fixtures], { stdio: 'ignore' });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** SIGKILL `child` after `delayMs` unless it ended first; whether it was killed. */
async function killAfter(child: ChildProcess, delayMs: number): Promise<boolean> {
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  const first = await Promise.race([exited.then(() => 'exited'), sleep(delayMs).then(() => 'time')]);
  if (first === 'exited') return false;
  child.kill('SIGKILL');
  await exited;
  return true;
}

/** Whether `marker` is in the markers file (the tool ran). */
function appended(marker: string): boolean {
  try {
    return fs.readFileSync(path.join(ws, MARKERS), 'utf8').includes(`${marker}\n`);
  } catch {
    return false;
  }
}

/**
 * One CLI round: a new call id or a retry, killed at a random moment: while the process starts
 * (the call not recorded yet), while its tool sleeps after appending (the call `running`: it
 * is recovered `interrupted`), or anywhere up to a little past a typical run.
 */
async function cliRound(lane: number, round: number): Promise<void> {
  let callId = retryQueue.shift();
  if (callId === undefined || random() < 0.3) {
    if (callId !== undefined) retryQueue.push(callId);
    callId = `c${lane}-${round}`;
    cliCalls.set(callId, `marker-${callId}`);
  } else {
    stats.retried++;
  }
  stats.cliRuns++;
  const started = Date.now();
  const marker = cliCalls.get(callId)!;
  const sleepMs = 200 + Math.floor(random() * 1300);
  const child = startCall(callId, marker, sleepMs);
  const phase = random();
  let delay: number;
  if (phase < 0.35) {
    delay = Math.floor(random() * typicalMs * 0.6);
  } else if (phase < 0.75) {
    const deadline = Date.now() + 60_000;
    while (!appended(marker) && child.exitCode === null && Date.now() < deadline) await sleep(10);
    delay = Math.floor(random() * sleepMs);
  } else {
    delay = Math.floor(random() * typicalMs * 1.3);
  }
  if (await killAfter(child, delay)) {
    stats.kills++;
    retryQueue.push(callId);
  } else {
    stats.missed++;
    typicalMs = Math.round(typicalMs * 0.7 + (Date.now() - started) * 0.3);
  }
}

/** One MCP round: a task whose question waits in the ledger, its server killed at a random moment. */
async function mcpRound(lane: number, round: number): Promise<void> {
  const client = new Client({ name: 'kill-soak', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--approve', 'always-ask', ...where, ...fixtures], stderr: 'ignore' });
  await client.connect(transport);
  const pid = transport.pid!;
  try {
    await client.request({ method: 'tools/call', params: { name: 'append_marker', arguments: { filepath: MARKERS, marker: `task-${lane}-${round}` }, task: {} } }, CreateTaskResultSchema);
    stats.tasks++;
    await sleep(Math.floor(random() * 600));
  } finally {
    process.kill(pid, 'SIGKILL');
    stats.kills++;
    await client.close().catch(() => undefined);
  }
}

async function lane(index: number, kills: number): Promise<void> {
  for (let round = 0; stats.kills < KILLS && round < kills * 4; round++) {
    if (round % 4 === 3) await mcpRound(index, round);
    else await cliRound(index, round);
  }
}

describe('ledger kill soak (TOOLGATE_SOAK=1)', { skip: SOAK ? false : 'set TOOLGATE_SOAK=1 to run the kill soak' }, () => {
  it(`${KILLS} SIGKILLs over mixed load: no call left running, no side effect twice, no approval lost`, { timeout: 15 * 60_000 }, async () => {
    const began = Date.now();
    // Calibration: how long an unkilled run takes here (aims the kills).
    const calibration = Date.now();
    await new Promise<void>((resolve) => startCall('calibration', 'marker-calibration', 0).once('exit', () => resolve()));
    typicalMs = Date.now() - calibration;
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i, Math.ceil(KILLS / LANES))));

    // Every question still waiting: allowed from another process (its asker is gone), so it runs here, once.
    const questions = JSON.parse((await runCli(['approvals', '--json', ...where])).stdout) as Array<{ id: number; callId: string }>;
    for (let i = 0; i < questions.length; i += 3) {
      await Promise.all(questions.slice(i, i + 3).map(async (q) => {
        const allowed = await runCli(['approvals', 'allow', String(q.id), ...where, ...fixtures]);
        assert.equal(allowed.code, 0, `approvals allow ${q.id}: ${allowed.stdout}${allowed.stderr}`);
        stats.allowed++;
      }));
    }
    // Every CLI call id once more, unkilled: one not recorded yet runs now; any other returns its stored result.
    const ids = [...cliCalls.keys()];
    for (let i = 0; i < ids.length; i += 4) {
      await Promise.all(ids.slice(i, i + 4).map((id) => new Promise<void>((resolve) => startCall(id, cliCalls.get(id)!, 0).once('exit', () => resolve()))));
    }

    const ledger = Ledger.open({ dir: state, workspace: ws });
    try {
      const calls = [...(await ledger.list({ session: 'soak', limit: 100_000 })), ...(await ledger.list({ session: TASK_SESSION, limit: 100_000 }))];
      const byState: Record<string, number> = {};
      for (const c of calls) byState[c.state] = (byState[c.state] ?? 0) + 1;
      const markers = fs.existsSync(path.join(ws, MARKERS)) ? fs.readFileSync(path.join(ws, MARKERS), 'utf8').split('\n').filter(Boolean) : [];
      const counts = new Map<string, number>();
      for (const m of markers) counts.set(m, (counts.get(m) ?? 0) + 1);
      const twice = [...counts].filter(([, n]) => n > 1);
      console.log(`kill soak (seed ${SEED}): ${stats.kills} kills (${stats.missed} runs ended before their kill), ${stats.cliRuns} CLI runs (${stats.retried} retries of killed call ids), `
        + `${stats.tasks} MCP tasks, ${stats.allowed} questions allowed afterwards; ${calls.length} calls recorded: ${JSON.stringify(byState)}; ${markers.length} markers; ${Math.round((Date.now() - began) / 1000)} s`);

      assert.ok(stats.kills >= KILLS, `only ${stats.kills} kills`);
      assert.deepEqual(twice, [], 'no side effect happened twice');
      assert.deepEqual(calls.filter((c) => c.state === 'running' || c.state === 'pending').map((c) => `${c.callId}: ${c.state}`), [], 'every started call ended');
      assert.deepEqual((await ledger.pendingApprovals()), [], 'no question left waiting');
      for (const id of ids) {
        const record = await ledger.get(id, 'soak');
        assert.ok(record !== undefined, `call ${id} was run again until recorded`);
        if (record.state === 'done') assert.equal(counts.get(cliCalls.get(id)!), 1, `call ${id} ended done: its marker once`);
        assert.ok(record.state === 'done' || record.state === 'interrupted', `call ${id}: ${record.state} (${record.errorCode})`);
      }
      // No approval lost: every task call that was asked about ran once, on its answer.
      for (const task of (await ledger.list({ session: TASK_SESSION, limit: 100_000 }))) {
        const asked = (await ledger.events(task.callId, TASK_SESSION)).some((e) => e.kind === 'asked');
        if (!asked) continue;
        assert.equal(task.state, 'done', `task ${task.callId} was asked about and allowed: ${task.state} ${task.errorCode ?? ''}`);
        const marker = (task.arguments as { marker: string }).marker;
        assert.equal(counts.get(marker), 1, `task ${task.callId} ran once`);
      }
    } finally {
      await ledger.close();
    }
  });
});
