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
import fs from 'node:fs';
import path from 'node:path';
import { threadId, workerData } from 'node:worker_threads';
import { truncate } from '../closeout/closeout.js';
import { ensureFolder, safeName } from '../closeout/output-store.js';
import { getToolMetadata } from '../decorators/metadata.js';
import type { Tool } from '../types.js';
import { isThenable } from '../util.js';
import { CallContext } from './call-context.js';
import { readPreloadList, type PreloadList } from './preload-list.js';
import { serializeError, SLOT_DONE, SLOT_FREE, SLOT_LOADING, type WorkerReply, type WorkerTask } from './protocol.js';

const data = workerData as { slots: SharedArrayBuffer; preload: PreloadList };
const slots = new Int32Array(data.slots);
const instances = new Map<string, Tool>();

// Load the modules of tools that have already answered calls in this process before taking
// calls (Piscina waits for this module to load before it sends a replacement worker a call),
// so the call after a timeout does not pay for loading them. Only modules known to load are
// listed, so a module that kills its worker while loading cannot stop the pool starting new
// ones; a failure here shows up again, with its error, on the call that needs the module.
await Promise.all(readPreloadList(data.preload).map((url) => import(url).catch(() => undefined)));

async function loadInstance(task: WorkerTask): Promise<Tool> {
  const mod = (await import(task.m)) as Record<string, unknown>;
  let target = mod[task.e];
  if (getToolMetadata(target) === undefined || keyOf(target) !== task.k) {
    // The export was renamed: find the class by its tool identity instead.
    target = Object.values(mod).find((v) => keyOf(v) === task.k);
  }
  if (target === undefined) throw new Error(`Tool ${task.k} is not exported by ${task.m}`);
  const instance = new (target as new () => Tool)();
  instances.set(task.k, instance);
  return instance;
}

function keyOf(value: unknown): string | undefined {
  const meta = getToolMetadata(value);
  return meta ? `${meta.name}@${meta.version}` : undefined;
}

function success(value: unknown, ctx: CallContext, task: WorkerTask): WorkerReply {
  Atomics.store(slots, task.s, SLOT_DONE);
  const reply: WorkerReply & { ok: true } = { ok: true, value };
  if (ctx.notes.length) reply.notes = ctx.notes;
  if (ctx.images !== undefined) reply.images = ctx.images;
  if (ctx.reportedError !== undefined) reply.reported = ctx.reportedError;
  if (task.x && typeof value === 'string' && task.o > 0 && value.length > task.o) {
    if (task.f !== undefined) {
      const full = keepFullOutput(task.f, task.c, value);
      if (full !== undefined) reply.full = full;
    }
    reply.value = truncate(value, task.o, task.t);
    reply.cut = true;
  }
  return reply;
}

let kept = 0;

/** Write the whole output to a new file in `dir`, made if missing (the main thread accounts for it). */
function keepFullOutput(dir: string, callId: string, text: string): { path: string; characters: number } | undefined {
  const file = path.join(dir, `${safeName(callId)}-t${threadId}-${++kept}.txt`);
  try {
    ensureFolder(dir);
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    return { path: file, characters: text.length };
  } catch {
    return undefined;
  }
}

function failure(error: unknown, ctx: CallContext, task: WorkerTask): WorkerReply {
  Atomics.store(slots, task.s, SLOT_DONE);
  const serialized = serializeError(error);
  // Cut long messages here, so the main thread never holds more than the model will see.
  if (task.o > 0 && serialized.message.length > task.o) serialized.message = truncate(serialized.message, task.o, 'head');
  return { ok: false, error: serialized, notes: ctx.notes };
}

/**
 * Run one call (Piscina calls the default export). Answers synchronously when the tool is
 * loaded and its `run` returns a plain value, which saves the worker a promise turn.
 */
export default function runToolTask(task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  const instance = instances.get(task.k);
  if (instance !== undefined) {
    if (Atomics.compareExchange(slots, task.s, SLOT_FREE, threadId) !== SLOT_FREE) return { cancelled: true };
    return start(instance, task);
  }
  // Loading the module: mark the slot so that a timeout ends this worker (a module can hang
  // while loading) while the call still counts as not started.
  const loading = threadId | SLOT_LOADING;
  if (Atomics.compareExchange(slots, task.s, SLOT_FREE, loading) !== SLOT_FREE) return { cancelled: true };
  return loadInstance(task).then(
    (loaded) => {
      if (Atomics.compareExchange(slots, task.s, loading, threadId) !== loading) return { cancelled: true } as const;
      return start(loaded, task);
    },
    (error: unknown): WorkerReply => {
      if (Atomics.compareExchange(slots, task.s, loading, threadId) !== loading) return { cancelled: true };
      Atomics.store(slots, task.s, SLOT_DONE);
      return { ok: false, error: serializeError(error), loadFailed: true };
    },
  );
}

/**
 * Run a call whose slot this worker holds. The slot is claimed only with the tool loaded and
 * about to run: a call still waiting behind another call on this worker has not started, so
 * ending the worker for the other call's sake moves it instead of losing it.
 */
function start(instance: Tool, task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  const at = task.k.lastIndexOf('@');
  const ctx = new CallContext(task.c, task.k.slice(0, at), task.k.slice(at + 1), task.w, false, task.o, task.r, task.d);
  let returned: unknown;
  try {
    returned = instance.run(task.a as never, ctx);
  } catch (error) {
    return failure(error, ctx, task);
  }
  if (!isThenable(returned)) return success(returned, ctx, task);
  return Promise.resolve(returned).then(
    (value) => success(value, ctx, task),
    (error: unknown) => failure(error, ctx, task),
  );
}
