/**
 * The PostgreSQL store prepares the statements every call runs once per connection (sent by
 * name afterwards, no parse and plan per call), and those statements keep working when a
 * later migration adds a column to `calls` while they are prepared (their result columns are
 * named, never `*`). On a server of its own (`postgres-server.ts`).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { NewCall } from '../../src/ledger/call-store.js';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import { completedResult } from '../../src/closeout/results.js';
import { postgresForTests } from './postgres-server.js';

const server = await postgresForTests(import.meta.url);

function call(callId: string): NewCall {
  return { callId, session: 'prep', tool: 'do_nothing', version: '1.0.0', arguments: { n: 1 }, workspace: '/w', turn: '', pool: 'p' };
}

/** One queued call's life as a worker sees it: recorded, read, claimed under a lease, finished, checked. */
async function oneCall(store: PostgresStore, callId: string): Promise<void> {
  const key = { callId, session: 'prep' };
  assert.equal((await store.record(call(callId))).kind, 'recorded');
  assert.equal((await store.get(callId, 'prep'))?.state, 'pending');
  await store.sessionSetting('prep', 'approval_mode', '*');
  const run = await store.claimLease(key, { owner: 'worker:test', leaseMs: 10_000 });
  assert.ok(run, 'claimed');
  assert.equal(await store.finish(key, { state: 'done', decisions: undefined, result: completedResult('ok', { tool: 'do_nothing', callId }) }, { token: run.token }), true);
  const outcome = await store.check(key);
  assert.equal(outcome.kind, 'ended');
}

describe('PostgreSQL store: prepared statements', { skip: 'skip' in server ? server.skip : false }, () => {
  if ('skip' in server) return;
  after(() => server.stop());

  it('prepares the statements of a call once on its connection', async () => {
    const store = await PostgresStore.open({ url: server.url, schema: 'prepared_once', poolSize: 1 });
    try {
      await oneCall(store, 'a');
      await oneCall(store, 'b');
      // The pool has one connection: this read runs on the connection the calls used.
      const db = (store as unknown as { db: { read<R>(sql: string): Promise<R[]> } }).db;
      const names = (await db.read<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'tg\\_%'`)).map((r) => r.name);
      // The write lock, the record's insert, the read by key, the claim, the end, the result, the event, the session setting...
      assert.ok(names.length >= 8, `prepared: ${names.join(', ')}`);
    } finally {
      await store.close();
    }
  });

  it('keeps working when a migration adds a column to calls after its statements were prepared', async () => {
    const store = await PostgresStore.open({ url: server.url, schema: 'prepared_migrated', poolSize: 1 });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await oneCall(store, 'before');
      await admin.query('ALTER TABLE prepared_migrated.calls ADD COLUMN added_later integer');
      await oneCall(store, 'after');
      assert.equal((await store.get('before', 'prep'))?.state, 'done');
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
