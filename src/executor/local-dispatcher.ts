/**
 * The local {@link Dispatcher}: claimed calls run on this process's runners (`src/runner/`),
 * one runner per kind, each made on the first call of its kind from the factories in
 * `runners.ts` (or given ready-made). Calls that run asynchronously are known by their id
 * while they run, so {@link LocalDispatcher.cancel} can stop them without an abort signal
 * made for every call (signals cost several microseconds each; the bench counts them).
 *
 * @module
 */
import { DEFAULT_RUNNER, type RunnerKind } from '../runner/kinds.js';
import type { Runner, RunOutcome, RunRequest } from '../runner/runner.js';
import { RUNNERS, type RunnerOptions } from '../runner/runners.js';
import { isThenable } from '../util/values.js';
import type { CallEnd, DispatchedTool, Dispatcher, DispatchRequest } from './dispatcher.js';

/** Hands calls to this process's runners. */
export class LocalDispatcher implements Dispatcher {
  /** Runners by kind, each made on the first call of its kind. */
  private readonly runners = new Map<RunnerKind, Runner>();
  /** Calls running asynchronously, by session, then call id (the latest one of a reused id). */
  private readonly inFlight = new Map<string, SessionCalls>();
  /**
   * The `then` handed to runners with `runThen`, made once per {@link CallEnd} (an executor
   * hands every call the same one): the runner's contract is no closure per call.
   */
  private thenOf: { readonly end: CallEnd<unknown>; readonly then: (outcome: RunOutcome, request: RunRequest) => unknown } | undefined;

  /**
   * @param options - what every runner factory reads (pool size, memory cap, calls per worker).
   * @param given - runners already made, used for their kinds instead of the factories'; the
   *   dispatcher owns them from then on and closes them with itself.
   */
  constructor(private readonly options: RunnerOptions, given: Partial<Readonly<Record<RunnerKind, Runner>>> = {}) {
    for (const [kind, runner] of Object.entries(given) as Array<[RunnerKind, Runner]>) this.runners.set(kind, runner);
  }

  /**
   * The runner of a kind, made on first use.
   * @throws ToolgateOptionError when the runner's options are out of range (from its factory).
   */
  runnerFor(kind: RunnerKind): Runner {
    let runner = this.runners.get(kind);
    if (runner === undefined) {
      runner = RUNNERS[kind](this.options);
      this.runners.set(kind, runner);
    }
    return runner;
  }

  /** {@inheritDoc Dispatcher.dispatch} */
  dispatch<T>(call: DispatchRequest, end: CallEnd<T>): T | Promise<T> {
    const runner = this.runnerFor(call.tool.runner);
    if (runner.runThen !== undefined) {
      // The runner applies `end.ended` in its own promise turn (a turn saved on every pool call).
      this.track(call);
      return runner.runThen(call, call.signal, this.thenFor(end));
    }
    const running = runner.run(call, call.signal);
    if (!isThenable(running)) return end.ended(running, call);
    this.track(call);
    return Promise.resolve(running).then(
      (outcome) => {
        this.forget(call);
        return end.ended(outcome, call);
      },
      (error: unknown) => {
        this.forget(call);
        return end.failed(error, call);
      },
    );
  }

  /** `end.ended` as a runner's `then`: the call forgotten, then ended (one function per `end`). */
  private thenFor<T>(end: CallEnd<T>): (outcome: RunOutcome, request: RunRequest) => T {
    if (this.thenOf?.end !== end) {
      const then = (outcome: RunOutcome, request: RunRequest): T => {
        this.forget(request as DispatchRequest);
        return end.ended(outcome, request as DispatchRequest);
      };
      this.thenOf = { end, then };
    }
    return this.thenOf.then as (outcome: RunOutcome, request: RunRequest) => T;
  }

  /** {@inheritDoc Dispatcher.cancel} */
  cancel(callId: string, session: string): boolean {
    const running = this.inFlight.get(session)?.calls.get(callId)?.running;
    if (running === undefined) return false;
    running.handleEvent();
    return true;
  }

  /** {@inheritDoc Dispatcher.warmUp} */
  warmUp(tool?: DispatchedTool): void {
    this.runnerFor(tool?.runner ?? DEFAULT_RUNNER).warmUp?.(tool);
  }

  /**
   * Send a no-op task to a pool worker and wait for its answer, through Piscina alone (no
   * decisions, no tool): a readiness check, and the bare worker round trip the bench compares
   * pool calls with. Starts the default pool if it is not running.
   * @throws (rejects) with Piscina's error when no worker can run it.
   */
  ping(): Promise<void> {
    return (this.runnerFor('pool') as Runner & { ping(): Promise<void> }).ping();
  }

  /** {@inheritDoc Dispatcher.close} */
  async close(): Promise<Array<{ key: string; error: unknown }>> {
    const closed = await Promise.all([...this.runners.values()].map((r) => r.close()));
    return closed.flat();
  }

  /**
   * Know a call that runs asynchronously by its session and id, until it ends. A session's
   * table keeps its rows: an ended call's row is emptied, not deleted (a Map that empties
   * shrinks its table: an allocation and a runtime call on every sequential call), and the
   * empty rows are deleted once there are {@link SWEEP_AT} of them. Tables of sessions with
   * nothing in flight are dropped past {@link MAX_IDLE_SESSIONS} sessions.
   */
  private track(call: DispatchRequest): void {
    let session = this.inFlight.get(call.session);
    if (session === undefined) {
      if (this.inFlight.size >= MAX_IDLE_SESSIONS) this.sweep();
      this.inFlight.set(call.session, (session = { calls: new Map(), ended: 0 }));
    } else if (session.ended >= SWEEP_AT) {
      sweepEnded(session);
    }
    const { calls } = session;
    if (calls.get(call.callId) === undefined && calls.has(call.callId)) session.ended--; // an emptied row reused
    calls.set(call.callId, call);
  }

  /** Drop a call that ended from the calls in flight (unless its id was reused meanwhile): its row is emptied. */
  private forget(call: DispatchRequest): void {
    const session = this.inFlight.get(call.session);
    if (session === undefined || session.calls.get(call.callId) !== call) return;
    session.calls.set(call.callId, undefined);
    session.ended++;
  }

  /** Delete the empty rows of every session, and the sessions left with none. */
  private sweep(): void {
    for (const [id, session] of this.inFlight) {
      sweepEnded(session);
      if (session.calls.size === 0) this.inFlight.delete(id);
    }
  }
}

/** One session's calls in flight by id; a row is emptied (`undefined`) when its call ends. */
interface SessionCalls {
  readonly calls: Map<string, DispatchRequest | undefined>;
  /** Emptied rows. */
  ended: number;
}

/** Delete a session's emptied rows. */
function sweepEnded(session: SessionCalls): void {
  for (const [id, held] of session.calls) if (held === undefined) session.calls.delete(id);
  session.ended = 0;
}

/** Emptied rows a session's table holds before they are deleted. */
const SWEEP_AT = 256;
/** Sessions known to {@link LocalDispatcher} before those with no call in flight are forgotten. */
const MAX_IDLE_SESSIONS = 64;
