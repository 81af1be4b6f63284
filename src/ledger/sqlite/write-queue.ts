/**
 * Every write of the SQLite ledger goes through one {@link WriteQueue}: a `BEGIN IMMEDIATE`
 * transaction per state change, carrying the call ends `finishSoon` queued (a group commit),
 * and the retries of ends that could not be written.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import type { CallEnd, CallKey, Fence, NewCall } from '../call-store.js';
import type { ToolExecutionResult } from '../../types/result.js';
import { storeError, type Connection } from './database.js';
import { keyOf } from './rows.js';

/** An end `finishSoon` queued. */
export interface QueuedEnd {
  call: CallKey | NewCall;
  end: CallEnd;
  /** When it was queued (ms since the epoch): the end's time. */
  now: number;
  /** The lease it ends under, if given. */
  fence?: Fence | undefined;
}

/** `finishSoon` commits at once past this many queued ends. */
const MAX_QUEUED = 64;
/** The first and the longest delay between retries of queued ends that could not be written, in ms. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5_000;

/** The transactions of one connection, and the ends queued to ride on them. */
export class WriteQueue {
  /** One transaction function, run `.immediate(fn)` for every state change (made once: cheaper than one per change). */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  private readonly queued: QueuedEnd[] = [];
  /** Their results, by {@link keyOf}: what a check answers for them meanwhile. */
  private readonly queuedResults = new Map<string, ToolExecutionResult>();
  private flushScheduled = false;
  /** A retry of queued ends that could not be written, while one is scheduled. */
  private retryTimer: NodeJS.Timeout | undefined;
  /** The delay of the next retry, in ms (doubles from 50 ms up to 5 s while writes fail). */
  private retryMs = RETRY_MIN_MS;
  /** A warning about ends that cannot be written was emitted since the last success. */
  private warnedFailing = false;
  private closed = false;

  /**
   * @param writeEnd - writes one end inside a transaction; whether the call ended.
   * @param ended - told how many calls ended after each commit that ended some (retention's cue).
   */
  constructor(
    db: Connection,
    private readonly file: string,
    private readonly readonly: boolean,
    private readonly writeEnd: (q: QueuedEnd) => boolean,
    private readonly ended: (count: number) => void,
  ) {
    this.tx = db.transaction((fn: () => unknown) => fn());
  }

  /** Whether ends are waiting to be committed. */
  get pending(): boolean {
    return this.queued.length !== 0;
  }

  /** The result of a queued end of `key`, if one is queued. */
  queuedResult(key: CallKey): ToolExecutionResult | undefined {
    return this.queuedResults.size === 0 ? undefined : this.queuedResults.get(keyOf(key));
  }

  /** Queue an end (`finishSoon`). @throws the store's error when {@link MAX_QUEUED} are queued and cannot be written now. */
  push(call: CallKey | NewCall, end: CallEnd, fence?: Fence): void {
    this.queued.push({ call, end, now: Date.now(), fence });
    this.queuedResults.set(keyOf(call), end.result);
    if (this.queued.length >= MAX_QUEUED && this.retryTimer === undefined) {
      this.flush();
    } else if (!this.flushScheduled && this.retryTimer === undefined) {
      this.flushScheduled = true;
      setImmediate(this.flushQuietly);
    }
  }

  /** Commit the queued ends (see `Ledger.flush`). @throws the store's error when ends are still queued (a retry is scheduled). */
  flush(): void {
    if (this.queued.length === 0 || this.closed) return;
    try {
      this.immediate(() => undefined);
    } catch (error) {
      this.scheduleRetry(error);
      throw error;
    }
  }

  /**
   * Run `fn` in a `BEGIN IMMEDIATE` transaction (the write lock taken at once), with the
   * queued ends first in the same commit. When that fails, the ends stay queued: they are
   * written one by one, then `fn` alone, so that one end that cannot be stored never blocks
   * the writes after it.
   * @throws Error on a read-only ledger; the store's error.
   */
  immediate<T>(fn: () => T): T {
    if (this.readonly) throw new Error(`ledger ${this.file} is open read-only`);
    if (this.queued.length === 0) return this.tx.immediate(fn) as T;
    const ends = this.queued.splice(0);
    let ended = 0;
    let result: T;
    try {
      result = this.tx.immediate(() => {
        ended = 0;
        // Queued ends go first, in the same commit.
        for (const q of ends) if (this.writeEnd(q)) ended++;
        return fn();
      }) as T;
    } catch (error) {
      this.queued.unshift(...ends);
      if (storeError(error)) {
        this.scheduleRetry(error);
        throw error;
      }
      // An end or `fn` failed on its own: the ends one by one, then `fn` alone.
      try {
        this.writeOneByOne();
      } catch (failed) {
        this.scheduleRetry(failed);
        throw failed;
      }
      this.succeeded();
      return this.tx.immediate(fn) as T;
    }
    for (const q of ends) this.queuedResults.delete(keyOf(q.call));
    this.succeeded();
    if (ended !== 0) this.ended(ended);
    return result;
  }

  /**
   * Stop: one last flush; ends that still cannot be written are named in a process warning
   * (their calls stay `running` until recovery marks them `interrupted`).
   */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    try {
      this.flush();
    } catch (error) {
      process.emitWarning(`toolgate ledger ${this.file}: closed with ${this.queued.length} call ends not written (${(error as Error)?.message}): calls ${this.queued.map((q) => q.call.callId).join(', ')} stay running until recovery marks them interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    clearTimeout(this.retryTimer);
    this.closed = true;
  }

  /** {@link flush} from a timer: a failure is a process warning (once while it lasts) and a retry, not an exception. */
  private readonly flushQuietly = (): void => {
    this.flushScheduled = false;
    this.retryTimer = undefined;
    try {
      this.flush();
    } catch {
      // flush scheduled a retry and warned
    }
  };

  /** Queued ends could not be written: warn (once until a write succeeds) and retry later. */
  private scheduleRetry(error: unknown): void {
    if (this.queued.length === 0 || this.closed) return;
    if (!this.warnedFailing) {
      this.warnedFailing = true;
      process.emitWarning(`toolgate ledger ${this.file}: ${this.queued.length} call ends cannot be written yet (${(error as Error)?.message}); they stay queued and are retried (calls stay running meanwhile)`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    if (this.retryTimer === undefined) {
      this.retryTimer = setTimeout(this.flushQuietly, this.retryMs);
      // A process that exits meanwhile leaves those calls running: recovery marks them interrupted.
      this.retryTimer.unref();
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    }
  }

  /**
   * Write the queued ends one transaction each, after a batch failed (outside a transaction).
   * @throws the store's error when one fails on it (the rest stay queued).
   */
  private writeOneByOne(): void {
    while (this.queued.length !== 0) {
      const q = this.queued[0]!;
      let ended = false;
      try {
        ended = this.tx.immediate(() => this.writeEnd(q)) as boolean;
      } catch (error) {
        if (storeError(error)) throw error;
        // This end alone cannot be stored: writing it again will not help.
        this.queued.shift();
        this.queuedResults.delete(keyOf(q.call));
        process.emitWarning(`toolgate ledger ${this.file}: the end of call ${q.call.callId} (session ${q.call.session}) cannot be stored (${(error as Error)?.message}); it stays running until recovery marks it interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
        continue;
      }
      this.queued.shift();
      this.queuedResults.delete(keyOf(q.call));
      if (ended) this.ended(1);
    }
  }

  /** A commit carried the queued ends: the retry schedule resets. */
  private succeeded(): void {
    this.warnedFailing = false;
    this.retryMs = RETRY_MIN_MS;
  }
}
