/**
 * A worker whose store (PostgreSQL) goes down while its calls run, for longer than the store's
 * retry of a lost connection (`retryMs`, here 1 s; 15 s by default): the ends of the calls that
 * ran are kept by the worker and written once the server is back, and the worker lives on
 * (before: a second call ending while the first's end was still queued rejected the worker's
 * flush, an unhandled rejection that ended the worker process; both calls, which had run, then
 * ended `interrupted`). Each call ran once and its caller gets its result.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { CallStore } from '../../src/ledger/call-store.js';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import type { ServedQueue } from '../../src/distributed/serve.js';
import type { QueueCaller } from '../../src/distributed/queue-caller.js';
import { Cluster } from './cluster.js';
import { waitFor } from '../wait.js';
import { callerOf, closeInOrder, restartablePostgres, serveFixtureTools } from './restartable-postgres.js';

const { pg, skip } = await restartablePostgres(import.meta.url);

describe('a worker whose store goes down while its calls run', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let workerStore: PostgresStore;
  let served: ServedQueue;
  let store: CallStore;
  let caller: QueueCaller;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  before(async () => {
    process.on('unhandledRejection', onRejection);
    cluster = await Cluster.start(pg!.url);
    // The store's retry is short, so that the test outlasts it without waiting 15 s; the lease
    // is longer than the server is down, so that the calls' ends, not a lapsed lease, decide.
    workerStore = await PostgresStore.open({ url: cluster.store, retryMs: 1000 });
    served = await serveFixtureTools(cluster, workerStore, { concurrency: 2, leaseMs: 120_000 });
    ({ store, caller } = await callerOf(cluster, 500));
  });
  after(async () => {
    process.off('unhandledRejection', onRejection);
    await closeInOrder(caller, store, served, workerStore, cluster, pg);
  });

  it('keeps the ends of the calls that ran and writes them once the server is back', { timeout: 120_000 }, async () => {
    const session = 'down';
    const first = caller.call({ name: 'append_call_id', arguments: { file: 'down.txt', waitMs: 1500 }, callId: 'd-first' }, { session });
    const second = caller.call({ name: 'append_call_id', arguments: { file: 'down.txt', waitMs: 5000 }, callId: 'd-second' }, { session });
    await waitFor(() => cluster.marker('down.txt').length === 2, { what: 'both calls to start' });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      await pg!.restartImmediate(async () => {
        // Down until both tools ended, their ends queued (the second given while the first's
        // was queued) and both jobs handed back, or a rejection went unhandled.
        await waitFor(() => rejections.length > 0 || (served.worker.runningCalls === 0 && warnings.some((w) => /call ends cannot be written yet/.test(w))), {
          what: 'the worker to keep both ends while the server is down', timeoutMs: 60_000, seen: () => `${served.worker.runningCalls} running; ${warnings.join('\n')}`,
        });
      });
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(rejections.map(String), [], 'no rejection went unhandled in the worker');
    const results = await Promise.all([first, second]);
    for (const result of results) assert.equal(result.success, true, `${result.errorCode}: ${result.output}`);
    assert.equal((await store.get('d-first', session))?.state, 'done');
    assert.equal((await store.get('d-second', session))?.state, 'done');
    assert.deepEqual(fs.readFileSync(`${cluster.workspace}/down.txt`, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')[0]).sort(), ['d-first', 'd-second']);
    // The worker lives on: it takes a new call.
    const after = await caller.call({ name: 'append_call_id', arguments: { file: 'after.txt' }, callId: 'd-after' }, { session });
    assert.equal(after.success, true, after.output);
  });
});
