import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkTags, memoryOf, MEMORY_LIMITS, scopeKey, showNote } from '../../src/internal.js';

/** Arguments of memory_remember. */
export interface MemoryRememberInput {
  /**
   * What to remember, as a self-contained note (a fact, a decision, a preference).
   * @minLength 1
   * @maxLength 4000
   */
  text: string;
  /**
   * Tags to find it by later, such as ["deploy", "db"] (lowercase words).
   * @maxItems 16
   */
  tags?: string[];
  /** Keep the note for this user only. Default: the whole workspace. */
  user?: string;
  /** Keep the note for this agent only. Default: the whole workspace. */
  agent?: string;
}

/**
 * Remember a note across runs, in this workspace's memory (optionally for one user or agent).
 * Returns the note's id. Keep notes short and self-contained; search them with memory_search.
 */
@tool({ name: 'memory_remember', version: '1.0.0', kind: 'file_write', domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryRememberTool implements Tool<MemoryRememberInput, string> {
  async run(args: MemoryRememberInput, ctx: ToolContext): Promise<string> {
    const scope = scopeKey(args);
    const tags = checkTags(args.tags);
    const note = await memoryOf(ctx).remember(scope, args.text, tags);
    return `Remembered note #${note.id} in ${scope} (at most ${MEMORY_LIMITS.notes} notes per scope):\n${showNote(note)}`;
  }
}
