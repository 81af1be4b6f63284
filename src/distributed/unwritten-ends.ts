/**
 * The ends a worker decided without running its call (an unknown tool, bad arguments, a gate's
 * refusal, a person's no) that its store could not take, the store away past its own retry
 * (`retryMs`): kept here and written again, every 50 ms doubling up to 5 s, until the store
 * answers, however long that takes ({@link UnwrittenEnds}). The ends of calls that ran are the
 * store's own queue's (`finishSoon`); these are written with a fenced `finish` under a hold
 * of the call, as the worker writes them at first.
 *
 * Before, such an end was only logged (`queue_end_pending`): the call stayed `pending`, and
 * was decided again only once the reconciler re-sent it (when its worker still ran one).
 * What a worker that stops (or dies) leaves unwritten is the existing recovery's: its calls are
 * `pending` (a hold it took lapses), so any worker's reconciler re-sends their jobs, and they are
 * decided again; none ran.
 *
 * @module
 */
import type { CallEnd, CallKey, CallStore } from '../ledger/call-store.js';

/** Ends kept at most; past it the oldest is left to the recovery (its call stays `pending`). */
const MAX_UNWRITTEN = 1024;

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5_000;

/** One end not written yet. */
interface Unwritten {
  readonly key: CallKey;
  readonly end: CallEnd;
  /**
   * The token of the hold the worker took for it, when it took one before the store went away;
   * replaced by the hold a retry takes, so that a retry whose write then fails writes under it next.
   */
  token: string | undefined;
}

/** The warning code of the store's writes that wait (as the store's own queue's). */
const WARNING = 'TOOLGATE_LEDGER_WRITE';

/** A worker's ends not written yet, retried until the store takes them. */
export class UnwrittenEnds {
  /** By call key, oldest first. */
  private readonly ends = new Map<string, Unwritten>();
  private timer: NodeJS.Timeout | undefined;
  private delayMs = RETRY_MIN_MS;
  private writing: Promise<void> | undefined;
  private warned = false;
  private closed = false;

  /** @param lease - the owner and length of the hold taken to write an end (the worker's). */
  constructor(private readonly store: CallStore, private readonly lease: { readonly owner: string; readonly leaseMs: number }) {}

  /**
   * Keep `end` of `key` to write once the store answers (a later end of the same call replaces
   * it). Past {@link MAX_UNWRITTEN}, the oldest is dropped, named in a process warning.
   * @param token - the hold under which it was being written, if one was taken.
   */
  add(key: CallKey, end: CallEnd, token: string | undefined): void {
    if (this.closed) return;
    const id = `${key.session}\u0000${key.callId}`;
    this.ends.delete(id);
    if (this.ends.size >= MAX_UNWRITTEN) {
      const [oldest, dropped] = this.ends.entries().next().value as [string, Unwritten];
      this.ends.delete(oldest);
      process.emitWarning(`toolgate worker: more than ${MAX_UNWRITTEN} call ends wait for the store; the end of call ${dropped.key.callId} (session ${dropped.key.session}) is not kept: the call stays pending and is decided again when a worker's reconciler re-sends it`, { code: WARNING });
    }
    this.ends.set(id, { key, end, token });
    this.schedule();
  }

  /** Stop retrying; the ends still kept are named in a process warning (the recovery ends their calls). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.ends.size === 0) return;
    const calls = [...this.ends.values()].map((u) => u.key.callId).join(', ');
    process.emitWarning(`toolgate worker: stopped with ${this.ends.size} call ends not written (the store did not answer): calls ${calls} stay pending and are decided again when a worker's reconciler re-sends them`, { code: WARNING });
    this.ends.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.writing !== undefined || this.closed || this.ends.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writeAll().finally(() => {
        this.writing = undefined;
        this.schedule();
      });
    }, this.delayMs);
    this.timer.unref();
  }

  /** Write the ends kept, oldest first; the first the store fails stops the pass (it is away). */
  private async writeAll(): Promise<void> {
    for (const [id, unwritten] of [...this.ends]) {
      if (this.closed) return;
      try {
        await this.write(unwritten);
      } catch (error) {
        if (!this.warned) {
          this.warned = true;
          process.emitWarning(`toolgate worker: ${this.ends.size} call ends cannot be written yet (${(error as Error)?.message}); they are kept and retried until the store answers`, { code: WARNING });
        }
        this.delayMs = Math.min(RETRY_MAX_MS, this.delayMs * 2);
        return;
      }
      if (this.ends.get(id) === unwritten) this.ends.delete(id);
    }
    this.delayMs = RETRY_MIN_MS;
    this.warned = false;
  }

  /**
   * Write one end: under the hold taken for it when it still holds, else under a new hold of
   * the call while it is `pending` and no one else holds it (otherwise it is not this worker's
   * to end any more: ended meanwhile, or another worker took its job again).
   * @throws the store's error when it does not answer.
   */
  private async write(unwritten: Unwritten): Promise<void> {
    const { key, end, token } = unwritten;
    if (token !== undefined && await this.store.finish(key, end, { token })) return;
    const record = await this.store.get(key.callId, key.session);
    if (record?.state !== 'pending') return;
    const hold = await this.store.takeLease(key, this.lease);
    if (hold === undefined) return;
    // Kept before the write: should it fail, the next try is this hold's (the call is held by
    // this worker now, and a new hold would be refused).
    unwritten.token = hold.token;
    await this.store.finish(key, end, { token: hold.token });
  }
}
