/**
 * The timeout and abort plumbing every runner needs for one call: settle exactly once, and
 * on settling drop the deadline and the abort listener.
 *
 * @module
 */
import { DeadlineTimers, type Deadline } from './deadlines.js';
import type { RunOutcome } from './protocol.js';

/** Shared by every runner of the process: one timer per distinct timeout. */
const DEADLINES = new DeadlineTimers();

/** Watches one call's deadline and abort signal until it settles. */
export class CallWatch {
  private settledFlag = false;
  private deadline: Deadline | undefined;
  private abortListener: (() => void) | undefined;

  constructor(
    private readonly resolve: (outcome: RunOutcome) => void,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** True once the call has an outcome. */
  get settled(): boolean {
    return this.settledFlag;
  }

  /**
   * Start watching.
   * @param timeoutMs - `<= 0` for none.
   * @param onTimeout - called at the deadline (it should stop the call and settle).
   * @param onAbort - called when the signal aborts, at once if it already has.
   * @returns false when the signal had already aborted (`onAbort` has run).
   */
  watch(timeoutMs: number, onTimeout: () => void, onAbort: () => void): boolean {
    if (this.signal?.aborted) {
      onAbort();
      return false;
    }
    if (timeoutMs > 0) this.deadline = DEADLINES.add(timeoutMs, onTimeout);
    if (this.signal !== undefined) {
      this.abortListener = onAbort;
      this.signal.addEventListener('abort', onAbort, { once: true });
    }
    return true;
  }

  /** Settle with `outcome` unless already settled. */
  settle(outcome: RunOutcome): void {
    if (this.settledFlag) return;
    this.settledFlag = true;
    this.deadline?.cancel();
    if (this.abortListener !== undefined) this.signal?.removeEventListener('abort', this.abortListener);
    this.resolve(outcome);
  }
}
