/**
 * Worker entry of the pool runner (loaded by Piscina in each worker thread).
 *
 * It loads a tool module by URL, finds the class by export name (checking its `name@version`),
 * runs the call, and replies with plain data. Before running, it claims the call's slot in the
 * shared call table with its thread id, so the main thread can terminate exactly this worker
 * when the call times out; a call whose slot was already cancelled is skipped.
 *
 * @module
 */
import { threadId, workerData } from 'node:worker_threads';
import { getToolMetadata } from '../decorators/metadata.js';
import type { Tool } from '../types.js';
import { CallContext } from './call-context.js';
import { serializeError, SLOT_DONE, SLOT_FREE, type WorkerReply, type WorkerTask } from './protocol.js';

const data = workerData as { slots: SharedArrayBuffer; preload?: string[] };
const slots = new Int32Array(data.slots);
const instances = new Map<string, Tool>();

// Load the tool modules before taking calls (Piscina waits for this module to finish
// loading before it sends a replacement worker any call). A module that fails to load here
// fails again, with its error, on the call that needs it.
await Promise.all((data.preload ?? []).map((url) => import(url).catch(() => undefined)));

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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

function success(value: unknown, ctx: CallContext, slot: number): WorkerReply {
  Atomics.store(slots, slot, SLOT_DONE);
  return ctx.notes.length ? { ok: true, value, notes: ctx.notes } : { ok: true, value };
}

function failure(error: unknown, ctx: CallContext, slot: number): WorkerReply {
  Atomics.store(slots, slot, SLOT_DONE);
  return { ok: false, error: serializeError(error), notes: ctx.notes };
}

/**
 * Run one call (Piscina calls the default export). Answers synchronously when the tool is
 * loaded and its `run` returns a plain value, which saves the worker a promise turn.
 */
export default function runToolTask(task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  if (Atomics.compareExchange(slots, task.s, SLOT_FREE, threadId) !== SLOT_FREE) return { cancelled: true };
  const at = task.k.lastIndexOf('@');
  const ctx = new CallContext(task.c, task.k.slice(0, at), task.k.slice(at + 1), task.w, false);
  const instance = instances.get(task.k);
  if (instance === undefined) {
    return loadInstance(task).then(
      (loaded) => finish(loaded, task, ctx),
      (error: unknown) => failure(error, ctx, task.s),
    );
  }
  return finish(instance, task, ctx);
}

function finish(instance: Tool, task: WorkerTask, ctx: CallContext): WorkerReply | Promise<WorkerReply> {
  let returned: unknown;
  try {
    returned = instance.run(task.a as never, ctx);
  } catch (error) {
    return failure(error, ctx, task.s);
  }
  if (!isThenable(returned)) return success(returned, ctx, task.s);
  return Promise.resolve(returned).then(
    (value) => success(value, ctx, task.s),
    (error: unknown) => failure(error, ctx, task.s),
  );
}
