/**
 * The PostgreSQL queue backend (`postgres://`, `postgresql://`: the same URL form as `--store`,
 * and it may be the same database), so that a team runs one server:
 * - jobs through BullMQ's PostgreSQL backend (`createPostgresBackend`: its tables and SQL
 *   functions in the schema `bullmq`, claims with `FOR UPDATE SKIP LOCKED`, workers and queue
 *   events woken by `LISTEN/NOTIFY`), the same `Queue`/`Worker`/`QueueEvents` API as on Redis:
 *   jobs added with a job id (a second add is a no-op while it exists), delayed jobs, removal
 *   on completion, completion events with the return value;
 * - the cancel channel on `LISTEN/NOTIFY` ({@link CANCEL_CHANNEL}; its listening connection
 *   reconnects after a restart of the server; a notification lost meanwhile is covered by the
 *   store's cancel flag, which the worker watches);
 * - `rateLimitRpm` turns by a PL/pgSQL function over a per-tool turns table in the schema
 *   `toolgate_queue` (`postgres-rate-limit.ts`).
 *
 * BullMQ's migrations and the turns table are set up by the first process that opens the
 * queue as a role that may (the schemas' owner, or one with CREATE on the database; under
 * advisory locks: processes starting at once set up once). A process finding them set up at
 * this version writes no DDL: it reads BullMQ's migration ledger (`assertSchemaCompatibility`)
 * and looks for the turns function, so callers and workers may connect as a role that only
 * uses the schemas (docs/distributed.md lists its grants). The pool is made here and handed to BullMQ (its
 * ESM build cannot load `pg` itself), its `search_path` pinned to BullMQ's schema and its
 * isolation to `read committed`.
 *
 * Credentials: the password comes from the URL, `PGPASSWORD` or a password file (`~/.pgpass`,
 * `PGPASSFILE`), as `pg` reads them; messages carry the URL without it.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import { connectionError, isPostgresUrl, Listener, redactUrl, type PgClient, type PgModule } from '../ledger/postgres/database.js';
import { loadOptional } from '../util/optional-package.js';
import { queueName } from './job.js';
import { loadBullMq, type BullMq } from './peers.js';
import { PostgresRateLimiter, RATE_DDL, RESERVE_SIGNATURE } from './postgres-rate-limit.js';
import { hearJobEvents, redactPassword, RUN_RETRY_DELAY_MS, type JobEventHandlers, type JobEvents, type JobQueue, type JobWorker, type JobWorkerOptions, type QueueBackend, type QueueBackendKind, type QueueJob } from './queue-backend.js';

/** The NOTIFY channel of cancel requests (every worker on the database listens). */
const CANCEL_CHANNEL = 'toolgate_cancel';

/** BullMQ's schema (its default; a pool we make is pinned to it). */
const BULL_SCHEMA = 'bullmq';

/**
 * The pool's isolation, whatever the database's default: the turns function's row lock (and
 * BullMQ's claims) wait for a concurrent transaction and then read its row, where `repeatable
 * read` or `serializable` would fail them with a serialization error.
 */
const READ_COMMITTED = '-c default_transaction_isolation=read\\ committed';

/** Connections of one backend's pool at most unless the opener says (BullMQ's LISTEN connections are taken from it). */
const POOL_SIZE = 10;

/** The fewest a pool may have: a LISTEN connection BullMQ holds, and one for queries. */
const POOL_MIN = 2;

/** PostgreSQL's `insufficient_privilege`: the role may use the queue's schemas but not set them up. */
const NO_PRIVILEGE = '42501';

/** How long opening retries a server it cannot reach (restarting), in ms. */
const SETUP_RETRY_MS = 30_000;

/** A lock key of the queue's setup (the turns table and function). */
const SETUP_LOCK = 0x74677175; // 'tgqu'

/** What this file needs of a `pg.Pool`. */
interface Pool {
  connect(): Promise<{ query(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[] }>; release(broken?: Error | boolean): void }>;
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Set-ups done (or under way) in this process, by URL: each database is set up once. */
const setUp = new Map<string, Promise<void>>();

class PostgresQueueBackend implements QueueBackend {
  readonly kind = 'postgres';
  private readonly listeners: Listener[] = [];

  constructor(private readonly bull: BullMq, private readonly pg: PgModule, private readonly url: string, private readonly pool: Pool) {}

  queue(pool: string): JobQueue {
    const queue = new this.bull.Queue(queueName(pool), { connection: this.pool as never }, this.bull.createPostgresBackend);
    queue.on('error', () => undefined);
    return queue;
  }

  worker(pool: string, processor: (job: QueueJob) => Promise<unknown>, options: JobWorkerOptions): JobWorker {
    const worker = new this.bull.Worker(queueName(pool), processor, {
      connection: this.pool as never, concurrency: options.concurrency, maxStalledCount: 0, lockDuration: options.lockDuration, autorun: false, runRetryDelay: RUN_RETRY_DELAY_MS,
    }, this.bull.createPostgresBackend);
    worker.on('error', (error) => options.onError(this.redact(String(error?.message))));
    return worker;
  }

  async events(pool: string, handlers: JobEventHandlers): Promise<JobEvents> {
    const events = new this.bull.QueueEvents(queueName(pool), { connection: this.pool as never }, this.bull.createPostgresBackend);
    return hearJobEvents(events, handlers);
  }

  async publishCancel(message: string): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, message]);
  }

  async onCancel(listener: (message: string) => void): Promise<void> {
    let listening: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (listening = resolve));
    const make = (): PgClient => new this.pg.Client({ connectionString: this.url, application_name: 'toolgate-queue', connectionTimeoutMillis: 5_000 });
    const channel = new Listener(make, CANCEL_CHANNEL, listener, () => listening());
    this.listeners.push(channel);
    channel.start();
    // Listening, or still connecting (the server restarting): the store's cancel flag covers what is missed meanwhile.
    const timer = setTimeout(() => listening(), 5_000);
    await ready;
    clearTimeout(timer);
  }

  rateLimiter(maxWaitMs?: number): PostgresRateLimiter {
    return new PostgresRateLimiter(this.pool, maxWaitMs);
  }

  redact(text: string): string {
    return redactPassword(this.url, text);
  }

  async close(): Promise<void> {
    await Promise.all(this.listeners.map((l) => l.stop()));
    await this.pool.end().catch(() => undefined);
  }
}

/** BullMQ's migrations and the turns table, once per database and process (retried while the server cannot be reached). */
function setUpOnce(bull: BullMq, url: string, pool: Pool): Promise<void> {
  let done = setUp.get(url);
  if (done === undefined) {
    done = setUpDatabase(bull, pool);
    done.catch(() => setUp.delete(url));
    setUp.set(url, done);
  }
  return done;
}

async function setUpDatabase(bull: BullMq, pool: Pool): Promise<void> {
  const until = Date.now() + SETUP_RETRY_MS;
  for (let wait = 200; ; wait = Math.min(2_000, wait * 2)) {
    try {
      const client = await pool.connect();
      try {
        if (!(await setUpAlready(bull, client))) await setUpNow(bull, client);
        client.release();
      } catch (error) {
        client.release(connectionError(error) ? (error as Error) : undefined);
        throw error;
      }
      return;
    } catch (error) {
      if (!connectionError(error) || Date.now() + wait > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

type SetUpClient = Awaited<ReturnType<Pool['connect']>>;

/**
 * Whether the queue is set up at this version already, read without a lock or a write:
 * BullMQ's migration ledger at its latest schema version (or a newer compatible one) and the
 * turns function present.
 * @throws BullMQ's `SchemaVersionMismatchError` (a newer BullMQ set the schema up); the server's error (no USAGE on `bullmq`).
 */
async function setUpAlready(bull: BullMq, client: SetUpClient): Promise<boolean> {
  let version: number;
  try {
    version = await bull.assertSchemaCompatibility(client as never, BULL_SCHEMA);
  } catch (error) {
    if (error instanceof bull.SchemaMigrationRequiredError || (error as { code?: unknown })?.code === '3F000') return false; // no schema yet
    throw error;
  }
  if (version < bull.LATEST_SCHEMA_VERSION) return false;
  const { rows } = await client.query('SELECT to_regprocedure($1) IS NOT NULL AS found', [RESERVE_SIGNATURE]);
  return (rows[0] as { found?: unknown } | undefined)?.found === true;
}

/**
 * BullMQ's migrations and the turns table and function (the owner's work).
 * @throws Error saying what to do when this role may not (PostgreSQL's `insufficient_privilege`).
 */
async function setUpNow(bull: BullMq, client: SetUpClient): Promise<void> {
  try {
    await bull.runMigrations(client as never, BULL_SCHEMA);
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK]);
      for (const statement of RATE_DDL) await client.query(statement);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    if ((error as { code?: unknown })?.code !== NO_PRIVILEGE) throw error;
    const { rows } = await client.query('SELECT current_user AS role').catch(() => ({ rows: [] as unknown[] }));
    const role = (rows[0] as { role?: string } | undefined)?.role ?? 'this role';
    throw Object.assign(new Error(`the schemas ${BULL_SCHEMA} and toolgate_queue are not set up for this version, and ${role} may not set them up (${(error as Error).message}): `
      + 'open the queue once as their owner (start one worker or caller with the owner\'s URL), then connect as a role with the grants docs/distributed.md lists'), { code: NO_PRIVILEGE });
  }
}

/** The PostgreSQL queue backend kind. */
export const postgresQueue: QueueBackendKind = {
  async open(url, option, options = {}) {
    const connections = options.connections ?? POOL_SIZE;
    if (!Number.isInteger(connections) || connections < POOL_MIN) throw ToolgateOptionError.fromBadOption(`${option}.connections`, `must be an integer of at least ${POOL_MIN}`);
    if (!isPostgresUrl(url)) throw ToolgateOptionError.fromBadOption(option, `must be a postgres:// or postgresql:// URL; got ${redactUrl(url).slice(0, 80)}`);
    const bull = await loadBullMq(option);
    const mod = await loadOptional<{ default?: PgModule }>('pg', `the ${option} option`);
    const pg = (mod.default ?? mod) as unknown as PgModule;
    const pool = new pg.Pool({
      connectionString: url, options: `-c search_path=${BULL_SCHEMA} ${READ_COMMITTED}`, application_name: 'toolgate-queue', max: connections,
      connectionTimeoutMillis: 5_000, idleTimeoutMillis: 10_000,
    }) as unknown as Pool;
    // An idle connection the server dropped: the pool discards it; the next query connects anew.
    pool.on('error', () => undefined);
    const backend = new PostgresQueueBackend(bull, pg, url, pool);
    try {
      await setUpOnce(bull, url, pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      const message = backend.redact((error as Error)?.message ?? String(error));
      throw Object.assign(new Error(`the queue ${redactUrl(url)} could not be set up: ${message}`), { code: (error as { code?: unknown })?.code });
    }
    return backend;
  },
};
