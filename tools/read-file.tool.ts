import fs from 'node:fs/promises';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../src/tool.js';

/** Largest file read_file reads, in bytes (64 MiB). */
export const READ_FILE_MAX_BYTES = 64 * 1024 * 1024;

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
@tool({ name: 'read_file', version: '1.0.0', readOnly: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
export class ReadFileTool implements Tool<ReadFileInput, string> {
  async run(args: ReadFileInput, ctx: ToolContext): Promise<string> {
    return readTextFile(ctx.workspace.resolve(args.filepath), args.filepath, args.max_lines);
  }
}

/**
 * Read a text file and cut it at `maxLines`.
 * @param absolute - real path inside the workspace.
 * @param shown - the path as the caller gave it, for messages.
 * @throws ToolExecutionError for folders, missing files, binary content and files over 64 MiB.
 */
export async function readTextFile(absolute: string, shown: string, maxLines?: number): Promise<string> {
  let stat;
  try {
    stat = await fs.stat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolExecutionError(`${shown} does not exist; use list_files to see what is there.`);
    throw new ToolExecutionError(`cannot read ${shown} (${code ?? (error as Error).message})`);
  }
  if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a folder; use list_files to see its contents.`);
  if (!stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file.`);
  if (stat.size > READ_FILE_MAX_BYTES) {
    throw new ToolExecutionError(`${shown} is ${stat.size} bytes, over the ${READ_FILE_MAX_BYTES}-byte limit of read_file.`);
  }
  const bytes = await fs.readFile(absolute);
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new ToolExecutionError(`${shown} looks like a binary file (it contains NUL bytes); read_file only reads text.`);
  }
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);
  if (maxLines === undefined) return text;
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length <= maxLines) return text;
  return `${lines.slice(0, maxLines).join('\n')}\n... (${lines.length - maxLines} more lines)`;
}
