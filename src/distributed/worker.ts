/**
 * The worker's side of the queue: it takes the jobs of its pool and runs each named call
 * through its own tool system (its registry, its workspace's policy files, the local runners
 * and the sandbox). A job is untrusted: it names a call and nothing more; the worker reads the
 * call from the shared store, and the executor validates and decides it again. The store's
 * fenced claim (`pending -> running`, exactly one winner) makes a call run once however often
 * BullMQ delivers its job (at least once); `maxStalledCount: 0` keeps BullMQ itself from
 * running a job again whose worker died (the call is `interrupted` then, never re-run).
 *
 * A call that asks a person parks: the job completes (its slot is free) while the question
 * waits in the store; the answer, given anywhere, resumes the call here, or (this worker gone)
 * on any worker of the pool, through the reconciler's job.
 *
 * @module
 */
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ToolSystem } from '../system/tool-system.js';
import type { CallKey, CallStore } from '../ledger/call-store.js';
import type { ToolExecutionResult } from '../types/result.js';
import { ToolgateOptionError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';
import { codesWhere } from '../errors/error-codes.js';
import { CANCEL_CHANNEL, redisClient } from './connection.js';
import { DEFAULT_POOL, isPoolName, parseJob, queueName } from './job.js';
import { loadBullMq } from './peers.js';
import { keyString } from './adopting-store.js';
import { Reconciler } from './reconciler.js';

/** Options of a {@link QueueWorker}. */
export interface QueueWorkerOptions {
  /** The Redis URL of the queue. */
  queue: string;
  /** The shared store (the one the system's executor records in, seen through {@link adoptingStore}). */
  store: CallStore;
  /** The tool system the calls run in: its executor's `ledger` is `adoptingStore(store, adopted)`. */
  system: ToolSystem;
  /** The keys adopted (shared with the system's store view). */
  adopted: Set<string>;
  /** The pool. Default `default`. */
  pool?: string;
  /** Calls run at once by this worker. Default 4. */
  concurrency?: number;
  /** BullMQ's job lock, in ms (a dead worker's job fails after it; its call is `interrupted` by the store). Default 30000. */
  lockDurationMs?: number;
  /** How often the reconciler looks for calls to send again and cancels to deliver, in ms. Default 2000. */
  reconcileMs?: number;
  logger: Logger;
}

const DENIALS = codesWhere((e) => e.stage === 'gate');

/** Runs the calls of one pool. */
export class QueueWorker {
  /** Calls running here, by key: their abort controllers. */
  private readonly running = new Map<string, AbortController>();
  /** Calls parked here on a question (their executions wait for an answer). */
  private readonly parked = new Map<Promise<unknown>, string>();
  private closing = false;

  private constructor(
    private readonly options: QueueWorkerOptions,
    private readonly worker: Worker,
    private readonly subscriber: Redis,
    private readonly reconciler: Reconciler,
  ) {}

  /**
   * Start taking the pool's jobs.
   * @throws ToolgateOptionError when an option is wrong or `bullmq`/`ioredis` is missing.
   */
  static async start(options: QueueWorkerOptions): Promise<QueueWorker> {
    const pool = options.pool ?? DEFAULT_POOL;
    if (!isPoolName(pool)) throw ToolgateOptionError.fromBadOption('pool', `must be 1 to 64 letters, digits, ".", "_" or "-"; got ${JSON.stringify(pool)}`);
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw ToolgateOptionError.fromBadOption('concurrency', 'must be an integer from 1 to 1024');
    const { Worker } = await loadBullMq();
    const connection = await redisClient(options.queue);
    const subscriber = await redisClient(options.queue);
    const reconciler = await Reconciler.start({ queue: options.queue, store: options.store, pool, intervalMs: options.reconcileMs ?? 2000, logger: options.logger });
    let self: QueueWorker | undefined;
    const worker = new Worker(queueName(pool), (job: Job) => self!.process(job), {
      connection, concurrency, maxStalledCount: 0, lockDuration: options.lockDurationMs ?? 30_000, autorun: false,
    });
    worker.on('error', (error) => options.logger.warn({ event: 'queue_worker_error', err: error?.message }, 'queue worker error'));
    self = new QueueWorker({ ...options, pool }, worker, subscriber, reconciler);
    reconciler.setSweep(() => self!.sweepCancels());
    await subscriber.subscribe(CANCEL_CHANNEL);
    subscriber.on('message', (_channel: string, message: string) => self!.cancelMessage(message));
    void worker.run().catch((error: unknown) => options.logger.error({ event: 'queue_worker_stopped', err: (error as Error)?.message }, 'the queue worker stopped'));
    await worker.waitUntilReady();
    return self;
  }

  /** The pool this worker serves. */
  get pool(): string {
    return this.options.pool!;
  }

  /** Handle one job: resolves when its call ended or parked on a question. */
  private async process(job: Job): Promise<void> {
    const key = parseJob(job.data);
    const { store, logger } = this.options;
    if (key === undefined) {
      logger.warn({ event: 'queue_job_refused', jobId: job.id }, 'a job that names no call was dropped');
      return;
    }
    const record = await store.get(key.callId, key.session);
    // Unknown, or claimed or ended already (a redelivery, a duplicate): nothing to do.
    if (record === undefined || record.state !== 'pending') return;
    // A call of another pool (or one made to run where it was made) is not this worker's.
    if (record.options.pool !== this.pool) {
      logger.warn({ event: 'queue_job_refused', jobId: job.id, callId: key.callId }, 'a job naming a call of another pool was dropped');
      return;
    }
    const fields = { tool: record.tool, callId: key.callId };
    if (record.cancelRequested) {
      const { failedResult } = await import('../closeout/results.js');
      await store.finish(key, { state: 'failed', decisions: undefined, result: failedResult('ABORTED', 'the call was cancelled before it started', fields) });
      return;
    }
    const id = keyString(key);
    if (this.running.has(id)) return; // this worker handles it already (a resumed round)
    const controller = new AbortController();
    this.running.set(id, controller);
    this.options.adopted.add(id);
    let park: () => void = () => undefined;
    const parkedNow = new Promise<'parked'>((resolve) => (park = () => resolve('parked')));
    const execution = this.options.system.execute(
      { name: record.tool, arguments: record.arguments, callId: key.callId, ...(record.version === '' ? {} : { version: record.version }) },
      {
        session: key.session, turnId: record.turn, signal: controller.signal,
        ...(record.options.timeoutMs === undefined ? {} : { timeoutMs: record.options.timeoutMs }),
        // The question is stored before this is asked: the call parks until an answer is
        // given anywhere (the executor's store poll finds it).
        confirmationHandler: () => {
          park();
          return new Promise<boolean>(() => undefined);
        },
      },
    ).then((result) => this.ended(key, result), (error: unknown) => {
      logger.error({ event: 'queue_call_failed', callId: key.callId, err: (error as Error)?.message }, 'a queued call failed');
    }).finally(() => {
      this.running.delete(id);
      this.options.adopted.delete(id);
    });
    if (await Promise.race([execution.then(() => 'ended' as const), parkedNow]) === 'parked') {
      this.parked.set(execution, id);
      void execution.finally(() => this.parked.delete(execution));
    }
  }

  /** After a call's execution: commit its end; a call that ended before it was recorded (unknown tool, bad arguments) is ended here. */
  private async ended(key: CallKey, result: ToolExecutionResult): Promise<void> {
    const { store } = this.options;
    await store.flush();
    if (result.errorCode === 'CALL_IN_PROGRESS') return; // another worker's
    const record = await store.get(key.callId, key.session);
    if (record?.state !== 'pending') return;
    const state = result.stopReason === 'not_run' && result.errorCode !== undefined && DENIALS.has(result.errorCode) ? 'denied' : 'failed';
    await store.finish(key, { state: result.success ? 'done' : state, decisions: result.decisions, result });
  }

  /** A message on the cancel channel: stop the named call if it runs here. */
  private cancelMessage(message: string): void {
    let key;
    try {
      key = parseJob(JSON.parse(message));
    } catch {
      return;
    }
    if (key !== undefined) this.cancelLocal(key);
  }

  /** Stop a call running here. @returns whether it ran here. */
  cancelLocal(key: CallKey): boolean {
    const controller = this.running.get(keyString(key));
    if (controller === undefined) return false;
    controller.abort();
    return true;
  }

  /** Look in the store for cancels of the calls running here (a message lost while Redis restarted). */
  async sweepCancels(): Promise<void> {
    for (const [id, controller] of this.running) {
      const [session, callId] = id.split('\u0000') as [string, string];
      if (await this.options.store.cancelRequested(callId, session)) controller.abort();
    }
  }

  /** Stop taking jobs, stop the calls running here (they end `ABORTED`), close the connections. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.reconciler.setSweep(undefined);
    await this.reconciler.close();
    // Calls parked on a question stay pending (the system's close leaves them so): any
    // worker of the pool resumes them once answered.
    const parked = new Set(this.parked.values());
    for (const [id, controller] of this.running) if (!parked.has(id)) controller.abort();
    await this.worker.close().catch(() => undefined);
    this.subscriber.disconnect();
  }
}
