/**
 * File I/O that stays inside the workspace even when a path changes between the check and
 * the use (a folder swapped for a symbolic link by another process: cases P2 and P3).
 *
 * The path is resolved first ({@link Workspace.resolve}); the file is then opened without
 * following a final symbolic link, and on Linux the opened descriptor's real path (read back
 * through `/proc/self/fd`) is checked against the workspace before a byte is read or written.
 * Writes go to a new temporary file in the target's folder, checked the same way, then
 * renamed over the target, so a failed or refused write leaves nothing half-written.
 * Elsewhere than Linux the descriptor check is skipped and only the resolution check applies.
 *
 * On Linux, writes are pinned to the open folder (see {@link writeFileInside}); elsewhere one
 * window remains: the final rename goes by path.
 *
 * @module
 */
import { constants as C, existsSync, lstatSync } from 'node:fs';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import path from 'node:path';
import { PathTraversalError, ToolExecutionError } from '../errors/errors.js';
import { isInside, type Workspace } from './workspace.js';

const CAN_CHECK_DESCRIPTORS = process.platform === 'linux';

async function checkDescriptor(workspace: Workspace, handle: fs.FileHandle, shown: string): Promise<void> {
  if (!CAN_CHECK_DESCRIPTORS) return;
  let real: string;
  try {
    real = await fs.realpath(`/proc/self/fd/${handle.fd}`);
  } catch {
    return; // /proc not mounted: the resolution check stands alone
  }
  if (!isInside(workspace.realRoot, real)) {
    throw new PathTraversalError(shown, workspace.realRoot, 'changed to lead outside the workspace while it was being opened');
  }
}

/** Resolve a path that must name a file (not end with a slash). */
function resolveFile(workspace: Workspace, input: string): string {
  const real = workspace.resolve(input);
  if (/[\\/]$/.test(input)) throw new ToolExecutionError(`${input} names a folder (it ends with a slash); give a file path.`);
  return real;
}

/**
 * Create the missing folders of `dir` one at a time, checking after each that the folder
 * created is inside the workspace (a link swapped in meanwhile would put it elsewhere; such a
 * folder is removed again, empty, and the write refused).
 */
async function mkdirInside(workspace: Workspace, dir: string, input: string): Promise<void> {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      await fs.lstat(existing);
      break;
    } catch {
      const up = path.dirname(existing);
      if (up === existing) break;
      missing.unshift(path.basename(existing));
      existing = up;
    }
  }
  let current = existing;
  for (const name of missing) {
    current = path.join(current, name);
    try {
      await fs.mkdir(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ToolExecutionError(`cannot create the folder of ${input} (${(error as NodeJS.ErrnoException).code})`);
      }
    }
    const real = await fs.realpath(current).catch(() => current);
    if (!isInside(workspace.realRoot, real)) {
      await fs.rmdir(real).catch(() => undefined);
      throw new PathTraversalError(input, workspace.realRoot, 'changed to lead outside the workspace while its folders were created');
    }
  }
  const real = await fs.realpath(dir).catch(() => dir);
  if (!isInside(workspace.realRoot, real)) {
    throw new PathTraversalError(input, workspace.realRoot, 'changed to lead outside the workspace while it was being written');
  }
}

/** What {@link readFileInside} returns. */
export interface ReadInside {
  /** The bytes read (at most `maxBytes`). */
  bytes: Uint8Array;
  /** Size of the whole file in bytes. */
  size: number;
}

/**
 * What {@link openFileInside} returns: a regular file inside the workspace, open for reading.
 * (Plain types only, so that a tool project needs no Node type declarations to use it.)
 */
export interface OpenInside {
  /** The real path resolved from the argument. */
  path: string;
  /** Size of the file in bytes when it was opened. */
  size: number;
  /** The open file descriptor (for `fstat`); close it with {@link OpenInside.close}, not directly. */
  fd: number;
  /**
   * Read up to `length` bytes at byte `position` of the file into `buffer` from `offset`;
   * `bytesRead` is 0 at the end of the file.
   */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  /** Close the file; call it once, when done. */
  close(): Promise<void>;
}

/** Open `input` as a regular file inside the workspace (the checks of {@link openFileInside}). */
async function openChecked(workspace: Workspace, input: string): Promise<{ handle: fs.FileHandle; size: number; real: string }> {
  const real = resolveFile(workspace, input);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolExecutionError(`${input} does not exist; use list_files to see what is there.`);
    if (code === 'ELOOP') throw new PathTraversalError(input, workspace.realRoot, 'changed into a symbolic link while it was being opened');
    if (code === 'EISDIR') throw new ToolExecutionError(`${input} is a folder; use list_files to see its contents.`);
    throw new ToolExecutionError(`cannot read ${input} (${code ?? (error as Error).message})`);
  }
  try {
    await checkDescriptor(workspace, handle, input);
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new ToolExecutionError(`${input} is a folder; use list_files to see its contents.`);
    if (!stat.isFile()) throw new ToolExecutionError(`${input} is not a regular file (a FIFO, socket or device); it cannot be read.`);
    return { handle, size: stat.size, real };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Open a regular file inside the workspace for reading, with the checks of
 * {@link readFileInside}, for tools that read it in pieces (streaming a hash, counting
 * lines). The caller must call `close()`.
 * @param input - the path argument as given.
 * @throws PathTraversalError when the path, or the file actually opened, is outside.
 * @throws ToolExecutionError when it is missing, a folder, or not a regular file (FIFOs and
 *   devices are refused without blocking).
 */
export async function openFileInside(workspace: Workspace, input: string): Promise<OpenInside> {
  const { handle, size, real } = await openChecked(workspace, input);
  return {
    path: real,
    size,
    fd: handle.fd,
    read: async (buffer, offset, length, position) => ({ bytesRead: (await handle.read(buffer, offset, length, position)).bytesRead }),
    close: () => handle.close(),
  };
}

/**
 * Read a regular file inside the workspace.
 * @param input - the path argument as given.
 * @param maxBytes - read at most this many bytes from the start (default: the whole file).
 * @throws PathTraversalError when the path, or the file actually opened, is outside.
 * @throws ToolExecutionError when it is missing, a folder, or not a regular file (FIFOs and
 *   devices are refused without blocking).
 */
export async function readFileInside(workspace: Workspace, input: string, maxBytes = Number.POSITIVE_INFINITY): Promise<ReadInside> {
  const { handle, size } = await openChecked(workspace, input);
  try {
    const want = Math.min(size, maxBytes);
    const bytes = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(bytes, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { bytes: got === want ? bytes : bytes.subarray(0, got), size };
  } finally {
    await handle.close();
  }
}

/** Options of {@link writeFileInside}. */
export interface WriteInsideOptions {
  /** Permission bits of the written file (for example `0o600`); default: those of the file replaced, else 0666 less the umask. */
  mode?: number;
}

/** What {@link writeFileInside} returns. */
export interface WriteInside {
  /** The real path written. */
  path: string;
  /** Whether a file was replaced. */
  overwrote: boolean;
  /** Bytes written. */
  bytes: number;
}

/**
 * Write a file inside the workspace atomically: a new temporary file in the same folder
 * (opened exclusively, never through a link), flushed to disk, then renamed over the target.
 * Missing parent folders are created. A replaced file keeps its permission bits, less setuid
 * and setgid (the new content is not the old owner's); a new file gets 0666 less the umask.
 * `options.mode` sets the permission bits instead (less setuid and setgid), from the moment
 * the temporary file exists, so a copy of a private file is never readable by others.
 *
 * On Linux every step is pinned to the folder itself: the folder is opened from the
 * workspace root one component at a time without following links (creating what is
 * missing), and the temporary file, the check of the target and the rename all go through
 * that open folder (`/proc/self/fd/N/name`), so swapping a folder for a link at any moment
 * cannot move the write. Elsewhere the path is checked before and after creating the
 * temporary file, and the rename goes by path.
 * @throws PathTraversalError when the path is outside, or changes to lead outside.
 * @throws ToolExecutionError when the target is a folder or not a regular file, or the write fails.
 */
export async function writeFileInside(workspace: Workspace, input: string, data: string | Uint8Array, options: WriteInsideOptions = {}): Promise<WriteInside> {
  const real = resolveFile(workspace, input);
  if (real === workspace.realRoot) throw new ToolExecutionError(`${input} is the workspace folder itself; give a file path.`);
  workspace.assertWritable(real, input);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const mode = options.mode === undefined ? undefined : replacementMode(options.mode);
  if (CAN_PIN_FOLDERS) return writePinned(workspace, input, real, bytes, mode);
  return writeByPath(workspace, input, real, bytes, mode);
}

const CAN_PIN_FOLDERS = CAN_CHECK_DESCRIPTORS && existsSync('/proc/self/fd');

/** The mode to give a replacement of a file with `mode`: permission bits, no setuid/setgid. */
function replacementMode(mode: number): number {
  return mode & 0o1777 & ~0o6000;
}

function describeExisting(stat: import('node:fs').Stats, input: string): number {
  if (stat.isDirectory()) throw new ToolExecutionError(`${input} is a folder; give a file path.`);
  if (stat.isSymbolicLink()) {
    throw new ToolExecutionError(`${input} became a symbolic link while it was being written; it is not replaced.`);
  }
  if (!stat.isFile()) throw new ToolExecutionError(`${input} exists and is not a regular file (a FIFO, socket or device); it is not replaced.`);
  return replacementMode(stat.mode);
}

/** Open `realDir` from the workspace root one component at a time, never through a link. */
async function openFolderPinned(workspace: Workspace, realDir: string, input: string): Promise<fs.FileHandle> {
  const rel = path.relative(workspace.realRoot, realDir);
  let handle = await fs.open(workspace.realRoot, C.O_RDONLY | C.O_DIRECTORY);
  try {
    for (const part of rel === '' ? [] : rel.split(path.sep)) {
      const at = `/proc/self/fd/${handle.fd}/${part}`;
      let next: fs.FileHandle;
      try {
        next = await fs.open(at, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          await fs.mkdir(at).catch((e: NodeJS.ErrnoException) => {
            if (e.code !== 'EEXIST') throw new ToolExecutionError(`cannot create the folder of ${input} (${e.code})`);
          });
          next = await fs.open(at, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW).catch((e: NodeJS.ErrnoException) => {
            throw folderError(e, workspace, input, at);
          });
        } else {
          throw folderError(error as NodeJS.ErrnoException, workspace, input, at);
        }
      }
      await handle.close();
      handle = next;
    }
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function folderError(error: NodeJS.ErrnoException, workspace: Workspace, input: string, at?: string): Error {
  if (error.code === 'ELOOP') return new PathTraversalError(input, workspace.realRoot, 'changed to go through a symbolic link while it was being written');
  if (error.code === 'ENOTDIR') {
    // O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR: a folder swapped for a link.
    let isLink = false;
    try {
      isLink = at !== undefined && lstatSync(at).isSymbolicLink();
    } catch {
      isLink = false;
    }
    if (isLink) return new PathTraversalError(input, workspace.realRoot, 'changed to go through a symbolic link while it was being written');
    return new ToolExecutionError(`a part of ${input} is a file, not a folder.`);
  }
  return new ToolExecutionError(`cannot write ${input} (${error.code ?? error.message})`);
}

function tempName(real: string): string {
  return `.${path.basename(real).slice(0, 100)}.${crypto.randomBytes(6).toString('hex')}.tmp`;
}

async function writePinned(workspace: Workspace, input: string, real: string, bytes: Uint8Array, wanted: number | undefined): Promise<WriteInside> {
  const folder = await openFolderPinned(workspace, path.dirname(real), input);
  const inFolder = (name: string) => `/proc/self/fd/${folder.fd}/${name}`;
  const name = path.basename(real);
  const temp = tempName(real);
  let created = false;
  let renamed = false;
  try {
    let existing: number | undefined;
    try {
      existing = describeExisting(await fs.lstat(inFolder(name)), input);
    } catch (error) {
      if (!(error as NodeJS.ErrnoException).code || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const mode = wanted ?? existing;
    const handle = await fs.open(inFolder(temp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode ?? 0o666).catch((e: NodeJS.ErrnoException) => {
      throw new ToolExecutionError(`cannot write ${input} (${e.code ?? e.message})`);
    });
    created = true;
    try {
      await handle.writeFile(bytes);
      if (mode !== undefined) await handle.chmod(mode).catch(() => undefined);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.rename(inFolder(temp), inFolder(name)).catch((e: NodeJS.ErrnoException) => {
      throw new ToolExecutionError(`cannot write ${input} (${e.code ?? e.message})`);
    });
    renamed = true;
    return { path: real, overwrote: existing !== undefined, bytes: bytes.length };
  } finally {
    if (created && !renamed) await fs.unlink(inFolder(temp)).catch(() => undefined);
    await folder.close().catch(() => undefined);
  }
}

async function writeByPath(workspace: Workspace, input: string, real: string, bytes: Uint8Array, wanted: number | undefined): Promise<WriteInside> {
  let existing: number | undefined;
  try {
    existing = describeExisting(await fs.lstat(real), input);
  } catch (error) {
    if (error instanceof ToolExecutionError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ToolExecutionError(`cannot write ${input} (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  const mode = wanted ?? existing;
  const dir = path.dirname(real);
  await mkdirInside(workspace, dir, input);
  const temp = path.join(dir, tempName(real));
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(temp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode ?? 0o666);
  } catch (error) {
    throw new ToolExecutionError(`cannot write ${input} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let renamed = false;
  try {
    try {
      await checkDescriptor(workspace, handle, input);
    } catch (error) {
      await handle.truncate(0).catch(() => undefined);
      throw error;
    }
    await handle.writeFile(bytes);
    if (mode !== undefined) await handle.chmod(mode).catch(() => undefined);
    await handle.datasync();
    await handle.close();
    await fs.rename(temp, real).catch((error: NodeJS.ErrnoException) => {
      throw new ToolExecutionError(`cannot write ${input} (${error.code ?? error.message})`);
    });
    renamed = true;
    return { path: real, overwrote: existing !== undefined, bytes: bytes.length };
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await fs.unlink(temp).catch(() => undefined);
    }
  }
}

