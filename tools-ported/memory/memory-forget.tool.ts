import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { memoryOf, scopeKey } from '../../src/internal.js';

/** Arguments of memory_forget. */
export interface MemoryForgetInput {
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
 * Forget (delete) one note of this workspace's memory by id. Asks the user first by default.
 */
@tool({ name: 'memory_forget', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryForgetTool implements Tool<MemoryForgetInput, string> {
  async run(args: MemoryForgetInput, ctx: ToolContext): Promise<string> {
    const scope = scopeKey(args);
    const gone = await memoryOf(ctx).forget(scope, args.id);
    if (!gone) throw new ToolExecutionError(`there is no note #${args.id} in ${scope}; nothing was forgotten.`);
    return `Forgot note #${args.id} of ${scope}.`;
  }
}
