import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { readFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { looksBinary } from '../common/inspect-fs.js';

/** Arguments of diff_files. */
export interface DiffFilesInput {
  /**
   * The original file ("---" side), relative to the workspace root.
   * @format workspace-path
   */
  old_filepath: string;
  /**
   * The changed file ("+++" side), relative to the workspace root.
   * @format workspace-path
   */
  new_filepath: string;
  /**
   * Unchanged lines to show around each change.
   * @TJS-type integer
   * @minimum 0
   * @maximum 100
   * @default 3
   */
  context_lines?: number;
  /**
   * Treat lines that differ only in spaces and tabs as equal.
   * @default false
   */
  ignore_whitespace?: boolean;
}

/** Largest file compared, in bytes. */
export const MAX_DIFF_FILE_BYTES = 4 * 1024 * 1024;
/** Time the diff algorithm may take before giving up, in milliseconds (below the tool's timeout). */
export const DIFF_TIME_LIMIT_MS = 15_000;

/**
 * Compare two text files of the workspace and show their differences as a unified diff
 * ("--- old", "+++ new", "@@" hunks with context lines), or say that they are identical. Use
 * it to review what changed between a file and its copy or snapshot; use hash_file to compare
 * binary files. Files larger than 4 MiB are refused.
 */
@tool({ name: 'diff_files', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class DiffFilesTool implements Tool<DiffFilesInput, string> {
  run(args: DiffFilesInput, ctx: ToolContext): Promise<string> {
    return diffFiles(ctx.workspace, args.old_filepath, args.new_filepath, {
      contextLines: args.context_lines ?? 3,
      ignoreWhitespace: args.ignore_whitespace ?? false,
    });
  }
}

/** Read a text file to compare, refusing binary and oversized files. */
async function readText(workspace: Workspace, filepath: string, argument: string): Promise<string> {
  const { bytes, size } = await readFileInside(workspace, filepath, MAX_DIFF_FILE_BYTES + 1);
  if (size > MAX_DIFF_FILE_BYTES) {
    throw new ToolExecutionError(`${argument} ${filepath} is ${size} bytes; diff_files compares files up to ${MAX_DIFF_FILE_BYTES} bytes. Compare ranges with read_lines, or use hash_file to see whether they differ.`);
  }
  if (looksBinary(bytes)) throw new ToolExecutionError(`${argument} ${filepath} looks like a binary file (it contains NUL bytes); use hash_file to compare binary files.`);
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/**
 * The unified diff of two files (headers name the workspace-relative paths), or a sentence
 * saying they are identical.
 * @throws ToolExecutionError for missing, binary or oversized files, or a diff that takes
 *   longer than {@link DIFF_TIME_LIMIT_MS}.
 * @throws PathTraversalError when either path is outside the workspace.
 */
export async function diffFiles(
  workspace: Workspace,
  oldPath: string,
  newPath: string,
  options: { contextLines: number; ignoreWhitespace: boolean },
): Promise<string> {
  const oldText = await readText(workspace, oldPath, 'old_filepath');
  const newText = await readText(workspace, newPath, 'new_filepath');
  const oldName = workspace.relative(workspace.resolve(oldPath));
  const newName = workspace.relative(workspace.resolve(newPath));
  if (oldText === newText) return `No differences: ${oldName} and ${newName} are identical.`;
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
    context: options.contextLines,
    ignoreWhitespace: options.ignoreWhitespace,
    headerOptions: FILE_HEADERS_ONLY,
    timeout: DIFF_TIME_LIMIT_MS,
  });
  if (patch === undefined) {
    throw new ToolExecutionError(`the files differ too much to diff within ${DIFF_TIME_LIMIT_MS / 1000} s; compare smaller ranges with read_lines.`);
  }
  if (!/^@@/m.test(patch)) return `No differences: ${oldName} and ${newName} differ only in whitespace.`;
  return patch.replace(/\n$/, '');
}
