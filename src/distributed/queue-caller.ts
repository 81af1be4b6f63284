/**
 * The caller's side of the queue: a call is recorded in the store first (the outbox: the row
 * commits before the job is added), then its job (its key only) goes to its pool's queue with
 * the call's job id, so that adding it again is harmless; the caller then waits for the call's
 * end in the store (woken by the store's wait, or at once by its job's completion event) and
 * returns the stored result. A worker of the pool decides and runs it.
 *
 * @module
 */
import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { failedResult } from '../closeout/results.js';
import type { CallKey, CallStore, NewCall } from '../ledger/call-store.js';
import { argumentsSha256 } from '../ledger/tombstones.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import type { JobEvents, JobQueue, QueueBackend } from './queue-backend.js';
import { openQueueBackend } from './queue-backends.js';
import { poolOption, jobIdOf, jobIdsOf } from './job.js';
import { RESUME_ROUND } from './reconciler.js';
import { newReplyKey, openReply } from './reply.js';
import { ToolgateError, ToolgateOptionError } from '../errors/errors.js';
import { redactUrl } from '../ledger/postgres/database.js';
import { DeadlineEntry, DeadlineTimers } from '../runner/deadlines.js';

/** Options of a {@link QueueCaller}. */
export interface QueueCallerOptions {
  /** The queue's URL (`redis://HOST:PORT`, or `postgres://...`: `queue-backends.ts`). */
  queue: string;
  /** The store calls are recorded in, shared with the workers (the caller closes it). */
  store: CallStore;
  /** The pool calls go to. Default `default`. */
  pool?: string;
  /** The workspace recorded with each call (the worker runs it in its own). Default `process.cwd()`. */
  workspace?: string;
  /** How often a call awaited is looked at for a lapsed lease of its worker, in ms (its end itself wakes the caller at once). Default 1000. */
  checkMs?: number;
  /**
   * Connections to a PostgreSQL queue's server at most (ignored by Redis), the listening one of
   * its job events included: at least 2. Default {@link CALLER_CONNECTIONS} (3): adding a job
   * is one short statement, so calls sent at once share them.
   */
  connections?: number;
  /**
   * How long each call waits for the queue's server to take its job, in ms: past it, the call
   * (recorded already) ends `QUEUE_UNAVAILABLE` in the store under the caller's hold, so that
   * no worker runs it when the job arrives later. Default {@link QUEUE_WAIT_MS} (30 s); the
   * client retries the server meanwhile (a restart rides through).
   */
  queueWaitMs?: number;
  /**
   * How long {@link QueueCaller.open} waits for the queue's server to answer, in ms (loading the
   * backend's packages included): past it, it throws a `QUEUE_UNAVAILABLE` error and nothing
   * of the caller stays open. Default {@link QUEUE_WAIT_MS} (30 s). The CLI's
   * `--queue-wait-ms` sets it and {@link queueWaitMs}.
   */
  connectWaitMs?: number;
}

/** How long a call waits for the queue's server to take its job before it ends `QUEUE_UNAVAILABLE`, in ms. */
const QUEUE_WAIT_MS = 30_000;

/** A caller's connections to a PostgreSQL queue: its job events' LISTEN connection, and two for adding jobs and publishing cancels. */
export const CALLER_CONNECTIONS = 3;

/** Per-call options of {@link QueueCaller.call}. */
export interface QueueCallOptions {
  /** The session (with the call id, the idempotency key). Default `queue`. */
  session?: string;
  /** The turn. Default `''`. */
  turnId?: string;
  /** Aborts the call: a cancel request to whichever worker runs it; the result is the call's end (`ABORTED` when it stopped). */
  signal?: AbortSignal;
  /** The call's timeout override, in ms (recorded; the worker bounds it by the tool's). */
  timeoutMs?: number;
  /**
   * How long after `signal` aborts the call's end is waited for, in ms: past it, the result
   * is `ABORTED` ("cancel requested; the worker has not stopped it yet") without its end (the
   * cancel stays recorded in the store: the worker stops it when it can, or its lease lapses).
   * Default: wait for the end.
   */
  cancelGraceMs?: number;
}

/** The reason a wait is stopped with (a constant: no exception object is made per wake). */
const WOKEN = Symbol('woken');

/** The look-again deadlines of the calls awaited: one timer per distinct interval, none armed per wait (`src/runner/deadlines.ts`). */
const LOOKS = new DeadlineTimers();

/**
 * What wakes a call awaited: its jobs' completion, the look-again deadline (it is its own
 * deadline entry), {@link QueueCaller.close}.
 */
class Waker extends DeadlineEntry {
  /** Ends the wait under way (set while one is); called once by {@link wake}. */
  current: (() => void) | undefined = undefined;
  /** Woken while no wait was under way: the next wait is skipped. */
  woken = false;
  /** The return value of a job of its call that completed (a signed reply, or anything: checked before use). */
  reply: unknown = undefined;

  /** @param jobs - the job ids of its call (round 0, the resumed round). */
  constructor(readonly jobs: readonly [string, string]) {
    super();
  }

  /** Wake the wait (`reply`: a job's return value). */
  wake(reply?: unknown): void {
    if (reply !== undefined) this.reply = reply;
    const end = this.current;
    this.current = undefined;
    if (end !== undefined) end();
    else this.woken = true;
  }

  /** The look-again deadline: wake. */
  protected expire(): void {
    this.wake();
  }
}

/** Sends calls to workers and waits for their ends. */
export class QueueCaller {
  private readonly waiting = new Set<Waker>();
  /** Wakers of the calls awaited, by job id: a job that completes (its call ended or parked) wakes its caller at once. */
  private readonly byJob = new Map<string, Set<Waker>>();
  private closed = false;
  private events: JobEvents | undefined;

  private constructor(
    private readonly store: CallStore,
    private readonly queue: JobQueue,
    private readonly backend: QueueBackend,
    readonly pool: string,
    private readonly workspace: string,
    private readonly checkMs: number,
    private readonly queueWaitMs: number,
  ) {}

  /**
   * Connect to the queue of a pool, waiting for its server at most `connectWaitMs`.
   * @throws ToolgateOptionError when an option is wrong or a peer (`bullmq`, `ioredis` or `pg`) is missing; a `ToolgateError` of code `QUEUE_UNAVAILABLE` when the queue's server has not answered within `connectWaitMs` (down, unreachable, or not a queue's server: nothing of the caller stays open); the queue server's error when it cannot be set up.
   */
  static async open(options: QueueCallerOptions): Promise<QueueCaller> {
    const pool = poolOption(options.pool);
    const checkMs = options.checkMs ?? 1000;
    if (!Number.isInteger(checkMs) || checkMs < 1) throw ToolgateOptionError.fromBadOption('checkMs', 'must be a positive integer');
    const queueWaitMs = options.queueWaitMs ?? QUEUE_WAIT_MS;
    if (!Number.isInteger(queueWaitMs) || queueWaitMs < 1) throw ToolgateOptionError.fromBadOption('queueWaitMs', 'must be a positive integer');
    const connectWaitMs = options.connectWaitMs ?? QUEUE_WAIT_MS;
    if (!Number.isInteger(connectWaitMs) || connectWaitMs < 1) throw ToolgateOptionError.fromBadOption('connectWaitMs', 'must be a positive integer');
    let backend: QueueBackend | undefined;
    let gaveUp = false;
    const connecting = (async () => {
      const opened = await openQueueBackend(options.queue, 'queue', { connections: options.connections ?? CALLER_CONNECTIONS });
      if (gaveUp) {
        await opened.close();
        throw new Error('the caller gave up waiting for the queue');
      }
      backend = opened;
      const caller = new QueueCaller(options.store, opened.queue(pool), opened, pool, options.workspace ?? process.cwd(), checkMs, queueWaitMs);
      try {
        caller.events = await opened.events(pool, {
          completed: (jobId, returnvalue) => {
            for (const waker of caller.byJob.get(jobId) ?? []) waker.wake(returnvalue);
          },
          failed: (jobId) => {
            for (const waker of caller.byJob.get(jobId) ?? []) waker.wake();
          },
        });
      } catch (error) {
        await caller.close();
        throw error;
      }
      return caller;
    })();
    const caller = await within(connectWaitMs, connecting, () => undefined);
    if (caller !== undefined) return caller;
    // Not connected in time: every connection made so far is ended (BullMQ's job events
    // included, which would retry the server for ever), and one that opens later is closed.
    gaveUp = true;
    void connecting.then((late) => late.close(), () => undefined);
    await backend?.close().catch(() => undefined);
    throw new ToolgateError('QUEUE_UNAVAILABLE', `the queue's server ${redactUrl(options.queue)} did not answer within ${connectWaitMs / 1000} s (down, unreachable, or not a queue's server): no call was sent. Start it, or check the --queue URL; retry once it answers.`);
  }

  /**
   * Run one call on a worker of the pool: record it (unless its key is known), add its job,
   * and wait for its end. Never throws for a call: a store or queue that fails is an `INTERNAL`
   * result, an argument text that is not a JSON object an `INVALID_ARGUMENTS` one.
   */
  async call(request: ToolCallRequest, options: QueueCallOptions = {}): Promise<ToolExecutionResult> {
    const callId = request.callId ?? `tq_${crypto.randomUUID()}`;
    const session = options.session ?? 'queue';
    const key: CallKey = { callId, session };
    const fields = { tool: String(request.name), callId };
    const args = argumentsOf(request.arguments);
    if (args === undefined) return failedResult('INVALID_ARGUMENTS', 'the arguments must be a JSON object', fields);
    if (this.closed) return failedResult('ABORTED', 'the queue caller is closed', fields);
    const replyKey = newReplyKey();
    const entry: NewCall = {
      callId, session, tool: request.name, version: request.version ?? '', arguments: args, workspace: this.workspace,
      turn: options.turnId ?? '', pool: this.pool, options: options.timeoutMs === undefined ? { replyKey } : { timeoutMs: options.timeoutMs, replyKey },
    };
    // Woken by its job's completion from before the job exists, so that an end is never missed
    // between adding the job and waiting (the store's wait looks once itself when it starts).
    const wake = this.watch(key);
    try {
      let fresh: boolean;
      try {
        const outcome = await this.store.record(entry);
        // A known key with another tool, revision or arguments is another request: its result
        // (or its run) must not answer this one (as the executor refuses it).
        if (outcome.kind !== 'recorded' && await this.otherRequest(entry)) {
          return failedResult('INVALID_ARGUMENTS', `call id ${callId} of session ${session} was used before for another request; it was not run. A retry repeats the same call; a new call needs a new call id.`, fields);
        }
        if (outcome.kind === 'ended') return outcome.result;
        if (outcome.kind !== 'in_progress' || outcome.record.state === 'pending') {
          const added = await within(this.queueWaitMs, this.addJob(key, wake.jobs[0]).then(() => true), () => false);
          if (!added) {
            const ended = await this.endUnsent(key, fields);
            if (ended !== undefined) return ended;
          }
        }
        fresh = outcome.kind === 'recorded';
      } catch (error) {
        return failedResult('INTERNAL', `the call was not sent: ${(error as Error)?.message ?? String(error)}`, fields);
      }
      return await this.awaitEnd(key, fields, options, wake, fresh ? replyKey : undefined);
    } finally {
      this.unwatch(wake);
    }
  }

  /**
   * A call whose job the queue's server did not take within {@link queueWaitMs}: ended
   * `QUEUE_UNAVAILABLE` under this caller's hold (one holder of any number wins), so that a
   * worker given its job later finds it ended and drops it.
   * @returns its end; `undefined` when a worker holds or ran it meanwhile (its end is awaited).
   */
  private async endUnsent(key: CallKey, fields: { tool: string; callId: string }): Promise<ToolExecutionResult | undefined> {
    const hold = await this.store.takeLease(key);
    if (hold === undefined) return undefined;
    const result = failedResult('QUEUE_UNAVAILABLE', `the queue's server did not take call ${key.callId} within ${this.queueWaitMs / 1000} s (down or unreachable): it was not run, and no worker runs it later. Retry with a new call id once the server answers.`, fields);
    return (await this.store.finish(key, { state: 'failed', decisions: undefined, result }, { token: hold.token })) ? result : undefined;
  }

  /** Whether the call stored under `entry`'s key (or its tombstone) is another request than `entry`: another tool, revision or arguments. */
  private async otherRequest(entry: NewCall): Promise<boolean> {
    const earlier = await this.store.get(entry.callId, entry.session);
    // A caller naming no revision (`''`) asks for whichever the worker has (and the worker may store the one it ran).
    const otherVersion = entry.version !== '' && earlier !== undefined && earlier.version !== '' && earlier.version !== entry.version;
    if (earlier !== undefined) return earlier.tool !== entry.tool || otherVersion || !isDeepStrictEqual(earlier.arguments, entry.arguments);
    const pruned = await this.store.tombstone(entry.callId, entry.session);
    return pruned !== undefined && (pruned.tool !== entry.tool || pruned.argumentsSha256 !== argumentsSha256(entry.arguments));
  }

  /** Register the waker of a call awaited: its jobs' completion events and {@link close}. */
  private watch(key: CallKey): Waker {
    const waker = new Waker(jobIdsOf(key, RESUME_ROUND));
    this.waiting.add(waker);
    for (const job of waker.jobs) {
      let set = this.byJob.get(job);
      if (set === undefined) this.byJob.set(job, (set = new Set()));
      set.add(waker);
    }
    return waker;
  }

  /** Stop waking a call's waker (its wait is over). */
  private unwatch(waker: Waker): void {
    waker.cancel();
    this.waiting.delete(waker);
    for (const job of waker.jobs) {
      const set = this.byJob.get(job);
      set?.delete(waker);
      if (set?.size === 0) this.byJob.delete(job);
    }
  }

  /** Add a call's job (again: a job of the same id that still exists makes it a no-op). */
  async enqueue(key: CallKey, round = 0): Promise<void> {
    await this.addJob(key, jobIdOf(key, round));
  }

  private async addJob(key: CallKey, jobId: string): Promise<void> {
    await this.queue.add('call', { callId: key.callId, session: key.session }, { jobId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
  }

  /**
   * Cancel a call: a call no worker holds (still queued, or parked on a question for a
   * person's answer) is ended here `ABORTED` (its question answered `cancelled`); one a worker
   * holds or runs is asked to stop: the store's cancel flag (read by a worker before it starts
   * the call and while it runs) and a message on the backend's cancel channel (which also lets
   * the worker a parked call asked on drop it).
   * @returns whether the call was pending or running.
   */
  async cancel(key: CallKey): Promise<boolean> {
    const requested = await this.store.requestCancel(key.callId, key.session);
    if (!requested) return false;
    // Held here (one of any number of holders wins), so that no worker takes it meanwhile.
    const hold = await this.store.takeLease(key);
    if (hold !== undefined) {
      const result = failedResult('ABORTED', `call ${key.callId} was cancelled before it ran`, { tool: (await this.store.get(key.callId, key.session))?.tool ?? '', callId: key.callId });
      await this.store.finish(key, { state: 'failed', decisions: undefined, result }, { token: hold.token });
    }
    await this.backend.publishCancel(JSON.stringify(key));
    return true;
  }

  /**
   * Wait for a call's end in the store (woken by the store's wait, not by polling), looking
   * every `checkMs` whether its worker's lease lapsed (the call is then `interrupted`).
   * @param replyKey - the reply key of a call recorded here now (`undefined` for a call known
   *   before): a job's completion carrying its stored result signed with it ends the wait
   *   without a look at the store.
   */
  private async awaitEnd(key: CallKey, fields: { tool: string; callId: string }, options: QueueCallOptions, wake: Waker, replyKey: string | undefined): Promise<ToolExecutionResult> {
    const { signal, cancelGraceMs } = options;
    let cancelled = false;
    let graceOver = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (cancelled) return;
      cancelled = true;
      this.cancel(key).catch(() => undefined);
      if (cancelGraceMs !== undefined) {
        graceTimer = setTimeout(() => {
          graceOver = true;
          wake.wake();
        }, cancelGraceMs);
      }
    };
    if (signal?.aborted === true) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // A call just recorded here cannot have ended yet: no look before its first wait, and that
    // wait is for its job's end alone (what ends a call run by a worker), bounded by the
    // store's poll interval; from then on the store's wait (a notification, or its poller)
    // wakes the caller too.
    let first = replyKey !== undefined;
    try {
      for (;;) {
        if (wake.reply !== undefined && replyKey !== undefined) {
          const replied = openReply(replyKey, wake.reply);
          wake.reply = undefined;
          if (replied !== undefined) return replied;
        }
        if (!first) {
          let outcome;
          try {
            outcome = await this.store.check(key);
          } catch {
            outcome = undefined; // a store that restarts: look again
          }
          if (outcome?.kind === 'ended') return outcome.result;
        }
        if (this.closed) return failedResult('ABORTED', 'the queue caller closed while the call was awaited; it may still run on a worker: `toolgate result` prints its end', fields);
        if (graceOver) return failedResult('ABORTED', `call ${key.callId} was cancelled; its worker has not stopped it yet (the cancel stays recorded: it stops when the worker can, or ends interrupted when its lease lapses); \`toolgate result ${key.callId}\` prints its end`, fields);
        if (wake.woken) {
          wake.woken = false;
        } else {
          LOOKS.schedule(wake, first ? Math.min(this.checkMs, this.store.pollMs) : this.checkMs);
          try {
            await (first ? new Promise<void>((resolve) => (wake.current = resolve)) : this.storeWait(key, wake));
          } catch {
            // woken by its job's end, the deadline or close, or the store failed: look again
          } finally {
            wake.cancel();
            wake.current = undefined;
          }
        }
        first = false;
      }
    } finally {
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The store's wait for a call's end, stopped by `wake`. */
  private storeWait(key: CallKey, wake: Waker): Promise<unknown> {
    const stop = new AbortController();
    wake.current = () => stop.abort(WOKEN);
    return this.store.waitForEnd(key, stop.signal);
  }

  /** Stop waiting (calls awaited end `ABORTED`; they may still run) and close the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waker of [...this.waiting]) waker.wake();
    await this.queue.close().catch(() => undefined);
    await this.events?.close().catch(() => undefined);
    await this.backend.close();
  }
}

/** `work`'s value, or `late()`'s once `ms` passed first (`work` goes on; its rejection is then ignored). */
function within<T, L>(ms: number, work: Promise<T>, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The arguments as an object, from an object or JSON text of one; `undefined` when neither. */
function argumentsOf(raw: unknown): Record<string, unknown> | undefined {
  let value = raw;
  if (value === undefined || value === '') return {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
