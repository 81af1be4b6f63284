import { constants as fsConstants, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../src/tool.js';
import { braceAlternatives, fg } from '../tools-ported/common/glob.js';

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

/** Longest pattern accepted, in characters. */
const MAX_PATTERN_LENGTH = 1000;
/** Most alternatives a pattern may expand to (braces multiply quickly). */
const MAX_PATTERN_ALTERNATIVES = 256;


/** A name as shown: quoted JSON when it holds control or line-separator characters. */
function shownName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name) ? JSON.stringify(name) : name;
}

/**
 * List entries of `directory` matching `pattern`.
 *
 * Every entry is shown only after the folder holding it has been opened and found inside the
 * workspace, and its details are read through that open folder, so neither a pattern naming
 * a link to an outside folder nor a folder swapped for a link during the listing shows
 * anything from outside. Links themselves are shown, never followed.
 * @throws ToolExecutionError for a bad pattern or a directory that is not a folder.
 * @throws PathTraversalError when `directory`, or the fixed start of the pattern, is outside.
 */
export async function listFiles(workspace: Workspace, directory: string, pattern: string, recursive: boolean): Promise<string> {
  const dir = workspace.resolve(directory);
  const badPattern = (why = 'must be a relative glob that stays inside the folder (no "..", no absolute paths)') =>
    new ToolExecutionError(`pattern ${JSON.stringify(pattern.slice(0, 200))} ${why}.`);
  if (pattern.length > MAX_PATTERN_LENGTH) throw badPattern(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  if (pattern.trim() === '' || path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..')) throw badPattern();
  if (braceAlternatives(pattern, MAX_PATTERN_ALTERNATIVES) > MAX_PATTERN_ALTERNATIVES) throw badPattern(`expands to more than ${MAX_PATTERN_ALTERNATIVES} alternatives`);
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
  // Braces can spell ".." ("..{,}/*") or multiply ("{a,b}{a,b}..."): check the patterns as
  // fast-glob expands them, and the folder each one starts from.
  const tasks = fg.generateTasks(patterns, options);
  if (tasks.reduce((n, t) => n + t.patterns.length, 0) > MAX_PATTERN_ALTERNATIVES) throw badPattern(`expands to more than ${MAX_PATTERN_ALTERNATIVES} alternatives`);
  for (const task of tasks) {
    for (const p of [task.base, ...task.patterns]) {
      if (path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) throw badPattern();
    }
    workspace.resolve(path.join(dir, task.base)); // a fixed start through a link outside is an escape
  }
  const found = (await fg(patterns, options)).sort();
  const folders = new FolderReader(workspace);
  const lines: string[] = [];
  let more = 0;
  try {
    for (const rel of found) {
      if (lines.length >= LIST_FILES_MAX_ENTRIES) {
        more++;
        continue;
      }
      const absolute = path.join(dir, rel.replace(/\/$/, ''));
      const entry = await folders.lstat(path.dirname(absolute), path.basename(absolute));
      if (entry === undefined) continue; // outside the workspace, or vanished while listing
      const shown = shownName(workspace.relative(absolute));
      if (entry.stat.isSymbolicLink()) lines.push(`[link] ${shown} -> ${shownName(entry.target ?? '?')}`);
      else if (entry.stat.isDirectory()) lines.push(`[dir]  ${shown}/`);
      else lines.push(`[file] ${shown} (${entry.stat.size} bytes)`);
    }
  } finally {
    await folders.close();
  }
  if (more > 0) lines.push(`... (${more} more entries; narrow the pattern)`);
  if (lines.length === 0) return `No entries match ${JSON.stringify(pattern.slice(0, 200))} in ${workspace.relative(dir)}.`;
  return lines.join('\n');
}

/**
 * Reads entries through open folders that were checked to be inside the workspace (on Linux,
 * by the real path of the open descriptor), one open folder per distinct parent.
 */
class FolderReader {
  private readonly open = new Map<string, fs.FileHandle | null>();
  private readonly pinned = process.platform === 'linux' && existsSync('/proc/self/fd');

  constructor(private readonly workspace: Workspace) {}

  private async folder(parent: string): Promise<fs.FileHandle | null> {
    if (this.open.has(parent)) return this.open.get(parent)!;
    let handle: fs.FileHandle | null = null;
    try {
      const real = this.workspace.resolve(parent);
      handle = await fs.open(real, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
      if (this.pinned && !isInside(this.workspace.realRoot, await fs.realpath(`/proc/self/fd/${handle.fd}`))) {
        await handle.close();
        handle = null;
      }
    } catch {
      if (handle) await handle.close().catch(() => undefined);
      handle = null; // outside (PathTraversalError), or gone
    }
    this.open.set(parent, handle);
    return handle;
  }

  /** lstat `name` in `parent` (and its link target), or `undefined` when not shown. */
  async lstat(parent: string, name: string): Promise<{ stat: import('node:fs').Stats; target?: string } | undefined> {
    const handle = await this.folder(parent);
    if (handle === null) return undefined;
    const at = this.pinned ? `/proc/self/fd/${handle.fd}/${name}` : path.join(this.workspace.resolve(parent), name);
    try {
      const stat = await fs.lstat(at);
      return { stat, target: stat.isSymbolicLink() ? await fs.readlink(at).catch(() => '?') : undefined };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((h) => h?.close().catch(() => undefined)));
    this.open.clear();
  }
}
