import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { memoryOf, scopeKey, showNote } from '../../src/internal.js';
import { noteIdOf } from './note-id.js';

// Version 1.0.0: the id a number only (its schema stays as it was).
/** Arguments of memory_get. */
export interface MemoryGetInputV1 {
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

/** Arguments of memory_get. */
export interface MemoryGetInput {
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

/** Note `id` of the call's scope, shown. */
async function get(args: { id: number | string; user?: string; agent?: string }, ctx: ToolContext): Promise<string> {
  const scope = scopeKey(args);
  const id = noteIdOf(args.id);
  const note = await memoryOf(ctx).get(scope, id);
  if (note === undefined) throw new ToolExecutionError(`there is no note #${id} in ${scope}; memory_list shows the ids.`);
  return showNote(note);
}

/**
 * Read one note of this workspace's memory by id. Read-only.
 */
@tool({ name: 'memory_get', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryGetToolV1 implements Tool<MemoryGetInputV1, string> {
  async run(args: MemoryGetInputV1, ctx: ToolContext): Promise<string> {
    return get(args, ctx);
  }
}

/**
 * Read one note of this workspace's memory by id ("#12" or 12). Read-only.
 */
@tool({ name: 'memory_get', version: '1.1.0', kind: 'file_read', readOnly: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryGetTool implements Tool<MemoryGetInput, string> {
  async run(args: MemoryGetInput, ctx: ToolContext): Promise<string> {
    return get(args, ctx);
  }
}
