/**
 * The PostgreSQL store's connection to its server: the driver (`pg`, an optional peer
 * dependency loaded on first use), a pool of connections for queries and transactions, one
 * more connection that LISTENs for the store's notifications (re-listening after the server
 * restarts), and the migrations. The only module that knows the driver.
 *
 * Credentials: the password comes from the URL, `PGPASSWORD`, or a password file (`~/.pgpass`
 * or `PGPASSFILE`), as `pg` reads them; the store never logs it, never stores it, and names
 * the server only by its URL with the password replaced ({@link redactUrl}), also in errors.
 *
 * Transactions ({@link PgDatabase.tx}) take one transaction-scoped advisory lock of the
 * store's schema before they write: writes are serialized (so that event ids grow in commit
 * order, which the feed's cursor needs, and read-then-write steps see a stable row). A
 * transaction whose connection broke before its COMMIT was sent (the server restarted) is
 * retried on a new connection for up to `retryMs`; one that broke at its COMMIT is not (it may
 * have committed): the caller gets the error.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { ToolgateOptionError } from '../../errors/errors.js';
import { PG_MIGRATIONS } from './migrations.js';
import { loadOptional } from '../../util/optional-package.js';

/**
 * A statement the server prepares once per connection (its parse and plan kept, sent by
 * `name` afterwards): for the statements every call runs. Only for fixed text whose result
 * columns are named (never `SELECT *`: a column a later migration adds would change a
 * prepared statement's result, which the server refuses to run).
 */
export interface NamedSql {
  readonly name: string;
  readonly text: string;
}

/** The {@link NamedSql} of `text`: its name is a hash of the text (the same text, the same statement). */
export function named(text: string): NamedSql {
  return Object.freeze({ name: `tg_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text });
}

/** SQL text, or a {@link NamedSql}. */
export type Sql = string | NamedSql;

/** A query on one connection: the rows it returns. */
export type Query = <R = Record<string, unknown>>(sql: Sql, params?: readonly unknown[]) => Promise<R[]>;

/** What `pg`'s `query` takes for `sql`: the text, or a named statement with its values. */
type PgQueryConfig = { name: string; text: string; values: readonly unknown[] };

function pgQuery(client: { query(sql: string | PgQueryConfig, params?: readonly unknown[]): Promise<{ rows: unknown[] }> }, sql: Sql, params: readonly unknown[] | undefined): Promise<{ rows: unknown[] }> {
  return typeof sql === 'string' ? client.query(sql, params) : client.query({ name: sql.name, text: sql.text, values: params ?? [] });
}

/** The advisory lock every write transaction takes (prepared: sent on every write). */
const WRITE_LOCK = named('SELECT pg_advisory_xact_lock($1::bigint)');

/** What the store needs of `pg` (the module's shape, named here so that nothing else imports it). */
export interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  Client: new (config: Record<string, unknown>) => PgClient;
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}
interface PgPool {
  connect(): Promise<PgPoolClient>;
  query(sql: string | PgQueryConfig, params?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface PgPoolClient {
  query(sql: string | PgQueryConfig, params?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  release(destroy?: boolean | Error): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** Ignores a checked-out connection's 'error' event (the server went away between two queries): the next query rejects with it instead of the process crashing. */
const ignoreError = (): void => undefined;

/** A connection of the pool, with {@link ignoreError} while it is checked out. */
async function checkOut(pool: PgPool): Promise<PgPoolClient> {
  const client = await pool.connect();
  client.on('error', ignoreError);
  return client;
}

/** Give a connection back (destroyed when it broke). */
function giveBack(client: PgPoolClient, broken?: Error): void {
  client.removeListener('error', ignoreError);
  client.release(broken);
}
/** A standalone connection (the LISTEN ones). */
export interface PgClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
}

let driver: Promise<PgModule> | undefined;

/** `pg`, loaded once through the one optional-package loader. @throws PackageUnavailableError naming `pg` when it is not installed. */
function loadPg(): Promise<PgModule> {
  driver ??= loadOptional<{ default?: PgModule }>('pg', 'the PostgreSQL call store').then(
    (mod) => (mod.default ?? mod) as unknown as PgModule,
    (error: unknown) => {
      driver = undefined;
      throw error;
    },
  );
  return driver;
}

/** `url` with its password (and a `password` parameter) replaced by `***`: what messages show. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const name of ['password', 'sslpassword']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** `text` with every occurrence of the URL's password replaced (an error message of the driver, say). */
function redactText(text: string, password: string | undefined): string {
  return password ? text.split(password).join('***') : text;
}

/** Whether a URL names a PostgreSQL server (`postgres://` or `postgresql://`). */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** SQL giving the server's time in ms since the epoch (leases count on the server's clock). */
export const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Error codes of a broken or refused connection (the server restarting, stopping, unreachable). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

/** Whether `error` is a lost or refused connection (worth a retry on a new one) rather than a statement's. */
export function connectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(e.message);
}

/** Options of {@link PgDatabase.open}. */
export interface PgConnectOptions {
  /** `postgres://` or `postgresql://` URL. */
  url: string;
  /** The schema the store's tables live in (made when missing). */
  schema: string;
  /** Connections in the pool at most. */
  poolSize: number;
  /** How long a query or transaction keeps retrying a lost connection, in ms. */
  retryMs: number;
  readonly: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** One store's server connections. */
export class PgDatabase {
  /** The URL without its password. */
  readonly where: string;
  /** The NOTIFY channel of the schema. */
  readonly channel: string;
  private readonly lockKey: string;
  private listener: Listener | undefined;
  private closed = false;

  private constructor(
    private readonly pg: PgModule,
    private readonly pool: PgPool,
    private readonly config: Record<string, unknown>,
    readonly schema: string,
    private readonly retryMs: number,
    private readonly password: string | undefined,
    url: string,
  ) {
    this.where = redactUrl(url);
    this.channel = `toolgate_${schema}`.slice(0, 63);
    // A 63-bit key of the schema: writers of one store take the same lock, of another store not.
    this.lockKey = BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`toolgate:${schema}`).digest('hex').slice(0, 16)}`)).toString();
  }

  /**
   * Connect, make the schema, and run the migrations it lacks (not when read-only: then it must be migrated).
   * @throws ToolgateOptionError for a bad URL or schema; Error (the password redacted) when the server cannot be reached or the schema is newer.
   */
  static async open(options: PgConnectOptions): Promise<PgDatabase> {
    if (!isPostgresUrl(options.url)) throw ToolgateOptionError.fromBadOption('store', `must be a postgres:// or postgresql:// URL; got ${redactUrl(options.url).slice(0, 80)}`);
    if (!SCHEMA_NAME.test(options.schema)) throw ToolgateOptionError.fromBadOption('store.schema', 'must be a lower-case SQL name (letters, digits, _; at most 63)');
    const pg = await loadPg();
    let password: string | undefined;
    try {
      password = decodeURIComponent(new URL(options.url).password) || undefined;
    } catch {
      throw ToolgateOptionError.fromBadOption('store', `is not a URL: ${redactUrl(options.url).slice(0, 80)}`);
    }
    const int8 = (value: string) => Number(value);
    const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? int8 : pg.types.getTypeParser(oid, format)) };
    const config: Record<string, unknown> = {
      connectionString: options.url, types, options: `-c search_path=${options.schema}`, application_name: 'toolgate',
      connectionTimeoutMillis: 5_000,
    };
    const pool = new pg.Pool({ ...config, max: options.poolSize, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
    // An idle connection the server dropped: the pool discards it; the next query connects anew.
    pool.on('error', () => undefined);
    const db = new PgDatabase(pg, pool, config, options.schema, options.retryMs, password, options.url);
    try {
      await db.migrate(options.readonly);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw db.redacted(error);
    }
    return db;
  }

  /** `error` with the password taken out of its message (a new Error when it had to change; its `code` kept). */
  redacted(error: unknown): Error {
    const e = error instanceof Error ? error : new Error(String(error));
    const message = redactText(e.message, this.password);
    if (message === e.message) return e;
    const clean = new Error(message) as Error & { code?: unknown };
    clean.code = (e as { code?: unknown }).code;
    return clean;
  }

  /** Rows of one read, retried on a lost connection for up to `retryMs`. */
  async read<R>(sql: Sql, params: readonly unknown[] = []): Promise<R[]> {
    return this.retrying(async () => (await pgQuery(this.pool, sql, params)).rows as R[]);
  }

  /**
   * Run `fn` in a transaction holding the store's write lock; `notify` topics collected by
   * `fn` are sent on commit. Retried on a new connection when it broke before COMMIT.
   * Rejects with the store's error (its password redacted).
   */
  async tx<T>(fn: (query: Query, notify: (topic: string) => void) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const client = await checkOut(this.pool);
      let committing = false;
      try {
        await client.query('BEGIN');
        await pgQuery(client, WRITE_LOCK, [this.lockKey]);
        const topics = new Set<string>();
        const query: Query = async <R>(sql: Sql, params?: readonly unknown[]) => (await pgQuery(client, sql, params)).rows as R[];
        const result = await fn(query, (topic) => topics.add(topic));
        if (topics.size !== 0) await client.query('SELECT pg_notify($1, $2)', [this.channel, [...topics].join(' ').slice(0, 7_900)]);
        committing = true;
        await client.query('COMMIT');
        giveBack(client);
        return result;
      } catch (error) {
        const broken = connectionError(error);
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        giveBack(client, broken ? (error as Error) : undefined);
        if (committing && broken) throw Object.assign(this.redacted(error), { atCommit: true });
        throw error;
      }
    });
  }

  /**
   * Subscribe to the store's notifications (LISTEN on a connection of its own, made on first
   * use and re-made after the server restarts): `deliver` gets each payload; `reconnected` is
   * called after every (re)connection, when notifications may have been missed.
   */
  listen(deliver: (payload: string) => void, reconnected: () => void): void {
    if (this.listener !== undefined || this.closed) return;
    this.listener = new Listener(() => new this.pg.Client(this.config), this.channel, deliver, reconnected);
    this.listener.start();
  }

  /** Close the listener and the pool (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener?.stop();
    await this.pool.end().catch(() => undefined);
  }

  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.retryMs;
    let wait = 50;
    for (;;) {
      try {
        return await fn();
      } catch (error) {
        if ((error as { atCommit?: boolean }).atCommit === true || !connectionError(error) || Date.now() + wait > until || this.closed) throw this.redacted(error);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(1_000, wait * 2);
      }
    }
  }

  /**
   * Make the schema and apply the missing migrations, each recorded in `schema_migrations`,
   * all under a transaction-scoped advisory lock (openers at once migrate once).
   */
  private async migrate(readonly: boolean): Promise<void> {
    const [table] = await this.read<{ found: boolean }>(`SELECT to_regclass('${this.schema}.schema_migrations') IS NOT NULL AS found`);
    const version = table?.found === true
      ? Number((await this.read<{ version: number | null }>(`SELECT max(version) AS version FROM ${this.schema}.schema_migrations`))[0]?.version ?? 0)
      : 0;
    if (version > PG_MIGRATIONS.length) throw newerSchema(version);
    if (readonly) {
      if (version < 1) throw new Error(`${this.where} (schema ${this.schema}) holds no toolgate call store`);
      return;
    }
    if (version === PG_MIGRATIONS.length) return;
    await this.retrying(async () => {
      const client = await checkOut(this.pool);
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.lockKey]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.schema}.schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)`);
        const rows = (await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${this.schema}.schema_migrations`)).rows as Array<{ version: number }>;
        const from = Number(rows[0]?.version ?? 0);
        if (from > PG_MIGRATIONS.length) throw newerSchema(from);
        for (let v = from; v < PG_MIGRATIONS.length; v++) {
          await client.query(PG_MIGRATIONS[v]!);
          await client.query(`INSERT INTO ${this.schema}.schema_migrations (version, applied_at) VALUES ($1, ${NOW_MS})`, [v + 1]);
        }
        await client.query('COMMIT');
        giveBack(client);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        giveBack(client, connectionError(error) ? (error as Error) : undefined);
        throw error;
      }
    });
  }
}

function newerSchema(version: number): Error {
  return new Error(`the call store's schema version ${version} is newer than this toolgate knows (${PG_MIGRATIONS.length}); use a newer toolgate or another schema`);
}

/** A LISTEN connection (the store's; the PostgreSQL queue's cancel channel): reconnects (100 ms, doubling to 2 s) whenever it breaks, until stopped. */
export class Listener {
  private client: PgClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wait = 100;
  private stopped = false;

  constructor(
    private readonly make: () => PgClient,
    private readonly channel: string,
    private readonly deliver: (payload: string) => void,
    private readonly reconnected: () => void,
  ) {}

  start(): void {
    if (this.stopped) return;
    const client = this.make();
    this.client = client;
    let failed = false;
    const fail = (): void => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      // Kept referenced, as the connection it replaces was: waiters are waiting on it (close stops it).
      this.timer = setTimeout(() => this.start(), this.wait);
      this.wait = Math.min(2_000, this.wait * 2);
    };
    client.on('error', fail);
    client.on('end', fail);
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.deliver(message.payload);
    });
    client.connect()
      .then(() => client.query(`LISTEN ${this.channel}`))
      .then(() => {
        this.wait = 100;
        // Notifications sent while no connection listened are lost: every waiter looks again.
        this.reconnected();
      }, fail);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
