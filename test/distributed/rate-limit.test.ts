/**
 * `rateLimitRpm` holds across workers: a tool of 300 calls a minute (one turn each 200 ms, plus
 * the limiter's 100 ms margin) called at once by two callers through three workers starts its
 * calls one turn apart, whichever worker runs them; the calls whose turn is past the longest
 * wait (the workers' `--rate-limit-wait-ms`, 600 ms here, 10 s by default) are refused
 * `RATE_LIMITED`, never run. Callers calling as fast as they can for 2 s never get more than
 * rpm/60 starts into any 1 s window. With TOOLGATE_DIST_RATE_FULL=1, the acceptance variant of
 * issue 32: a tool of `rateLimitRpm: 30` called as fast as possible by two callers for two
 * minutes, and no 60 s window holds more than 30 starts. Each on the Redis queue and on the
 * PostgreSQL queue (`--queue postgres://`: the turns taken by a PL/pgSQL function).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from '../../src/ledger/store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();
const pg = skip === undefined ? await postgresForTests(import.meta.url) : { skip };
const FULL = process.env.TOOLGATE_DIST_RATE_FULL === '1';
/** The suite's fixture (`append_call_id_limited`, test/fixtures/distributed.tool.ts): its `rateLimitRpm`. */
const RPM = 300;
/** A turn's length in ms: starts are at least this far apart, less scheduling jitter. */
const TURN_MS = 60_000 / RPM;
/** The workers' longest wait for a turn, in ms: three turns (of 300 ms with the margin) fit, the fourth does not. */
const WAIT_MS = 600;
/** The acceptance's fixture (`append_call_id_limited_30`): 30 starts a minute, a turn each 2 s. */
const ACCEPTANCE_RPM = 30;

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

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`rateLimitRpm across workers (queue on ${kind})`, { skip: skip ?? (kind === 'PostgreSQL' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;
  const callers: QueueCaller[] = [];

  before(async () => {
    cluster = await Cluster.start(undefined, kind === 'PostgreSQL' ? (pg as PgTestServer).url : undefined);
    // Two slots each: six calls wait for turns at once, more than the 600 ms wait holds.
    const options = ['--concurrency', '2', '--rate-limit-wait-ms', String(WAIT_MS)];
    await Promise.all([cluster.worker('default', options), cluster.worker('default', options), cluster.worker('default', options)]);
    store = Ledger.open({ file: cluster.store });
    for (let i = 0; i < 2; i++) callers.push(await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace }));
  });
  after(async () => {
    for (const caller of callers) await caller.close();
    await store?.close();
    await cluster?.stop();
  });

  /** Four loops over the two callers calling `tool` as fast as they can until `ms` has passed; a refusal waits its `retryAfterMs` (at most one turn of `turnMs`). */
  async function hammer(tool: string, file: string, ms: number, turnMs: number): Promise<number[]> {
    const end = Date.now() + ms;
    let n = 0;
    const loop = async (caller: QueueCaller) => {
      while (Date.now() < end) {
        const result = await caller.call({ name: tool, arguments: { file }, callId: `${file}-${n++}` }, { session: file });
        if (!result.success) assert.equal(result.errorCode, 'RATE_LIMITED', result.output);
        if (!result.success && result.retryAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.min(result.retryAfterMs!, turnMs)));
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
    const times = await hammer('append_call_id_limited', 'rate-short.txt', 2000, TURN_MS);
    assert.ok(times.length >= 3, `${times.length} starts in 2 s`);
    const worst = busiestWindow(times, 1000);
    assert.ok(worst <= RPM / 60, `${worst} starts in one 1 s window`);
  });

  it('acceptance: rateLimitRpm 30, two callers as fast as they can for two minutes, no 60 s window over 30 starts', { skip: FULL ? false : 'set TOOLGATE_DIST_RATE_FULL=1 (two minutes)' }, async () => {
    const times = await hammer('append_call_id_limited_30', 'rate-full.txt', 120_000, 60_000 / ACCEPTANCE_RPM);
    const worst = busiestWindow(times, 60_000);
    process.stdout.write(`# rate limit (${kind}): ${times.length} starts in 120 s, at most ${worst} in a 60 s window\n`);
    assert.ok(times.length > ACCEPTANCE_RPM, `${times.length} starts in 120 s: the limit was reached`);
    assert.ok(worst <= ACCEPTANCE_RPM, `${worst} starts in one 60 s window`);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
