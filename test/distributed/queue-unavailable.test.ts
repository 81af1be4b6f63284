/**
 * A caller whose queue's server does not answer waits a bounded time (`queueWaitMs`, 30 s by
 * default) for each call's job to be added, and then ends it `QUEUE_UNAVAILABLE` (before: it
 * retried for ever): the call, recorded already, is ended in the store under the caller's hold
 * (never left pending), and its job, should it reach a worker later, does not run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { jobIdOf } from '../../src/distributed/job.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();

/** The test Redis's stop and start on the same port and folder (its restart, in two steps). */
interface TwoSteps { halt(): Promise<void>; launch(): Promise<void> }

describe('a queue that does not answer', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;

  before(async () => {
    cluster = await Cluster.start();
    store = await openCallStore(cluster.store);
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('a call whose job is not taken ends QUEUE_UNAVAILABLE, recorded, and never runs when its job comes later', { timeout: 120_000 }, async () => {
    const caller = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace, queueWaitMs: 500 });
    const redis = cluster.redis as unknown as TwoSteps;
    const key = { callId: 'unsent', session: 'qu' };
    try {
      await redis.halt();
      const result = await caller.call({ name: 'append_call_id', arguments: { file: 'unsent.txt' }, callId: key.callId }, { session: key.session });
      assert.equal(result.errorCode, 'QUEUE_UNAVAILABLE', result.output);
      assert.match(result.output, /not run, and no worker runs it later/);
      const record = await store.get(key.callId, key.session);
      assert.equal(record?.state, 'failed');
      assert.equal(record?.errorCode, 'QUEUE_UNAVAILABLE');
      // The server comes back: the add still queued in the client, and one more, reach a worker.
      await redis.launch();
      await cluster.worker();
      await caller.enqueue(key);
      await cluster.jobsHandled([jobIdOf(key)]);
      assert.deepEqual(cluster.marker('unsent.txt'), [], 'the call ended unsent never ran');
      // A retry of the key gets the recorded end.
      const again = await caller.call({ name: 'append_call_id', arguments: { file: 'unsent.txt' }, callId: key.callId }, { session: key.session });
      assert.equal(again.errorCode, 'QUEUE_UNAVAILABLE');
    } finally {
      await caller.close();
    }
  });
});
