/**
 * What a runner needs on the far side of a thread or process boundary to run a tool it knows
 * only by module URL: load the class (checking its `name@version`), build the call's context,
 * and turn the tool's return value or error into a plain-data reply, cutting long string
 * output there so the host never receives more than the model will see. Shared by the pool
 * runner's worker threads and the process runner's child processes.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { truncate } from '../closeout/closeout.js';
import { ensureFolder, safeName } from '../closeout/output-store.js';
import { getToolMetadata } from '../decorators/metadata.js';
import type { Tool, TruncationStrategy } from '../types/tool.js';
import type { CallContext } from './call-context.js';
import { serializeError, type CallExtras, type SerializedError } from './runner.js';

/**
 * What the far side needs to know of a tool; the same for every call of it (the pool sends it
 * once through a shared table, the process runner once per child).
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
  /** Cut long string output where the tool runs. */
  x: boolean;
  /** How long string output is cut. */
  t: TruncationStrategy;
}

/**
 * A reply. A call that returned a string that was not cut and reported nothing else (no notes,
 * images or reported failure) is answered with the bare string: the common case, and the
 * cheapest to copy. Everything else is an object, the tool's value under `value`.
 */
export type ToolReply =
  | string
  | ({ ok: true; value: unknown; cut?: true } & CallExtras)
  | { ok: false; error: SerializedError; notes?: readonly string[]; loadFailed?: true };

/** A loaded tool: its instance, and what every call's context needs of it. */
export interface LoadedTool {
  instance: Tool;
  name: string;
  version: string;
  entry: ToolEntry;
}

/**
 * Import a tool's module and make an instance of its class.
 * @throws Error when the module does not load or exports no class with the entry's `name@version`.
 */
export async function loadTool(entry: ToolEntry): Promise<LoadedTool> {
  const mod = (await import(entry.m)) as Record<string, unknown>;
  let target = mod[entry.e];
  if (getToolMetadata(target) === undefined || keyOf(target) !== entry.k) {
    // The export was renamed: find the class by its tool identity instead.
    target = Object.values(mod).find((v) => keyOf(v) === entry.k);
  }
  if (target === undefined) throw new Error(`Tool ${entry.k} is not exported by ${entry.m}`);
  const at = entry.k.lastIndexOf('@');
  return { instance: new (target as new () => Tool)(), name: entry.k.slice(0, at), version: entry.k.slice(at + 1), entry };
}

function keyOf(value: unknown): string | undefined {
  const meta = getToolMetadata(value);
  return meta ? `${meta.name}@${meta.version}` : undefined;
}

let kept = 0;

/**
 * The reply for a value a tool returned.
 * @param fullOutputDir - where to keep the whole output when it is cut, if anywhere.
 * @param tag - part of the kept file's name that tells writers apart (`t<threadId>`, `p<pid>`).
 */
export function successReply(value: unknown, ctx: CallContext, entry: ToolEntry, callId: string, fullOutputDir: string | undefined, tag: string): ToolReply {
  const long = entry.x && typeof value === 'string' && entry.o > 0 && value.length > entry.o;
  // The common case answers with the bare string.
  if (typeof value === 'string' && !long && ctx.notes.length === 0 && ctx.images === undefined && ctx.attachments === undefined && ctx.reportedError === undefined) return value;
  const reply: Exclude<ToolReply, string> & { ok: true } = { ok: true, value };
  if (ctx.notes.length) reply.notes = ctx.notes;
  if (ctx.images !== undefined) reply.images = ctx.images;
  if (ctx.attachments !== undefined) reply.attachments = ctx.attachments;
  if (ctx.reportedError !== undefined) reply.reported = ctx.reportedError;
  if (long) {
    if (fullOutputDir !== undefined) {
      const full = keepFullOutput(fullOutputDir, `${safeName(callId)}-${tag}-${++kept}.txt`, value);
      if (full !== undefined) reply.full = full;
    }
    reply.value = truncate(value, entry.o, entry.t);
    reply.cut = true;
  }
  return reply;
}

/** Write the whole output to a new file in `dir`, made if missing (the host accounts for it). */
function keepFullOutput(dir: string, name: string, text: string): { path: string; characters: number } | undefined {
  const file = path.join(dir, name);
  try {
    ensureFolder(dir);
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    return { path: file, characters: text.length };
  } catch {
    return undefined;
  }
}

/** The reply for an error a tool threw; long messages are cut here. */
export function failureReply(error: unknown, ctx: CallContext, entry: ToolEntry): ToolReply {
  const serialized = serializeError(error);
  if (entry.o > 0 && serialized.message.length > entry.o) serialized.message = truncate(serialized.message, entry.o, 'head');
  return { ok: false, error: serialized, notes: ctx.notes };
}
