/**
 * File I/O that stays inside the workspace even when a path changes between the check and
 * the use (a folder swapped for a symbolic link by another process: cases P2 and P3).
 *
 * The path is resolved first ({@link Workspace.resolve}); its folder is then opened with
 * {@link pinFolder} (from the workspace root one component at a time, never through a link,
 * held open on Linux) and the file is reached through that folder without following a final
 * link; the opened descriptor's real path is checked against the workspace before a byte is
 * read. Writes go to a new temporary file in the pinned folder, then renamed over the target,
 * so a failed or refused write leaves nothing half-written. What the pinning guarantees on
 * systems without `/proc` is said in the notes of `pinned-folder.ts`.
 *
 * @module
 */
import { constants as C } from 'node:fs';
import path from 'node:path';
import { PathTraversalError, ToolExecutionError } from '../errors/errors.js';
import { pinFolder, throwIfStopped, type FileStatus, type PinnedFile, type WriteStop } from './pinned-folder.js';
import type { Workspace } from './workspace.js';

/** Resolve a path that must name a file (not end with a slash). */
function resolveFile(workspace: Workspace, input: string): string {
  const real = workspace.resolve(input);
  if (/[\\/]$/.test(input)) throw new ToolExecutionError(`${input} names a folder (it ends with a slash); give a file path.`);
  return real;
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
async function openChecked(workspace: Workspace, input: string, expectedPath?: string): Promise<{ handle: PinnedFile; size: number; real: string }> {
  const real = resolveFile(workspace, input);
  if (expectedPath !== undefined && real !== expectedPath) throw movedError(workspace, input, real);
  const isFolder = () => new ToolExecutionError(`${input} is a folder; use list_files to see its contents.`);
  if (real === workspace.realRoot) throw isFolder();
  const cannot = (code: string | undefined) => {
    if (code === 'ENOENT') return new ToolExecutionError(`${input} does not exist; use list_files to see what is there.`);
    if (code === 'EISDIR') return isFolder();
    return new ToolExecutionError(`cannot read ${input} (${code})`);
  };
  const { folder } = await pinFolder(workspace, path.dirname(real), input, { doing: 'opened', failure: (e) => cannot(e.code ?? e.message) });
  let handle: PinnedFile;
  try {
    handle = await folder.openFile(path.basename(real), C.O_RDONLY);
  } catch (error) {
    if (error instanceof PathTraversalError) throw error;
    throw cannot((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  } finally {
    await folder.close();
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw isFolder();
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
 * @param options - `expectedPath`: the real path the caller judged; when `input` now resolves
 *   elsewhere (a link put in place since), nothing is read (ToolExecutionError). The file is
 *   opened without following links, so what is read is that path's file.
 * @throws PathTraversalError when the path, or the file actually opened, is outside.
 * @throws ToolExecutionError when it is missing, a folder, or not a regular file (FIFOs and
 *   devices are refused without blocking).
 */
export async function readFileInside(workspace: Workspace, input: string, maxBytes = Number.POSITIVE_INFINITY, options: { expectedPath?: string } = {}): Promise<ReadInside> {
  const { handle, size } = await openChecked(workspace, input, options.expectedPath);
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
export interface WriteInsideOptions extends WriteStop {
  /** Permission bits of the written file (for example `0o600`); default: those of the file replaced, else 0666 less the umask. */
  mode?: number;
  /**
   * The real path the caller judged (for a path the deciders never saw: a snapshot's file):
   * when `input` now resolves to another path (a link put in place since), nothing is written
   * (ToolExecutionError). The folder is then opened without following links, so the write
   * lands on this path exactly.
   */
  expectedPath?: string;
}

/** Bytes written at a time, so that an abort or a deadline stops a large write between pieces. */
const WRITE_PIECE_BYTES = 1024 * 1024;

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
 * With `options.signal` or `options.deadline` (a tool passes `ctx.signal` and `ctx.deadline`),
 * the write stops when the signal aborts or the deadline passes, also in the middle (it is
 * written 1 MiB at a time): the temporary file is removed and the target is left as it was.
 *
 * Every step goes through the target's folder pinned with {@link pinFolder} (opened from the
 * workspace root one component at a time without following links, creating what is missing):
 * the temporary file, the check of the target and the rename, so on Linux swapping a folder
 * for a link at any moment cannot move the write. Elsewhere see the fallback of `pinFolder`.
 * @throws PathTraversalError when the path is outside, or changes to lead outside.
 * @throws ToolExecutionError when the target is a folder or not a regular file, the write
 *   fails, or it was stopped.
 */
export async function writeFileInside(workspace: Workspace, input: string, data: string | Uint8Array, options: WriteInsideOptions = {}): Promise<WriteInside> {
  const real = resolveFile(workspace, input);
  if (real === workspace.realRoot) throw new ToolExecutionError(`${input} is the workspace folder itself; give a file path.`);
  if (options.expectedPath !== undefined && real !== options.expectedPath) throw movedError(workspace, input, real);
  workspace.assertWritable(real, input);
  throwIfStopped(options, input);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const wanted = options.mode === undefined ? undefined : replacementMode(options.mode);
  const { folder } = await pinFolder(workspace, path.dirname(real), input, {
    create: true,
    doing: 'written',
    failure: (e) => new ToolExecutionError(e.code === 'ENOTDIR' ? `a part of ${input} is a file, not a folder.` : `cannot write ${input} (${e.code ?? e.message})`),
  });
  try {
    const name = path.basename(real);
    const found = await folder.lstat(name);
    const existing = found === undefined ? undefined : describeExisting(found, input);
    const stop = options.signal === undefined && options.deadline === undefined ? undefined : { signal: options.signal, deadline: options.deadline };
    const write = stop === undefined ? (file: PinnedFile) => file.writeFile(bytes) : (file: PinnedFile) => writePieces(file, bytes, stop, input);
    await folder.replaceFile(name, input, write, wanted ?? existing, stop);
    return { path: real, overwrote: existing !== undefined, bytes: bytes.length };
  } finally {
    await folder.close();
  }
}

/** The refusal of a path that resolves elsewhere than where its caller judged it. */
function movedError(workspace: Workspace, input: string, real: string): ToolExecutionError {
  return new ToolExecutionError(`${input} now leads to ${workspace.relative(real)}, not to the path that was checked (a link was put in place meanwhile); nothing was read or written there.`);
}

/** Write `bytes` from the file's current position a piece at a time, checking `stop` before each piece. */
async function writePieces(file: PinnedFile, bytes: Uint8Array, stop: WriteStop, input: string): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    throwIfStopped(stop, input);
    const { bytesWritten } = await file.write(bytes.subarray(at, Math.min(bytes.length, at + WRITE_PIECE_BYTES)));
    if (bytesWritten <= 0) throw new ToolExecutionError(`cannot write ${input} (the file system took no bytes)`);
    at += bytesWritten;
  }
}

/** The mode to give a replacement of a file with `mode`: permission bits, no setuid/setgid. */
function replacementMode(mode: number): number {
  return mode & 0o1777 & ~0o6000;
}

function describeExisting(stat: FileStatus, input: string): number {
  if (stat.isDirectory()) throw new ToolExecutionError(`${input} is a folder; give a file path.`);
  if (stat.isSymbolicLink()) {
    throw new ToolExecutionError(`${input} became a symbolic link while it was being written; it is not replaced.`);
  }
  if (!stat.isFile()) throw new ToolExecutionError(`${input} exists and is not a regular file (a FIFO, socket or device); it is not replaced.`);
  return replacementMode(stat.mode);
}
