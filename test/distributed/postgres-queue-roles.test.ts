/**
 * The PostgreSQL queue (`--queue postgres://`) as a team would run it:
 * - its schemas set up once by their owner, then used by callers and workers connecting as a
 *   role that may only use them (the grants docs/distributed.md lists): a call runs end to end,
 *   a `rateLimitRpm` turn is taken, a cancel heard; before the set-up, that role's start fails
 *   saying what to do;
 * - a worker process's connections to the queue's database (counted in `pg_stat_activity`
 *   while it runs as many calls as it may at once) stay within its concurrency plus three:
 *   one pool for its worker, reconciler, turns and task jobs, sized from its concurrency, and
 *   the cancel listener.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { CALLER_CONNECTIONS, QueueCaller } from '../../src/distributed/queue-caller.js';
import { openQueueBackend } from '../../src/distributed/queue-backends.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster, freshDatabase, until } from './cluster.js';

const server = await postgresForTests(import.meta.url);
const skip = 'skip' in server ? server.skip : undefined;

/** Run `sql` as the user of `url`. */
async function run(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `url` with another user and password. */
function as(url: string, user: string, password: string): string {
  const other = new URL(url);
  other.username = user;
  other.password = password;
  return other.toString();
}

describe('the PostgreSQL queue with two roles: its owner sets it up, a user role only uses it', { skip, concurrency: false }, () => {
  const suffix = randomBytes(3).toString('hex');
  const owner = `tg_qowner_${suffix}`;
  const user = `tg_quser_${suffix}`;
  const password = randomBytes(9).toString('hex');
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let cluster: Cluster | undefined;
  let store: CallStore | undefined;

  before(async () => {
    const admin = (server as PgTestServer).url;
    database = await freshDatabase(admin, `roles_${suffix}`);
    const name = new URL(database.url).pathname.slice(1);
    await run(admin, `CREATE ROLE ${owner} LOGIN PASSWORD '${password}'`);
    await run(admin, `CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
    await run(admin, `ALTER DATABASE ${name} OWNER TO ${owner}`);
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
    await database?.drop();
    const admin = (server as PgTestServer).url;
    for (const role of [user, owner]) await run(admin, `DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  });

  it('a user role cannot set the queue up: its start fails saying to open it once as the owner', async () => {
    await assert.rejects(openQueueBackend(as(database.url, user, password)), (error: Error) => /owner/.test(error.message) && /docs\/distributed\.md/.test(error.message) && !error.message.includes(password));
  });

  it('set up by its owner, the queue serves a worker and a caller connecting as the user role', async () => {
    const ownerUrl = as(database.url, owner, password);
    (await openQueueBackend(ownerUrl).then(async (b) => b.close()));
    // The grants docs/distributed.md lists, given by the owner.
    const name = new URL(database.url).pathname.slice(1);
    for (const sql of [
      `GRANT CONNECT, TEMPORARY ON DATABASE ${name} TO ${user}`,
      `GRANT USAGE ON SCHEMA bullmq, toolgate_queue TO ${user}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA bullmq, toolgate_queue TO ${user}`,
      `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA bullmq TO ${user}`,
    ]) await run(ownerUrl, sql);
    const userUrl = as(database.url, user, password);
    // Nothing of the queue's belongs to the user role.
    const owned = await run(ownerUrl, `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('bullmq', 'toolgate_queue') AND pg_get_userbyid(c.relowner) = '${user}'`);
    assert.equal(owned.rows[0].n, 0);

    cluster = await Cluster.start(undefined, userUrl);
    await cluster.worker();
    store = await openCallStore(cluster.store);
    const caller = await QueueCaller.open({ queue: userUrl, store, workspace: cluster.workspace });
    try {
      const result = await caller.call({ name: 'append_call_id', arguments: { file: 'roles.txt' }, callId: 'roles-1' }, { session: 's' });
      assert.equal(result.success, true, result.output);
      assert.equal(cluster.marker('roles.txt').length, 1);
      const limited = await caller.call({ name: 'append_call_id_limited', arguments: { file: 'roles-limited.txt' }, callId: 'roles-2' }, { session: 's' });
      assert.equal(limited.success, true, limited.output);
    } finally {
      await caller.close();
    }
    const backend = await openQueueBackend(userUrl);
    try {
      const heard: string[] = [];
      await backend.onCancel((message) => heard.push(message));
      await backend.publishCancel('{"callId":"c","session":"s"}');
      await until(() => heard.length === 1, 10_000, 'a cancel heard by the user role');
      const limiter = backend.rateLimiter(1000);
      assert.equal(await limiter.acquire('roles-tool@1', 'roles_tool', 60), undefined);
      await limiter.close();
    } finally {
      await backend.close();
    }
    assert.equal(cluster.workers[0]!.stderr.includes(password), false, 'the password is never shown');
  });
});

describe('a worker process\'s connections to the PostgreSQL queue', { skip, concurrency: false }, () => {
  const suffix = randomBytes(3).toString('hex');
  const role = `tg_qworker_${suffix}`;
  const password = randomBytes(9).toString('hex');
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let cluster: Cluster | undefined;
  let store: CallStore | undefined;

  before(async () => {
    const admin = (server as PgTestServer).url;
    database = await freshDatabase(admin, `conns_${suffix}`);
    await run(admin, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await run(admin, `ALTER DATABASE ${new URL(database.url).pathname.slice(1)} OWNER TO ${role}`);
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
    await database?.drop();
    await run((server as PgTestServer).url, `DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  });

  it('are at most its concurrency plus three while it runs as many calls as it may', async (t) => {
    const concurrency = 1;
    // The worker connects as a role of its own; the test's caller and its looks as the superuser.
    const workerUrl = as(database.url, role, password);
    (await openQueueBackend(workerUrl).then(async (b) => b.close()));
    cluster = await Cluster.start(undefined, workerUrl);
    const count = async () => Number((await run(database.url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = '${role}' AND datname = current_database()`)).rows[0].n);
    await until(async () => (await count()) === 0, 30_000, 'the set-up connection to close');
    await cluster.worker('default', ['--concurrency', String(concurrency)]);
    const idle = await count();
    store = await openCallStore(cluster.store);
    const caller = await QueueCaller.open({ queue: database.url, store, workspace: cluster.workspace });
    let most = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await count());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      const results = await Promise.all(Array.from({ length: 4 * concurrency }, (_, i) => caller.call({ name: 'append_call_id', arguments: { file: 'conns.txt', waitMs: 600 }, callId: `conns-${i}` }, { session: 's' })));
      for (const result of results) assert.equal(result.success, true, result.output);
    } finally {
      sampling = false;
      await sampler;
      await caller.close();
    }
    t.diagnostic(`worker --concurrency ${concurrency}: ${idle} connections idle, at most ${most} under load`);
    assert.ok(most <= concurrency + 3, `at most ${concurrency + 3} connections; saw ${most}`);
    assert.equal(cluster.marker('conns.txt').length, 4 * concurrency);
  });

  it('a caller holds at most three while it sends many calls at once (before: a pool of 10)', async (t) => {
    assert.ok(cluster !== undefined && store !== undefined, 'the worker of the test before runs');
    // The caller connects as the superuser; the worker as its own role.
    const count = async () => Number((await run(database.url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = current_user AND application_name = 'toolgate-queue' AND datname = current_database()`)).rows[0].n);
    const caller = await QueueCaller.open({ queue: database.url, store, workspace: cluster.workspace });
    let most = await count();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await count());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) => caller.call({ name: 'append_call_id', arguments: { file: 'caller-conns.txt' }, callId: `caller-conns-${i}` }, { session: 's' })));
      for (const result of results) assert.equal(result.success, true, result.output);
    } finally {
      sampling = false;
      await sampler;
      await caller.close();
    }
    t.diagnostic(`a caller sending 16 calls at once: at most ${most} connections`);
    assert.ok(most <= CALLER_CONNECTIONS, `at most ${CALLER_CONNECTIONS} connections; saw ${most}`);
    assert.equal(cluster.marker('caller-conns.txt').length, 16);
  });
});

after(async () => {
  if (!('skip' in server)) await server.stop();
});
