import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../src/tool.js';

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
@tool({ name: 'write_file', version: '1.0.0', requiresConfirmation: true, scopedWrite: true, tags: ['fs', 'builtin'], timeoutMs: 30_000 })
export class WriteFileTool implements Tool<WriteFileInput, string> {
  async run(args: WriteFileInput, ctx: ToolContext): Promise<string> {
    const target = ctx.workspace.resolve(args.filepath);
    const shown = ctx.workspace.relative(target);
    let existed = false;
    try {
      const stat = await fs.stat(target);
      if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a folder; give a file path.`);
      existed = true;
    } catch (error) {
      if (error instanceof ToolExecutionError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new ToolExecutionError(`cannot write ${shown} (${(error as NodeJS.ErrnoException).code})`);
      }
    }
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await writeFileAtomic(target, args.content, { encoding: 'utf8' });
    } catch (error) {
      throw new ToolExecutionError(`cannot write ${shown} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const bytes = Buffer.byteLength(args.content, 'utf8');
    return `Wrote ${bytes} ${bytes === 1 ? 'byte' : 'bytes'} to ${shown}${existed ? ' (overwrote an existing file)' : ''}`;
  }
}
