/**
 * Workers and callers ride out a PostgreSQL restart (`pg_ctl stop -m immediate`, down a few
 * seconds, started again): a call running meanwhile ends once (`done`, or `interrupted` when
 * its lease lapsed: never run twice), a worker started while the server is down waits for it
 * and then serves, and the workers that lived through it take new calls.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallStore } from '../../src/ledger/call-store.js';
import type { QueueCaller } from '../../src/distributed/queue-caller.js';
import { jobIdOf } from '../../src/distributed/job.js';
import { Cluster, until, type WorkerProcess } from './cluster.js';
import { waitFor } from '../wait.js';
import { callerOf, closeInOrder, restartablePostgres } from './restartable-postgres.js';

const { pg, skip } = await restartablePostgres(import.meta.url);

describe('a PostgreSQL restart under workers and callers', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;
  let caller: QueueCaller;

  before(async () => {
    cluster = await Cluster.start(pg!.url);
    await Promise.all([cluster.worker(), cluster.worker()]);
    ({ store, caller } = await callerOf(cluster, 500));
  });
  after(async () => {
    await closeInOrder(caller, store, cluster, pg);
  });

  it('ends a running call once, and a worker started while the server is down serves once it is back', { timeout: 180_000 }, async () => {
    const running = caller.call({ name: 'append_call_id', arguments: { file: 'restart.txt', waitMs: 2500 }, callId: 'r-running' }, { session: 'r' });
    await until(() => cluster.marker('restart.txt').length === 1, 30_000, 'the call to start');
    // A worker started while the server is down waits for the store instead of giving up: the
    // server stays down until the worker says so (an event; a fixed 4 s down could end before a
    // loaded machine had even started the worker, and then tested nothing).
    let late: Promise<WorkerProcess> | undefined;
    await pg!.restartImmediate(async () => {
      late = cluster.worker();
      late.catch(() => undefined); // awaited below, after the restart
      const starting = cluster.workers.at(-1)!;
      await waitFor(() => /the store cannot be reached yet/.test(starting.stderr), { what: 'the worker started while PostgreSQL is down to say it waits for the store', timeoutMs: 60_000, seen: () => starting.stderr });
    });
    const worker = await late!;
    const result = await running;
    assert.ok(result.success || result.errorCode === 'INTERRUPTED', `${result.errorCode}: ${result.output}`);
    assert.ok(['done', 'interrupted'].includes((await store.get('r-running', 'r'))!.state));
    assert.match(worker.stderr, /: ready/, 'the worker started while the server was down serves');
    // Every worker takes calls after the restart: the lease keeper, LISTEN and BullMQ survived.
    const after = await Promise.all(Array.from({ length: 9 }, (_, n) => caller.call({ name: 'append_call_id', arguments: { file: 'after.txt', waitMs: 300 }, callId: `r-after-${n}` }, { session: 'r' })));
    for (const ended of after) assert.equal(ended.success, true, ended.output);
    // A job re-added for it, taken and handled by a worker: it does not run again.
    await caller.enqueue({ callId: 'r-running', session: 'r' });
    await cluster.jobsHandled([jobIdOf({ callId: 'r-running', session: 'r' })]);
    assert.equal(cluster.marker('restart.txt').length, 1, 'the call that ran through the restart never ran again');
    const ids = cluster.marker('after.txt').map((l) => l.split(' ')[0]);
    assert.equal(new Set(ids).size, 9);
    assert.equal(ids.length, 9);
  });
});
