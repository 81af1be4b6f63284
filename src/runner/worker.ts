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

const slots = new Int32Array((workerData as { slots: SharedArrayBuffer }).slots);
const instances = new Map<string, Tool>();

async function instanceFor(task: WorkerTask): Promise<Tool> {
  let instance = instances.get(task.k);
  if (instance === undefined) {
    const mod = (await import(task.m)) as Record<string, unknown>;
    let target = mod[task.e];
    if (getToolMetadata(target) === undefined || keyOf(target) !== task.k) {
      // The export was renamed: find the class by its tool identity instead.
      target = Object.values(mod).find((v) => keyOf(v) === task.k);
    }
    if (target === undefined) throw new Error(`Tool ${task.k} is not exported by ${task.m}`);
    instance = new (target as new () => Tool)();
    instances.set(task.k, instance);
  }
  return instance;
}

function keyOf(value: unknown): string | undefined {
  const meta = getToolMetadata(value);
  return meta ? `${meta.name}@${meta.version}` : undefined;
}

/** Run one call (Piscina calls the default export). */
export default async function runToolTask(task: WorkerTask): Promise<WorkerReply> {
  if (Atomics.compareExchange(slots, task.s, SLOT_FREE, threadId) !== SLOT_FREE) return { cancelled: true };
  const at = task.k.lastIndexOf('@');
  const ctx = new CallContext(task.c, task.k.slice(0, at), task.k.slice(at + 1), task.w, false);
  try {
    const instance = await instanceFor(task);
    const value = await instance.run(task.a as never, ctx);
    return ctx.notes.length ? { ok: true, value, notes: ctx.notes } : { ok: true, value };
  } catch (error) {
    return { ok: false, error: serializeError(error), notes: ctx.notes };
  } finally {
    Atomics.store(slots, task.s, SLOT_DONE);
  }
}
