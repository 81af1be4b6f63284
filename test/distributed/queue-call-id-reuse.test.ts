/**
 * Security regression (binding): a queued call whose key (call id and session; the session is
 * `queue` unless the caller names one) was used before for another request got that request's
 * result: `QueueCaller.call` answered an ended call's stored result (or waited for a pending one)
 * without comparing its tool and arguments, so a second caller reusing a call id (`call_0`) read
 * the first caller's output for other arguments. The executor refuses the same case
 * (`INVALID_ARGUMENTS`); the queue caller now does too, and nothing is run or answered for it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();

describe('a queued call id used before for another request', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;
  let caller: QueueCaller;

  before(async () => {
    cluster = await Cluster.start();
    await cluster.worker('default');
    store = await openCallStore(cluster.store);
    caller = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace });
  });
  after(async () => {
    await caller?.close();
    await store?.close();
    await cluster?.stop();
  });

  it('an ended call: the same key with other arguments is refused, not answered with the earlier result', async () => {
    const first = await caller.call({ name: 'append_call_id', arguments: { file: 'first.txt' }, callId: 'call_0' });
    assert.equal(first.success, true, first.output);
    const other = await caller.call({ name: 'append_call_id', arguments: { file: 'second.txt' }, callId: 'call_0' });
    assert.equal(other.success, false, other.output);
    assert.equal(other.errorCode, 'INVALID_ARGUMENTS', other.output);
    // The same request is still a retry, answered with its stored result (run once).
    const again = await caller.call({ name: 'append_call_id', arguments: { file: 'first.txt' }, callId: 'call_0' });
    assert.equal(again.success, true, again.output);
    assert.equal(cluster.marker('first.txt').length, 1, 'run once');
    assert.deepEqual(cluster.marker('second.txt'), []);
  });

  it('a call still queued: the same key with other arguments is refused at once (the stored call is not run for it)', async () => {
    await store.record({ callId: 'call_1', session: 'queue', tool: 'append_call_id', version: '', arguments: { file: 'stored.txt' }, workspace: cluster.workspace, turn: '', pool: 'default' });
    const other = await caller.call({ name: 'append_call_id', arguments: { file: 'mine.txt' }, callId: 'call_1' });
    assert.equal(other.errorCode, 'INVALID_ARGUMENTS', other.output);
    assert.deepEqual(cluster.marker('mine.txt'), []);
  });
});
