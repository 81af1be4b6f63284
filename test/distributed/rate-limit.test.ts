/**
 * `rateLimitRpm` holds across workers: a tool of 300 calls a minute (one turn each 200 ms, plus
 * the limiter's 100 ms margin) called at once by two callers through three workers starts its
 * calls one turn apart, whichever worker runs them; the calls whose turn is past the longest
 * wait (the workers' `--rate-limit-wait-ms`, 600 ms here, 10 s by default) are refused
 * `RATE_LIMITED`, never run. Callers calling as fast as they can for 2 s never get more than
 * rpm/60 starts into any 1 s window. With TOOLGATE_DIST_RATE_FULL=1, the acceptance variant:
 * the same for two minutes, and no 60 s window holds more than rpm starts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from '../../src/ledger/store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();
const FULL = process.env.TOOLGATE_DIST_RATE_FULL === '1';
/** The fixture's `rateLimitRpm` (test/fixtures/distributed.tool.ts). */
const RPM = 300;
/** A turn's length in ms: starts are at least this far apart, less scheduling jitter. */
const TURN_MS = 60_000 / RPM;
/** The workers' longest wait for a turn, in ms: three turns (of 300 ms with the margin) fit, the fourth does not. */
const WAIT_MS = 600;

/** Start times (ms) of the calls in a marker file, sorted. */
function starts(lines: string[]): number[] {
  return lines.map((l) => Number(l.split(' ')[2])).sort((a, b) => a - b);
}

/** The most starts in any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  let worst = 0;
  for (let i = 0; i < times.length; i++) {
    let j = i;
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    worst = Math.max(worst, j - i);
  }
  return worst;
}

describe('rateLimitRpm across workers', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;
  const callers: QueueCaller[] = [];

  before(async () => {
    cluster = await Cluster.start();
    // Two slots each: six calls wait for turns at once, more than the 600 ms wait holds.
    const options = ['--concurrency', '2', '--rate-limit-wait-ms', String(WAIT_MS)];
    await Promise.all([cluster.worker('default', options), cluster.worker('default', options), cluster.worker('default', options)]);
    store = Ledger.open({ file: cluster.store });
    for (let i = 0; i < 2; i++) callers.push(await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace }));
  });
  after(async () => {
    for (const caller of callers) await caller.close();
    await store?.close();
    await cluster?.stop();
  });

  /** Four loops over the two callers calling as fast as they can until `ms` has passed; a refusal waits its `retryAfterMs` (at most one turn). */
  async function hammer(file: string, ms: number): Promise<number[]> {
    const end = Date.now() + ms;
    let n = 0;
    const loop = async (caller: QueueCaller) => {
      while (Date.now() < end) {
        const result = await caller.call({ name: 'append_call_id_limited', arguments: { file }, callId: `${file}-${n++}` }, { session: file });
        if (!result.success) assert.equal(result.errorCode, 'RATE_LIMITED', result.output);
        if (!result.success && result.retryAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.min(result.retryAfterMs!, TURN_MS)));
      }
    };
    await Promise.all([loop(callers[0]!), loop(callers[0]!), loop(callers[1]!), loop(callers[1]!)]);
    return starts(cluster.marker(file));
  }

  it('calls fired at once start one turn apart across three workers; the rest are refused unrun', async () => {
    const calls = [];
    for (let i = 0; i < 12; i++) calls.push(callers[i % 2]!.call({ name: 'append_call_id_limited', arguments: { file: 'rate.txt' }, callId: `rate-${i}` }, { session: 'rate' }));
    const results = await Promise.all(calls);
    const ran = results.filter((r) => r.success);
    const refused = results.filter((r) => !r.success);
    for (const result of refused) assert.equal(result.errorCode, 'RATE_LIMITED', result.output);
    assert.ok(refused.length > 0, 'twelve turns of 300 ms do not fit in the 600 ms wait');
    assert.ok(ran.length >= 2, `${ran.length} calls ran: the turns of 0 and 300 ms fit in the wait`);
    const lines = cluster.marker('rate.txt');
    assert.equal(lines.length, ran.length, 'every call that succeeded ran once; no refused call ran');
    const times = starts(lines);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= TURN_MS - 100, `starts ${i - 1} and ${i} are ${times[i]! - times[i - 1]!} ms apart`);
  });

  it('two callers as fast as they can for 2 s: no 1 s window over rpm/60 starts', async () => {
    const times = await hammer('rate-short.txt', 2000);
    assert.ok(times.length >= 3, `${times.length} starts in 2 s`);
    const worst = busiestWindow(times, 1000);
    assert.ok(worst <= RPM / 60, `${worst} starts in one 1 s window`);
  });

  it('acceptance: two callers as fast as they can for two minutes, no 60 s window over rpm starts', { skip: FULL ? false : 'set TOOLGATE_DIST_RATE_FULL=1 (two minutes)' }, async () => {
    const times = await hammer('rate-full.txt', 120_000);
    const worst = busiestWindow(times, 60_000);
    process.stdout.write(`# rate limit: ${times.length} starts in 120 s, at most ${worst} in a 60 s window\n`);
    assert.ok(worst <= RPM, `${worst} starts in one 60 s window`);
  });
});
