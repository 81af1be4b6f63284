import fs from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { PathTraversalError, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../src/tool.js';

/** Most entries list_files returns; the rest is counted in a note. */
export const LIST_FILES_MAX_ENTRIES = 1000;

/** Arguments of list_files. */
export interface ListFilesInput {
  /**
   * Folder to list, relative to the workspace root.
   * @format workspace-path
   * @default "."
   */
  directory?: string;
  /**
   * Glob pattern of names to match (picomatch syntax), such as "*.ts"; it may name
   * subfolders, such as "src/*.ts".
   * @default "*"
   */
  pattern?: string;
  /**
   * Also list the contents of subfolders (skips .git and node_modules).
   * @default false
   */
  recursive?: boolean;
}

/**
 * List files and folders in a workspace folder, with workspace-relative paths, sizes in
 * bytes, and [dir]/[file]/[link] markers. Use it to find files before reading them; use a
 * pattern such as "*.ts" to narrow the list. Symbolic links are shown, not followed.
 */
@tool({ name: 'list_files', version: '1.0.0', readOnly: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
export class ListFilesTool implements Tool<ListFilesInput, string> {
  run(args: ListFilesInput, ctx: ToolContext): Promise<string> {
    return listFiles(ctx.workspace, args.directory ?? '.', args.pattern ?? '*', args.recursive ?? false);
  }
}

/**
 * List entries of `directory` matching `pattern`.
 *
 * Entries are shown only when the folder holding them is inside the workspace after
 * resolving links, so a pattern that walks through a link to a folder outside (or expands to
 * `..` through braces) shows nothing of it; links themselves are shown, never followed.
 * @throws ToolExecutionError for a bad pattern or a directory that is not a folder.
 * @throws PathTraversalError when `directory` is outside the workspace.
 */
export async function listFiles(workspace: Workspace, directory: string, pattern: string, recursive: boolean): Promise<string> {
  const dir = workspace.resolve(directory);
  const badPattern = () => new ToolExecutionError(`pattern ${JSON.stringify(pattern.slice(0, 200))} must be a relative glob that stays inside the folder (no "..", no absolute paths).`);
  if (pattern.trim() === '' || path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..')) throw badPattern();
  let stat;
  try {
    stat = await fs.stat(dir);
  } catch {
    throw new ToolExecutionError(`${directory} does not exist.`);
  }
  if (!stat.isDirectory()) throw new ToolExecutionError(`${directory} is not a folder; use read_file for files.`);
  const patterns = recursive && !pattern.includes('/') ? [`**/${pattern}`] : [pattern];
  const options: fg.Options = {
    cwd: dir,
    onlyFiles: false,
    dot: true,
    // fast-glob lists symbolic links as entries without following them.
    followSymbolicLinks: false,
    markDirectories: true,
    deep: recursive ? Infinity : 1,
    ignore: recursive ? ['**/.git/**', '**/node_modules/**', '.git/**', 'node_modules/**'] : [],
    suppressErrors: true,
  };
  // Braces can spell ".." ("..{,}/*"): check the patterns as fast-glob expands them.
  for (const task of fg.generateTasks(patterns, options)) {
    for (const p of [task.base, ...task.patterns]) {
      if (path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) throw badPattern();
    }
  }
  const found = (await fg(patterns, options)).sort();
  const lines: string[] = [];
  let hidden = 0;
  let more = 0;
  for (const rel of found) {
    if (lines.length >= LIST_FILES_MAX_ENTRIES) {
      more++;
      continue;
    }
    const absolute = path.join(dir, rel.replace(/\/$/, ''));
    let parent: string;
    try {
      parent = workspace.resolve(path.dirname(absolute));
    } catch (error) {
      if (error instanceof PathTraversalError) {
        hidden++;
        continue;
      }
      throw error;
    }
    const real = path.join(parent, path.basename(absolute));
    const shown = workspace.relative(absolute);
    let entry;
    try {
      entry = await fs.lstat(real);
    } catch {
      continue; // vanished while listing
    }
    if (entry.isSymbolicLink()) lines.push(`[link] ${shown} -> ${await fs.readlink(real).catch(() => '?')}`);
    else if (entry.isDirectory()) lines.push(`[dir]  ${shown}/`);
    else lines.push(`[file] ${shown} (${entry.size} bytes)`);
  }
  if (more > 0) lines.push(`... (${more} more entries; narrow the pattern)`);
  if (hidden > 0) lines.push(`(${hidden} entries behind symbolic links that lead outside the workspace are not shown)`);
  if (lines.length === 0) return `No entries match ${JSON.stringify(pattern)} in ${workspace.relative(dir)}.`;
  return lines.join('\n');
}
