import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkTags, memoryOf, MEMORY_LIMITS, scopeKey, showNote } from '../../src/internal.js';

/** Arguments of memory_search. */
export interface MemorySearchInput {
  /**
   * Keywords to look for; notes with any of them are returned, best match first.
   * @minLength 1
   * @maxLength 500
   */
  query: string;
  /** Only notes with this tag. */
  tag?: string;
  /**
   * Most notes to return.
   * @minimum 1
   * @maximum 50
   * @default 10
   */
  limit?: number;
  /** Search this user's notes. Default: the workspace's. */
  user?: string;
  /** Search this agent's notes. Default: the workspace's. */
  agent?: string;
}

/**
 * Search this workspace's memory by keywords (full-text, best match first). Read-only.
 */
@tool({ name: 'memory_search', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'memory', tags: ['memory', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class MemorySearchTool implements Tool<MemorySearchInput, string> {
  async run(args: MemorySearchInput, ctx: ToolContext): Promise<string> {
    const scope = scopeKey(args);
    const tag = args.tag === undefined ? undefined : checkTags([args.tag])[0];
    const limit = Math.min(args.limit ?? 10, MEMORY_LIMITS.results);
    const notes = await memoryOf(ctx).search(scope, args.query, limit, tag);
    if (notes.length === 0) return `No notes in ${scope} match ${JSON.stringify(args.query.slice(0, 200))}.`;
    return `${notes.length} note(s) in ${scope}, best match first:\n${notes.map(showNote).join('\n')}`;
  }
}
