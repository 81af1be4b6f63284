import { readFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { statInside } from '../common/fs-inside.js';
import { MAX_SNAPSHOT_BYTES, MAX_SNAPSHOTS_PER_FILE, snapshotPathOf, storeSnapshot } from '../common/snapshot-store.js';
import { plural } from '../common/text-file.js';

/** Arguments of snapshot_file. */
export interface SnapshotFileInput {
  /**
   * The file to keep a copy of, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
}

/**
 * Keep a copy of a file (text or binary, byte for byte) in the workspace's hidden snapshot
 * store, before changing it, so that restore_snapshot can put it back. Returns the snapshot's
 * id. Taking a snapshot of an unchanged file returns the existing one. The store keeps the 20
 * most recent snapshots of each file; list_snapshots shows them. It never changes the file.
 */
@tool({ name: 'snapshot_file', version: '1.0.0', kind: 'file_write', domain: 'snapshot', tags: ['snapshot', 'ported'], timeoutMs: 60_000 })
export class SnapshotFileTool implements Tool<SnapshotFileInput, string> {
  run(args: SnapshotFileInput, ctx: ToolContext): Promise<string> {
    return snapshotFile(ctx.workspace, args);
  }
}

/**
 * Snapshot `filepath`.
 * @throws ToolExecutionError for missing files, folders, files over 64 MiB, or files inside the store.
 */
export async function snapshotFile(workspace: Workspace, args: SnapshotFileInput): Promise<string> {
  const { real, relative } = snapshotPathOf(workspace, args.filepath);
  const existing = await statInside(workspace, real, args.filepath);
  if (existing === undefined) throw new ToolExecutionError(`${args.filepath} does not exist; there is nothing to snapshot.`);
  if (existing.kind !== 'file') throw new ToolExecutionError(`${args.filepath} is not a regular file (snapshot_file keeps copies of files, not folders).`);
  if (existing.size > MAX_SNAPSHOT_BYTES) throw new ToolExecutionError(`${args.filepath} is ${existing.size} bytes; snapshots are kept of files up to ${MAX_SNAPSHOT_BYTES} bytes.`);
  const { bytes, size } = await readFileInside(workspace, args.filepath, MAX_SNAPSHOT_BYTES + 1);
  if (size > MAX_SNAPSHOT_BYTES) throw new ToolExecutionError(`${args.filepath} is ${size} bytes; snapshots are kept of files up to ${MAX_SNAPSHOT_BYTES} bytes.`);
  const taken = await storeSnapshot(workspace, relative, bytes);
  if (!taken.created) {
    return `${relative} is unchanged since snapshot ${taken.meta.id} (taken ${taken.meta.created}); no new snapshot was needed. Restore it with restore_snapshot {"snapshot_id": "${taken.meta.id}"}.`;
  }
  const pruned = taken.pruned.length ? ` The oldest ${plural(taken.pruned.length, 'snapshot')} of this file (${taken.pruned.join(', ')}) were removed: ${MAX_SNAPSHOTS_PER_FILE} are kept per file.` : '';
  return `Snapshot ${taken.meta.id} of ${relative} taken (${plural(taken.meta.size, 'byte')}, sha256 ${taken.meta.sha256.slice(0, 16)}). Restore it with restore_snapshot {"snapshot_id": "${taken.meta.id}"}.${pruned}`;
}
