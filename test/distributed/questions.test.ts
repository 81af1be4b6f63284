/**
 * Questions answered from anywhere: a call that asks on a worker parks (its job completes);
 * `toolgate approvals allow` in another process answers it, and it runs once on a worker of
 * its pool, also when the worker that asked is gone by then. On the Redis queue and on the
 * PostgreSQL queue (`--queue postgres://`; the store a SQLite file in both).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from '../../src/ledger/store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { runCli } from '../helpers.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster, until } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();
const pg = skip === undefined ? await postgresForTests(import.meta.url) : { skip };

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`questions of queued calls (queue on ${kind})`, { skip: skip ?? (kind === 'PostgreSQL' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;
  let caller: QueueCaller;

  before(async () => {
    cluster = await Cluster.start(undefined, kind === 'PostgreSQL' ? (pg as PgTestServer).url : undefined);
    await cluster.worker('asking', ['--concurrency', '1']);
    store = Ledger.open({ file: cluster.store });
    caller = await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace, pool: 'asking' });
  });
  after(async () => {
    await caller?.close();
    await store?.close();
    await cluster?.stop();
  });

  async function questionOf(callId: string): Promise<number> {
    let id: number | undefined;
    await until(async () => {
      id = (await store.pendingApprovals()).find((q) => q.callId === callId && q.answer === undefined)?.id;
      return id !== undefined;
    }, 30_000, `the question of ${callId}`);
    return id!;
  }

  it('answered by `toolgate approvals allow` in another process, the call runs once on a worker', async () => {
    const running = caller.call({ name: 'append_call_id_asking', arguments: { file: 'asked.txt' }, callId: 'q-ask' }, { session: 's1' });
    const id = await questionOf('q-ask');
    assert.equal(cluster.marker('asked.txt').length, 0, 'not run before the answer');
    const allow = await runCli(['approvals', 'allow', String(id), '--store', cluster.store, '--workspace', cluster.workspace]);
    assert.equal(allow.code, 0, allow.stderr);
    const result = await running;
    assert.equal(result.success, true, result.output);
    const lines = cluster.marker('asked.txt');
    assert.equal(lines.length, 1);
    assert.ok(cluster.workers.some((w) => w.pid === Number(lines[0]!.split(' ')[1])));
  });

  it('a parked call holds no worker slot: one slot asks two questions at once', async () => {
    const first = caller.call({ name: 'append_call_id_asking', arguments: { file: 'slots.txt' }, callId: 'q-slot1' }, { session: 's1' });
    const second = caller.call({ name: 'append_call_id_asking', arguments: { file: 'slots.txt' }, callId: 'q-slot2' }, { session: 's1' });
    const ids = [await questionOf('q-slot1'), await questionOf('q-slot2')];
    for (const id of ids) assert.equal((await runCli(['approvals', 'allow', String(id), '--store', cluster.store, '--workspace', cluster.workspace])).code, 0);
    for (const result of await Promise.all([first, second])) assert.equal(result.success, true, result.output);
    assert.equal(cluster.marker('slots.txt').length, 2);
  });

  it('the worker that asked is gone: another worker of the pool runs it once after the answer', async () => {
    const running = caller.call({ name: 'append_call_id_asking', arguments: { file: 'asked2.txt' }, callId: 'q-ask2' }, { session: 's1' });
    const id = await questionOf('q-ask2');
    const asker = cluster.workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
    await cluster.kill(asker);
    const second = await cluster.worker('asking', ['--concurrency', '1']);
    const allow = await runCli(['approvals', 'allow', String(id), '--store', cluster.store, '--workspace', cluster.workspace]);
    assert.equal(allow.code, 0, allow.stderr);
    const result = await running;
    assert.equal(result.success, true, result.output);
    const lines = cluster.marker('asked2.txt');
    assert.equal(lines.length, 1);
    assert.equal(Number(lines[0]!.split(' ')[1]), second.pid);
  });

  it('a denied question ends the call denied, never run', async () => {
    const running = caller.call({ name: 'append_call_id_asking', arguments: { file: 'denied.txt' }, callId: 'q-deny' }, { session: 's1' });
    const id = await questionOf('q-deny');
    const deny = await runCli(['approvals', 'deny', String(id), '--store', cluster.store, '--workspace', cluster.workspace]);
    assert.equal(deny.code, 0, deny.stderr);
    const result = await running;
    assert.equal(result.errorCode, 'CONFIRMATION_DENIED', result.output);
    assert.equal(cluster.marker('denied.txt').length, 0);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
