/**
 * What crosses between the pool runner and its worker threads: the shared slot states, the
 * task and reply shapes. Private to `runner/pool/`; outcomes and errors as plain data are the
 * runner seam's (`../runner.ts`).
 *
 * @module
 */
import type { TruncationStrategy } from '../../types/tool.js';
import type { CallExtras, SerializedError } from '../runner.js';

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
