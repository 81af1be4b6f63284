/**
 * The ends `finishSoon` queues in the PostgreSQL store: written together in one transaction
 * on the next turn of the event loop (a group commit), before this handle's next read, or on
 * `flush`/`close`. Ends that cannot be written (the server is away) stay queued and are retried
 * (every 50 ms, doubling up to 5 s), with one process warning while it lasts; an end that fails
 * on its own (its row cannot be stored) is dropped with a warning naming it, so that it never
 * blocks the others. Its call stays `running` then, until its lease lapses and it becomes `interrupted`.
 *
 * @module
 */
import type { ToolExecutionResult } from '../../types/result.js';
import type { CallKey } from '../call-store.js';
import type { PgQueuedEnd } from './calls.js';
import { connectionError } from './database.js';
import { keyOf } from './rows.js';

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5_000;

/** The queued ends of one handle. */
export class PgEndQueue {
  private readonly queued: PgQueuedEnd[] = [];
  private readonly results = new Map<string, ToolExecutionResult>();
  /** The flush running now, if any (flushes never overlap). */
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private warned = false;
  private closed = false;

  /**
   * @param write - writes ends in one transaction; for each, whether the call ended.
   * @param ended - told how many calls ended after each commit (retention's cue).
   */
  constructor(
    private readonly where: string,
    private readonly write: (ends: readonly PgQueuedEnd[]) => Promise<boolean[]>,
    private readonly ended: (count: number) => void,
  ) {}

  /** The result of a queued end of `key`, if one is queued. */
  queuedResult(key: CallKey): ToolExecutionResult | undefined {
    return this.results.size === 0 ? undefined : this.results.get(keyOf(key));
  }

  push(end: PgQueuedEnd): void {
    this.queued.push(end);
    this.results.set(keyOf(end.call), end.end.result);
    if (!this.scheduled && this.retryTimer === undefined) {
      this.scheduled = true;
      setImmediate(this.quietly);
    }
  }

  /** Write what is queued. Rejects with the store's error when ends are still queued (a retry is scheduled). */
  async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing.catch(() => undefined);
    if (this.queued.length === 0) return;
    const run = this.writeQueued();
    this.flushing = run;
    try {
      await run;
    } finally {
      this.flushing = undefined;
    }
  }

  /** {@link flush}, its error ignored (a read goes on with what the store has). */
  async settle(): Promise<void> {
    if (this.queued.length === 0 && this.flushing === undefined) return;
    await this.flush().catch(() => undefined);
  }

  /** One last flush; ends still not written are named in a process warning. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    try {
      await this.flush();
    } catch (error) {
      process.emitWarning(`toolgate call store ${this.where}: closed with ${this.queued.length} call ends not written (${(error as Error)?.message}): calls ${this.queued.map((q) => q.call.callId).join(', ')} stay running until their lease lapses and they become interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    clearTimeout(this.retryTimer);
    this.closed = true;
  }

  private readonly quietly = (): void => {
    this.scheduled = false;
    this.retryTimer = undefined;
    this.flush().catch(() => undefined);
  };

  private async writeQueued(): Promise<void> {
    const ends = this.queued.splice(0);
    let done: boolean[];
    try {
      done = await this.write(ends);
    } catch (error) {
      this.queued.unshift(...ends);
      if (connectionError(error) || this.closed) {
        this.retry(error);
        throw error;
      }
      // One end failed on its own: one by one, dropping those that cannot be stored.
      await this.oneByOne();
      return;
    }
    this.succeeded(ends, done);
  }

  private async oneByOne(): Promise<void> {
    while (this.queued.length !== 0) {
      const end = this.queued[0]!;
      let done: boolean[];
      try {
        done = await this.write([end]);
      } catch (error) {
        if (connectionError(error)) {
          this.retry(error);
          throw error;
        }
        this.queued.shift();
        this.results.delete(keyOf(end.call));
        process.emitWarning(`toolgate call store ${this.where}: the end of call ${end.call.callId} (session ${end.call.session}) cannot be stored (${(error as Error)?.message}); it stays running until its lease lapses and it becomes interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
        continue;
      }
      this.queued.shift();
      this.succeeded([end], done);
    }
  }

  private succeeded(ends: readonly PgQueuedEnd[], done: readonly boolean[]): void {
    for (const end of ends) if (!this.queued.some((q) => keyOf(q.call) === keyOf(end.call))) this.results.delete(keyOf(end.call));
    this.warned = false;
    this.retryMs = RETRY_MIN_MS;
    const count = done.filter(Boolean).length;
    if (count !== 0) this.ended(count);
  }

  private retry(error: unknown): void {
    if (this.queued.length === 0 || this.closed) return;
    if (!this.warned) {
      this.warned = true;
      process.emitWarning(`toolgate call store ${this.where}: ${this.queued.length} call ends cannot be written yet (${(error as Error)?.message}); they stay queued and are retried (calls stay running meanwhile)`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    if (this.retryTimer === undefined) {
      this.retryTimer = setTimeout(this.quietly, this.retryMs);
      this.retryTimer.unref();
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    }
  }
}
