/**
 * Worker entry of the pool runner (loaded by Piscina in each worker thread).
 *
 * It loads a tool module by URL, finds the class by export name (checking its `name@version`),
 * runs the call, and replies with plain data. Before running, it claims the call's slot in the
 * shared call table with its thread id, so the main thread can terminate exactly this worker
 * when the call times out; a call whose slot was already cancelled is skipped. Long string
 * output is cut here, so the main thread never receives more than the model will see.
 *
 * @module
 */
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { isThenable } from '../../util/values.js';
import { CallContext } from '../call-context.js';
import { failureReply, loadTool, successReply, type LoadedTool as Loaded } from '../tool-host.js';
import { readLines, type SharedLines } from './shared-lines.js';
import { serializeError } from '../runner.js';
import { isClientReply, RelayedClient, type ClientMessage } from '../client-relay.js';
import {
  doneBy, SLOT_FREE, SLOT_LOADING, TASK_ARGS, TASK_CALL_ID, TASK_CLIENT, TASK_DEADLINE, TASK_PATH_FILTER, TASK_FULL_OUTPUT_DIR, TASK_TRACEPARENT, TASK_ROOT, TASK_SLOT, TASK_TOOL, TASK_WRITE_ROOTS,
  type ToolEntry, type WorkerReply, type WorkerTask,
} from './protocol.js';

const data = workerData as { slots: SharedArrayBuffer; preload: SharedLines; tools: SharedLines; channel: string };
const slots = new Int32Array(data.slots);

/** Loaded tools by index in the shared tool table... */
const loadedByIndex: Array<Loaded | undefined> = [];
/**
 * ...and those sent whole (the table was full), by module, export and key; their output
 * settings are taken from each task's entry, not from the one they were loaded with.
 */
const loadedByEntry = new Map<string, Loaded>();
/** The tool table as read so far, and the byte offset to read on from. */
const toolTable: ToolEntry[] = [];
let toolTableEnd = 0;

/** Byte offset up to which this worker has read its pool's preload list. */
let preloadEnd = 0;

/**
 * Import the modules added to the pool's preload list since this worker last looked. Only
 * modules known to load are listed, so a module that kills its worker while loading cannot
 * stop the pool starting new ones; a failure here shows up again, with its error, on the call
 * that needs the module.
 * @returns a promise when there was something to load, else `undefined`.
 */
export function preloadNew(): Promise<void> | undefined {
  const { lines, end } = readLines(data.preload, preloadEnd);
  preloadEnd = end;
  if (lines.length === 0) return undefined;
  return Promise.all(lines.map((url) => import(url).catch(() => undefined))).then(() => undefined);
}

// Load the modules of tools that have already answered calls in this pool before taking
// calls (Piscina waits for this module to load before it sends a replacement worker a call),
// so the call after a timeout does not pay for loading them. Workers that were already
// running get the same through the pool runner's `preload` tasks.
await preloadNew();

/** The entry a task names: by index (read from the shared table when new) or sent whole. */
function entryOf(ref: number | ToolEntry): ToolEntry {
  if (typeof ref !== 'number') return ref;
  if (ref >= toolTable.length) {
    const { lines, end } = readLines(data.tools, toolTableEnd);
    toolTableEnd = end;
    for (const line of lines) toolTable.push(JSON.parse(line) as ToolEntry);
  }
  const entry = toolTable[ref];
  if (entry === undefined) throw new Error(`tool table entry ${ref} is missing`);
  return entry;
}

/** Key of a tool sent whole in {@link loadedByEntry}: which class it is, not its output settings. */
function classKey(entry: ToolEntry): string {
  return `${entry.m}\n${entry.e}\n${entry.k}`;
}

function loadedOf(ref: number | ToolEntry): Loaded | undefined {
  return typeof ref === 'number' ? loadedByIndex[ref] : loadedByEntry.get(classKey(ref));
}

async function load(ref: number | ToolEntry): Promise<Loaded> {
  const loaded = await loadTool(entryOf(ref));
  if (typeof ref === 'number') loadedByIndex[ref] = loaded;
  else loadedByEntry.set(classKey(ref), loaded);
  return loaded;
}

/**
 * The pool's channel to the main thread for `ctx.progress`, `ctx.log`, `ctx.elicit` and
 * `ctx.sample` (see `../client-relay.ts`), opened on first use; and the calls using it now.
 */
let channel: BroadcastChannel | undefined;
const relayed = new Map<string, RelayedClient>();

function clientFor(task: WorkerTask): RelayedClient {
  if (channel === undefined) {
    const opened = new BroadcastChannel(data.channel);
    opened.unref();
    opened.onmessage = (event) => {
      const reply = (event as MessageEvent).data as unknown;
      if (isClientReply(reply)) relayed.get(reply[0])?.receive(reply);
    };
    channel = opened;
  }
  const open = channel;
  const client = new RelayedClient(`${task[TASK_SLOT]}:${task[TASK_CALL_ID]}`, task[TASK_CLIENT]!, (message: ClientMessage) => open.postMessage(message));
  relayed.set(client.key, client);
  return client;
}

function endClient(client: RelayedClient): void {
  relayed.delete(client.key);
  client.end();
}

const TAG = `t${threadId}`;
/** This worker's "done" slot state. */
const DONE = doneBy(threadId);

function success(value: unknown, ctx: CallContext, entry: ToolEntry, task: WorkerTask): WorkerReply {
  if (ctx.client !== undefined) endClient(ctx.client as RelayedClient);
  Atomics.store(slots, task[TASK_SLOT], DONE);
  return successReply(value, ctx, entry, task[TASK_CALL_ID], task[TASK_FULL_OUTPUT_DIR], TAG);
}

function failure(error: unknown, ctx: CallContext, entry: ToolEntry, task: WorkerTask): WorkerReply {
  if (ctx.client !== undefined) endClient(ctx.client as RelayedClient);
  Atomics.store(slots, task[TASK_SLOT], DONE);
  return failureReply(error, ctx, entry);
}

/**
 * Run one call (Piscina calls the default export). Answers synchronously when the tool is
 * loaded and its `run` returns a plain value, which saves the worker a promise turn.
 */
export default function runToolTask(task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  const slot = task[TASK_SLOT];
  const loaded = loadedOf(task[TASK_TOOL]);
  if (loaded !== undefined) {
    if (Atomics.compareExchange(slots, slot, SLOT_FREE, threadId) !== SLOT_FREE) return { cancelled: true };
    return start(loaded, task);
  }
  // Loading the module: mark the slot so that a timeout ends this worker (a module can hang
  // while loading) while the call still counts as not started.
  const loading = threadId | SLOT_LOADING;
  if (Atomics.compareExchange(slots, slot, SLOT_FREE, loading) !== SLOT_FREE) return { cancelled: true };
  return load(task[TASK_TOOL]).then(
    (fresh) => {
      if (Atomics.compareExchange(slots, slot, loading, threadId) !== loading) return { cancelled: true } as const;
      return start(fresh, task);
    },
    (error: unknown): WorkerReply => {
      if (Atomics.compareExchange(slots, slot, loading, threadId) !== loading) return { cancelled: true };
      Atomics.store(slots, slot, DONE);
      return { ok: false, error: serializeError(error), loadFailed: true };
    },
  );
}

/**
 * Run a call whose slot this worker holds. The slot is claimed only with the tool loaded and
 * about to run: a call still waiting behind another call on this worker has not started, so
 * ending the worker for the other call's sake moves it instead of losing it.
 */
function start(loaded: Loaded, task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  const ref = task[TASK_TOOL];
  const entry = typeof ref === 'number' ? loaded.entry : ref;
  const deadline = task[TASK_DEADLINE];
  const ctx = new CallContext(task[TASK_CALL_ID], loaded.name, loaded.version, task[TASK_ROOT], false, entry.o, task[TASK_WRITE_ROOTS], deadline > 0 ? deadline : undefined);
  const traceparent = task[TASK_TRACEPARENT];
  if (traceparent !== undefined) ctx.traceparent = traceparent;
  if (task[TASK_CLIENT] !== undefined) ctx.client = clientFor(task);
  if (task[TASK_PATH_FILTER] !== undefined) ctx.pathFilter = task[TASK_PATH_FILTER];
  let returned: unknown;
  try {
    returned = loaded.instance.run(task[TASK_ARGS] as never, ctx);
  } catch (error) {
    return failure(error, ctx, entry, task);
  }
  if (!isThenable(returned)) return success(returned, ctx, entry, task);
  return Promise.resolve(returned).then(
    (value) => success(value, ctx, entry, task),
    (error: unknown) => failure(error, ctx, entry, task),
  );
}
