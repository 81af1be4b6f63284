import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { loadArchive, readArchive, type ArchiveEntryKind, type ArchiveFormat } from './archive-io.js';

/** Arguments of list_archive. */
export interface ListArchiveInput {
  /**
   * The archive (zip or tar.gz; the format is read from the file's first bytes), relative to
   * the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * Most entries listed (the totals always count every entry).
   * @minimum 1
   * @maximum 5000
   * @default 500
   * @TJS-type integer
   */
  max_entries?: number;
}

/** One entry of the listing. */
export interface ListedEntry {
  /** Name as stored in the archive (a folder's without its trailing slash). */
  name: string;
  type: ArchiveEntryKind;
  /** Size of the content once unpacked, in bytes (0 for folders and links). */
  size_bytes: number;
  /** Target of a symbolic or hard link. */
  link_target?: string;
}

/** What list_archive reports. */
export interface ListArchiveOutput {
  /** The archive, relative to the workspace root. */
  filepath: string;
  format: ArchiveFormat;
  /** Entries in archive order (at most max_entries). */
  entries: ListedEntry[];
  /** Number of entries in the archive. */
  total_entries: number;
  /** Sum of the sizes of all file entries once unpacked, in bytes. */
  total_bytes: number;
  /** True when more entries exist than were listed. */
  truncated: boolean;
}

/**
 * List the entries of a zip or tar.gz archive in the workspace (names, types, unpacked sizes,
 * link targets) without extracting anything. Use it before extract_archive to see what an
 * archive holds. Names are shown exactly as stored, so in a tar.gz unsafe ones (absolute,
 * "..", links outside) are visible here (extract_archive would refuse them); a zip holding
 * absolute or ".." names cannot be listed at all, as its reader refuses them.
 */
@tool({ name: 'list_archive', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'archive', tags: ['archive', 'ported'], timeoutMs: 60_000, memoryMb: 1024 })
export class ListArchiveTool implements Tool<ListArchiveInput, ListArchiveOutput> {
  run(args: ListArchiveInput, ctx: ToolContext): Promise<ListArchiveOutput> {
    return listArchive(ctx.workspace, args.filepath, args.max_entries ?? 500, ctx.signal);
  }
}

/**
 * List an archive's entries.
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError for a missing file, a file that is not a zip or tar.gz, or a damaged archive.
 */
export async function listArchive(workspace: Workspace, filepath: string, maxEntries: number, signal?: AbortSignal): Promise<ListArchiveOutput> {
  const archive = await loadArchive(workspace, filepath);
  const entries: ListedEntry[] = [];
  let total = 0;
  let bytes = 0;
  await readArchive(
    archive.bytes,
    archive.format,
    async (entry) => {
      signal?.throwIfAborted();
      total++;
      bytes += entry.size;
      if (entries.length >= maxEntries) return;
      const listed: ListedEntry = { name: entry.name, type: entry.kind, size_bytes: entry.size };
      if (entry.linkTarget !== undefined) listed.link_target = entry.linkTarget;
      entries.push(listed);
    },
    filepath,
  );
  return { filepath: workspace.relative(archive.path), format: archive.format, entries, total_entries: total, total_bytes: bytes, truncated: total > entries.length };
}
