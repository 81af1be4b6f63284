/**
 * Glob matching of the inspect/ tools (grep_files, find_files) through fast-glob, with the
 * checks list_files makes: patterns stay inside the folder searched, brace expansion is
 * bounded before fast-glob expands anything, links are listed and never followed, and every
 * entry shown is checked through its open parent folder ({@link CheckedFolders}).
 * Plain functions; importing this module does nothing by itself.
 *
 * @module
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ToolExecutionError, type Workspace } from '../../src/tool.js';
import { braceAlternatives, fg } from './glob.js';
import { CheckedFolders, IGNORED_FOLDERS, type EntryKind } from './inspect-fs.js';

/** Longest glob accepted, in characters. */
const MAX_GLOB_LENGTH = 1000;
/** Most alternatives the globs of one call may expand to (braces multiply quickly). */
const MAX_GLOB_ALTERNATIVES = 256;
/** Most globs one `include` or `exclude` list may hold. */
const MAX_GLOBS = 50;

/** One glob or a list of them, as the model may give either. */
export type GlobList = string | string[];

/** A glob list as an array (an absent one as empty). */
export function globArray(value: GlobList | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}


/**
 * Check the globs of one argument: not empty, not too long, relative, no `..` segment, and a
 * bounded brace expansion.
 * @param argument - the argument's name, for the message.
 * @throws ToolExecutionError naming the argument and the glob.
 */
function checkGlobs(globs: string[], argument: string): void {
  if (globs.length > MAX_GLOBS) throw new ToolExecutionError(`${argument} holds ${globs.length} globs; give at most ${MAX_GLOBS}.`);
  let alternatives = 0;
  for (const glob of globs) {
    const bad = (why: string) => new ToolExecutionError(`${argument} glob ${JSON.stringify(glob.slice(0, 200))} ${why}.`);
    if (typeof glob !== 'string' || glob.trim() === '') throw bad('is empty; give a glob such as "*.ts" or "src/**/*.ts"');
    if (glob.length > MAX_GLOB_LENGTH) throw bad(`is longer than ${MAX_GLOB_LENGTH} characters`);
    if (path.isAbsolute(glob) || glob.split(/[\\/]/).includes('..')) throw bad('must be a relative glob that stays inside the folder (no "..", no absolute paths)');
    alternatives += braceAlternatives(glob, MAX_GLOB_ALTERNATIVES);
    if (alternatives > MAX_GLOB_ALTERNATIVES) throw bad(`expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
  }
}

/** A glob without a slash matches a name at any depth ("*.ts"); one with a slash is relative to the folder. */
function anyDepth(glob: string): string {
  const trimmed = glob.replace(/^\.\//, '');
  return trimmed.includes('/') ? trimmed : `**/${trimmed}`;
}

/** One entry found by {@link globEntries}. */
interface FoundEntry {
  /** Absolute path (below the real folder searched). */
  absolute: string;
  /** Path relative to the workspace root, `/`-separated. */
  relative: string;
  kind: EntryKind;
  /** Size in bytes (files). */
  size: number;
  /** A link's text (links are shown, never followed). */
  target?: string;
}

/** Options of {@link globEntries}. */
export interface GlobOptions {
  /** Globs of entries to find (relative to the folder; without a slash, at any depth). */
  include: string[];
  /** Name of the argument holding `include`, for messages. Default "include". */
  includeName?: string;
  /** Globs of entries to leave out (a folder left out takes its contents with it). */
  exclude: string[];
  /** List inside .git and node_modules too. */
  includeIgnored: boolean;
  /** Which kinds of entry to find. */
  kinds: 'file' | 'directory' | 'any';
  /** Most entries to return; the rest is counted (up to `countLimit`). */
  maxEntries: number;
  /** Stop counting (and listing) after this many matches; the count is then "at least". */
  countLimit: number;
  signal?: AbortSignal;
}

/** What {@link globEntries} returns. */
export interface GlobResult {
  /** The first `maxEntries` entries by path, each checked inside the workspace. */
  entries: FoundEntry[];
  /** Matches found in all (up to `countLimit`). */
  matched: number;
  /** Matches examined for `entries` (those dropped as outside or gone included). */
  examined: number;
  /** True when counting stopped at `countLimit` (more may match). */
  countStopped: boolean;
}

/**
 * Find entries below the real folder `dir` by glob. fast-glob walks the folder without
 * following links; each entry returned is then looked up again through its open parent
 * folder, checked inside the workspace, so an entry that leads outside (a folder swapped for
 * a link during the walk) is dropped, never shown.
 * @throws ToolExecutionError for a bad glob.
 * @throws PathTraversalError when a glob's fixed start leads outside through a link.
 */
export async function globEntries(workspace: Workspace, dir: string, options: GlobOptions): Promise<GlobResult> {
  const includeName = options.includeName ?? 'include';
  checkGlobs(options.include, includeName);
  checkGlobs(options.exclude, 'exclude');
  const patterns = options.include.map(anyDepth);
  const ignore = options.exclude.flatMap((g) => [anyDepth(g), `${anyDepth(g).replace(/\/+$/, '')}/**`]);
  if (!options.includeIgnored) ignore.push(...IGNORED_FOLDERS.flatMap((name) => [`**/${name}`, `**/${name}/**`]));
  const fgOptions: fg.Options = {
    cwd: dir,
    dot: true,
    followSymbolicLinks: false,
    onlyFiles: options.kinds === 'file',
    onlyDirectories: options.kinds === 'directory',
    ignore,
    suppressErrors: true,
    unique: true,
  };
  // Braces can spell ".." ("..{,}/*") or multiply: check the patterns as fast-glob expands
  // them, and the folder each one starts from.
  const tasks = fg.generateTasks(patterns, fgOptions);
  if (tasks.reduce((n, t) => n + t.positive.length, 0) > MAX_GLOB_ALTERNATIVES) {
    throw new ToolExecutionError(`${includeName} expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives; use fewer braces.`);
  }
  for (const task of tasks) {
    for (const p of [task.base, ...task.positive]) {
      if (path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) {
        throw new ToolExecutionError(`${includeName} glob ${JSON.stringify(p.slice(0, 200))} must stay inside the folder (no "..", no absolute paths).`);
      }
    }
    workspace.resolve(path.join(dir, task.base)); // a fixed start through a link outside is an escape
  }

  // Keep the `maxEntries` smallest paths while counting the rest, so memory stays bounded
  // however many entries match.
  let kept: string[] = [];
  let matched = 0;
  let countStopped = false;
  // fast-glob types its stream as NodeJS.ReadableStream; it is a stream.Readable.
  const stream = fg.stream(patterns, fgOptions) as unknown as Readable;
  try {
    for await (const item of stream) {
      options.signal?.throwIfAborted();
      matched++;
      kept.push(String(item));
      if (kept.length >= options.maxEntries * 2 + 64) kept = kept.sort().slice(0, options.maxEntries);
      if (matched >= options.countLimit) {
        countStopped = true;
        break;
      }
    }
  } finally {
    stream.destroy();
  }
  kept = kept.sort().slice(0, options.maxEntries);

  const folders = new CheckedFolders(workspace, options.signal);
  const entries: FoundEntry[] = [];
  try {
    for (const rel of kept) {
      const absolute = path.join(dir, rel.replace(/\/$/, ''));
      if (await workspace.withholds(absolute, options.signal)) continue; // the policy's path rules withhold it
      const found = await folders.lstat(path.dirname(absolute), path.basename(absolute));
      if (found === undefined) continue; // outside the workspace, or gone meanwhile
      if (options.kinds === 'file' && found.kind !== 'file') continue;
      if (options.kinds === 'directory' && found.kind !== 'directory') continue;
      entries.push({ absolute, relative: workspace.relative(absolute), kind: found.kind, size: found.stat.size, target: found.target });
    }
  } finally {
    await folders.close();
  }
  return { entries, matched, examined: kept.length, countStopped };
}
