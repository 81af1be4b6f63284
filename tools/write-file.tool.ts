import { tool, writeFileInside, type Tool, type ToolContext, type Workspace, type WriteStop } from '../src/tool.js';

/** Arguments of write_file. */
export interface WriteFileInput {
  /**
   * Path of the file to write, relative to the workspace root (or absolute inside it).
   * Missing parent folders are created.
   * @format workspace-path
   */
  filepath: string;
  /** The complete new content of the file, as UTF-8 text. */
  content: string;
}

/**
 * Write a UTF-8 text file in the workspace, replacing it whole, and create missing parent
 * folders. The write is atomic (a temporary file renamed into place), so a failure never
 * leaves a half-written file. The result says when an existing file was overwritten. To change
 * part of a large file, prefer an editing tool over rewriting it.
 */
@tool({ name: 'write_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
export class WriteFileTool implements Tool<WriteFileInput, string> {
  run(args: WriteFileInput, ctx: ToolContext): Promise<string> {
    return writeTextFile(ctx.workspace, args.filepath, args.content, { signal: ctx.signal, deadline: ctx.deadline });
  }
}

/**
 * Write `content` to `filepath` atomically and describe what happened.
 * @param stop - the call's signal and deadline: a write they stop leaves nothing behind.
 * @throws ToolExecutionError for folders, special files, failed and stopped writes.
 * @throws PathTraversalError for paths outside the workspace.
 */
export async function writeTextFile(workspace: Workspace, filepath: string, content: string, stop: WriteStop = {}): Promise<string> {
  const written = await writeFileInside(workspace, filepath, content, stop);
  const shown = workspace.relative(written.path);
  return `Wrote ${written.bytes} ${written.bytes === 1 ? 'byte' : 'bytes'} to ${shown}${written.overwrote ? ' (overwrote an existing file)' : ''}`;
}
