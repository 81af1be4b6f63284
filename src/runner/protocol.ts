/**
 * What crosses between the executor and its runners: task and reply shapes, outcomes, and
 * errors as plain data (errors do not survive a worker boundary as classes).
 *
 * @module
 */
import { PathTraversalError, type ToolErrorCode } from '../errors/errors.js';
import type { TruncationStrategy } from '../types/tool.js';

/** Slot states in the shared call table (values above 0 are the thread id running the call). */
export const SLOT_FREE = 0;
/** The call timed out or was aborted before a worker picked it up: skip it. */
export const SLOT_CANCELLED = -1;
/** The worker finished the call; its reply is on the way. */
export const SLOT_DONE = -2;
/**
 * Flag added to a thread id while that worker loads the call's tool module: the call has not
 * started, but the worker must be ended if the call times out (a module can hang loading).
 */
export const SLOT_LOADING = 1 << 30;

/**
 * What a worker needs to know of a pool tool; the same for every call of it, so it is sent
 * once, through the shared tool table, and a task names it by its index there.
 */
export interface ToolEntry {
  /** Module URL of the tool class. */
  m: string;
  /** Export name of the class in that module. */
  e: string;
  /** `name@version`, to check the export is the tool meant. */
  k: string;
  /** The tool's output cap in characters (`<= 0`: none). */
  o: number;
  /** Cut long string output in the worker. */
  x: boolean;
  /** How long string output is cut. */
  t: TruncationStrategy;
}

/**
 * A call as sent to a pool worker: an array, since it is cloned per call and an array clones
 * without its field names. Optional items are left off the end when absent.
 */
export type WorkerTask = [
  /** Index in the shared tool table, or the entry itself when the table is full. */
  tool: number | ToolEntry,
  /** Validated arguments. */
  args: unknown,
  callId: string,
  /** Index in the shared call table. */
  slot: number,
  workspaceRoot: string,
  /** When the call will be stopped (epoch ms); 0 for no time limit. */
  deadline: number,
  /** Real paths of the folders writes are confined to (scoped writes), if any. */
  writeRoots?: string[] | undefined,
  /** Folder where the worker keeps the whole output when it cuts it (case T7), if any. */
  fullOutputDir?: string,
];

/** Positions in a {@link WorkerTask}. */
export const TASK_TOOL = 0;
export const TASK_ARGS = 1;
export const TASK_CALL_ID = 2;
export const TASK_SLOT = 3;
export const TASK_ROOT = 4;
export const TASK_DEADLINE = 5;
export const TASK_WRITE_ROOTS = 6;
export const TASK_FULL_OUTPUT_DIR = 7;

/** What a tool reported besides its return value: notes, images, a reported failure, a kept full output. */
export interface CallExtras {
  notes?: readonly string[];
  images?: string[];
  reported?: string;
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

/**
 * A worker's reply. A call that returned a string that was not cut and reported nothing else
 * (no notes, images or reported failure) is answered with the bare string: the common case,
 * and the cheapest to clone. Everything else is an object, the tool's value under `value`.
 */
export type WorkerReply =
  | string
  | ({ ok: true; value: unknown; cut?: true } & CallExtras)
  | { ok: false; error: SerializedError; notes?: readonly string[]; loadFailed?: true }
  | { cancelled: true };

/** How a run ended, whichever runner ran it. */
export type RunOutcome =
  | ({ kind: 'ok'; value: unknown; notes: readonly string[]; cut?: boolean } & Omit<CallExtras, 'notes'>)
  | { kind: 'error'; error: SerializedError; notes: readonly string[] }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'aborted' }
  | { kind: 'memory'; memoryMb: number | undefined; message: string }
  | { kind: 'crashed'; message: string }
  | { kind: 'unavailable'; code: 'ABORTED' | 'OVERLOADED'; message: string }
  | { kind: 'invalid-output'; message: string };

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
 * Error codes a tool may report by throwing a {@link ToolgateError} with that code. `TIMEOUT`,
 * `MEMORY_LIMIT` and `ABORTED` are for limits a tool enforces itself (a command's own
 * timeout, a sandbox's memory cap).
 */
const REPORTABLE_CODES = new Set<ToolErrorCode>(['INVALID_ARGUMENTS', 'INVALID_PATH', 'TOOL_ERROR', 'MODE_DENIED', 'TIMEOUT', 'MEMORY_LIMIT', 'ABORTED', 'SERVER_UNAVAILABLE']);

/** The result code for an error a tool threw: its own code when it is a reportable toolgate code. */
export function errorCodeOf(error: SerializedError): ToolErrorCode {
  return error.code !== undefined && REPORTABLE_CODES.has(error.code as ToolErrorCode) ? (error.code as ToolErrorCode) : 'TOOL_ERROR';
}

