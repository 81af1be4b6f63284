import { readFileInside, tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { protectedNameIn } from '../../src/internal.js';
import { resolveWritable, statInside } from '../common/fs-inside.js';
import { MAX_SNAPSHOT_BYTES, parseSnapshotId, readMeta, readSnapshotBytes, sha256, snapshotPathOf, storeSnapshot } from '../common/snapshot-store.js';
import { plural } from '../common/text-file.js';

/** Arguments of restore_snapshot. */
export interface RestoreSnapshotInput {
  /** The id snapshot_file or list_snapshots gave, such as "3f9a1c2b7d10-4". */
  snapshot_id: string;
}

/**
 * Put a file back as it was when a snapshot was taken (to undo edits), replacing its current
 * content atomically, or recreating it if it was deleted. The current content is snapshotted
 * first, so a restore can itself be undone (the result names that snapshot). A snapshot whose
 * bytes no longer match their recorded SHA-256 is refused.
 */
@tool({ name: 'restore_snapshot', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'snapshot', tags: ['snapshot', 'ported'], timeoutMs: 60_000 })
export class RestoreSnapshotTool implements Tool<RestoreSnapshotInput, string> {
  run(args: RestoreSnapshotInput, ctx: ToolContext): Promise<string> {
    return restoreSnapshot(ctx.workspace, args, ctx.signal);
  }
}

/**
 * Restore the file of snapshot `snapshot_id`.
 * @param signal - the call's signal: it stops the search for the file's other names
 *   (`workspace.withholds`), which reads the whole workspace when the file has more than one
 *   link, and is looked at again before the current content is read and before the file is
 *   written.
 * @throws ToolExecutionError for unknown or damaged snapshots, or a folder now in the file's place.
 * @throws PathTraversalError when the recorded path leads outside the workspace (tampered metadata).
 * @throws the signal's reason when it aborts before the file is written: the file is unchanged
 *   then (the snapshot of its current content may have been stored, whole).
 */
export async function restoreSnapshot(workspace: Workspace, args: RestoreSnapshotInput, signal?: AbortSignal): Promise<string> {
  const { key, seq } = parseSnapshotId(args.snapshot_id);
  const meta = await readMeta(workspace, key, seq);
  const bytes = await readSnapshotBytes(workspace, meta);
  const { real, relative } = snapshotPathOf(workspace, meta.path);
  // The decisions saw no path (the target is in the snapshot's metadata): what the recorded
  // path resolves to now is judged here, and the current content is then read from, and the
  // snapshot written to, that real path only (`expectedPath`: the folders are opened without
  // following links, and a path that resolves elsewhere by then is refused), so a link swapped
  // in since the judgement (to `.git/config`, `~/.bashrc`, `.env`) is not read or written through.
  const planted = protectedNameIn(relative) ?? protectedNameIn(meta.path) ?? workspace.homeDotEntryOf(real);
  if (planted !== undefined) throw new ToolExecutionError(`${meta.path} now leads to ${relative}, inside ${planted}, a protected path; restore_snapshot never writes there (write it with write_file, which asks). Nothing was restored.`);
  resolveWritable(workspace, meta.path);
  // Nor where the call's path rules withhold (by the real path too: a link to `.env`): the
  // current content would be read into a new snapshot, and the target overwritten.
  if (await workspace.withholds(meta.path, signal)) throw new ToolExecutionError(`${meta.path} now leads to ${relative}, a path the policy's path rules deny (or ask about); restore_snapshot does not read or write it. Nothing was restored.`, 'POLICY_DENIED');
  signal?.throwIfAborted();
  const current = await statInside(workspace, real, meta.path);
  if (current !== undefined && current.kind !== 'file') throw new ToolExecutionError(`${relative} is now a folder or special file; it was not replaced.`);
  let saved = '';
  if (current !== undefined) {
    const now = await readFileInside(workspace, meta.path, MAX_SNAPSHOT_BYTES + 1, { expectedPath: real });
    if (now.size <= MAX_SNAPSHOT_BYTES && now.bytes.length === bytes.length && sha256(now.bytes) === meta.sha256) {
      return `${relative} already matches snapshot ${meta.id}; nothing was changed.`;
    }
    if (now.size > MAX_SNAPSHOT_BYTES) {
      saved = ` Its previous content (${now.size} bytes) was too large to snapshot and is gone.`;
    } else {
      const taken = await storeSnapshot(workspace, relative, now.bytes, meta.id);
      saved = ` Its previous content is in snapshot ${taken.meta.id} (restore that to undo this).`;
    }
  }
  // An abort while the current content was saved: the file stays as it is (that snapshot is whole).
  signal?.throwIfAborted();
  const written = await writeFileInside(workspace, meta.path, bytes, { expectedPath: real });
  return `Restored ${relative} from snapshot ${meta.id} (taken ${meta.created}, ${plural(written.bytes, 'byte')})${current === undefined ? '; the file had been deleted and was recreated' : ''}.${saved}`;
}
