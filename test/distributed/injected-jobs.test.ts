/**
 * A job in Redis is untrusted input (anyone who can write to Redis can add one). Jobs injected
 * straight into a pool's queue run nothing undecided: one naming no stored call, one naming a
 * call of no pool (an agent's own pending call in the shared store), one naming a queued call
 * parked on an unanswered question, and one carrying another tool and arguments beside the key
 * of a stored call (the worker runs the stored call, never the job's fields).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from 'toolgate';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { Cluster, until } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();

describe('jobs injected into the queue', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;
  let caller: QueueCaller;
  let inject: (data: Record<string, unknown>, jobId: string) => Promise<void>;
  let closeQueue: () => Promise<void>;

  before(async () => {
    cluster = await Cluster.start();
    await cluster.worker('default');
    store = Ledger.open({ file: cluster.store });
    caller = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace });
    const { Queue, QueueEvents } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const { queueName } = await import('../../src/distributed/job.js');
    const connection = new Redis(cluster.redis.url, { maxRetriesPerRequest: null });
    const eventsConnection = new Redis(cluster.redis.url, { maxRetriesPerRequest: null });
    const events = new QueueEvents(queueName('default'), { connection: eventsConnection });
    await events.waitUntilReady();
    const queue = new Queue(queueName('default'), { connection });
    inject = async (data, jobId) => {
      const job = await queue.add('call', data, { jobId, attempts: 1 });
      await job.waitUntilFinished(events, 30_000);
    };
    closeQueue = async () => {
      await queue.close();
      await events.close();
      eventsConnection.disconnect();
      connection.disconnect();
    };
  });
  after(async () => {
    await closeQueue?.();
    await caller?.close();
    await store?.close();
    await cluster?.stop();
  });

  it('a job naming no stored call, or a call of no pool, runs nothing', async () => {
    await inject({ callId: 'nowhere', session: 's1' }, 'inj-1');
    const local = { callId: 'local-1', session: 'agent', tool: 'append_call_id', version: '1.0.0', arguments: { file: 'local.txt' }, workspace: cluster.workspace, turn: '' };
    await store.record(local);
    await inject({ callId: 'local-1', session: 'agent' }, 'inj-2');
    assert.deepEqual(cluster.marker('local.txt'), [], 'the agent\'s own call did not run on a worker');
    assert.equal((await store.get('local-1', 'agent'))?.state, 'pending');
    assert.equal(await store.get('nowhere', 's1'), undefined);
  });

  it('a job naming a queued call parked on its question runs nothing before the answer', async () => {
    const running = caller.call({ name: 'append_call_id_asking', arguments: { file: 'parked.txt' }, callId: 'parked-1' }, { session: 's1' });
    let id: number | undefined;
    await until(async () => (id = (await store.pendingApprovals()).find((q) => q.callId === 'parked-1' && q.answer === undefined)?.id) !== undefined, 30_000, 'the question');
    await inject({ callId: 'parked-1', session: 's1' }, 'inj-3');
    assert.deepEqual(cluster.marker('parked.txt'), [], 'nothing ran before the answer');
    await store.answer(id!, 'deny', 'test');
    const result = await running;
    assert.equal(result.success, false, result.output);
    assert.deepEqual(cluster.marker('parked.txt'), []);
  });

  it('a job carrying another tool and arguments runs the stored call only', async () => {
    await store.record({ callId: 'stored-1', session: 's1', tool: 'append_call_id', version: '', arguments: { file: 'stored.txt' }, workspace: cluster.workspace, turn: '', pool: 'default' });
    await inject({ callId: 'stored-1', session: 's1', name: 'append_call_id', tool: 'append_call_id', arguments: { file: 'evil.txt' } }, 'inj-4');
    await until(async () => (await store.get('stored-1', 's1'))?.state === 'done', 30_000, 'the stored call');
    assert.equal(cluster.marker('stored.txt').length, 1);
    assert.deepEqual(cluster.marker('evil.txt'), []);
  });
});
