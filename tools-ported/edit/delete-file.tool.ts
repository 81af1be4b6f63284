import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { deleteFileInside } from '../common/fs-inside.js';
import { plural } from '../common/text-file.js';

/** Arguments of delete_file. */
export interface DeleteFileInput {
  /**
   * The file to delete, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
}

/**
 * Delete one file from the workspace (not a folder). Consider snapshot_file first if you may
 * want it back. A symbolic link is followed: the file it points to is deleted.
 */
@tool({ name: 'delete_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class DeleteFileTool implements Tool<DeleteFileInput, string> {
  run(args: DeleteFileInput, ctx: ToolContext): Promise<string> {
    return deleteFile(ctx.workspace, args);
  }
}

/**
 * Delete `filepath`.
 * @throws ToolExecutionError for missing paths, folders and special files.
 */
export async function deleteFile(workspace: Workspace, args: DeleteFileInput): Promise<string> {
  const deleted = await deleteFileInside(workspace, args.filepath);
  return `Deleted ${workspace.relative(deleted.path)} (${plural(deleted.bytes, 'byte')}).`;
}
