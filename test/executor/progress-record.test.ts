/**
 * Issue 34: the executor records the latest progress of a recorded call in its ledger, for the
 * cockpit, whoever calls: a `main`-runner tool's progress without any caller client (the SDK),
 * a worker thread's when the caller gave a client (which is still told every message), the
 * first message at once and later ones at most once a second; nothing without a ledger to
 * write, and a log line below `info` is not progress.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ledger, ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

let registry: ToolRegistry;
let dir: string;
let ledger: Ledger;
let executor: ToolExecutor;
before(async () => {
  registry = await fixtureRegistry();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-progress-record-'));
  ledger = Ledger.open({ dir: path.join(dir, 'state'), workspace: dir });
  executor = new ToolExecutor(registry, { workspaceRoot: dir, ledger, session: 'S', sweepLeftovers: false });
});
after(async () => {
  await executor.close();
  await ledger.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const progressOf = async (callId: string) => (await ledger.events(callId, 'S')).filter((e) => e.kind === 'progress').map((e) => e.detail);

describe('the executor records a running call\'s latest progress', () => {
  it('a main-runner tool called with no client: its first progress is in the ledger, the rest throttled', async () => {
    const result = await executor.call('talk_to_caller_main', {}, { callId: 'main-1' });
    assert.equal(result.success, true, result.output);
    const progress = await progressOf('main-1');
    assert.deepEqual(progress[0], { done: 1, total: 3, message: 'started' });
    assert.equal(progress.length, 1, `the later messages came within a second and the call ended: ${JSON.stringify(progress)}`);
  });

  it('a message after a pause is written too, at the end of its period; the caller\'s client still hears every message', async () => {
    const heard: string[] = [];
    const client = { progress: (done: number) => heard.push(`p${done}`), log: (level: string) => heard.push(level) };
    const result = await executor.call('talk_to_caller_pool', { pauseMs: 1500 }, { callId: 'pool-1', client });
    assert.equal(result.success, true, result.output);
    assert.deepEqual(heard, ['p1', 'debug', 'info', 'p2', 'p3', 'warning']);
    const progress = await progressOf('pool-1');
    assert.deepEqual(progress[0], { done: 1, total: 3, message: 'started' });
    // The info log line and progress 2/3 came in the first second: the latest of them, 2/3, is written at its end.
    assert.deepEqual(progress[1], { done: 2, total: 3 });
  });

  it('a worker-thread tool called with no client records none (relaying would cost every call a message round)', async () => {
    const result = await executor.call('talk_to_caller_pool', {}, { callId: 'pool-2' });
    assert.equal(result.success, true, result.output);
    assert.deepEqual(await progressOf('pool-2'), []);
  });
});
