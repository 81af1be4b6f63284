import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { keyOf, listMetas, MAX_SNAPSHOTS_PER_FILE } from '../common/snapshot-store.js';
import { plural } from '../common/text-file.js';

/** Arguments of list_snapshots. */
export interface ListSnapshotsInput {
  /**
   * Only the snapshots of this file (relative to the workspace root). Omit for all.
   * @format workspace-path
   */
  filepath?: string;
}

/**
 * List the snapshots kept in the workspace's snapshot store, newest first: id, file, time
 * taken (UTC), size and SHA-256 prefix. Use it to find the id to pass to restore_snapshot.
 * Read-only.
 */
@tool({ name: 'list_snapshots', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'snapshot', tags: ['snapshot', 'ported'], timeoutMs: 30_000 })
export class ListSnapshotsTool implements Tool<ListSnapshotsInput, string> {
  run(args: ListSnapshotsInput, ctx: ToolContext): Promise<string> {
    return listSnapshots(ctx.workspace, args);
  }
}

/** List snapshots, all or of one file. */
export async function listSnapshots(workspace: Workspace, args: ListSnapshotsInput): Promise<string> {
  let relative: string | undefined;
  if (args.filepath !== undefined) relative = workspace.relative(workspace.resolve(args.filepath));
  const metas = (await listMetas(workspace, relative === undefined ? undefined : keyOf(relative))).filter((m) => relative === undefined || m.path === relative);
  if (metas.length === 0) return relative === undefined ? 'No snapshots are kept in this workspace; snapshot_file takes one.' : `No snapshots of ${relative} are kept; snapshot_file takes one.`;
  const rows = metas.map((m) => [m.id, m.path, m.created, plural(m.size, 'byte'), m.sha256.slice(0, 16)]);
  const header = ['ID', 'FILE', 'TAKEN (UTC)', 'SIZE', 'SHA-256'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return `${plural(metas.length, 'snapshot')}${relative === undefined ? '' : ` of ${relative}`}, newest first (at most ${MAX_SNAPSHOTS_PER_FILE} kept per file):\n${[line(header), ...rows.map(line)].join('\n')}`;
}
