/**
 * An end a worker decides without running the call (here an unknown tool's) that its store
 * does not take, the store (PostgreSQL) down past its retry: the worker keeps it and writes it
 * once the server is back, however long it was away (before: it was only logged,
 * `queue_end_pending`, and the call stayed `pending` until a reconciler re-sent it). The
 * reconciler is kept out of the way (a pass an hour), so that the end the worker kept, not a
 * decision made again, is what lands.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallKey, CallStore, Lease, LeaseRequest } from '../../src/ledger/call-store.js';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import type { ServedQueue } from '../../src/distributed/serve.js';
import type { QueueCaller } from '../../src/distributed/queue-caller.js';
import { Cluster } from './cluster.js';
import { waitFor } from '../wait.js';
import { callerOf, closeInOrder, restartablePostgres, serveFixtureTools } from './restartable-postgres.js';

const { pg, skip } = await restartablePostgres(import.meta.url);

describe('an end the store does not take while it is down', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let workerStore: PostgresStore;
  let served: ServedQueue;
  let store: CallStore;
  let caller: QueueCaller;
  // The worker's first hold of the call waits here until the test has stopped the server.
  let reached!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const key: CallKey = { callId: 'u-1', session: 'unwritten' };

  before(async () => {
    cluster = await Cluster.start(pg!.url);
    // A short retry of the store's own, so that the test outlasts it without waiting 15 s.
    workerStore = await PostgresStore.open({ url: cluster.store, retryMs: 1000 });
    let held = false;
    const gated = new Proxy(workerStore, {
      get(target, property) {
        if (property === 'takeLease') {
          return async (call: CallKey, request?: LeaseRequest): Promise<Lease | undefined> => {
            if (call.callId === key.callId && !held) {
              held = true;
              reached();
              await released;
            }
            return target.takeLease(call, request);
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    served = await serveFixtureTools(cluster, gated, { concurrency: 2, leaseMs: 120_000, reconcileMs: 3_600_000 });
    ({ store, caller } = await callerOf(cluster, 500));
  });
  after(async () => {
    release?.();
    await closeInOrder(caller, store, served, workerStore, cluster, pg);
  });

  it('is kept by the worker and written once the server is back', { timeout: 120_000 }, async () => {
    const call = caller.call({ name: 'no_such_tool', arguments: {}, callId: key.callId }, { session: key.session });
    await atHold;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      await pg!.restartImmediate(async () => {
        release();
        // Down past the store's retry (its hold and write failed) and past a retry of the worker's own.
        await waitFor(() => served.worker.runningCalls === 0 && warnings.some((w) => /toolgate worker: 1 call ends cannot be written yet/.test(w)), {
          what: 'the worker to keep the end while the server is down', timeoutMs: 60_000, seen: () => `${served.worker.runningCalls} running; ${warnings.join('\n')}`,
        });
      });
    } finally {
      process.off('warning', onWarning);
    }
    const record = await waitFor(async () => {
      const now = await store.get(key.callId, key.session).catch(() => undefined);
      return now?.state === 'pending' ? undefined : now;
    }, { what: 'the kept end to be written', timeoutMs: 60_000 });
    assert.equal(record.state, 'failed');
    assert.equal(record.errorCode, 'UNKNOWN_TOOL');
    const result = await call;
    assert.equal(result.errorCode, 'UNKNOWN_TOOL', result.output);
  });
});
