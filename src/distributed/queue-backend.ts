/**
 * The seam between the distributed mode and the server its queue lives on. A queue backend
 * gives the callers, workers, reconcilers and task dispatch of the mode everything they need of
 * that server: BullMQ's queues, workers and queue events bound to it (jobs added, taken,
 * delayed, removed, their completion awaited), the cancel channel (every worker listens; any
 * process publishes), and the `rateLimitRpm` turns shared by every worker of every machine.
 *
 * One backend per server kind, each one file set, listed once in `queue-backends.ts`:
 * - `redis://`, `rediss://`: BullMQ on Redis, Redis pub/sub, a Lua script (`redis-queue.ts`);
 * - `postgres://`, `postgresql://`: BullMQ's PostgreSQL backend, `LISTEN/NOTIFY`, a PL/pgSQL
 *   function over a per-tool turns table (`postgres-queue.ts`).
 *
 * A backend object is opened once per caller, and once per worker process (shared by its
 * worker, reconciler, rate-limit turns and task jobs), and closed by whoever opened it: it
 * owns the connections it made. Passwords come from the URL, the environment
 * or a password file, and are never logged ({@link QueueBackend.redact}).
 *
 * @module
 */
import type { JobsOptions, QueueEvents } from 'bullmq';
import type { RateAdmission } from '../decisions/rate-limit.js';

/** What a worker's processor is given of a job (its data is untrusted: `job.ts` checks it). */
export interface QueueJob {
  /** `call` (a call's job) or `task` (a task's delayed job); anything else is dropped. */
  readonly name: string;
  /** The job id (`call-<hash>`, `call-<hash>-r<round>`, `task-<id>-<due>`), for logs. */
  readonly id?: string | undefined;
  /** The job's data as stored on the server: untrusted, parsed by `parseJob` or `parseTaskJob`. */
  readonly data: unknown;
}

/** A pool's queue: jobs are added to it. */
export interface JobQueue {
  /** Add a job (a job of the same `jobId` that still exists makes it a no-op). */
  add(name: string, data: Record<string, unknown>, options: JobsOptions): Promise<unknown>;
  /** Stop using the queue (its backend's connections stay open until the backend closes). */
  close(): Promise<void>;
}

/** A pool's BullMQ worker (made with `autorun: false`: {@link JobWorker.run} starts it). */
export interface JobWorker {
  /** Take jobs until closed (rejects when the worker stops on an error). */
  run(): Promise<void>;
  /** Resolves once the worker can take jobs. @throws the server's error when it cannot. */
  waitUntilReady(): Promise<unknown>;
  /** Stop taking jobs and wait for the jobs under way to settle. */
  close(): Promise<void>;
}

/**
 * BullMQ's worker's wait after a connection error before it fetches again, in ms (its
 * `runRetryDelay`; BullMQ's default 15 s). Its wait cannot be cut short by `close`: with the
 * server down, a process that closes its worker ends only when that wait does.
 */
export const RUN_RETRY_DELAY_MS = 1_000;

/** Options of {@link QueueBackend.worker}. */
export interface JobWorkerOptions {
  /** Jobs processed at once (1 to 1024). */
  concurrency: number;
  /** BullMQ's job lock, in ms. */
  lockDuration: number;
  /** Errors of the worker (their messages redacted). */
  onError: (message: string) => void;
}

/** What a caller hears of its pool's jobs. */
export interface JobEventHandlers {
  /** A job completed with `returnvalue` (untrusted: a signed reply, or anything). */
  completed(jobId: string, returnvalue: unknown): void;
  failed(jobId: string): void;
}

/** A subscription to a pool's job events: close it to stop. */
export interface JobEvents {
  close(): Promise<void>;
}

/** One server's queue, cancel channel and rate-limit turns. */
export interface QueueBackend {
  /** `redis` or `postgres`. */
  readonly kind: string;
  /** The queue of `pool` (closed by the caller, before {@link close}). */
  queue(pool: string): JobQueue;
  /** A worker of `pool`'s queue; a job whose worker died is never run again by BullMQ (`maxStalledCount: 0`). */
  worker(pool: string, processor: (job: QueueJob) => Promise<unknown>, options: JobWorkerOptions): JobWorker;
  /** Hear the completions and failures of `pool`'s jobs; resolves once listening. */
  events(pool: string, handlers: JobEventHandlers): Promise<JobEvents>;
  /** Publish a cancel request (a call's key as JSON) to every worker. */
  publishCancel(message: string): Promise<void>;
  /** Hear the cancel requests (best effort: the store's cancel flag is the truth); resolves once listening. */
  onCancel(listener: (message: string) => void): Promise<void>;
  /** `rateLimitRpm` turns shared by every process using this server (closed by the executor). */
  rateLimiter(maxWaitMs?: number): RateAdmission;
  /** `text` without the connection's password. */
  redact(text: string): string;
  /** Close what this backend opened (its connections, listeners). */
  close(): Promise<void>;
}

/** Options of {@link QueueBackendKind.open}. */
export interface QueueOpenOptions {
  /**
   * Connections the backend may hold at once, its listening ones included (a worker sizes it
   * from its concurrency). Servers whose clients multiplex one connection (Redis) ignore it.
   * Default 10.
   */
  connections?: number;
}

/**
 * A kind of queue server: how to open it. The URL schemes it serves and its example are its
 * entry in `queue-backends.ts` (read by the usage text without loading the backend).
 */
export interface QueueBackendKind {
  /**
   * Open a backend on `url`.
   * @param option - the option named in errors (`queue`).
   * @throws ToolgateOptionError for a bad URL; PackageUnavailableError for a missing peer; the server's error (password redacted) when it cannot be set up.
   */
  open(url: string, option: string, options?: QueueOpenOptions): Promise<QueueBackend>;
}

/** What {@link hearJobEvents} needs of BullMQ's `QueueEvents` (on either backend: `any` for its backend and connection types). */
type QueueEventsLike = Pick<QueueEvents<unknown, any, any>, 'on' | 'waitUntilReady' | 'close'>;

/**
 * Hand a pool's BullMQ queue events to `handlers` (errors ignored: a caller also waits on the
 * store) and resolve once they are heard; a backend's {@link QueueBackend.events}.
 */
export async function hearJobEvents(events: QueueEventsLike, handlers: JobEventHandlers): Promise<JobEvents> {
  events.on('error', () => undefined);
  events.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => handlers.completed(jobId, returnvalue));
  events.on('failed', ({ jobId }: { jobId: string }) => handlers.failed(jobId));
  await events.waitUntilReady();
  return events;
}

/** `text` with the password of `url` (percent-decoded) replaced by `***`; a backend's {@link QueueBackend.redact}. */
export function redactPassword(url: string, text: string): string {
  let password: string | undefined;
  try {
    password = decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    password = undefined;
  }
  return password === undefined ? text : text.split(password).join('***');
}
