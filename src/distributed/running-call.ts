/**
 * A call a worker runs ({@link RunningCall}): its abort controller, its execution, and the
 * store's cancel watch, in one object per call, with no Node timer armed and cleared per call
 * and, mostly, no abort signal made per call ({@link AbortControllers}).
 *
 * @module
 */
import { getEventListeners } from 'node:events';
import type { CallKey, CallStore } from '../ledger/call-store.js';
import { DeadlineEntry, DeadlineTimers } from '../runner/deadlines.js';

/** The cancel watches' deadlines: one timer per distinct poll interval (`src/runner/deadlines.ts`). */
const WATCHES = new DeadlineTimers();

/** The reason a call's cancel watch is stopped with (a constant: no exception object per call). */
const ENDED = Symbol('ended');

/** An execution that ended (the entry's until its own is set). */
const DONE: Promise<void> = Promise.resolve();

/**
 * A call running on this worker, from its start until its end was written (or it parked on a
 * question and its execution ended). A cancel asked in the store (the cancel channel's message
 * may be lost in a Redis restart) is watched for from one poll interval after the start: the
 * call's flag was read with the call itself, a call that ends sooner never pays for the
 * watch, and a cancel asked meanwhile is seen by the watch's first look. The entry is its own
 * deadline (`DeadlineEntry`): the watch costs no timer per call.
 */
export class RunningCall extends DeadlineEntry {
  /** Settles once the execution ended and its end was handled; never rejects. */
  execution: Promise<void> = DONE;
  private stopWatching: AbortController | undefined = undefined;
  /** Set by {@link ended}: from then on its controller may be a later call's. */
  private over = false;

  constructor(
    private readonly store: CallStore,
    readonly key: CallKey,
    /** Aborting it stops the call (a cancel, the worker closing). */
    readonly controller: AbortController,
  ) {
    super();
    WATCHES.schedule(this, store.pollMs);
  }

  /** One poll interval after the start: watch the store's cancel flag until the call ends. */
  protected expire(): void {
    const stop = (this.stopWatching = new AbortController());
    this.store.waitForCancel(this.key, stop.signal).then((asked) => asked && this.abort(), () => undefined);
  }

  /**
   * Stop the call (its cancel was asked). Nothing once it ended: a cancel found by a look that
   * settled as the call ended (the watch's, the cancel channel's store read) would otherwise
   * abort a controller already given back, and so a later call that asked for nothing.
   */
  abort(): void {
    if (!this.over) this.controller.abort();
  }

  /** The call ended here: stop its watch (or its deadline, when it ended within the poll interval). */
  ended(): void {
    this.over = true;
    this.cancel();
    this.stopWatching?.abort(ENDED);
  }
}

/** Spare controllers kept at most (a worker runs up to 1024 calls at once). */
const MAX_SPARE = 1024;

/**
 * The abort controllers of one worker's calls, given again to later calls. Node 20 makes an
 * `AbortSignal` slowly (about 10 µs, more than the rest of the worker's own bookkeeping of a
 * call, and it is kept until a full collection: measured in docs/bench.md); a worker needs one
 * per call only to stop the calls that are cancelled. A controller comes back only when its
 * signal never aborted and no listener is left on it (every one that listened stopped when the
 * call ended: the runners' watches, the pipeline's bounded waits), so the next call's signal
 * is as fresh as a new one; one that aborted is dropped.
 */
export class AbortControllers {
  private readonly spare: AbortController[] = [];

  /** A controller whose signal has not aborted and has no listener. */
  take(): AbortController {
    // An aborted one is never given (one aborted after it came back is dropped here).
    for (let spare = this.spare.pop(); spare !== undefined; spare = this.spare.pop()) if (!spare.signal.aborted) return spare;
    return new AbortController();
  }

  /** A call's controller, once its call ended: kept for a later call when it is still fresh. */
  giveBack(controller: AbortController): void {
    const { signal } = controller;
    if (signal.aborted || this.spare.length >= MAX_SPARE || getEventListeners(signal, 'abort').length !== 0) return;
    this.spare.push(controller);
  }
}
