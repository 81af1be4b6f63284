/**
 * Folder operations of the edit tools (delete, move, make a folder, look at what a name is)
 * that stay inside the workspace when a path changes between the check and the use (cases
 * P2 and P3), as `writeFileInside` does for writes.
 *
 * Every path is resolved with {@link Workspace.resolve} first (a link that leads outside is a
 * PathTraversalError), checked with {@link Workspace.assertWritable} (a read-only mode's
 * scoped folders), and then the operation goes through the parent folder pinned with
 * `pinFolder` (src/workspace/pinned-folder.ts: opened from the workspace root one component
 * at a time without following links, held open on Linux), so a folder swapped for a link at
 * any moment cannot carry it outside. See that module for what the fallback without `/proc`
 * guarantees.
 *
 * Plain functions, no side effects at import.
 *
 * @module
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { FolderMissingError, PathTraversalError, pinFolder, ToolExecutionError, type PinnedFolder, type Workspace } from '../../src/tool.js';

/** The folder `realDir` pinned for an edit (messages say "while it was being changed"). */
function pinForEdit(workspace: Workspace, realDir: string, input: string, create: boolean): Promise<{ folder: PinnedFolder; created: number }> {
  return pinFolder(workspace, realDir, input, { create, doing: 'changed' });
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Resolve a path argument that must name something other than the workspace root, and may be written. */
export function resolveWritable(workspace: Workspace, input: string, what = 'a file'): string {
  const real = workspace.resolve(input);
  if (real === workspace.realRoot) throw new ToolExecutionError(`${input} is the workspace folder itself; give ${what} inside it.`);
  workspace.assertWritable(real, input);
  return real;
}

/** What {@link statInside} found. */
export type Existing = { kind: 'file' | 'folder' | 'other'; size: number; mode: number } | undefined;

/** What the resolved path `real` names now (links already resolved by the workspace), without following a last-moment link. */
export async function statInside(workspace: Workspace, real: string, input: string): Promise<Existing> {
  let pinned: { folder: PinnedFolder } | undefined;
  try {
    pinned = await pinForEdit(workspace, path.dirname(real), input, false);
  } catch (error) {
    if (error instanceof FolderMissingError) return undefined;
    throw error;
  }
  try {
    const stat = await pinned.folder.lstat(path.basename(real));
    if (stat === undefined) return undefined;
    if (stat.isSymbolicLink()) throw new PathTraversalError(input, workspace.realRoot, 'changed into a symbolic link while it was being checked');
    return { kind: stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : 'other', size: stat.size, mode: stat.mode };
  } finally {
    await pinned.folder.close();
  }
}

/**
 * Delete a file. Symbolic links are resolved first (the workspace's rule): the file a link
 * inside the workspace points to is what is deleted, and a link that leads outside is refused.
 * @throws ToolExecutionError for missing paths, folders and special files.
 */
export async function deleteFileInside(workspace: Workspace, input: string): Promise<{ path: string; bytes: number }> {
  const real = resolveWritable(workspace, input);
  const { folder } = await pinForEdit(workspace, path.dirname(real), input, false);
  try {
    const name = path.basename(real);
    const stat = await folder.lstat(name);
    if (stat === undefined) throw new ToolExecutionError(`${input} does not exist; nothing was deleted.`);
    if (stat.isDirectory()) throw new ToolExecutionError(`${input} is a folder; delete_file deletes files only. Nothing was deleted.`);
    if (stat.isSymbolicLink()) throw new PathTraversalError(input, workspace.realRoot, 'changed into a symbolic link while it was being deleted');
    if (!stat.isFile()) throw new ToolExecutionError(`${input} is not a regular file (a FIFO, socket or device); it was not deleted.`);
    await fs.unlink(folder.at(name)).catch((e: NodeJS.ErrnoException) => {
      throw new ToolExecutionError(`cannot delete ${input} (${e.code ?? e.message})`);
    });
    return { path: real, bytes: stat.size };
  } finally {
    await folder.close();
  }
}

/**
 * Make a folder and its missing parents.
 * @returns how many folders were created (0 when it already existed).
 * @throws ToolExecutionError when a file is in the way.
 */
export async function makeDirectoryInside(workspace: Workspace, input: string): Promise<{ path: string; created: number }> {
  const real = resolveWritable(workspace, input, 'a folder');
  const { folder, created } = await pinForEdit(workspace, real, input, true);
  await folder.close();
  return { path: real, created };
}

/**
 * Move (rename) a file or folder. The destination must not exist: for a file this is checked
 * by the kernel (a hard link made under the new name, which fails when the name is taken,
 * then the old name removed), so nothing is ever replaced; for a folder, or where hard links
 * are not possible, it is checked just before the rename. Missing parent folders of the
 * destination are created.
 * @throws ToolExecutionError for a missing source, an existing destination, or a folder moved into itself.
 */
export async function moveInside(workspace: Workspace, source: string, destination: string): Promise<{ from: string; to: string; kind: 'file' | 'folder' }> {
  const realSource = resolveWritable(workspace, source, 'a file or folder');
  const realDestination = resolveWritable(workspace, destination, 'a path');
  if (realSource === realDestination) throw new ToolExecutionError(`source and destination are the same (${workspace.relative(realSource)}); nothing was moved.`);
  const sourceDir = await pinForEdit(workspace, path.dirname(realSource), source, false);
  try {
    const sourceName = path.basename(realSource);
    const stat = await sourceDir.folder.lstat(sourceName);
    if (stat === undefined) throw new ToolExecutionError(`${source} does not exist; nothing was moved.`);
    if (stat.isSymbolicLink()) throw new PathTraversalError(source, workspace.realRoot, 'changed into a symbolic link while it was being moved');
    const kind = stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : undefined;
    if (kind === undefined) throw new ToolExecutionError(`${source} is not a regular file or folder; it was not moved.`);
    if (kind === 'folder' && realDestination.startsWith(realSource + path.sep)) {
      throw new ToolExecutionError(`cannot move the folder ${source} into itself (${destination}); nothing was moved.`);
    }
    const destinationDir = await pinForEdit(workspace, path.dirname(realDestination), destination, true);
    try {
      const destinationName = path.basename(realDestination);
      const taken = () => new ToolExecutionError(`${destination} already exists; move_file never replaces anything. Delete it first or choose another destination. Nothing was moved.`);
      if ((await destinationDir.folder.lstat(destinationName)) !== undefined) throw taken();
      const from = sourceDir.folder.at(sourceName);
      const to = destinationDir.folder.at(destinationName);
      let linked = false;
      if (kind === 'file') {
        try {
          await fs.link(from, to);
          linked = true;
        } catch (error) {
          if (errnoOf(error) === 'EEXIST') throw taken();
          // EXDEV, EPERM (no hard links on this file system): fall back to the checked rename.
        }
      }
      if (linked) {
        await fs.unlink(from).catch(async (e: NodeJS.ErrnoException) => {
          await fs.unlink(to).catch(() => undefined);
          throw new ToolExecutionError(`cannot move ${source} (${e.code ?? e.message}); nothing was moved.`);
        });
      } else {
        await fs.rename(from, to).catch((e: NodeJS.ErrnoException) => {
          throw new ToolExecutionError(`cannot move ${source} to ${destination} (${e.code ?? e.message}); nothing was moved.`);
        });
      }
      return { from: realSource, to: realDestination, kind };
    } finally {
      await destinationDir.folder.close();
    }
  } finally {
    await sourceDir.folder.close();
  }
}
