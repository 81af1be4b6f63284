import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { memoryOf, scopeKey } from '../../src/internal.js';
import { noteIdOf } from './note-id.js';

// Version 1.0.0: the id a number only (its schema stays as it was).
/** Arguments of memory_forget. */
export interface MemoryForgetInputV1 {
  /**
   * The note's id (the number after "#").
   * @minimum 1
   */
  id: number;
  /** The note's user, when it was kept for one. */
  user?: string;
  /** The note's agent, when it was kept for one. */
  agent?: string;
}

/** Arguments of memory_forget. */
export interface MemoryForgetInput {
  /**
   * The note's id, as memory_remember and memory_list print it ("#12") or its number (12).
   * @TJS-type ["integer", "string"]
   * @minimum 1
   * @pattern ^#?[1-9][0-9]*$
   */
  id: number | string;
  /** The note's user, when it was kept for one. */
  user?: string;
  /** The note's agent, when it was kept for one. */
  agent?: string;
}

/** Forget note `id` of the call's scope. */
async function forget(args: { id: number | string; user?: string; agent?: string }, ctx: ToolContext): Promise<string> {
  const scope = scopeKey(args);
  const id = noteIdOf(args.id);
  const gone = await memoryOf(ctx).forget(scope, id);
  if (!gone) throw new ToolExecutionError(`there is no note #${id} in ${scope}; nothing was forgotten.`);
  return `Forgot note #${id} of ${scope}.`;
}

/**
 * Forget (delete) one note of this workspace's memory by id. Asks the user first by default.
 */
@tool({ name: 'memory_forget', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryForgetToolV1 implements Tool<MemoryForgetInputV1, string> {
  async run(args: MemoryForgetInputV1, ctx: ToolContext): Promise<string> {
    return forget(args, ctx);
  }
}

/**
 * Forget (delete) one note of this workspace's memory by id ("#12" or 12). Asks the user first
 * by default.
 */
@tool({ name: 'memory_forget', version: '1.1.0', kind: 'file_write', requiresConfirmation: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryForgetTool implements Tool<MemoryForgetInput, string> {
  async run(args: MemoryForgetInput, ctx: ToolContext): Promise<string> {
    return forget(args, ctx);
  }
}
