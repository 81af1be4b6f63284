/**
 * Call deadlines without a timer per call.
 *
 * Arming and clearing a Node timer for every call costs tens of microseconds of latency per
 * worker round trip on this kind of machine (measured in `npm run bench`), more than the rest
 * of the executor together. Calls with the same timeout nearly always expire in the order they
 * started, so each distinct timeout keeps a list of deadlines in due order (a new one goes in
 * from the tail, usually at the tail) and one timer armed for its head. A call that ends is
 * unlinked in O(1) and the timer is left alone; when it fires early (its head already ended)
 * it simply re-arms for the new head. A call's timeout counts from when it arrived, so a call
 * that waited on its way may be due before calls already listed: it goes in its place, and
 * the timer is re-armed when it became the head.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';

const MAX_TIMER_MS = 2_147_483_647;

/** A scheduled deadline; call {@link Deadline.cancel} when the call ends first. */
export interface Deadline {
  cancel(): void;
}

/**
 * A node of a deadline list. A call's watcher extends it (one object per call instead of a
 * watcher, a list node and a callback); {@link DeadlineTimers.add} wraps a plain callback.
 */
export abstract class DeadlineEntry implements Deadline {
  /** @internal list links and due time (`performance.now()` ms); set while scheduled. */
  prev: DeadlineEntry | undefined = undefined;
  /** @internal */
  next: DeadlineEntry | undefined = undefined;
  /** @internal */
  at = 0;
  /** @internal the list this entry is in, while scheduled. */
  list: DeadlineList | undefined = undefined;

  /** Called once when the deadline passes (the entry is already unscheduled). */
  protected abstract expire(): void;

  /** @internal called by the list when the entry is due. */
  fire(): void {
    this.expire();
  }

  /** Unschedule; a no-op when not scheduled (already fired or cancelled). */
  cancel(): void {
    if (this.list !== undefined) this.list.remove(this);
  }
}

class CallbackEntry extends DeadlineEntry {
  constructor(private readonly callback: () => void) {
    super();
  }

  protected expire(): void {
    this.callback();
  }
}

/** @internal */
export class DeadlineList {
  head: DeadlineEntry | undefined;
  tail: DeadlineEntry | undefined;
  size = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer is due (`performance.now()` ms). */
  private armedAt = 0;
  private referenced = false;

  /**
   * Schedule `entry` at `at` (`performance.now()` ms). Entries are kept in due order: calls of
   * one duration mostly start in order, so the place is found from the tail in a step or two;
   * a call that waited on its way (its timeout counts from when it arrived) may go further in.
   */
  add(entry: DeadlineEntry, at: number): void {
    entry.at = at;
    entry.list = this;
    let before = this.tail;
    while (before !== undefined && before.at > at) before = before.prev;
    if (before === undefined) {
      entry.next = this.head;
      if (this.head !== undefined) this.head.prev = entry;
      else this.tail = entry;
      this.head = entry;
    } else {
      entry.prev = before;
      entry.next = before.next;
      if (before.next !== undefined) before.next.prev = entry;
      else this.tail = entry;
      before.next = entry;
    }
    this.size++;
    if (this.timer === undefined) this.arm(at - performance.now());
    else if (this.head === entry && at < this.armedAt) {
      // Due before the armed timer: arm for it instead.
      clearTimeout(this.timer);
      this.arm(at - performance.now());
    } else if (!this.referenced) {
      // Keep the process alive while a call is waiting for its deadline.
      this.timer.ref();
      this.referenced = true;
    }
  }

  remove(entry: DeadlineEntry): void {
    entry.list = undefined;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    this.size--;
    if (this.size === 0 && this.timer !== undefined && this.referenced) {
      // Nothing waits: the armed timer must not keep the process alive.
      this.timer.unref();
      this.referenced = false;
    }
  }

  private arm(delayMs: number): void {
    // Node timers hold at most 2^31 - 1 ms; a longer deadline re-arms when this one fires.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, delayMs));
    this.armedAt = performance.now() + delay;
    this.timer = setTimeout(() => this.fire(), delay);
    this.referenced = true;
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    // Timers may fire up to a millisecond early by the clock we compare with.
    while (this.head !== undefined && this.head.at <= now + 1) {
      const entry = this.head;
      this.remove(entry);
      entry.fire();
    }
    if (this.head !== undefined) this.arm(this.head.at - performance.now());
  }
}

/** Deadlines grouped by duration; one timer per distinct duration. */
export class DeadlineTimers {
  private readonly lists = new Map<number, DeadlineList>();

  /**
   * Call `callback` once `durationMs` milliseconds after `from` unless cancelled first.
   * @param durationMs - positive number of milliseconds.
   * @param from - `performance.now()` the duration counts from; default now.
   */
  add(durationMs: number, callback: () => void, from?: number): Deadline {
    const entry = new CallbackEntry(callback);
    this.schedule(entry, durationMs, from);
    return entry;
  }

  /**
   * Schedule `entry` to fire once `durationMs` milliseconds after `from` unless cancelled
   * first (at once, on the next timer turn, when that time has passed).
   * @param durationMs - positive number of milliseconds.
   * @param from - `performance.now()` the duration counts from; default now.
   * @throws Error when the entry is already scheduled.
   */
  schedule(entry: DeadlineEntry, durationMs: number, from: number = performance.now()): void {
    if (entry.list !== undefined) throw new Error('this deadline is already scheduled');
    let list = this.lists.get(durationMs);
    if (list === undefined) {
      list = new DeadlineList();
      if (this.lists.size > 1000) this.prune();
      this.lists.set(durationMs, list);
    }
    list.add(entry, from + durationMs);
  }

  /** Drop empty lists (callers passing many distinct durations). */
  private prune(): void {
    for (const [duration, list] of this.lists) if (list.size === 0) this.lists.delete(duration);
  }
}
