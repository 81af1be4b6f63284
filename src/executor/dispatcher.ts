/**
 * The dispatcher seam: between "this call is decided and claimed" and "a runner runs it".
 * The executor hands every call that may run to one {@link Dispatcher}; the dispatcher gets
 * it to a runner, can cancel it by its id, and tells the executor how it ended. The local
 * implementation (`local-dispatcher.ts`) hands calls to this process's runners
 * (`src/runner/`); a dispatcher that sends calls to workers on other machines implements the
 * same interface and sends {@link describeCall}'s plain data over its queue.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { RunnerKind } from '../runner/kinds.js';
import type { RunnableTool, RunOutcome, RunRequest } from '../runner/runner.js';
import type { SandboxProfile } from '../sandbox/bubblewrap.js';
import type { PathFilterSpec } from '../workspace/path-filter.js';

/** The tool of a dispatched call: what a runner needs, plus where it runs and which definition was approved. */
export interface DispatchedTool extends RunnableTool {
  /** The runner kind the tool runs on (`@tool({ runner })`). */
  readonly runner: RunnerKind;
  /** Registration revision (SHA-256 hex) of the definition the call was decided for. */
  readonly revision: string;
}

/**
 * A call that every decision allowed and the journal claimed, as the executor hands it to a
 * dispatcher: the {@link RunRequest} a local runner runs, plus what names it (its session) and
 * what stops it (the caller's signal).
 */
export interface DispatchRequest extends RunRequest {
  readonly tool: DispatchedTool;
  /** The session of the call: with the call id, what names it (and what {@link Dispatcher.cancel} takes). */
  readonly session: string;
  /** The caller's abort signal, if any: when it aborts, the call is stopped and ends `aborted`. */
  readonly signal: AbortSignal | undefined;
}

/**
 * How the executor learns the end of a dispatched call: exactly one of the two is called, once
 * per call. Both are called detached (as plain functions, `this` unbound), so an implementation
 * makes them arrow functions; what they return is what {@link Dispatcher.dispatch} answers.
 */
export interface CallEnd<T> {
  /** The call ran (or could not start) and ended with `outcome`. */
  readonly ended: (outcome: RunOutcome, call: DispatchRequest) => T;
  /** The dispatcher or its runner broke its contract (threw or rejected): a bug, not an outcome. */
  readonly failed: (error: unknown, call: DispatchRequest) => T;
}

/**
 * Where claimed calls go to run. Contract:
 * - {@link Dispatcher.dispatch} never throws and never rejects but with what `end` throws:
 *   every way a call can end (a crash, a timeout, no worker left) is a {@link RunOutcome};
 * - `end.ended` (or, for a bug, `end.failed`) is called exactly once per dispatched call,
 *   synchronously when the call ended at once (a main-thread tool that returned), else later;
 * - a cancelled call still ends through `end` (as `aborted`, or as it ended if it was done).
 */
export interface Dispatcher {
  /**
   * Dispatch one claimed call.
   * @param call - the call; its `timeoutMs` counts from its `timeoutFrom`.
   * @param end - told how the call ended, once.
   * @returns what `end` returned: directly when the call ended before this returns, else a
   *   promise of it.
   */
  dispatch<T>(call: DispatchRequest, end: CallEnd<T>): T | Promise<T>;
  /**
   * Stop a dispatched call by its id, as an abort of its signal would: it ends `aborted`
   * through its `end` (unless it ended first).
   * @param callId - the call's id.
   * @param session - the call's session.
   * @returns true when the call was running and was told to stop; false when no such call is
   *   in flight (never dispatched, or already ended).
   */
  cancel(callId: string, session: string): boolean;
  /**
   * Start what calls will need (threads, processes, connections) now, so that the first call
   * does not wait for it; with a tool, what that tool's calls need. Loads no tool module.
   */
  warmUp(tool?: DispatchedTool): void;
  /**
   * Stop every call in flight (they end as crashed or aborted) and release what the
   * dispatcher holds; later dispatches end `unavailable` (`ABORTED`).
   * @returns the errors of tool instances whose own `close()` failed, by `name@version`.
   */
  close(): Promise<Array<{ key: string; error: unknown }>>;
}

/**
 * A dispatched call as plain JSON data: what a dispatcher that runs calls elsewhere sends (the
 * receiving worker resolves the tool by `name@version` and refuses another `revision`). The
 * caller's handlers (`client`) and signal cannot travel: a remote dispatcher relays them as
 * messages, and cancels by {@link Dispatcher.cancel}.
 */
export interface CallDescription {
  callId: string;
  session: string;
  tool: { name: string; version: string; revision: string; runner: RunnerKind };
  /** Validated arguments (JSON data). */
  arguments: Record<string, unknown>;
  /** The workspace root as the caller gave it (to be resolved where the call runs). */
  workspaceRoot: string;
  /** Timeout in ms; `<= 0` for none. */
  timeoutMs: number;
  /** When the timeout ends, in ms since the epoch (`Date.now()` clock, not a process's own); absent without a timeout. */
  deadline?: number;
  /** Real paths writes are confined to (scoped writes), if any. */
  writeRoots?: string[];
  /** The call's path rules for the tool (`src/workspace/path-filter.ts`), when policy files count. */
  pathFilter?: PathFilterSpec;
  /** How processes the tool starts are confined. */
  sandbox?: { profile: SandboxProfile; network: boolean };
  /** W3C `traceparent` of the call's span, if recorded. */
  traceparent?: string;
  /** Whether the caller has handlers for `ctx.progress` / `ctx.log` / `ctx.elicit` / `ctx.sample` to relay. */
  hasClient: boolean;
}

/**
 * The plain-data description of a dispatched call ({@link CallDescription}); `JSON.stringify`
 * and `JSON.parse` give it back unchanged.
 */
export function describeCall(call: DispatchRequest): CallDescription {
  const { tool } = call;
  const description: CallDescription = {
    callId: call.callId, session: call.session,
    tool: { name: tool.name, version: tool.version, revision: tool.revision, runner: tool.runner },
    arguments: call.args, workspaceRoot: call.workspaceRoot, timeoutMs: call.timeoutMs, hasClient: call.client !== undefined,
  };
  if (call.timeoutMs > 0) {
    const from = call.timeoutFrom === undefined ? Date.now() : Date.now() - (performance.now() - call.timeoutFrom);
    description.deadline = Math.round(from + call.timeoutMs);
  }
  if (call.writeRoots !== undefined) description.writeRoots = [...call.writeRoots];
  if (call.pathFilter !== undefined) description.pathFilter = call.pathFilter;
  if (call.sandbox !== undefined) description.sandbox = { profile: call.sandbox.profile, network: call.sandbox.network };
  if (call.traceparent !== undefined) description.traceparent = call.traceparent;
  return description;
}
