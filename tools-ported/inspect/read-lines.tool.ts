import { openFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { looksBinary, readLines, SNIFF_BYTES } from '../common/inspect-fs.js';

/** Arguments of read_lines. */
export interface ReadLinesInput {
  /**
   * Path of the text file, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * First line to return, 1-based.
   * @TJS-type integer
   * @minimum 1
   * @default 1
   */
  start_line?: number;
  /**
   * Last line to return, 1-based and inclusive (not before start_line). Omit to read to the
   * end of the file; a value past the end stops at the last line.
   * @TJS-type integer
   * @minimum 1
   */
  end_line?: number;
}

/** Longest line shown whole, in characters, when the output has no limit. */
const MAX_LINE_CHARS = 100_000;

/**
 * Read a range of lines of a text file, each line prefixed with its 1-based line number
 * ("  12 | text"). Use it to look at part of a long file, or to find the line numbers that
 * edit tools take; use read_file for a whole short file and grep_files to find where
 * something is. Lines are numbered as in an editor (a final newline does not start a line).
 * Binary files are refused.
 */
@tool({ name: 'read_lines', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class ReadLinesTool implements Tool<ReadLinesInput, string> {
  run(args: ReadLinesInput, ctx: ToolContext): Promise<string> {
    return readLineRange(ctx.workspace, args.filepath, args.start_line ?? 1, args.end_line, {
      maxOutputLength: ctx.maxOutputLength,
      note: (text) => ctx.note(text),
      signal: ctx.signal,
    });
  }
}

/**
 * Lines `start`..`end` (1-based, inclusive; `end` undefined: to the end) of a text file, with
 * line numbers, reading the file in chunks and stopping once the output would pass
 * `maxOutputLength` characters (a note then says where to continue).
 * @throws ToolExecutionError (code `INVALID_ARGUMENTS`) when `end` is before `start`, and
 *   (`TOOL_ERROR`) for a missing file, a folder, a binary file or a start past the end.
 * @throws PathTraversalError for a path outside the workspace.
 */
export async function readLineRange(
  workspace: Workspace,
  filepath: string,
  start: number,
  end: number | undefined,
  options: { maxOutputLength: number; note: (text: string) => void; signal?: AbortSignal },
): Promise<string> {
  if (!Number.isInteger(start) || start < 1) throw new ToolExecutionError(`start_line must be a whole number from 1; got ${start}.`, 'INVALID_ARGUMENTS');
  if (end !== undefined && (!Number.isInteger(end) || end < 1)) throw new ToolExecutionError(`end_line must be a whole number from 1; got ${end}.`, 'INVALID_ARGUMENTS');
  if (end !== undefined && end < start) {
    throw new ToolExecutionError(`end_line (${end}) is before start_line (${start}); give start_line <= end_line, for example start_line ${end} and end_line ${start}.`, 'INVALID_ARGUMENTS');
  }
  const budget = options.maxOutputLength > 0 ? options.maxOutputLength : Number.POSITIVE_INFINITY;
  const maxLineChars = Math.min(MAX_LINE_CHARS, Number.isFinite(budget) ? Math.max(200, budget) : MAX_LINE_CHARS);
  const file = await openFileInside(workspace, filepath);
  const shown: Array<{ n: number; text: string }> = [];
  let lineNo = 0;
  let chars = 0;
  let stoppedForOutput = false;
  let reachedEnd = true;
  try {
    const sniff = Buffer.alloc(Math.min(SNIFF_BYTES, file.size));
    await file.read(sniff, 0, sniff.length, 0);
    if (looksBinary(sniff)) throw new ToolExecutionError(`${filepath} looks like a binary file (it contains NUL bytes); read_lines only reads text. Use detect_file_type or hash_file for binary files.`);
    for await (const line of readLines(file, { maxLineChars, signal: options.signal })) {
      lineNo++;
      if (lineNo < start) continue;
      if (end !== undefined && lineNo > end) {
        reachedEnd = false;
        break;
      }
      const text = line.cut > 0 ? `${line.text}... [line cut: ${line.cut} more characters]` : line.text;
      if (shown.length > 0 && chars + text.length + 12 > budget) {
        stoppedForOutput = true;
        reachedEnd = false;
        lineNo--;
        break;
      }
      shown.push({ n: lineNo, text });
      chars += text.length + 12;
    }
  } finally {
    await file.close();
  }
  if (shown.length === 0) {
    const lines = lineNo;
    throw new ToolExecutionError(
      lines === 0 ? `${filepath} is empty (0 lines); there is no line ${start}.` : `start_line ${start} is past the end of ${filepath}, which has ${lines} ${lines === 1 ? 'line' : 'lines'}.`,
    );
  }
  const width = String(shown[shown.length - 1]!.n).length;
  const last = shown[shown.length - 1]!.n;
  if (stoppedForOutput) {
    options.note(`[read_lines: showed lines ${start}-${last} to stay within the output limit; call again with start_line ${last + 1} for more]`);
  } else if (end !== undefined && reachedEnd && end > last) {
    options.note(`[read_lines: ${filepath} has ${last} lines; showed lines ${start}-${last}]`);
  }
  return shown.map(({ n, text }) => `${String(n).padStart(width)} | ${text}`).join('\n');
}
