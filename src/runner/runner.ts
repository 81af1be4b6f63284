/**
 * The runner seam: what the executor hands a runner for one call ({@link RunRequest}), what
 * comes back ({@link RunOutcome}), and the {@link Runner} interface every runner implements.
 * A runner only runs: decisions, validation and close-out happen before and after it, in the
 * executor. Each runner lives in its own folder (`pool/`, `main/`) and is listed once in
 * `runners.ts`.
 *
 * Errors cross a worker or process boundary as plain data ({@link SerializedError}); the
 * executor rebuilds the one error class that must reach callers, `PathTraversalError`.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { PathTraversalError, type ToolErrorCode } from '../errors/errors.js';
import { codesWhere } from '../errors/error-codes.js';
import type { SandboxPolicy } from '../sandbox/bubblewrap.js';
import type { ToolAttachment, ToolClass, ToolClient, TruncationStrategy } from '../types/tool.js';
import type { PathFilterSpec } from '../workspace/path-filter.js';

/** What a runner needs to know of a tool (a `RegisteredTool` has all of it). */
export interface RunnableTool {
  /** Tool name (snake_case). */
  readonly name: string;
  /** Semver version. */
  readonly version: string;
  /** `name@version`: a runner keeps per-tool state (instances, loaded modules) under it. */
  readonly key: string;
  /** The tool class, for runners that run it in this thread; `undefined` until {@link RunnableTool.load} has loaded it. */
  readonly target: ToolClass | undefined;
  /** The tool class, importing its module on first use (a tool registered from a manifest). */
  load(): Promise<ToolClass>;
  /** URL of the module that defines the class, for runners that load it elsewhere; `undefined` when unknown. */
  readonly moduleUrl: string | undefined;
  /** Export name of the class in that module. */
  readonly exportName: string;
  /** Memory cap in MiB, if the tool sets one (runners that can enforce one). */
  readonly memoryMb: number | undefined;
  /** Output cap in characters (`<= 0`: none), given to the tool as `ctx.maxOutputLength`. */
  readonly maxOutputLength: number;
  /** Whether long string output may be cut where the tool runs (its output schema allows it). */
  readonly cutInWorker: boolean;
  /** How long string output is cut. */
  readonly truncation: TruncationStrategy;
}

/** One call, as the executor hands it to a runner once every decision allowed it. */
export interface RunRequest {
  tool: RunnableTool;
  /** Validated arguments (plain JSON data, already copied: the runner may pass them on as they are). */
  args: Record<string, unknown>;
  /** Call id, given to the tool as `ctx.callId`. */
  callId: string;
  /**
   * The workspace root the call is confined to, as the caller gave it (absolute or relative to
   * the process's folder; links not yet resolved): resolve it with `workspaceFor(root).realRoot`
   * before mounting it or running a process in it.
   */
  workspaceRoot: string;
  /** Timeout in milliseconds; `<= 0` for none. It counts from {@link RunRequest.timeoutFrom}. */
  timeoutMs: number;
  /**
   * `performance.now()` the timeout counts from: when the call arrived at the executor (plus
   * the time it waited for a person to confirm it), so the time spent reading large arguments
   * and at the gates is part of it. `undefined`: from when the runner got the call.
   */
  timeoutFrom?: number | undefined;
  /** Real paths of the folders writes are confined to (scoped writes in a read-only mode), if any. */
  writeRoots: string[] | undefined;
  /** The call's path rules, for `ctx.workspace.withholds()` (`src/workspace/path-filter.ts`), when policy files count. */
  pathFilter?: PathFilterSpec | undefined;
  /** Folder where a runner that cuts long output keeps the whole of it, if anywhere. */
  fullOutputDir?: string | undefined;
  /** How processes the tool starts are confined (`ctx.sandbox`); default `DEFAULT_SANDBOX`. */
  sandbox?: SandboxPolicy;
  /** W3C `traceparent` of the call's span when OpenTelemetry records one (`ctx.traceparent`). */
  traceparent?: string | undefined;
  /** The caller's handlers behind `ctx.progress`, `ctx.log`, `ctx.elicit` and `ctx.sample`, if any. */
  readonly client?: ToolClient | undefined;
  /**
   * Set by the runner while it runs the call asynchronously, cleared when the call settles:
   * `handleEvent()` stops the call as an abort of its signal would (it ends `aborted`). What a
   * dispatcher's `cancel` uses, so that a call can be stopped by its id without an abort signal
   * made for every call. A call that ran synchronously, or has ended, has none.
   */
  running?: { handleEvent(): void } | undefined;
}

/** What a tool reported besides its return value. */
export interface CallExtras {
  /** Short markers the tool added with `ctx.note()`. */
  notes?: readonly string[];
  /** Images the tool attached, as data URLs. */
  images?: string[];
  /** Audio and resources the tool attached. */
  attachments?: ToolAttachment[];
  /** A failure the tool reported with `ctx.reportError()` while still returning a value. */
  reported?: string;
  /** Where the runner kept the whole output when it cut it: a file path and its length in characters. */
  full?: { path: string; characters: number };
}

/** An error as plain data. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  /** For `PathTraversalError`: the offending path. */
  path?: string;
  /** For `PathTraversalError`: the workspace root. */
  workspaceRoot?: string;
}

/** How a run ended, whichever runner ran it. */
export type RunOutcome =
  | ({ kind: 'ok'; value: unknown; notes: readonly string[]; cut?: boolean } & Omit<CallExtras, 'notes'>)
  | { kind: 'error'; error: SerializedError; notes: readonly string[] }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'aborted' }
  | { kind: 'memory'; memoryMb: number | undefined; message: string }
  | { kind: 'crashed'; message: string }
  | { kind: 'unavailable'; code: 'ABORTED' | 'OVERLOADED'; message: string }
  | { kind: 'invalid-output'; message: string }
  /**
   * The `main` runner only: the tool's run threw a suspension (`isSuspension`: the question
   * handler a caller lent `ask_user` when the answer comes in a later request). The run did
   * not end: the executor leaves the call waiting and rejects with `suspension`.
   */
  | { kind: 'suspended'; suspension: unknown };

/**
 * A place where tool calls run: worker threads, the main thread, (later) child processes or
 * another machine.
 *
 * Contract: `run` never rejects and never throws; every way a call can end is a
 * {@link RunOutcome}. When `signal` aborts, the runner stops the tool and answers
 * `{ kind: 'aborted' }`; at the request's timeout it stops the tool and answers
 * `{ kind: 'timeout' }`. A runner may answer synchronously (a tool that returned at once), so
 * callers accept both forms.
 */
export interface Runner {
  /** The kind tools name in `@tool({ runner })`. */
  readonly kind: string;
  /** Run one call. */
  run(request: RunRequest, signal: AbortSignal | undefined): RunOutcome | Promise<RunOutcome>;
  /**
   * Optional fast path: {@link run} with `then(outcome, request)` applied in the runner's own
   * promise turn, which saves the caller's `.then` a turn (and, with the request handed back,
   * a closure per call). The executor uses it when present; a runner without a bench target to
   * meet leaves it out. Rejects only with what `then` throws.
   */
  runThen?<T>(request: RunRequest, signal: AbortSignal | undefined, then: (outcome: RunOutcome, request: RunRequest) => T): Promise<T>;
  /**
   * Optional: start what calls will need (threads, processes) now, so the first call does not
   * wait for it; with a tool, what that tool's calls need (its memory cap's group). Loads no
   * tool module.
   */
  warmUp?(tool?: RunnableTool): void;
  /**
   * Stop every call in flight (they end as crashed or aborted, as the runner can tell) and
   * release what the runner holds (threads, processes, tool instances).
   * @returns the errors of tool instances whose own `close()` failed, by `name@version`.
   */
  close(): Promise<Array<{ key: string; error: unknown }>>;
}

/**
 * The call's deadline on the `Date.now()` clock (what a tool sees as `ctx.deadline`): its
 * timeout after {@link RunRequest.timeoutFrom}; `undefined` without a timeout.
 */
export function deadlineOf(request: RunRequest): number | undefined {
  if (!(request.timeoutMs > 0)) return undefined;
  const from = request.timeoutFrom === undefined ? Date.now() : Date.now() - (performance.now() - request.timeoutFrom);
  return from + request.timeoutMs;
}

/** Turn anything thrown into plain data; never throws, whatever was thrown. */
export function serializeError(error: unknown): SerializedError {
  try {
    return serializeUnsafe(error);
  } catch {
    return { name: 'Error', message: 'the tool threw a value that cannot be described' };
  }
}

function serializeUnsafe(error: unknown): SerializedError {
  if (error instanceof PathTraversalError) {
    return { name: 'PathTraversalError', message: error.message, code: error.code, path: error.path, workspaceRoot: error.workspaceRoot };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message || String(error), code: typeof code === 'string' ? code : undefined };
  }
  return { name: 'Error', message: typeof error === 'string' ? error : safeString(error) };
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Rebuild the security error on the main side, or `undefined` for any other error. */
export function rebuildPathTraversal(error: SerializedError): PathTraversalError | undefined {
  if (error.name !== 'PathTraversalError' && error.code !== 'PATH_TRAVERSAL') return undefined;
  const rebuilt = new PathTraversalError(error.path ?? '?', error.workspaceRoot ?? '?');
  rebuilt.message = error.message;
  return rebuilt;
}

/**
 * Error codes a tool may report by throwing a `ToolgateError` with that code. `TIMEOUT`,
 * `MEMORY_LIMIT` and `ABORTED` are for limits a tool enforces itself (a command's own
 * timeout, a sandbox's memory cap).
 */
const REPORTABLE_CODES = codesWhere((e) => e.reportable);

/** The result code for an error a tool threw: its own code when it is a reportable toolgate code. */
export function errorCodeOf(error: SerializedError): ToolErrorCode {
  return error.code !== undefined && REPORTABLE_CODES.has(error.code as ToolErrorCode) ? (error.code as ToolErrorCode) : 'TOOL_ERROR';
}
