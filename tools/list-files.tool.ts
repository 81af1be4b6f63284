import fs from 'node:fs/promises';
import path from 'node:path';
import { pinFolder, tool, ToolExecutionError, type PinnedFolder, type Tool, type ToolContext, type Workspace } from '../src/tool.js';
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
@tool({ name: 'list_files', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
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
 * Every entry is shown only after the folder holding it has been pinned inside the workspace
 * (`pinFolder`: opened from the root one component at a time, never through a link), and its
 * details are read through that pinned folder, so neither a pattern naming a link to an
 * outside folder nor a folder swapped for a link during the listing shows anything from
 * outside. Links themselves are shown, never followed. A subfolder of a recursive listing
 * that was swapped for a link is left out, as a walk leaves out what it cannot open.
 * @throws ToolExecutionError for a bad pattern or a directory that is not a folder.
 * @throws PathTraversalError when `directory`, or the fixed start of the pattern, is outside,
 *   or `directory` (or a folder on its path) is swapped for a link during the listing.
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
    cwd: dir, // the pinned folder once it is open (below)
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
  const folders = new FolderReader(workspace, dir, directory);
  const lines: string[] = [];
  let more = 0;
  try {
    // The names are read through the pinned folder; each entry is looked up again through
    // its own pinned parent before it is shown.
    const found = (await fg(patterns, { ...options, cwd: (await folders.pinTop()).path })).sort();
    const withheld: string[] = [];
    for (const rel of found) {
      // The policy's path rules withhold an entry (and what a withheld folder holds).
      if (withheld.some((w) => rel.startsWith(w)) || ((await workspace.withholds(path.join(dir, rel))) && withheld.push(rel.replace(/\/?$/, '/')))) continue;
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
 * Reads entries through folders pinned inside the workspace ({@link pinFolder}), one per
 * distinct parent. The listed folder itself must pin (a link swapped in on its path is a
 * PATH_TRAVERSAL); a subfolder that cannot be pinned is left out.
 */
class FolderReader {
  private readonly open = new Map<string, PinnedFolder | null>();

  constructor(
    private readonly workspace: Workspace,
    private readonly top: string,
    private readonly input: string,
  ) {}

  /** Pin the listed folder first, so a swap of it or of a folder on its path is refused. */
  async pinTop(): Promise<PinnedFolder> {
    const { folder } = await pinFolder(this.workspace, this.top, this.input, {
      doing: 'listed',
      failure: (e) => new ToolExecutionError(e.code === 'ENOENT' ? `${this.input} does not exist.` : `${this.input} is not a folder; use read_file for files.`),
    });
    this.open.set(this.top, folder);
    return folder;
  }

  private async folder(parent: string): Promise<PinnedFolder | null> {
    if (this.open.has(parent)) return this.open.get(parent)!;
    let folder: PinnedFolder | null = null;
    try {
      folder = (await pinFolder(this.workspace, this.workspace.resolve(parent), parent, { doing: 'listed' })).folder;
    } catch {
      folder = null; // outside (PathTraversalError), a link, or gone
    }
    this.open.set(parent, folder);
    return folder;
  }

  /** lstat `name` in `parent` (and its link target), or `undefined` when not shown. */
  async lstat(parent: string, name: string): Promise<{ stat: import('node:fs').Stats; target?: string } | undefined> {
    const folder = await this.folder(parent);
    if (folder === null) return undefined;
    try {
      const stat = await fs.lstat(folder.at(name));
      return { stat, target: stat.isSymbolicLink() ? await folder.readlink(name).catch(() => '?') : undefined };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((f) => f?.close()));
    this.open.clear();
  }
}
