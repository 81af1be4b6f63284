/**
 * The set-up of the distributed tests that stop and restart their PostgreSQL server under a
 * {@link Cluster} (its queue on Redis): the server, a worker in this process, and a caller.
 */
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { serveQueue, type ServedQueue, type ServeQueueOptions } from '../../src/distributed/serve.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR } from '../helpers.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import type { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

/**
 * The PostgreSQL server of a test file that restarts it (`postgresForTests(file, { restarts:
 * true })`): `pg` is the server whenever one was made (stop it in `after`), `skip` why the
 * file's tests cannot run (Redis or PostgreSQL missing, or the server `TOOLGATE_PG_URL` names,
 * which these tests cannot restart), `undefined` when they can.
 */
export async function restartablePostgres(file: string): Promise<{ pg: PgTestServer | undefined; skip: string | undefined }> {
  const missing = redisMissing();
  const made = missing === undefined ? await postgresForTests(file, { restarts: true }) : { skip: missing };
  if ('skip' in made) return { pg: undefined, skip: made.skip };
  return { pg: made, skip: made.own ? undefined : 'TOOLGATE_PG_URL names a server these tests cannot restart' };
}

/**
 * A worker in this process (`serveQueue`) of the fixture tools, logging nothing, on the
 * cluster's Redis queue and workspace, the ends of its calls written to `store`; `options` add
 * to these or override them (`concurrency`, `leaseMs`, ...). Close it before `store`.
 */
export function serveFixtureTools(cluster: Cluster, store: CallStore, options: Partial<ServeQueueOptions> = {}): Promise<ServedQueue> {
  return serveQueue({
    queue: cluster.redis.url, store, workspace: cluster.workspace,
    system: { logLevel: 'silent', toolFolders: [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }] },
    ...options,
  });
}

/**
 * A store of the cluster's (`openCallStore`) and a caller of its Redis queue over it that looks
 * at a call's state every `checkMs` milliseconds. Close the caller, then the store.
 */
export async function callerOf(cluster: Cluster, checkMs: number): Promise<{ store: CallStore; caller: QueueCaller }> {
  const store = await openCallStore(cluster.store);
  try {
    return { store, caller: await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace, checkMs }) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The teardown of these files' set-up, which may have stopped half-way: close (or stop) each of
 * `parts` that was made, one after another in the order given (callers before their stores,
 * the cluster and the server last).
 */
export async function closeInOrder(...parts: Array<{ close(): Promise<unknown> } | { stop(): Promise<unknown> } | undefined>): Promise<void> {
  for (const part of parts) {
    if (part === undefined) continue;
    await ('close' in part ? part.close() : part.stop());
  }
}
