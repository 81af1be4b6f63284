import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { memoryOf, scopeKey, showNote } from '../../src/internal.js';

/** Arguments of memory_get. */
export interface MemoryGetInput {
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

/**
 * Read one note of this workspace's memory by id. Read-only.
 */
@tool({ name: 'memory_get', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryGetTool implements Tool<MemoryGetInput, string> {
  async run(args: MemoryGetInput, ctx: ToolContext): Promise<string> {
    const scope = scopeKey(args);
    const note = await memoryOf(ctx).get(scope, args.id);
    if (note === undefined) throw new ToolExecutionError(`there is no note #${args.id} in ${scope}; memory_list shows the ids.`);
    return showNote(note);
  }
}
