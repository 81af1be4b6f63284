import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { resolveFolder, shownName } from '../common/inspect-fs.js';
import { globArray, globEntries } from '../common/inspect-glob.js';

/** Arguments of find_files. */
export interface FindFilesInput {
  /**
   * Glob of the names or paths to find (picomatch syntax), such as "*.test.ts",
   * "src/**" or "{README,CHANGELOG}.md"; a glob without a slash matches names at any depth.
   */
  pattern: string;
  /**
   * Folder to search, relative to the workspace root.
   * @format workspace-path
   * @default "."
   */
  directory?: string;
  /**
   * Glob or globs of files or folders to leave out, such as "dist" or "*.d.ts".
   */
  exclude?: string | string[];
  /**
   * What to find: files, folders, or any entry (symbolic links are shown only with "any").
   * @default "file"
   */
  type?: 'file' | 'directory' | 'any';
  /**
   * Most paths to return (the first ones by path); the rest is counted.
   * @TJS-type integer
   * @minimum 1
   * @maximum 1000
   * @default 200
   */
  max_results?: number;
  /**
   * Also look inside .git and node_modules folders.
   * @default false
   */
  include_ignored?: boolean;
}

/** Matches counted at most; beyond it the count says "at least". */
const COUNT_LIMIT = 100_000;

/**
 * Find files (or folders) by glob below a workspace folder and list their workspace-relative
 * paths, sorted, one per line (folders end with "/", links show "-> target"). Use it to
 * locate files by name ("*.test.ts", "src/**"); use grep_files to search their content and
 * tree for the layout. Skips .git and node_modules unless include_ignored is true; symbolic
 * links are never followed.
 */
@tool({ name: 'find_files', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class FindFilesTool implements Tool<FindFilesInput, string> {
  run(args: FindFilesInput, ctx: ToolContext): Promise<string> {
    return findFiles(ctx.workspace, args.pattern, {
      directory: args.directory ?? '.',
      exclude: globArray(args.exclude),
      type: args.type ?? 'file',
      maxResults: args.max_results ?? 200,
      includeIgnored: args.include_ignored ?? false,
      signal: ctx.signal,
    });
  }
}

/**
 * Paths below `directory` matching `pattern`.
 * @throws ToolExecutionError for a bad glob, or a directory that is missing or not a folder.
 * @throws PathTraversalError when the directory, or a glob's fixed start, is outside.
 */
export async function findFiles(
  workspace: Workspace,
  pattern: string,
  options: { directory: string; exclude: string[]; type: 'file' | 'directory' | 'any'; maxResults: number; includeIgnored: boolean; signal?: AbortSignal },
): Promise<string> {
  const { real } = await resolveFolder(workspace, options.directory, 'find_files searches folders; use file_info for a file.');
  const found = await globEntries(workspace, real, {
    include: [pattern],
    includeName: 'pattern',
    exclude: options.exclude,
    includeIgnored: options.includeIgnored,
    kinds: options.type,
    maxEntries: options.maxResults,
    countLimit: COUNT_LIMIT,
    signal: options.signal,
  });
  const scope = `${shownName(workspace.relative(real))}/`;
  const what = options.type === 'directory' ? 'folders' : options.type === 'any' ? 'entries' : 'files';
  if (found.entries.length === 0) return `No ${what} match ${JSON.stringify(pattern.slice(0, 200))} in ${scope}.`;
  const lines = found.entries.map((e) =>
    e.kind === 'directory' ? `${shownName(e.relative)}/`
    : e.kind === 'link' ? `${shownName(e.relative)} -> ${shownName(e.target ?? '?')}`
    : shownName(e.relative),
  );
  const more = found.matched - found.examined;
  if (more > 0) {
    lines.push(`... ${found.countStopped ? 'at least ' : ''}${more} more (${found.countStopped ? 'over ' : ''}${found.matched} ${what} match; narrow the pattern or directory, or raise max_results)`);
  }
  return lines.join('\n');
}
