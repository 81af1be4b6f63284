/**
 * `rateLimitRpm` holds across workers: a tool of 30 calls a minute called at once by two
 * callers through three workers starts its calls one turn (2 s) apart, whichever worker runs
 * them; the calls whose turn is past the longest wait are refused `RATE_LIMITED`, never run.
 * With TOOLGATE_DIST_RATE_FULL=1, the acceptance variant: two callers call as fast as they can
 * for two minutes, and no 60 s window holds more than 30 starts. Each on the Redis queue and on
 * the PostgreSQL queue (`--queue postgres://`: the turns taken by a PL/pgSQL function).
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

/** Start times (ms) of the calls in a marker file, sorted. */
function starts(lines: string[]): number[] {
  return lines.map((l) => Number(l.split(' ')[2])).sort((a, b) => a - b);
}

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`rateLimitRpm across workers (queue on ${kind})`, { skip: skip ?? (kind === 'PostgreSQL' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;
  const callers: QueueCaller[] = [];

  before(async () => {
    cluster = await Cluster.start(undefined, kind === 'PostgreSQL' ? (pg as PgTestServer).url : undefined);
    // Two slots each: six calls wait for turns at once, more than the 10 s wait holds.
    await Promise.all([cluster.worker('default', ['--concurrency', '2']), cluster.worker('default', ['--concurrency', '2']), cluster.worker('default', ['--concurrency', '2'])]);
    store = Ledger.open({ file: cluster.store });
    for (let i = 0; i < 2; i++) callers.push(await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace }));
  });
  after(async () => {
    for (const caller of callers) await caller.close();
    await store?.close();
    await cluster?.stop();
  });

  it('calls fired at once start one turn apart across three workers; the rest are refused unrun', async () => {
    const calls = [];
    for (let i = 0; i < 12; i++) calls.push(callers[i % 2]!.call({ name: 'append_call_id_limited', arguments: { file: 'rate.txt' }, callId: `rate-${i}` }, { session: 'rate' }));
    const results = await Promise.all(calls);
    const ran = results.filter((r) => r.success);
    const refused = results.filter((r) => !r.success);
    for (const result of refused) assert.equal(result.errorCode, 'RATE_LIMITED', result.output);
    assert.ok(refused.length > 0, 'twelve turns of 2 s do not fit in the 10 s wait');
    const lines = cluster.marker('rate.txt');
    assert.equal(lines.length, ran.length, 'every call that succeeded ran once; no refused call ran');
    const times = starts(lines);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 1900, `starts ${i - 1} and ${i} are ${times[i]! - times[i - 1]!} ms apart`);
  });

  it('acceptance: two callers as fast as they can for two minutes, no 60 s window over 30 starts', { skip: FULL ? false : 'set TOOLGATE_DIST_RATE_FULL=1 (two minutes)' }, async () => {
    const end = Date.now() + 120_000;
    let n = 0;
    const loop = async (caller: QueueCaller) => {
      while (Date.now() < end) {
        const result = await caller.call({ name: 'append_call_id_limited', arguments: { file: 'rate-full.txt' }, callId: `full-${n++}` }, { session: 'rate-full' });
        if (!result.success && result.retryAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.min(result.retryAfterMs!, 500)));
      }
    };
    await Promise.all([loop(callers[0]!), loop(callers[0]!), loop(callers[1]!), loop(callers[1]!)]);
    const times = starts(cluster.marker('rate-full.txt'));
    let worst = 0;
    for (let i = 0; i < times.length; i++) {
      let j = i;
      while (j < times.length && times[j]! < times[i]! + 60_000) j++;
      worst = Math.max(worst, j - i);
    }
    process.stdout.write(`# rate limit (${kind}): ${times.length} starts in 120 s, at most ${worst} in a 60 s window\n`);
    assert.ok(worst <= 30, `${worst} starts in one 60 s window`);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
