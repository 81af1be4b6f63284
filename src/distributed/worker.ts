/**
 * The worker's side of the queue: it takes the jobs of its pool and runs each named call
 * through its own tool system (its registry, its workspace's policy files, the local runners
 * and the sandbox). A job is untrusted: it names a call and nothing more; the worker reads the
 * call from the shared store, and the executor validates and decides it again. The store's
 * fenced claim (`pending -> running`, exactly one winner) makes a call run once however often
 * BullMQ delivers its job (at least once); `maxStalledCount: 0` keeps BullMQ itself from
 * running a job again whose worker died (the call is `interrupted` then, never re-run).
 *
 * Each call runs under a lease (`claimLease`; `takeLease` first only to ask or refuse it), renewed by the
 * store handle while the worker lives: a worker that dies loses its leases, and its running
 * calls become `interrupted` once they lapse (whoever sweeps: another worker's reconciler, or
 * the caller waiting). A call that asks a person parks: its hold is released and its job
 * completes (no slot held) while the question waits in the store; the answer, given anywhere,
 * re-sends its job (noticed by this worker, or by any worker's reconciler) and a worker of the
 * pool resumes it.
 *
 * @module
 */
import type { ToolSystem } from '../system/tool-system.js';
import type { CallKey, CallRecord } from '../ledger/call-store.js';
import type { ToolExecutionResult } from '../types/result.js';
import { ToolgateOptionError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';
import { codesWhere } from '../errors/error-codes.js';
import { poolOption, jobIdOf, parseJob } from './job.js';
import type { JobQueue, JobWorker, QueueBackend, QueueJob } from './queue-backend.js';
import { keyString, WorkerStore } from './worker-store.js';
import { signReply, type SignedReply } from './reply.js';
import { Reconciler, RESUME_ROUND } from './reconciler.js';
import { hostId } from '../ledger/owner.js';
import crypto from 'node:crypto';
import { parseTaskJob, TASK_JOB, type QueueTaskDispatch } from './task-dispatch.js';
import { AbortControllers, RunningCall } from './running-call.js';

/** Options of a {@link QueueWorker}. */
export interface QueueWorkerOptions {
  /** The worker process's queue backend (`queue-backends.ts`), shared with its reconciler, turns and task jobs; the opener closes it. */
  backend: QueueBackend;
  /** The shared store, seen by the system's executor through `leases.view`. */
  leases: WorkerStore;
  /** The tool system the calls run in: its executor's `ledger` is `leases.view`. */
  system: ToolSystem;
  /** The pool. Default `default`. */
  pool?: string;
  /** Calls run at once by this worker. Default 4. */
  concurrency?: number;
  /** BullMQ's job lock, in ms. Default: the lease length. */
  lockDurationMs?: number;
  /** How often the reconciler sweeps lapsed leases and re-sends queued calls, in ms. Default 2000. */
  reconcileMs?: number;
  /** Starts the tasks whose delayed jobs come (`task-dispatch.ts`). Without it, task jobs are dropped. */
  tasks?: QueueTaskDispatch;
  logger: Logger;
}

const DENIALS = codesWhere((e) => e.stage === 'gate');

/** A worker's owner id: its host, process and a random part (unique per start). */
export function workerOwner(): string {
  return `worker:${hostId()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
}

/** Runs the calls of one pool. */
export class QueueWorker {
  /** Calls executing here, by key. */
  private readonly running = new Map<string, RunningCall>();
  /** Their abort controllers, given again to later calls while fresh. */
  private readonly controllers = new AbortControllers();
  private closing = false;

  private constructor(
    private readonly options: QueueWorkerOptions & { pool: string },
    private readonly worker: JobWorker,
    private readonly reconciler: Reconciler,
    private readonly resumeQueue: JobQueue,
  ) {}

  /**
   * Start taking the pool's jobs.
   * @throws ToolgateOptionError when an option is wrong or a peer (`bullmq`, `ioredis` or `pg`) is missing; the queue server's error when it cannot be set up.
   */
  static async start(options: QueueWorkerOptions): Promise<QueueWorker> {
    const pool = poolOption(options.pool);
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw ToolgateOptionError.fromBadOption('concurrency', 'must be an integer from 1 to 1024');
    const { backend } = options;
    const reconciler = Reconciler.start({ backend, store: options.leases.store, pool, intervalMs: options.reconcileMs ?? 2000, logger: options.logger });
    let self: QueueWorker | undefined;
    // A job whose worker died is not run again by BullMQ (`maxStalledCount: 0`): its call's lease says what became of it.
    const worker = backend.worker(pool, (job: QueueJob) => self!.process(job), {
      concurrency, lockDuration: options.lockDurationMs ?? 30_000,
      onError: (message) => options.logger.warn({ event: 'queue_worker_error', err: message }, 'queue worker error'),
    });
    self = new QueueWorker({ ...options, pool }, worker, reconciler, reconciler.queue);
    try {
      await backend.onCancel((message) => self!.cancelMessage(message));
      void worker.run().catch((error: unknown) => options.logger.error({ event: 'queue_worker_stopped', err: backend.redact(String((error as Error)?.message)) }, 'the queue worker stopped'));
      await worker.waitUntilReady();
    } catch (error) {
      // The queue's server refused (or cannot be reached): nothing of this worker stays open.
      await self.close();
      throw error;
    }
    return self;
  }

  /** The pool this worker serves. */
  get pool(): string {
    return this.options.pool;
  }

  /** Re-send a call's job (its answer came while it was parked here). */
  resume(key: CallKey): void {
    void this.resumeQueue.add('call', { callId: key.callId, session: key.session }, { jobId: jobIdOf(key, RESUME_ROUND), removeOnComplete: true, removeOnFail: true, attempts: 1 })
      .catch((error: unknown) => this.options.logger.warn({ event: 'queue_resume_failed', callId: key.callId, err: (error as Error)?.message }, 'could not re-send an answered call; the reconciler will'));
  }

  /**
   * Handle one job: resolves when its call ended or parked on a question; with the caller's
   * reply (the stored result, signed) when this worker wrote its end.
   */
  private async process(job: QueueJob): Promise<SignedReply | undefined> {
    const { leases, logger } = this.options;
    if (job.name === TASK_JOB) {
      // A task's delayed job: the store says whether it is due and who starts it.
      const task = parseTaskJob(job.data);
      if (task === undefined) logger.warn({ event: 'queue_job_refused', jobId: job.id }, 'a task job that names no task was dropped');
      else await this.options.tasks?.due(task).catch((error: unknown) => logger.warn({ event: 'task_job_failed', task, err: (error as Error)?.message }, 'a task job could not start its task; the schedulers\' looks will'));
      return;
    }
    const key = parseJob(job.data);
    const { store } = leases;
    if (key === undefined) {
      logger.warn({ event: 'queue_job_refused', jobId: job.id }, 'a job that names no call was dropped');
      return;
    }
    const id = keyString(key);
    // The parked execution of this call here is ending (it noticed the answer): let it. A job
    // for a call parked here whose question is still open (a duplicate, or one injected into
    // the queue) has nothing to do, and must not hold a slot until someone answers.
    const here = this.running.get(id);
    if (here !== undefined) {
      if (leases.held.get(id)?.parked === true && await store.answeredQuestion(key.callId, key.session) === undefined) return;
      await here.execution;
    }
    const record = await store.get(key.callId, key.session);
    // Unknown, claimed or ended already (a redelivery, a duplicate), or not this pool's: nothing to do.
    if (record === undefined || record.state !== 'pending') return;
    if (record.pool !== this.pool) {
      logger.warn({ event: 'queue_job_refused', jobId: job.id, callId: key.callId }, 'a job naming a call of another pool was dropped');
      return;
    }
    // Decided here without a write first: the claim (or the hold before a question or an end
    // without a run) is what one worker of any number wins.
    leases.adopt(key);
    if (record.cancelRequested) {
      const { failedResult } = await import('../closeout/results.js');
      await leases.end(key, { state: 'failed', decisions: undefined, result: failedResult('ABORTED', 'the call was cancelled before it started', { tool: record.tool, callId: key.callId }) });
      leases.forget(key);
      return;
    }
    return await this.run(key, id, record); // awaited: a promise turn fewer than returning it
  }

  /**
   * Run an adopted call: resolves with the caller's reply once it ended here (`undefined` when
   * there is none), or with `undefined` as soon as it parks on a question (its job completes;
   * its execution goes on until the question is answered). Rejects when its end could not be
   * handled (the job fails; the caller reads the store).
   */
  private run(key: CallKey, id: string, record: CallRecord): Promise<SignedReply | undefined> {
    const { leases, logger } = this.options;
    const call = new RunningCall(leases.store, key, this.controllers.take());
    this.running.set(id, call);
    const { replyKey, timeoutMs } = record.options;
    return new Promise((resolve, reject) => {
      const park = () => resolve(undefined);
      call.execution = this.options.system.execute(
        record.version === '' ? { name: record.tool, arguments: record.arguments, callId: key.callId } : { name: record.tool, arguments: record.arguments, callId: key.callId, version: record.version },
        {
          session: key.session, turnId: record.turn, signal: call.controller.signal,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          // The question is stored before this is asked: the call parks (its hold released)
          // until an answer is given anywhere.
          confirmationHandler: () => {
            void leases.park(key).then(park, park);
            return new Promise<boolean>(() => undefined);
          },
        },
      ).then((result) => this.ended(key, result, replyKey).catch((error: unknown) => {
        // The store did not answer within its retry (`retryMs`): the end is kept (by the
        // worker, `unwritten-ends.ts`) and written once the server is back (the caller reads
        // it then); no reply meanwhile.
        logger.warn({ event: 'queue_end_pending', callId: key.callId, err: (error as Error)?.message }, 'the store has not recorded a call\'s end yet; it is kept and written once the store answers');
        return undefined;
      }), (error: unknown) => {
        logger.error({ event: 'queue_call_failed', callId: key.callId, err: (error as Error)?.message }, 'a queued call failed');
        return undefined;
      }).then((reply) => {
        this.over(call, id);
        resolve(reply);
      }, (error: unknown) => {
        this.over(call, id);
        reject(error);
      });
    });
  }

  /** A call's execution and the handling of its end are over: it is no longer this worker's. */
  private over(call: RunningCall, id: string): void {
    call.ended();
    this.running.delete(id);
    this.options.leases.forget(call.key);
    this.controllers.giveBack(call.controller);
  }

  /**
   * After a call's execution: commit its end; a call that ended before it was recorded (unknown
   * tool, bad arguments) is ended here.
   * @returns the caller's reply when this worker's end is the one stored and the call has a reply key.
   * @throws the store's error when it cannot be reached within its retry (an end queued stays
   *   queued in the store; one this worker writes is kept by it: both are written once it answers).
   */
  private async ended(key: CallKey, result: ToolExecutionResult, replyKey: string | undefined): Promise<SignedReply | undefined> {
    const { leases } = this.options;
    if (result.errorCode === 'CALL_IN_PROGRESS') return undefined; // another worker's, or parked
    // Its end written by the executor under this worker's token: it is not `pending` now (or,
    // the lease lost, someone else ended it); either way nothing is left to write.
    const held = leases.held.get(keyString(key));
    if (held?.ended === true) {
      // Fenced: the end was written unless the lease was lost and the call swept
      // `interrupted` (a state this worker never writes); `written` says which.
      const end = await held.written;
      return replyKey === undefined || end === undefined ? undefined : signReply(replyKey, end.result);
    }
    // Parked (it asked a person; its hold released): nothing of this execution is written; the
    // worker that takes its job once it is answered ends it.
    if (held?.parked === true) return undefined;
    // Ended without a run (unknown tool, bad arguments): what this store queued is committed
    // before the call is read back; an end the store does not take is kept and retried.
    const state = result.stopReason === 'not_run' && result.errorCode !== undefined && DENIALS.has(result.errorCode) ? 'denied' : 'failed';
    const end = { state: result.success ? 'done' : state, decisions: result.decisions, result } as const;
    try {
      await leases.store.flush();
      const record = await leases.store.get(key.callId, key.session);
      if (record?.state !== 'pending') return undefined;
      return (await leases.end(key, end)) && replyKey !== undefined ? signReply(replyKey, result) : undefined;
    } catch (error) {
      leases.keep(key, end);
      throw error;
    }
  }

  /**
   * A message on the cancel channel: stop the named call if it runs here and its cancel was
   * asked in the store. Anyone who reaches the channel can send one (on PostgreSQL any role
   * that can connect, NOTIFY needing no privilege): the store's flag is the authority.
   */
  private cancelMessage(message: string): void {
    let key;
    try {
      key = parseJob(JSON.parse(message));
    } catch {
      return;
    }
    const here = key === undefined ? undefined : this.running.get(keyString(key));
    if (key === undefined || here === undefined) return;
    this.options.leases.store.get(key.callId, key.session).then((record) => record?.cancelRequested === true && here.abort(), () => undefined);
  }

  /** Calls running here now (not those parked on a question). */
  get runningCalls(): number {
    let count = 0;
    for (const id of this.running.keys()) if (this.options.leases.held.get(id)?.parked !== true) count++;
    return count;
  }

  /** Calls parked here on a question (they stay pending for any worker of the pool). */
  get parkedCalls(): number {
    return this.running.size - this.runningCalls;
  }

  /**
   * Stop taking jobs, stop the calls running here (they end `ABORTED`), stop the reconciler. The
   * backend is the opener's to close. Nothing here waits for a server to come back: a pass of
   * the reconciler under way is left to end with the store's close, and BullMQ's worker waits
   * at most `RUN_RETRY_DELAY_MS` (1 s, `queue-backend.ts`) after a connection error.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.reconciler.close();
    // Calls parked on a question stay pending (their holds are released already).
    for (const [id, { controller }] of this.running) if (this.options.leases.held.get(id)?.parked !== true) controller.abort();
    await this.worker.close().catch(() => undefined);
    this.options.leases.close();
  }
}
