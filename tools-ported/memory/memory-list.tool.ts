import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkTags, memoryOf, MEMORY_LIMITS, scopeKey, showNote } from '../../src/internal.js';

/** Arguments of memory_list. */
export interface MemoryListInput {
  /** Only notes with this tag. */
  tag?: string;
  /**
   * Most notes to return, newest first.
   * @minimum 1
   * @maximum 50
   * @default 20
   */
  limit?: number;
  /** List this user's notes. Default: the workspace's. */
  user?: string;
  /** List this agent's notes. Default: the workspace's. */
  agent?: string;
}

/**
 * List the notes in this workspace's memory, newest first. Read-only.
 */
@tool({ name: 'memory_list', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemoryListTool implements Tool<MemoryListInput, string> {
  async run(args: MemoryListInput, ctx: ToolContext): Promise<string> {
    const scope = scopeKey(args);
    const tag = args.tag === undefined ? undefined : checkTags([args.tag])[0];
    const { notes, total } = await memoryOf(ctx).list(scope, Math.min(args.limit ?? 20, MEMORY_LIMITS.results), tag);
    if (total === 0) return `No notes in ${scope}${tag === undefined ? '' : ` tagged ${tag}`}; memory_remember keeps one.`;
    return `${total} note(s) in ${scope}${tag === undefined ? '' : ` tagged ${tag}`}, newest first${notes.length < total ? ` (showing ${notes.length})` : ''}:\n${notes.map(showNote).join('\n')}`;
  }
}
