import fs from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../src/tool.js';

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
  async run(args: ListFilesInput, ctx: ToolContext): Promise<string> {
    const directory = args.directory ?? '.';
    const dir = ctx.workspace.resolve(directory);
    const pattern = args.pattern ?? '*';
    if (pattern.trim() === '' || path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..')) {
      throw new ToolExecutionError(`pattern ${JSON.stringify(pattern)} must be a relative glob without ".." segments.`);
    }
    let stat;
    try {
      stat = await fs.stat(dir);
    } catch {
      throw new ToolExecutionError(`${directory} does not exist.`);
    }
    if (!stat.isDirectory()) throw new ToolExecutionError(`${directory} is not a folder; use read_file for files.`);
    const recursive = args.recursive ?? false;
    const patterns = recursive && !pattern.includes('/') ? [`**/${pattern}`] : [pattern];
    // fast-glob lists symbolic links as entries without following them (tinyglobby drops them).
    const found = await fg(patterns, {
      cwd: dir,
      onlyFiles: false,
      dot: true,
      followSymbolicLinks: false,
      markDirectories: true,
      deep: recursive ? Infinity : 1,
      ignore: recursive ? ['**/.git/**', '**/node_modules/**', '.git/**', 'node_modules/**'] : [],
      suppressErrors: true,
    });
    found.sort();
    const lines: string[] = [];
    for (const rel of found.slice(0, LIST_FILES_MAX_ENTRIES)) {
      const absolute = path.join(dir, rel.replace(/\/$/, ''));
      const shown = ctx.workspace.relative(absolute);
      let entry;
      try {
        entry = await fs.lstat(absolute);
      } catch {
        continue; // vanished while listing
      }
      if (entry.isSymbolicLink()) lines.push(`[link] ${shown} -> ${await fs.readlink(absolute).catch(() => '?')}`);
      else if (entry.isDirectory()) lines.push(`[dir]  ${shown}/`);
      else lines.push(`[file] ${shown} (${entry.size} bytes)`);
    }
    if (found.length > LIST_FILES_MAX_ENTRIES) lines.push(`... (${found.length - LIST_FILES_MAX_ENTRIES} more entries; narrow the pattern)`);
    if (lines.length === 0) return `No entries match ${JSON.stringify(pattern)} in ${ctx.workspace.relative(dir)}.`;
    return lines.join('\n');
  }
}
