import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { moveInside } from '../common/fs-inside.js';

/** Arguments of move_file. */
export interface MoveFileInput {
  /**
   * The file or folder to move, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  source: string;
  /**
   * Its new path (the full new name, not a folder to move it into). Must not exist yet;
   * missing parent folders are created.
   * @format workspace-path
   */
  destination: string;
}

/**
 * Move or rename a file or folder inside the workspace. Refuses an existing destination
 * (nothing is ever overwritten: delete it first if you mean to replace it). The content is not
 * rewritten, so any encoding is kept. A symbolic link is followed: what it points to is moved.
 */
@tool({ name: 'move_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class MoveFileTool implements Tool<MoveFileInput, string> {
  run(args: MoveFileInput, ctx: ToolContext): Promise<string> {
    return moveFile(ctx.workspace, args);
  }
}

/**
 * Move `source` to `destination`.
 * @throws ToolExecutionError for a missing source, an existing destination, or a folder moved into itself.
 */
export async function moveFile(workspace: Workspace, args: MoveFileInput): Promise<string> {
  const moved = await moveInside(workspace, args.source, args.destination);
  return `Moved the ${moved.kind} ${workspace.relative(moved.from)} to ${workspace.relative(moved.to)}.`;
}
