/**
 * What crosses between the pool runner and its worker threads: the shared slot states, the
 * task and reply shapes. Private to `runner/pool/`; outcomes and errors as plain data are the
 * runner seam's (`../runner.ts`).
 *
 * @module
 */
import type { PathFilterSpec } from '../../workspace/path-filter.js';
import type { ToolEntry, ToolReply } from '../tool-host.js';

export type { ToolEntry };

/** Slot states in the shared call table (values above 0 are the thread id running the call). */
export const SLOT_FREE = 0;
/** The call timed out or was aborted before a worker picked it up: skip it. */
export const SLOT_CANCELLED = -1;
/**
 * The worker finished the call; its reply is on the way. Stored as `SLOT_DONE - threadId`
 * (see {@link doneBy}), so a call whose reply is lost to its worker's death still names the
 * worker that ran it: every value at or below `SLOT_DONE` means done.
 */
export const SLOT_DONE = -2;

/** The slot state of a call worker `threadId` has finished. */
export function doneBy(threadId: number): number {
  return SLOT_DONE - threadId;
}

/** The thread id in a slot state, whether the call runs, loads or is done there; 0 when none. */
export function threadOf(state: number): number {
  if (state > 0) return state & ~SLOT_LOADING;
  return state < SLOT_DONE ? SLOT_DONE - state : 0;
}
/**
 * Flag added to a thread id while that worker loads the call's tool module: the call has not
 * started, but the worker must be ended if the call times out (a module can hang loading).
 */
export const SLOT_LOADING = 1 << 30;

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
  fullOutputDir?: string | undefined,
  /** W3C trace context of the call's span (OpenTelemetry), if traced. */
  traceparent?: string | undefined,
  /** What the caller's client offers (`clientMethods`), when the call has one; its messages go over the pool's channel. */
  client?: number,
  /** The call's path rules (`ctx.workspace.withholds()`), when policy files count. */
  pathFilter?: PathFilterSpec,
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
export const TASK_TRACEPARENT = 8;
export const TASK_CLIENT = 9;
export const TASK_PATH_FILTER = 10;

/** A worker's reply: a tool reply, or word that the call was cancelled before it started. */
export type WorkerReply = ToolReply | { cancelled: true };
