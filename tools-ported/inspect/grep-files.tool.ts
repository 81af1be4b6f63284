import fs from 'node:fs/promises';
import { PathTraversalError, readFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { looksBinary, shownName } from '../common/inspect-fs.js';
import { globArray, globEntries } from '../common/inspect-glob.js';

/** Arguments of grep_files. */
export interface GrepFilesInput {
  /**
   * Regular expression to look for, in JavaScript syntax (such as "TODO|FIXME" or
   * "function\\s+\\w+"); it is matched against each line separately.
   */
  pattern: string;
  /**
   * Folder to search, relative to the workspace root (a single file also works).
   * @format workspace-path
   * @default "."
   */
  directory?: string;
  /**
   * Glob or globs of files to search, such as "*.ts" or ["src/**", "*.md"]; a glob without a
   * slash matches file names at any depth. Default: every file.
   */
  include?: string | string[];
  /**
   * Glob or globs of files or folders to skip, such as "dist" or "*.min.js".
   */
  exclude?: string | string[];
  /**
   * Match letters regardless of case.
   * @default false
   */
  case_insensitive?: boolean;
  /**
   * Lines of context to show before and after each match.
   * @TJS-type integer
   * @minimum 0
   * @maximum 10
   * @default 0
   */
  context_lines?: number;
  /**
   * Most matching lines to show; the search stops after them.
   * @TJS-type integer
   * @minimum 1
   * @maximum 1000
   * @default 100
   */
  max_matches?: number;
  /**
   * Also search inside .git and node_modules folders.
   * @default false
   */
  include_ignored?: boolean;
}

/** Longest regular expression accepted, in characters. */
export const MAX_REGEX_LENGTH = 1000;
/** Most files one call searches (the first ones by path). */
export const MAX_FILES_SEARCHED = 20_000;
/** Bytes read of one file at most; the rest of a larger file is not searched (and said so). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Characters of one line shown at most (a window around the match for longer lines). */
export const MAX_SHOWN_LINE = 400;

/**
 * Search files for a regular expression and show the matching lines as "path:line:text"
 * (context lines as "path-line-text", groups separated by "--"). Use it to find where
 * something is defined or used; narrow it with include (such as "*.ts") and exclude globs.
 * Binary files, .git and node_modules are skipped; symbolic links are not followed. Output is
 * bounded by max_matches; a pattern that takes too long (catastrophic backtracking) is
 * stopped by the tool's 30 s timeout: simplify it then.
 */
// The pool runner (the default) runs each call in a worker thread and terminates that worker
// at the timeout: a regular expression cannot be interrupted from JavaScript, so this is what
// stops a pathological pattern without blocking the host. 30 s covers a large workspace.
@tool({ name: 'grep_files', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000, runner: 'pool' })
export class GrepFilesTool implements Tool<GrepFilesInput, string> {
  run(args: GrepFilesInput, ctx: ToolContext): Promise<string> {
    return grepFiles(ctx.workspace, {
      pattern: args.pattern,
      directory: args.directory ?? '.',
      include: globArray(args.include),
      exclude: globArray(args.exclude),
      caseInsensitive: args.case_insensitive ?? false,
      contextLines: args.context_lines ?? 0,
      maxMatches: args.max_matches ?? 100,
      includeIgnored: args.include_ignored ?? false,
      maxOutputLength: ctx.maxOutputLength,
      signal: ctx.signal,
      note: (text) => ctx.note(text),
    });
  }
}

/** Options of {@link grepFiles}. */
export interface GrepOptions {
  pattern: string;
  directory: string;
  include: string[];
  exclude: string[];
  caseInsensitive: boolean;
  contextLines: number;
  maxMatches: number;
  includeIgnored: boolean;
  /** Characters of output the model sees (`<= 0`: no limit); the search stops past it. */
  maxOutputLength: number;
  signal?: AbortSignal;
  note: (text: string) => void;
}

/**
 * Compile the pattern: Unicode mode when the pattern is valid in it (so `\p{L}` works),
 * else without.
 * @throws ToolExecutionError (code `INVALID_ARGUMENTS`) for an empty, too long or invalid pattern.
 */
export function compilePattern(pattern: string, caseInsensitive: boolean): RegExp {
  if (pattern === '') throw new ToolExecutionError('pattern is empty; give a regular expression such as "TODO".', 'INVALID_ARGUMENTS');
  if (pattern.length > MAX_REGEX_LENGTH) throw new ToolExecutionError(`pattern is longer than ${MAX_REGEX_LENGTH} characters.`, 'INVALID_ARGUMENTS');
  const flags = caseInsensitive ? 'i' : '';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      throw new ToolExecutionError(
        `pattern is not a valid regular expression: ${(error as Error).message.slice(0, 300)}. Escape special characters (such as "\\\\(" for a parenthesis).`,
        'INVALID_ARGUMENTS',
      );
    }
  }
}

/** A line as shown: cut to a window around `at` when long. */
function shownLine(line: string, at: number): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.length <= MAX_SHOWN_LINE) return text;
  const start = Math.max(0, Math.min(at - 100, text.length - MAX_SHOWN_LINE));
  const end = start + MAX_SHOWN_LINE;
  return `${start > 0 ? `[${start} characters]...` : ''}${text.slice(start, end)}${end < text.length ? `...[${text.length - end} characters]` : ''}`;
}

/**
 * Search the files below `directory` (or the one file it names) for `pattern`.
 * @throws ToolExecutionError for a bad pattern or glob, or a missing directory.
 * @throws PathTraversalError when `directory` (or a glob's fixed start) is outside.
 */
export async function grepFiles(workspace: Workspace, options: GrepOptions): Promise<string> {
  const regex = compilePattern(options.pattern, options.caseInsensitive);
  const real = workspace.resolve(options.directory);
  let stat;
  try {
    stat = await fs.stat(real);
  } catch {
    throw new ToolExecutionError(`${options.directory} does not exist; use tree or find_files to see what is there.`);
  }
  let files: string[];
  let filesStopped = false;
  if (stat.isFile()) {
    files = [workspace.relative(real)];
  } else if (stat.isDirectory()) {
    const found = await globEntries(workspace, real, {
      include: options.include.length > 0 ? options.include : ['**/*'],
      exclude: options.exclude,
      includeIgnored: options.includeIgnored,
      kinds: 'file',
      maxEntries: MAX_FILES_SEARCHED,
      countLimit: MAX_FILES_SEARCHED * 10,
      signal: options.signal,
    });
    files = found.entries.map((e) => e.relative);
    filesStopped = found.matched > MAX_FILES_SEARCHED;
  } else {
    throw new ToolExecutionError(`${options.directory} is not a file or folder (a FIFO, socket or device); it cannot be searched.`);
  }

  const budget = options.maxOutputLength > 0 ? options.maxOutputLength : Number.POSITIVE_INFINITY;
  const out: string[] = [];
  let chars = 0;
  let matches = 0;
  let filesWithMatches = 0;
  let searched = 0;
  let binary = 0;
  let unreadable = 0;
  const cutFiles: string[] = [];
  let stopped: 'matches' | 'output' | undefined;

  for (const file of files) {
    if (stopped) break;
    options.signal?.throwIfAborted();
    let bytes: Uint8Array;
    let size: number;
    try {
      ({ bytes, size } = await readFileInside(workspace, file, MAX_FILE_BYTES));
    } catch (error) {
      // A file that vanished, or that became a link leading outside during the search, is
      // skipped: the search never shows what is outside.
      if (error instanceof PathTraversalError || error instanceof ToolExecutionError) {
        unreadable++;
        continue;
      }
      throw error;
    }
    if (looksBinary(bytes)) {
      binary++;
      continue;
    }
    searched++;
    if (bytes.length < size) cutFiles.push(file);
    let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    if (bytes.length < size) text = text.replace(/\uFFFD+$/, '');
    const lines = text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const name = shownName(file);
    let lastShown = -1; // index of the last line printed for this file
    let fileHadMatch = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const found = regex.exec(line);
      if (found === null) continue;
      if (matches >= options.maxMatches) {
        stopped = 'matches';
        break;
      }
      const block: string[] = [];
      const from = Math.max(i - options.contextLines, lastShown + 1);
      if (options.contextLines > 0 && lastShown >= 0 && from > lastShown + 1) block.push('--');
      else if (options.contextLines > 0 && lastShown < 0 && out.length > 0) block.push('--');
      for (let j = from; j < i; j++) block.push(`${name}-${j + 1}-${shownLine(lines[j]!, 0)}`);
      block.push(`${name}:${i + 1}:${shownLine(line, found.index)}`);
      // Context after the match, up to the next match (which prints itself).
      let j = i + 1;
      for (; j < lines.length && j <= i + options.contextLines; j++) {
        if (regex.test(lines[j]!)) break;
        block.push(`${name}-${j + 1}-${shownLine(lines[j]!, 0)}`);
      }
      const blockChars = block.reduce((n, l) => n + l.length + 1, 0);
      if (out.length > 0 && chars + blockChars > budget) {
        stopped = 'output';
        break;
      }
      out.push(...block);
      chars += blockChars;
      matches++;
      fileHadMatch = true;
      lastShown = j - 1;
      i = j - 1;
    }
    if (fileHadMatch) filesWithMatches++;
  }

  const scope = `${shownName(workspace.relative(real))}${stat.isDirectory() ? '/' : ''}`;
  const skipped = [
    ...(binary ? [`${binary} binary`] : []),
    ...(unreadable ? [`${unreadable} unreadable`] : []),
  ];
  const tally = `${searched} ${searched === 1 ? 'file' : 'files'} searched${skipped.length ? `, ${skipped.join(', ')} skipped` : ''}`;
  if (stopped === 'matches') options.note(`[grep_files: stopped at max_matches ${options.maxMatches}; narrow the pattern, include or directory, or raise max_matches]`);
  if (stopped === 'output') options.note(`[grep_files: stopped after ${matches} matches to stay within the output limit; narrow the pattern, include or directory]`);
  if (filesStopped) options.note(`[grep_files: searched only the first ${MAX_FILES_SEARCHED} files by path; narrow directory or include]`);
  if (cutFiles.length > 0) {
    options.note(`[grep_files: only the first ${MAX_FILE_BYTES / 1024 / 1024} MiB of ${cutFiles.length} large ${cutFiles.length === 1 ? 'file was' : 'files were'} searched: ${cutFiles.slice(0, 5).map(shownName).join(', ')}${cutFiles.length > 5 ? ', ...' : ''}]`);
  }
  if (matches === 0) return `No matches for /${options.pattern.slice(0, 200)}/ in ${scope} (${tally}).`;
  out.push('', `${matches} ${matches === 1 ? 'match' : 'matches'} in ${filesWithMatches} ${filesWithMatches === 1 ? 'file' : 'files'} (${tally}${stopped ? ', stopped early' : ''}).`);
  return out.join('\n');
}
