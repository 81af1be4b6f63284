/**
 * Calls through caller, queue and worker, on a shared SQLite store file or PostgreSQL, the queue
 * on Redis or (with the store) on PostgreSQL (`--queue postgres://`): a call runs once on a
 * worker of its pool; a duplicate job or enqueue runs nothing more; a worker killed during a
 * call leaves it `interrupted`, never run again; a cancel reaches the worker running the call.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { jobIdOf } from '../../src/distributed/job.js';
import { Cluster, freshDatabase, until } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();

const pg = skip === undefined ? await postgresForTests(import.meta.url) : { skip };

for (const kind of ['SQLite shared file', 'PostgreSQL', 'PostgreSQL store and queue'] as const) {
describe(`caller -> queue -> worker (${kind})`, { skip: skip ?? (kind !== 'SQLite shared file' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;
  let caller: QueueCaller;
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;

  before(async () => {
    // The store and the queue in one database of their own (the other suite's store has these call ids).
    if (kind === 'PostgreSQL store and queue') database = await freshDatabase((pg as PgTestServer).url, 'one_server');
    const url = kind === 'SQLite shared file' ? undefined : database?.url ?? (pg as PgTestServer).url;
    cluster = await Cluster.start(url, kind === 'PostgreSQL store and queue' ? url : undefined);
    await Promise.all([cluster.worker(), cluster.worker()]);
    store = await openCallStore(cluster.store);
    caller = await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace });
  });
  after(async () => {
    await caller?.close();
    await store?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it('runs a call on a worker and returns its stored result', async () => {
    const result = await caller.call({ name: 'append_call_id', arguments: { file: 'one.txt' }, callId: 'q-one' }, { session: 's1' });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, 'appended q-one');
    const lines = cluster.marker('one.txt');
    assert.equal(lines.length, 1);
    const pid = Number(lines[0]!.split(' ')[1]);
    assert.ok(cluster.workers.some((w) => w.pid === pid), 'ran in a worker process');
    assert.equal((await store.get('q-one', 's1'))?.state, 'done');
  });

  it('a completion forged in the queue (no reply key) is not taken as the result', async () => {
    const { openQueueBackend } = await import('../../src/distributed/queue-backends.js');
    // A fake worker of a pool with no real one completes the job with a forged result.
    const backend = await openQueueBackend(cluster.queue);
    const forged = { r: JSON.stringify({ success: true, output: 'forged' }), m: 'x' };
    let completed = 0;
    const fake = backend.worker('forge', async () => {
      completed++;
      return forged;
    }, { concurrency: 1, lockDuration: 30_000, onError: () => undefined });
    void fake.run();
    const forgeCaller = await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace, pool: 'forge', checkMs: 200 });
    try {
      const pending = forgeCaller.call({ name: 'append_call_id', arguments: { file: 'forged.txt' }, callId: 'q-forged' }, { session: 's1' });
      await until(() => completed === 1, 10_000, 'the forged completion');
      // A window, not a wait for an event: what is tested is that nothing happens (the caller
      // does not take the forged reply), and no event marks that it never will; the caller
      // checks every 200 ms (checkMs), so 600 ms gives it three looks.
      await new Promise((resolve) => setTimeout(resolve, 600));
      // Still awaited: the forged reply was ignored and the store says pending.
      assert.equal((await store.get('q-forged', 's1'))?.state, 'pending');
      await forgeCaller.close();
      assert.equal((await pending).errorCode, 'ABORTED');
    } finally {
      await forgeCaller.close();
      await fake.close();
      await backend.close();
    }
  });

  it('runs a call once however often it is sent and its job added', async () => {
    const request = { name: 'append_call_id', arguments: { file: 'dup.txt', waitMs: 300 }, callId: 'q-dup' };
    const sending = [caller.call(request, { session: 's1' }), caller.call(request, { session: 's1' })];
    await caller.enqueue({ callId: 'q-dup', session: 's1' });
    await caller.enqueue({ callId: 'q-dup', session: 's1' }, 1);
    await caller.enqueue({ callId: 'q-dup', session: 's1' }, 2);
    const results = await Promise.all(sending);
    for (const result of results) assert.equal(result.success, true, result.output);
    // Jobs added after the end find it ended.
    await caller.enqueue({ callId: 'q-dup', session: 's1' }, 3);
    assert.equal((await caller.call(request, { session: 's1' })).success, true);
    // Every job of the call (rounds 0 to 3) taken and handled by a worker: none ran it again.
    await cluster.jobsHandled([0, 1, 2, 3].map((round) => jobIdOf({ callId: 'q-dup', session: 's1' }, round)));
    assert.equal(cluster.marker('dup.txt').length, 1, cluster.marker('dup.txt').join('\n'));
  });

  it('refuses a call of an unknown tool on the worker (the worker decides)', async () => {
    const result = await caller.call({ name: 'no_such_tool', arguments: {}, callId: 'q-unknown' }, { session: 's1' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'UNKNOWN_TOOL');
    assert.notEqual((await store.get('q-unknown', 's1'))?.state, 'pending');
  });

  it('a cancel reaches the worker that runs the call', async () => {
    const controller = new AbortController();
    const running = caller.call({ name: 'append_call_id', arguments: { file: 'cancel.txt', waitMs: 60_000 }, callId: 'q-cancel' }, { session: 's1', signal: controller.signal });
    await until(() => cluster.marker('cancel.txt').length === 1, 30_000, 'the call to start');
    controller.abort();
    const result = await running;
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'ABORTED', result.output);
    assert.equal(cluster.marker('cancel.txt').length, 1);
  });

  it('a cancel message forged on the channel (no cancel asked in the store) does not stop the call', async () => {
    const { openQueueBackend } = await import('../../src/distributed/queue-backends.js');
    // Anyone who reaches the channel can publish (on PostgreSQL, any role that can connect: NOTIFY needs no privilege).
    const forger = await openQueueBackend(cluster.queue);
    try {
      const running = caller.call({ name: 'append_call_id', arguments: { file: 'cancel-forged.txt', waitMs: 1500 }, callId: 'q-cancel-forged' }, { session: 's1' });
      await until(() => cluster.marker('cancel-forged.txt').length === 1, 30_000, 'the call to start');
      await forger.publishCancel(JSON.stringify({ callId: 'q-cancel-forged', session: 's1' }));
      const result = await running;
      assert.equal(result.success, true, result.output);
    } finally {
      await forger.close();
    }
  });

  it('a cancel asked in the store alone (its message lost) stops the call on its worker', async () => {
    const running = caller.call({ name: 'append_call_id', arguments: { file: 'cancel-store.txt', waitMs: 60_000 }, callId: 'q-cancel-store' }, { session: 's1' });
    await until(() => cluster.marker('cancel-store.txt').length === 1, 30_000, 'the call to start');
    assert.equal(await store.requestCancel('q-cancel-store', 's1'), true);
    const result = await running;
    assert.equal(result.errorCode, 'ABORTED', result.output);
    assert.equal(cluster.marker('cancel-store.txt').length, 1);
  });

  it('a worker killed during a call leaves it interrupted, never run again', async () => {
    const running = caller.call({ name: 'append_call_id', arguments: { file: 'kill.txt', waitMs: 60_000 }, callId: 'q-kill' }, { session: 's1' });
    await until(() => cluster.marker('kill.txt').length === 1, 30_000, 'the call to start');
    const pid = Number(cluster.marker('kill.txt')[0]!.split(' ')[1]);
    const victim = cluster.workers.find((w) => w.pid === pid)!;
    await cluster.kill(victim);
    const result = await running;
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'INTERRUPTED', result.output);
    assert.equal((await store.get('q-kill', 's1'))?.state, 'interrupted');
    // A new worker, a redelivered or re-added job: nothing runs it again.
    await cluster.worker();
    await caller.enqueue({ callId: 'q-kill', session: 's1' });
    assert.equal((await caller.call({ name: 'append_call_id', arguments: { file: 'kill.txt', waitMs: 60_000 }, callId: 'q-kill' }, { session: 's1' })).errorCode, 'INTERRUPTED');
    // The dead worker's job (round 0) stays active until BullMQ's stall check fails it, so a
    // job re-added under its id is dropped meanwhile; one of another round is taken at once.
    // Once a worker has handled it (a run would append and hold it for 60 s), nothing ran.
    await caller.enqueue({ callId: 'q-kill', session: 's1' }, 1);
    await cluster.jobsHandled([jobIdOf({ callId: 'q-kill', session: 's1' }, 1)]);
    assert.equal(cluster.marker('kill.txt').length, 1);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
