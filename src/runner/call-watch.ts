/**
 * The timeout and abort plumbing every runner needs for one call: settle exactly once, and
 * on settling drop the deadline and the abort listener.
 *
 * A runner's per-call object extends {@link CallWatch}: it is at once the call's state, its
 * deadline list node and its abort listener (an `EventListener` object), so a call allocates
 * one object here instead of a watcher, a list node and a closure for each event.
 *
 * @module
 */
import { DeadlineEntry, DeadlineTimers } from './deadlines.js';
import type { RunOutcome, RunRequest } from './runner.js';

/** Shared by every runner of the process: one timer per distinct timeout. */
const DEADLINES = new DeadlineTimers();

/** Watches one call's deadline and abort signal until it settles. */
export abstract class CallWatch extends DeadlineEntry {
  private settledFlag = false;
  private listening = false;
  /** The request whose `running` names this watch until it settles. */
  private request: RunRequest | undefined = undefined;

  constructor(protected readonly signal: AbortSignal | undefined) {
    super();
  }

  /** True once the call has an outcome. */
  get settled(): boolean {
    return this.settledFlag;
  }

  /** At the deadline: stop the call and settle. */
  protected abstract onTimeout(): void;
  /** When the signal aborts (at once if it already had): stop the call and settle. */
  protected abstract onAbort(): void;
  /** Hand the outcome on; called once, by {@link settle}. */
  protected abstract deliver(outcome: RunOutcome): void;

  /**
   * Start watching.
   * @param timeoutMs - `<= 0` for none.
   * @param from - `performance.now()` the timeout counts from (a request's `timeoutFrom`:
   *   when the call arrived); default now. When that time has passed, the timeout fires on
   *   the next timer turn.
   * @param request - the call's request: its `running` names this watch until it settles, so
   *   a dispatcher can stop the call by its id.
   * @returns false when the signal had already aborted (`onAbort` has run).
   */
  watch(timeoutMs: number, from?: number, request?: RunRequest): boolean {
    if (this.signal?.aborted) {
      this.onAbort();
      return false;
    }
    if (request !== undefined && !this.settledFlag) {
      this.request = request;
      request.running = this;
    }
    if (timeoutMs > 0) DEADLINES.schedule(this, timeoutMs, from);
    if (this.signal !== undefined) {
      this.signal.addEventListener('abort', this, { once: true });
      this.listening = true;
    }
    return true;
  }

  protected expire(): void {
    this.onTimeout();
  }

  /** @internal the abort listener (`EventListener` object form), and what stops the call by its id (`RunRequest.running`). */
  handleEvent(): void {
    if (this.settledFlag) return;
    this.onAbort();
  }

  /** Settle with `outcome` unless already settled. */
  settle(outcome: RunOutcome): void {
    if (this.settledFlag) return;
    this.settledFlag = true;
    this.cancel();
    if (this.listening) this.signal!.removeEventListener('abort', this);
    if (this.request !== undefined && this.request.running === this) this.request.running = undefined;
    this.deliver(outcome);
  }
}

/**
 * A call that a timeout or an abort stops the same way, each with its outcome: the pool and
 * process runners' calls (the runner's `stop` ends the worker or process running it, or just
 * settles a call still waiting).
 */
export abstract class StoppableCall extends CallWatch {
  constructor(
    signal: AbortSignal | undefined,
    /** The call's timeout in ms, for the timeout outcome. */
    private readonly timeoutMs: number,
    private readonly resolve: (outcome: RunOutcome) => void,
  ) {
    super(signal);
  }

  /** End the call with `outcome`: stop what runs it, then settle. */
  protected abstract stop(outcome: RunOutcome): void;

  protected deliver(outcome: RunOutcome): void {
    this.resolve(outcome);
  }

  protected onTimeout(): void {
    this.stop({ kind: 'timeout', timeoutMs: this.timeoutMs });
  }

  protected onAbort(): void {
    this.stop({ kind: 'aborted' });
  }
}
