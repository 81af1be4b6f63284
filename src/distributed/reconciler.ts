/**
 * The reconciler: every few seconds, each worker sweeps the store's lapsed leases (a dead
 * worker's running calls become `interrupted`) and looks for the `pending` calls of its pool
 * that no live lease holds ({@link queuedFor}), and adds their jobs again (with the call's job id, so a
 * job that still exists makes it a no-op):
 * - a call recorded whose job never reached Redis (its caller died between the commit and the
 *   add, or the queue's server restarted and lost it): its first job again;
 * - a call parked on a question that has been answered (anywhere): a resume job, taken by any
 *   worker of the pool, whose executor finds the answer in the store.
 * A call with an unanswered question is left alone: it holds no worker until it is answered.
 * Duplicates are harmless: the store's fenced claim runs a call once.
 *
 * @module
 */
import { queuedFor, type CallStore } from '../ledger/call-store.js';
import type { Logger } from '../logging/logger.js';
import { jobIdOf } from './job.js';
import type { JobQueue, QueueBackend } from './queue-backend.js';

/** The round of a call's job that resumes it after an answer. */
export const RESUME_ROUND = 1;

/** How long a recorded call is given for its caller's job to arrive before the reconciler adds one, in ms. */
const GRACE_MS = 3000;

/** Options of {@link Reconciler.start}. */
export interface ReconcilerOptions {
  /** The worker process's queue backend (its queue is made here; the backend stays the opener's). */
  backend: QueueBackend;
  store: CallStore;
  pool: string;
  intervalMs: number;
  logger: Logger;
}

/** Sends again the calls of a pool that lost their job. */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Aborted by {@link close}: a pass under way stops at its next step. */
  private readonly closing = new AbortController();

  private constructor(private readonly options: ReconcilerOptions, readonly queue: JobQueue) {}

  static start(options: ReconcilerOptions): Reconciler {
    const reconciler = new Reconciler(options, options.backend.queue(options.pool));
    reconciler.timer = setInterval(() => reconciler.tick(), options.intervalMs);
    reconciler.timer.unref();
    return reconciler;
  }

  private tick(): void {
    if (this.running !== undefined || this.closing.signal.aborted) return;
    this.running = this.pass().then(() => undefined, (error: unknown) => {
      if (!this.closing.signal.aborted) this.options.logger.warn({ event: 'reconcile_failed', err: (error as Error)?.message }, 'the reconciler could not look at the store; trying again');
    }).finally(() => (this.running = undefined));
  }

  /**
   * One pass: add again the jobs of the pool's pending calls that need one.
   * @returns how many jobs were added (or found still there).
   */
  async pass(now = Date.now()): Promise<number> {
    const { store, pool } = this.options;
    const closing = this.closing.signal;
    // Running calls whose lease lapsed (their worker died) become interrupted; pending ones
    // whose hold lapsed are queued again.
    await store.expireLeases();
    if (closing.aborted) return 0;
    const pending = (await store.list({ state: 'pending', pool, limit: 1000 })).filter((call) => queuedFor(call, now) === pool);
    if (pending.length === 0) return 0;
    const asked = new Set<string>();
    for (const question of await store.pendingApprovals()) {
      if (question.answer === undefined) asked.add(`${question.session}\u0000${question.callId}`);
    }
    let added = 0;
    for (const call of pending) {
      if (closing.aborted) break;
      const key = { callId: call.callId, session: call.session };
      if (asked.has(`${call.session}\u0000${call.callId}`)) continue; // parked: waits for its answer
      const answered = await store.answeredQuestion(call.callId, call.session);
      if (answered === undefined && now - call.createdAt < GRACE_MS) continue;
      await this.queue.add('call', key, { jobId: jobIdOf(key, answered === undefined ? 0 : RESUME_ROUND), removeOnComplete: true, removeOnFail: true, attempts: 1 });
      added++;
    }
    return added;
  }

  /**
   * Stop: no pass starts again; one under way stops at its next step and is not waited for (a
   * store that cannot be reached retries each step for seconds: the store's close ends that).
   * Its queue is closed; the backend stays open (the opener's).
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.closing.abort();
    await this.queue.close().catch(() => undefined);
  }
}
