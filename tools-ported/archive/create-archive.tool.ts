import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import zlib from 'node:zlib';
import tarStream from 'tar-stream';
import yazl from 'yazl';
import { FolderMissingError, PathTraversalError, pinFolder, readFileInside, tool, ToolExecutionError, writeFileInside, type FileStatus, type PinnedFolder, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { resolveWritable, statInside } from '../common/fs-inside.js';
import type { ArchiveFormat } from './archive-io.js';

/** Arguments of create_archive. */
export interface CreateArchiveInput {
  /**
   * Files and folders to put in the archive (folders with everything below them), relative
   * to the workspace root (or absolute inside it). Entries are named by their path relative
   * to the workspace root (`src/a.ts`), so the archive extracts to the same layout.
   * @minItems 1
   * @maxItems 1000
   * @items.type string
   * @items.format workspace-path
   */
  paths: string[];
  /**
   * The archive file to write (the full name, e.g. `out/site.zip`). Missing parent folders are
   * created.
   * @format workspace-path
   */
  destination: string;
  /**
   * Archive format. Default: from the destination's extension (`.zip`, or `.tar.gz` / `.tgz`).
   */
  format?: ArchiveFormat;
  /**
   * Replace the destination when it exists. Without it an existing destination is refused.
   * @default false
   */
  overwrite?: boolean;
}

/** What create_archive reports. */
export interface CreateArchiveOutput {
  /** The archive written, relative to the workspace root. */
  destination: string;
  format: ArchiveFormat;
  /** Files stored. */
  files: number;
  /** Folders stored. */
  directories: number;
  /** Bytes of file content stored (before compression). */
  content_bytes: number;
  /** Size of the archive written, in bytes. */
  archive_bytes: number;
  /** Whether an existing file was replaced. */
  overwrote: boolean;
  /**
   * Things not stored, with the reason: symbolic links that lead outside the workspace or
   * nowhere, and special files (FIFOs, sockets, devices).
   */
  skipped: string[];
}

/** Most files one archive may hold. */
export const MAX_ARCHIVE_FILES = 10_000;
/** Most bytes of file content one archive may hold (it is built in memory): 256 MiB. */
export const MAX_ARCHIVE_CONTENT_BYTES = 256 * 1024 * 1024;

/**
 * Pack workspace files and folders into a zip or tar.gz archive in the workspace. Symbolic
 * links are followed only when they lead to something inside the workspace (the archive then
 * holds a copy, never a link); links that lead outside are skipped and listed. The archive is
 * written atomically; an existing destination is refused unless overwrite is true. At most
 * 10000 files and 256 MiB of content.
 */
@tool({ name: 'create_archive', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'archive', tags: ['archive', 'ported'], timeoutMs: 300_000, memoryMb: 1024 })
export class CreateArchiveTool implements Tool<CreateArchiveInput, CreateArchiveOutput> {
  run(args: CreateArchiveInput, ctx: ToolContext): Promise<CreateArchiveOutput> {
    return createArchive(ctx.workspace, args, ctx.signal);
  }
}

/** One thing to store: a folder, or a file with its real path (read later). */
interface Item {
  name: string;
  kind: 'file' | 'directory';
  real: string;
  mode: number;
  mtime: Date;
  size: number;
}

/** The format named by a file name's extension, if any. */
export function formatFromName(name: string): ArchiveFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

/**
 * Build the archive (see the tool description).
 * @throws PathTraversalError when a path argument or the destination is outside the workspace.
 * @throws ToolExecutionError for missing paths, too many files or bytes, an unknown format, or an existing destination without overwrite.
 */
export async function createArchive(workspace: Workspace, args: CreateArchiveInput, signal?: AbortSignal): Promise<CreateArchiveOutput> {
  const format = args.format ?? formatFromName(args.destination);
  if (format === undefined) throw new ToolExecutionError(`cannot tell the format from ${args.destination}; name it .zip, .tar.gz or .tgz, or pass format "zip" or "tar.gz". Nothing was written.`);
  const dest = resolveWritable(workspace, args.destination);
  const existing = await statInside(workspace, dest, args.destination);
  if (existing?.kind === 'folder') throw new ToolExecutionError(`${args.destination} is a folder; give the full name of the archive file (e.g. ${args.destination.replace(/[\\/]+$/, '')}/archive.${format}). Nothing was written.`);
  if (existing !== undefined && args.overwrite !== true) throw new ToolExecutionError(`${args.destination} already exists; pass overwrite: true to replace it, or choose another name. Nothing was written.`);

  const items: Item[] = [];
  const skipped: string[] = [];
  const names = new Set<string>();
  const visited = new Set<string>();
  let bytes = 0;
  const add = (item: Item) => {
    if (names.has(item.name)) return;
    names.add(item.name);
    if (item.kind === 'file') {
      bytes += item.size;
      if (items.length >= MAX_ARCHIVE_FILES * 2 || bytes > MAX_ARCHIVE_CONTENT_BYTES) {
        throw new ToolExecutionError(`the paths hold more than ${MAX_ARCHIVE_FILES} files or ${MAX_ARCHIVE_CONTENT_BYTES} bytes; archive fewer paths. Nothing was written.`);
      }
    }
    items.push(item);
  };

  // Everything is looked at through pinned folders (src/workspace/pinned-folder.ts), so a
  // folder swapped for a link while the paths are walked adds nothing of the outside.
  const pinned = async (real: string, shown: string): Promise<PinnedFolder> => (await pinFolder(workspace, real, shown, { doing: 'archived' })).folder;
  /** The status of the resolved path `real`, read through its pinned folder; `undefined` when it is gone. */
  const statOf = async (real: string, shown: string): Promise<FileStatus | undefined> => {
    const isRoot = real === workspace.realRoot;
    let folder: PinnedFolder;
    try {
      folder = (await pinFolder(workspace, isRoot ? real : path.dirname(real), shown, { doing: 'archived', failure: () => new FolderMissingError(shown) })).folder;
    } catch (error) {
      if (error instanceof FolderMissingError) return undefined;
      throw error;
    }
    try {
      if (isRoot) return await folder.stat();
      const stat = await folder.lstat(path.basename(real));
      if (stat?.isSymbolicLink()) throw new PathTraversalError(shown, workspace.realRoot, 'changed into a symbolic link while it was being archived');
      return stat;
    } finally {
      await folder.close();
    }
  };

  /** Add `real` (whose status is `stat`) as `name`; a folder's entries are read through `open()`. */
  const walk = async (real: string, name: string, stat: FileStatus, open: () => Promise<PinnedFolder>): Promise<void> => {
    signal?.throwIfAborted();
    if (real === dest) return;
    if (stat.isFile()) {
      add({ name, kind: 'file', real, mode: stat.mode & 0o777, mtime: stat.mtime, size: stat.size });
      return;
    }
    if (!stat.isDirectory()) {
      skipped.push(`${name}: not a regular file or folder`);
      return;
    }
    if (visited.has(real)) {
      skipped.push(`${name}: a link back to a folder already stored`);
      return;
    }
    visited.add(real);
    if (name !== '') add({ name, kind: 'directory', real, mode: stat.mode & 0o777, mtime: stat.mtime, size: 0 });
    const folder = await open();
    try {
      const children: string[] = [];
      for await (const child of await folder.openDir()) children.push(child.name);
      children.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const child of children) {
        if (await workspace.withholds(path.join(real, child), signal)) continue; // the policy's path rules withhold it
        const childName = name === '' ? child : `${name}/${child}`;
        const childStat = await folder.lstat(child);
        if (childStat === undefined) continue; // removed while the folder was read
        if (childStat.isSymbolicLink()) {
          let target: string;
          let targetStat: FileStatus | undefined;
          try {
            target = workspace.resolve(path.join(real, child));
            targetStat = await statOf(target, childName);
          } catch (error) {
            skipped.push(`${childName}: ${error instanceof PathTraversalError ? 'a symbolic link that leads outside the workspace' : 'a symbolic link that leads nowhere'}`);
            continue;
          }
          if (targetStat === undefined) {
            skipped.push(`${childName}: a symbolic link that leads nowhere`);
            continue;
          }
          const resolved = target;
          await walk(resolved, childName, targetStat, () => pinned(resolved, childName));
          continue;
        }
        await walk(path.join(real, child), childName, childStat, () => folder.openFolder(child));
      }
    } finally {
      await folder.close();
    }
  };

  for (const given of args.paths) {
    const real = workspace.resolve(given);
    const stat = await statOf(real, given);
    if (stat === undefined) throw new ToolExecutionError(`${given} does not exist; nothing was written. Use list_files to see what is there.`);
    await walk(real, real === workspace.realRoot ? '' : workspace.relative(real), stat, () => pinned(real, given));
  }
  const files = items.filter((i) => i.kind === 'file').length;
  if (files > MAX_ARCHIVE_FILES) throw new ToolExecutionError(`the paths hold ${files} files, more than ${MAX_ARCHIVE_FILES}; archive fewer paths. Nothing was written.`);

  const archive = format === 'zip' ? await buildZip(workspace, items, signal) : await buildTarGz(workspace, items, signal);
  const written = await writeFileInside(workspace, args.destination, archive.bytes);
  return {
    destination: workspace.relative(written.path),
    format,
    files,
    directories: items.length - files,
    content_bytes: archive.content,
    archive_bytes: written.bytes,
    overwrote: written.overwrote,
    skipped,
  };
}

/** Read a file to store (again through the workspace checks, so a file swapped for a link is refused). */
async function content(workspace: Workspace, item: Item): Promise<Buffer> {
  const { bytes, size } = await readFileInside(workspace, item.real, MAX_ARCHIVE_CONTENT_BYTES + 1);
  if (size > MAX_ARCHIVE_CONTENT_BYTES) throw new ToolExecutionError(`${item.name} is larger than ${MAX_ARCHIVE_CONTENT_BYTES} bytes; nothing was written.`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function buildZip(workspace: Workspace, items: readonly Item[], signal?: AbortSignal): Promise<{ bytes: Buffer; content: number }> {
  const zip = new yazl.ZipFile();
  const out = collect(zip.outputStream as unknown as Readable);
  let total = 0;
  for (const item of items) {
    signal?.throwIfAborted();
    if (item.kind === 'directory') {
      zip.addEmptyDirectory(item.name, { mtime: item.mtime, mode: 0o040000 | (item.mode || 0o755) });
    } else {
      const data = await content(workspace, item);
      total += data.length;
      zip.addBuffer(data, item.name, { mtime: item.mtime, mode: 0o100000 | (item.mode || 0o644) });
    }
  }
  zip.end();
  return { bytes: await out, content: total };
}

async function buildTarGz(workspace: Workspace, items: readonly Item[], signal?: AbortSignal): Promise<{ bytes: Buffer; content: number }> {
  const pack = tarStream.pack();
  const gzip = zlib.createGzip();
  (pack as unknown as Readable).pipe(gzip as unknown as Writable);
  const out = collect(gzip);
  let total = 0;
  for (const item of items) {
    signal?.throwIfAborted();
    if (item.kind === 'directory') {
      await new Promise<void>((resolve, reject) => pack.entry({ name: `${item.name}/`, type: 'directory', mode: item.mode || 0o755, mtime: item.mtime }, (e) => (e ? reject(e) : resolve())));
    } else {
      const data = await content(workspace, item);
      total += data.length;
      await new Promise<void>((resolve, reject) => pack.entry({ name: item.name, type: 'file', mode: item.mode || 0o644, mtime: item.mtime, size: data.length }, data, (e) => (e ? reject(e) : resolve())));
    }
  }
  pack.finalize();
  return { bytes: await out, content: total };
}
