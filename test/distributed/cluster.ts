/**
 * A small cluster for the distributed tests: a queue (a Redis server, or a PostgreSQL database
 * given by URL), a shared store (a SQLite file, or a PostgreSQL URL), a workspace, and
 * `toolgate worker` processes of the fixture tools (started, killed, stopped). Should the test
 * process be killed from outside, its watchdog (`../server-guard.ts`) kills the workers and
 * removes the folder (a worker outlives its parent, retrying its queue).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, REPO_ROOT } from '../helpers.js';
import { ServerGuard } from '../server-guard.js';
import { RedisServer } from './redis-server.js';

/** A running `toolgate worker`. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  stderr: string;
}

export class Cluster {
  readonly workers: WorkerProcess[] = [];
  private constructor(private readonly redisServer: RedisServer | undefined, private readonly queueUrl: string | undefined, readonly root: string, readonly workspace: string, readonly store: string, private readonly guard: ServerGuard) {}

  /**
   * @param store - the shared store's spec (a `postgres://` URL); default a SQLite file in the cluster's folder.
   * @param queue - the queue's URL (a `postgres://` URL: BullMQ's PostgreSQL backend); default a Redis server started here.
   */
  static async start(store?: string, queue?: string): Promise<Cluster> {
    const redis = queue === undefined ? await RedisServer.start() : undefined;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-dist-'));
    const guard = ServerGuard.start();
    guard.remove('folder', root);
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    return new Cluster(redis, queue, root, workspace, store ?? path.join(root, 'store.sqlite'), guard);
  }

  /** The Redis server of a cluster whose queue is on Redis. */
  get redis(): RedisServer {
    if (this.redisServer === undefined) throw new Error('this cluster\'s queue is not on Redis');
    return this.redisServer;
  }

  /** The queue's URL (`--queue`). */
  get queue(): string {
    return this.queueUrl ?? this.redis.url;
  }

  /** Start a worker of `pool` (in `workspace`, default the cluster's) and wait until it is ready. */
  async worker(pool = 'default', extra: string[] = [], workspace = this.workspace): Promise<WorkerProcess> {
    const child = spawn(process.execPath, [BIN, 'worker', '--workspace', workspace, '--store', this.store, '--queue', this.queue, '--pool', pool,
      '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--lease-ms', '2000', ...extra], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const worker: WorkerProcess = { child, pid: child.pid!, stderr: '' };
    this.workers.push(worker);
    if (child.pid !== undefined) this.guard.kill(`worker-${child.pid}`, child.pid);
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        worker.stderr += chunk.toString();
        if (worker.stderr.includes(': ready')) resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}): ${worker.stderr}`)));
    });
    return worker;
  }

  /** `kill -9` a worker and wait until it is gone. */
  async kill(worker: WorkerProcess): Promise<void> {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    const gone = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await gone;
  }

  /** The lines of a marker file in the workspace (empty when none). */
  marker(file: string): string[] {
    const at = path.join(this.workspace, file);
    return fs.existsSync(at) ? fs.readFileSync(at, 'utf8').split('\n').filter((l) => l !== '') : [];
  }

  /** Stop every worker: SIGTERM, then SIGKILL after 5 s. @returns how many needed SIGKILL. */
  async stopWorkers(): Promise<number> {
    let killed = 0;
    await Promise.all(this.workers.map(async (worker) => {
      if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
      const gone = new Promise((resolve) => worker.child.once('exit', resolve));
      worker.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        killed++;
        worker.child.kill('SIGKILL');
      }, 5000);
      await gone;
      clearTimeout(timer);
    }));
    return killed;
  }

  /**
   * Wait until none of the jobs `ids` of `pool` is in the queue any more: each was taken by a
   * worker and handled (jobs are removed when they complete or fail), so whatever it would do
   * is done. @throws after `ms`.
   */
  async jobsHandled(ids: readonly string[], pool = 'default', ms = 30_000): Promise<void> {
    const queue = await rawQueue(this.queue, pool);
    try {
      await until(async () => (await Promise.all(ids.map((id) => queue.getJob(id)))).every((job) => job === undefined || job === null), ms, `the jobs ${ids.join(', ')} to be handled`);
    } finally {
      await queue.close();
    }
  }

  /** Stop every worker (SIGTERM, then SIGKILL), Redis, and remove the folders. */
  async stop(): Promise<void> {
    await this.stopWorkers();
    await this.redisServer?.stop();
    fs.rmSync(this.root, { recursive: true, force: true });
    this.guard.disarm();
  }
}

/** Resolve once `check` is true (looked at every 50 ms), or reject after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Another database on the server of `url` (a superuser's), for a suite that must not see the
 * file's other suites' calls (its store and queue in one database); drop it when done.
 */
export async function freshDatabase(url: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const database = `${new URL(url).pathname.slice(1)}_${name}`.slice(0, 63);
  await admin(`DROP DATABASE IF EXISTS ${database}`);
  await admin(`CREATE DATABASE ${database}`);
  const fresh = new URL(url);
  fresh.pathname = `/${database}`;
  return { url: fresh.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined) };
}

/** A raw BullMQ queue of `pool` on the queue server at `url` (Redis or PostgreSQL), for tests that add jobs themselves. */
export interface RawQueue {
  add(name: string, data: Record<string, unknown>, options: import('bullmq').JobsOptions): Promise<unknown>;
  getJob(id: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Open a {@link RawQueue}: the same BullMQ queue the callers and workers of `pool` use. */
export async function rawQueue(url: string, pool: string): Promise<RawQueue> {
  const bull = await import('bullmq');
  const name = `toolgate.${pool}`;
  if (url.startsWith('redis')) {
    const { Redis } = await import('ioredis');
    const connection = new Redis(url, { maxRetriesPerRequest: null });
    const queue = new bull.Queue(name, { connection });
    return { add: (n, d, o) => queue.add(n, d, o), getJob: (id) => queue.getJob(id), close: async () => {
      await queue.close();
      connection.disconnect();
    } };
  }
  const { default: pg } = await import('pg');
  const connection = new pg.Pool({ connectionString: url, options: '-c search_path=bullmq', max: 4 });
  const queue = new bull.Queue(name, { connection }, bull.createPostgresBackend);
  return { add: (n, d, o) => queue.add(n, d, o), getJob: (id) => queue.getJob(id), close: async () => {
    await queue.close();
    await connection.end();
  } };
}
