import { constants as C, createWriteStream, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pinFolder, tool, ToolExecutionError, type PinnedFolder, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import type { PathEntry } from '../../src/internal.js';
import { makeDirectoryInside, statInside } from '../common/fs-inside.js';
import { loadArchive, readArchive, type ArchiveEntry, type ArchiveFormat } from './archive-io.js';
import { checkEntries, MAX_ENTRIES, MAX_TOTAL_BYTES, type CheckedEntry } from './archive-policy.js';

/** Arguments of extract_archive. */
export interface ExtractArchiveInput {
  /**
   * The archive (zip or tar.gz; the format is read from the file's first bytes), relative to
   * the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * The folder to extract into; created (with missing parents) when it does not exist. Entry
   * names are placed relative to it.
   * @format workspace-path
   */
  destination: string;
  /**
   * Replace existing files of the destination that the archive also holds. Without it, any
   * existing file or link in the way refuses the whole extraction before anything is written.
   * Existing folders are always merged into; a file never replaces a folder or the reverse,
   * and an existing symbolic link is never written through or replaced.
   * @default false
   */
  overwrite?: boolean;
}

/** What extract_archive reports. */
export interface ExtractArchiveOutput {
  /** The destination folder, relative to the workspace root. */
  destination: string;
  format: ArchiveFormat;
  /** Files written. */
  files: number;
  /** Folders in the archive (created or already there). */
  directories: number;
  /** Symbolic and hard links created (all lead inside the destination). */
  links: number;
  /** Bytes of file content written. */
  bytes: number;
  /** Existing files replaced (only with overwrite). */
  overwritten: number;
}

/**
 * Extract a zip or tar.gz archive of the workspace into a folder of the workspace. The whole
 * entry list is checked first and the archive refused, with nothing written, when an entry has
 * an absolute name or climbs out with "..", a link leads outside the folder (or an entry goes
 * through a link), an entry is a device or FIFO, or the archive unpacks to more than 10000
 * entries or 512 MiB. Existing files are never replaced unless overwrite is true. Entries are
 * unpacked into a private temporary folder next to the destination and moved in only when all
 * succeeded, so a failure leaves no partial extraction. Use list_archive first to see what
 * an archive holds.
 */
@tool({ name: 'extract_archive', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'archive', tags: ['archive', 'ported'], timeoutMs: 300_000, memoryMb: 1024 })
export class ExtractArchiveTool implements Tool<ExtractArchiveInput, ExtractArchiveOutput> {
  run(args: ExtractArchiveInput, ctx: ToolContext): Promise<ExtractArchiveOutput> {
    return extractArchive(ctx.workspace, args, ctx.signal);
  }
}

/**
 * Extract `filepath` into `destination` (see the tool description for the rules).
 * @throws PathTraversalError when either path is outside the workspace.
 * @throws ToolExecutionError for an unreadable or refused archive, or files in the way.
 */
export async function extractArchive(workspace: Workspace, args: ExtractArchiveInput, signal?: AbortSignal): Promise<ExtractArchiveOutput> {
  const overwrite = args.overwrite === true;
  const archive = await loadArchive(workspace, args.filepath);
  const dest = workspace.resolve(args.destination);
  workspace.assertWritable(dest, args.destination);
  const isRoot = dest === workspace.realRoot;
  const existing = isRoot ? ({ kind: 'folder' } as const) : await statInside(workspace, dest, args.destination);
  if (existing !== undefined && existing.kind !== 'folder') throw new ToolExecutionError(`${args.destination} exists and is not a folder; give a folder to extract into. Nothing was extracted.`);

  // 1. The whole entry list, checked before anything is written.
  // Counts and declared sizes are checked while listing too, so a bomb is refused without
  // decompressing the rest of it.
  const listed: ArchiveEntry[] = [];
  let declared = 0;
  await readArchive(archive.bytes, archive.format, async (entry) => {
    signal?.throwIfAborted();
    listed.push(entry);
    declared += entry.size;
    if (listed.length > MAX_ENTRIES) throw new ToolExecutionError(`${args.filepath} has more than ${MAX_ENTRIES} entries; the archive is refused and nothing was extracted.`);
    if (declared > MAX_TOTAL_BYTES) throw new ToolExecutionError(`${args.filepath} unpacks to more than ${MAX_TOTAL_BYTES} bytes (a zip bomb?); the archive is refused and nothing was extracted.`);
  }, args.filepath);
  const entries = checkEntries(listed, (parts) => heldOnDisk(dest, parts));
  // Where each member lands is judged by the call's path rules (the deciders saw only the
  // destination folder): one landing on a path a rule denies refuses the whole archive.
  // So is each landing path as a write: never one of toolgate's own files (a workspace that
  // is the home folder holds ~/.config/toolgate), nor outside a mode's write folders.
  const writable = workspace.writeCheck();
  for (const e of entries) {
    const landing = path.join(dest, ...e.path.split('/'));
    writable(landing, path.posix.join(workspace.relative(dest), e.path));
    const dotted = workspace.homeDotEntryOf(landing);
    if (dotted !== undefined) throw new ToolExecutionError(`${args.filepath} holds ${JSON.stringify(e.path)}, which would land in ${dotted}, a hidden file or folder of the user's home folder (shells, git and ssh run programs such files name), so archives never unpack there (unpack it yourself if you trust it); nothing was extracted.`);
  }
  let withheld: (typeof entries)[number] | undefined;
  for (const e of entries) {
    if (await workspace.withholds(path.join(dest, ...e.path.split('/')), signal)) {
      withheld = e;
      break;
    }
  }
  if (withheld !== undefined) throw new ToolExecutionError(`${args.filepath} holds ${JSON.stringify(withheld.path)}, which would land on ${path.posix.join(workspace.relative(dest), withheld.path)}, a path the policy's rules deny (or ask about); the archive is refused and nothing was extracted.`);
  const doing = { doing: 'extracted' };
  // Every step below goes through pinned folders (src/workspace/pinned-folder.ts), so a folder
  // swapped for a link while the archive is unpacked cannot carry a byte outside.
  const checkConflicts = async () => {
    const { folder } = await pinFolder(workspace, dest, args.destination, doing);
    try {
      await findConflicts(workspace, dest, folder.path, entries, overwrite, args.destination);
    } finally {
      await folder.close();
    }
  };
  if (existing !== undefined) await checkConflicts();

  // 2. Unpack into a private folder next to the destination (inside it for the workspace root).
  const parent = isRoot ? dest : path.dirname(dest);
  const relParent = workspace.relative(parent);
  if (relParent !== '.') await makeDirectoryInside(workspace, relParent);
  const { folder: parentFolder } = await pinFolder(workspace, parent, args.destination, doing);
  let stageName: string | undefined;
  let stage: PinnedFolder | undefined;
  try {
    // Named after this thread and journaled: if it is killed, leftovers.ts removes the stage.
    stageName = await parentFolder.makeTemporaryFolder('toolgate-extract');
    stage = await parentFolder.openFolder(stageName);
    const counts = await unpack(archive, entries, stage.path, args.filepath, signal);
    // 3. Move into place: one rename for a new folder, else a merge checked again first.
    let overwritten = 0;
    if (existing === undefined && (await statInside(workspace, dest, args.destination)) === undefined) {
      // A new folder: one rename, so it appears complete or not at all (it was made 0700).
      await fs.chmod(stage.path, 0o755);
      await fs.rename(parentFolder.at(stageName), parentFolder.at(path.basename(dest))).catch((e: NodeJS.ErrnoException) => {
        throw new ToolExecutionError(`cannot move the extracted files to ${args.destination} (${e.code ?? e.message}); nothing was extracted.`);
      });
    } else {
      await checkConflicts();
      const { folder: destFolder } = await pinFolder(workspace, dest, args.destination, doing);
      try {
        overwritten = await merge(stage.path, destFolder, workspace);
      } finally {
        await destFolder.close();
      }
    }
    return { destination: workspace.relative(dest), format: archive.format, ...counts, overwritten };
  } finally {
    await stage?.close();
    if (stageName !== undefined) await fs.rm(parentFolder.at(stageName), { recursive: true, force: true }).catch(() => undefined);
    await parentFolder.close();
  }
}

/**
 * Refuse the extraction when an entry would replace something of the existing destination:
 * a link anywhere on its way, a file of another kind, or (without overwrite) any file.
 */
async function findConflicts(workspace: Workspace, dest: string, pinnedDest: string, entries: readonly CheckedEntry[], overwrite: boolean, shown: string): Promise<void> {
  const seen = new Map<string, 'absent' | 'folder' | 'file' | 'link' | 'other'>();
  const kindAt = async (rel: string) => {
    let kind = seen.get(rel);
    if (kind === undefined) {
      try {
        const stat = await fs.lstat(path.join(pinnedDest, ...rel.split('/')));
        kind = stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new ToolExecutionError(`cannot look at ${rel} in ${shown} (${code}); nothing was extracted.`);
        kind = 'absent';
      }
      seen.set(rel, kind);
    }
    return kind;
  };
  const conflict = (rel: string, why: string) =>
    new ToolExecutionError(`${path.posix.join(workspace.relative(dest), rel)} ${why}; nothing was extracted.${overwrite ? '' : ' Pass overwrite: true to replace existing files, or extract into a new folder.'}`);
  for (const entry of entries) {
    const parts = entry.path.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const kind = await kindAt(rel);
      if (kind === 'absent') break;
      const last = i === parts.length;
      if (kind === 'link') throw conflict(rel, 'already exists as a symbolic link, which extraction never writes through or replaces');
      if (kind === 'other') throw conflict(rel, 'already exists and is not a regular file or folder');
      if (!last && kind === 'file') throw conflict(rel, `already exists as a file, where the archive has a folder (for ${entry.path})`);
      if (last) {
        if (entry.kind === 'directory' && kind === 'file') throw conflict(rel, 'already exists as a file, where the archive has a folder');
        if (entry.kind !== 'directory' && kind === 'folder') throw conflict(rel, 'already exists as a folder, where the archive has a file or link');
        if (entry.kind !== 'directory' && kind === 'file' && !overwrite) throw conflict(rel, 'already exists');
      }
    }
  }
}

/** A stream that passes bytes on while counting them, failing past `limit` bytes. */
function counter(limit: number, total: { bytes: number }, label: string): Transform {
  let own = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      own += chunk.length;
      total.bytes += chunk.length;
      if (own > limit || total.bytes > MAX_TOTAL_BYTES) {
        done(new ToolExecutionError(`${label} holds more bytes than it declares or than the ${MAX_TOTAL_BYTES} bytes allowed (a zip bomb?); the archive is refused and nothing was extracted.`));
        return;
      }
      done(null, chunk);
    },
  });
}

/** Create `rel`'s folders inside `stage`, each checked to be a real folder (never a link). */
async function mkdirs(stage: string, parts: readonly string[]): Promise<void> {
  let current = stage;
  for (const part of parts) {
    current = path.join(current, part);
    try {
      await fs.mkdir(current, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await fs.lstat(current);
      if (!stat.isDirectory()) throw new ToolExecutionError(`the archive puts a folder where it has a file or link (${parts.join('/')}); nothing was extracted.`);
    }
  }
}

/** Unpack checked entries into `stage`: folders and files in archive order, links last. */
async function unpack(
  archive: { bytes: Buffer; format: ArchiveFormat },
  entries: readonly CheckedEntry[],
  stage: string,
  label: string,
  signal?: AbortSignal,
): Promise<Omit<ExtractArchiveOutput, 'destination' | 'format' | 'overwritten'>> {
  const counts = { files: 0, directories: 0, links: 0, bytes: 0 };
  const total = { bytes: 0 };
  let index = 0;
  await readArchive(archive.bytes, archive.format, async (raw, body) => {
    signal?.throwIfAborted();
    const entry = entries[index++];
    // The bytes are the same as in the first pass; a different entry means a parser bug.
    if (entry === undefined || entry.name !== raw.name || entry.kind !== raw.kind) throw new ToolExecutionError(`${label} read differently the second time; nothing was extracted.`);
    const parts = entry.path.split('/');
    if (entry.kind === 'directory') {
      await mkdirs(stage, parts);
      counts.directories++;
      return;
    }
    if (entry.kind !== 'file' || body === undefined) return;
    await mkdirs(stage, parts.slice(0, -1));
    const target = path.join(stage, ...parts);
    const mode = entry.mode & 0o111 ? 0o755 : 0o644;
    // A new file only (O_EXCL), never through a link (O_NOFOLLOW); the stream closes it.
    const out = createWriteStream('', { fd: await fs.open(target, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode), autoClose: true });
    await pipeline(await body(), counter(entry.size, total, `the entry ${JSON.stringify(entry.path)} of ${label}`), out);
    counts.files++;
  }, label);
  counts.bytes = total.bytes;
  // Links last, so no file was ever written through one. Hard links first: their targets are files.
  for (const entry of entries) {
    if (entry.kind !== 'hardlink' && entry.kind !== 'symlink') continue;
    const parts = entry.path.split('/');
    await mkdirs(stage, parts.slice(0, -1));
    const at = path.join(stage, ...parts);
    if (entry.kind === 'hardlink') await fs.link(path.join(stage, ...entry.linkPath!.split('/')), at);
    else await fs.symlink(entry.linkTarget!, at);
    counts.links++;
  }
  return counts;
}

/**
 * Move everything of `stage` into the existing pinned folder `dest`: new names by one rename
 * each, folders merged (each opened through its pinned parent, never through a link), files
 * replaced by rename (conflicts were refused before).
 * @returns how many existing files were replaced.
 */
async function merge(stage: string, dest: PinnedFolder, workspace: Workspace): Promise<number> {
  let replaced = 0;
  for (const item of await fs.readdir(stage, { withFileTypes: true })) {
    const from = path.join(stage, item.name);
    const to = dest.at(item.name);
    const there = await dest.lstat(item.name);
    if (there === undefined) {
      await fs.rename(from, to);
    } else if (item.isDirectory() && there.isDirectory()) {
      const sub = await dest.openFolder(item.name);
      try {
        replaced += await merge(from, sub, workspace);
      } finally {
        await sub.close();
      }
    } else if (!item.isDirectory() && there.isFile()) {
      await fs.rename(from, to);
      replaced++;
    } else {
      throw new ToolExecutionError(`${workspace.relative(path.join(dest.real, item.name))} changed while the archive was being extracted; some files may already have been moved in.`);
    }
  }
  return replaced;
}

/**
 * What `dest/<parts>` holds now, for the git-folder shape check (a link counts as either
 * kind); nothing for a folder that is not there. A read for a check only: the writes go
 * through pinned folders.
 */
function heldOnDisk(dest: string, parts: readonly string[]): PathEntry[] {
  try {
    return readdirSync(path.join(dest, ...parts), { withFileTypes: true })
      .flatMap((d) => (d.isSymbolicLink() ? [{ name: d.name, isFile: true }, { name: d.name, isFile: false }] : [{ name: d.name, isFile: d.isFile() }]));
  } catch {
    return [];
  }
}
