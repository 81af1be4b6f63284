import { readFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../src/tool.js';

/** Arguments of read_file. */
export interface ReadFileInput {
  /**
   * Path of the file, relative to the workspace root (or absolute inside the workspace).
   * @format workspace-path
   */
  filepath: string;
  /**
   * Return at most this many lines from the start of the file; the rest is summarised as
   * "... (N more lines)". Omit to read the whole file (long output is still truncated).
   * @TJS-type integer
   * @minimum 1
   */
  max_lines?: number;
}

/**
 * Read a UTF-8 text file from the workspace and return its text. Use it to look at source,
 * configuration or notes; use list_files to find files first. Not for binary files (images,
 * archives, PDFs): those are refused with a clear error.
 */
@tool({ name: 'read_file', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
export class ReadFileTool implements Tool<ReadFileInput, string> {
  run(args: ReadFileInput, ctx: ToolContext): Promise<string> {
    return readTextFile(ctx.workspace, args.filepath, args.max_lines, ctx.maxOutputLength, (text) => ctx.note(text));
  }
}

/**
 * Read a text file, cut at `maxLines`, reading no more of a large file than the output can
 * show.
 * @param outputChars - characters the model will see (`<= 0`: no limit); bounds the bytes read.
 * @param note - receives a note when only the start of the file was read.
 * @throws ToolExecutionError for folders, missing files, special files and binary content.
 * @throws PathTraversalError for paths outside the workspace.
 */
export async function readTextFile(
  workspace: Workspace,
  filepath: string,
  maxLines: number | undefined,
  outputChars: number,
  note: (text: string) => void,
): Promise<string> {
  // UTF-8 needs at most 3 bytes per UTF-16 code unit: 4 per character is a safe budget.
  const budget = outputChars > 0 ? outputChars * 4 + 4 : Number.POSITIVE_INFINITY;
  const { bytes, size } = await readFileInside(workspace, filepath, budget);
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new ToolExecutionError(`${filepath} looks like a binary file (it contains NUL bytes); read_file only reads text.`);
  }
  const partial = bytes.length < size;
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (partial) text = text.replace(/\uFFFD+$/, ''); // a character cut by the byte budget
  if (partial) note(`[read_file: read the first ${bytes.length} of ${size} bytes; use max_lines for the start of a large file]`);
  if (maxLines === undefined) return text;
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length <= maxLines) return text;
  const more = lines.length - maxLines;
  return `${lines.slice(0, maxLines).join('\n')}\n... (${partial ? `at least ${more}` : more} more lines)`;
}
