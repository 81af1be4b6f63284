import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { makeDirectoryInside } from '../common/fs-inside.js';
import { plural } from '../common/text-file.js';

/** Arguments of make_directory. */
export interface MakeDirectoryInput {
  /**
   * The folder to create, relative to the workspace root (or absolute inside it). Missing
   * parent folders are created too.
   * @format workspace-path
   */
  directory: string;
}

/**
 * Create a folder (and its missing parents) in the workspace. Succeeds when the folder already
 * exists, and says so; fails when a file is in the way. Files need no make_directory first:
 * the writing tools create their folders.
 */
@tool({ name: 'make_directory', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class MakeDirectoryTool implements Tool<MakeDirectoryInput, string> {
  run(args: MakeDirectoryInput, ctx: ToolContext): Promise<string> {
    return makeDirectory(ctx.workspace, args);
  }
}

/**
 * Create `directory` and its missing parents.
 * @throws ToolExecutionError when a file is in the way ("a part of ... is a file, not a folder").
 */
export async function makeDirectory(workspace: Workspace, args: MakeDirectoryInput): Promise<string> {
  const made = await makeDirectoryInside(workspace, args.directory);
  const shown = workspace.relative(made.path);
  return made.created === 0 ? `${shown} already exists; nothing was created.` : `Created ${shown}${made.created > 1 ? ` (${plural(made.created, 'folder')}, parents included)` : ''}.`;
}
