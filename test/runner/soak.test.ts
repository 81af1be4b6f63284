/**
 * Soak: many mixed calls (successes, throws, timeouts, memory breaches, crashes, huge outputs)
 * through the default runner at once. Every call gets exactly one result (one `tool_call`
 * event per call id, and one answer), the host survives, and no call whose tool left its mark
 * on disk is reported as not run. `npm test` runs 400 calls; `TOOLGATE_SOAK=1` runs 10,000
 * (CI does, in its own step).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { ToolExecutor, type ToolCallRequest } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

const CALLS = process.env.TOOLGATE_SOAK === '1' ? 10_000 : 400;
const IN_FLIGHT = 16;

/** The mix, by weight out of 1000; a call's kind is chosen by its index, so runs repeat. */
const MIX: Array<[weight: number, kind: string]> = [
  [700, 'ok'],
  [100, 'throw'],
  [60, 'marker'],
  [50, 'timeout'],
  [40, 'huge'],
  [20, 'crash'],
  [20, 'marker_crash'],
  [10, 'memory'],
];

function kindOf(index: number): string {
  let n = (index * 7919) % 1000;
  for (const [weight, kind] of MIX) {
    if (n < weight) return kind;
    n -= weight;
  }
  return 'ok';
}

function request(kind: string, i: number): ToolCallRequest & { callId: string } {
  const callId = `soak-${i}`;
  switch (kind) {
    case 'throw':
      return { name: 'fail_always', arguments: { message: `failure ${i}` }, callId };
    case 'marker':
      return { name: 'write_marker', arguments: { name: `m-${i}` }, callId };
    case 'timeout':
      return { name: 'sleep_briefly', arguments: { ms: 5000 }, callId }; // its timeout is 100 ms
    case 'huge':
      return { name: 'print_long_output', arguments: { chars: 2_000_000 }, callId };
    case 'crash':
      return { name: 'crash_worker', arguments: {}, callId };
    case 'marker_crash':
      return { name: 'write_marker_then_crash', arguments: { name: `m-${i}` }, callId };
    case 'memory':
      return { name: 'allocate_shape_capped', arguments: { shape: 'array_push' }, callId };
    default:
      return { name: 'answer_at_once', arguments: { text: `call ${i}` }, callId };
  }
}

const EXPECTED: Record<string, (code: string | undefined) => boolean> = {
  ok: (code) => code === undefined,
  throw: (code) => code === 'TOOL_ERROR',
  marker: (code) => code === undefined,
  timeout: (code) => code === 'TIMEOUT',
  huge: (code) => code === undefined,
  crash: (code) => code === 'WORKER_CRASHED',
  marker_crash: (code) => code === 'WORKER_CRASHED',
  memory: (code) => code === 'MEMORY_LIMIT',
};

test(`soak: ${CALLS} mixed calls, exactly one result each, none that ran reported as not run`, { timeout: 60 * 60_000 }, async () => {
  const events = new Map<string, number>();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue;
        const event = JSON.parse(line) as { event?: string; callId?: string };
        if (event.event === 'tool_call' && event.callId) events.set(event.callId, (events.get(event.callId) ?? 0) + 1);
      }
      done();
    },
  });
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-soak-'));
  const executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: ws, poolSize: 2, logger: pino({ level: 'info' }, sink) });
  const answers = new Map<string, number>();
  const wrong: string[] = [];
  try {
    let next = 0;
    const worker = async () => {
      while (next < CALLS) {
        const i = next++;
        const kind = kindOf(i);
        const call = request(kind, i);
        const result = await executor.execute(call);
        answers.set(call.callId, (answers.get(call.callId) ?? 0) + 1);
        if (!EXPECTED[kind]!(result.errorCode)) wrong.push(`${call.callId} (${kind}): ${result.errorCode} ${String(result.error).slice(0, 200)}`);
        if ((kind === 'marker' || kind === 'marker_crash') && fs.existsSync(path.join(ws, `m-${i}`)) && /not run|never started/.test(String(result.error))) {
          wrong.push(`${call.callId} (${kind}): its tool ran, yet the result says: ${result.error}`);
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await executor.close();
    fs.rmSync(ws, { recursive: true, force: true });
  }
  assert.deepEqual(wrong, []);
  assert.equal(answers.size, CALLS);
  assert.ok([...answers.values()].every((n) => n === 1));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(events.size, CALLS, 'one tool_call event per call id');
  assert.deepEqual([...events].filter(([, n]) => n !== 1), [], 'no call id logged twice');
});
