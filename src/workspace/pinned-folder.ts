/**
 * Folder pinning: the one place that keeps file operations inside the workspace when a path
 * changes between the check and the use (a folder on the path swapped for a symbolic link by
 * another process: cases P2 and P3 of shared/cases/security.md). Every file tool reaches
 * folders through this module; nothing else opens `/proc/self/fd`.
 *
 * How (Linux with `/proc` mounted, see {@link CAN_PIN_FOLDERS}): a folder is opened from the
 * workspace root one component at a time, each with `O_DIRECTORY | O_NOFOLLOW` relative to the
 * folder opened before (through `/proc/self/fd/N/name`, Node having no `openat`), and the
 * descriptor finally held has its real path checked against the workspace. A name inside a
 * {@link PinnedFolder} is then always reached through that descriptor, so swapping any folder
 * on the path for a link, at any moment, cannot move the operation: a swapped component fails
 * the walk (PATH_TRAVERSAL), and a swap after the walk is not seen by the held folder.
 *
 * Fallback (other systems, or Linux without `/proc`): each component is looked at with
 * `lstat` and refused when it is a link, missing folders are created one at a time, the
 * folder's real path is checked, and the operations then go by path. This detects every link
 * that is in place when the folder is opened, but NOT one swapped in between that check and
 * a later use: on such systems a process that can change the workspace while a call runs can
 * still redirect it. The resolution check of {@link Workspace.resolve} applies on every system.
 *
 * @module
 */
import { constants as C, existsSync, lstatSync, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidPathError, PathTraversalError, ToolExecutionError } from '../errors/errors.js';
import { noteTemporaryFolder, temporaryName } from './temp-names.js';
import { isInside, type Workspace } from './workspace.js';

/**
 * Whether folders are pinned by descriptor on this system: Linux with `/proc/self/fd`. When
 * false, {@link pinFolder} uses the by-path fallback described in the module notes.
 */
export const CAN_PIN_FOLDERS: boolean = process.platform === 'linux' && existsSync('/proc/self/fd');

/** Flags of every folder opened on a pinned walk: a folder, never through a final link. */
const FOLDER_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/** A folder on the way to a path does not exist (the default report of {@link pinFolder} without `create`). */
export class FolderMissingError extends ToolExecutionError {}

/** An error of a file-system call: `code` is the errno name (`ENOENT`, `ENOTDIR`, ...). */
export type FileSystemError = Error & { code?: string };

/** What kind of file an entry or a status is (Node's `fs.Stats` and `fs.Dirent` have these methods). */
export interface FileKind {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

/**
 * The status of a file or folder, as `lstat`/`fstat` give it (Node's `fs.Stats` has this
 * shape). Plain types only, so that a tool project needs no Node type declarations.
 */
export interface FileStatus extends FileKind {
  /** Device and inode numbers: the same pair is the same file. */
  dev: number;
  ino: number;
  /** File type and permission bits. */
  mode: number;
  /** Size in bytes. */
  size: number;
  mtime: Date;
  atime: Date;
  ctime: Date;
  birthtime: Date;
  /** Creation time in epoch milliseconds; 0 when the file system does not record it. */
  birthtimeMs: number;
}

/** One entry of {@link PinnedFolder.openDir}: its name and kind (a link is never followed). */
export interface FolderDirent extends FileKind {
  name: string;
}

/**
 * A file opened through a {@link PinnedFolder} (Node's `FileHandle` has this shape; plain
 * types only). Close it once, when done.
 */
export interface PinnedFile {
  /** The open file descriptor (for `fstat`); close it with {@link PinnedFile.close}, not directly. */
  readonly fd: number;
  /** Read up to `length` bytes at byte `position` into `buffer` from `offset`; `bytesRead` is 0 at the end. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  /** The whole file as text. */
  readFile(encoding: 'utf8'): Promise<string>;
  /** Write `data` at the current position; `bytesWritten` may be fewer than asked. */
  write(data: Uint8Array): Promise<{ bytesWritten: number }>;
  /** Write `data` from the current position (the whole content of a new file). */
  writeFile(data: string | Uint8Array): Promise<void>;
  stat(): Promise<FileStatus>;
  chmod(mode: number): Promise<void>;
  /** Flush the content to disk. */
  datasync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * When a write gives up: {@link PinnedFolder.replaceFile} checks it before it creates the
 * temporary file and again before the rename, and the writers of `safe-io.ts` between pieces.
 * A tool passes `{ signal: ctx.signal, deadline: ctx.deadline }`.
 */
export interface WriteStop {
  /** Stop when this aborts. */
  signal?: AbortSignal;
  /** Stop once this time has passed (epoch milliseconds, as `ctx.deadline`). */
  deadline?: number;
}

/**
 * Throw when `stop` says to stop: its signal aborted, or its deadline passed.
 * @param input - the path argument as given, for the message.
 * @throws ToolExecutionError ("the write of X was stopped ...; nothing was written") with code
 *   `ABORTED` or `TIMEOUT`, which the result then carries.
 */
export function throwIfStopped(stop: WriteStop | undefined, input: string): void {
  if (stop === undefined) return;
  if (stop.signal?.aborted) throw new ToolExecutionError(`the write of ${input} was stopped (the call was aborted); nothing was written.`, 'ABORTED');
  if (stop.deadline !== undefined && Date.now() >= stop.deadline) {
    throw new ToolExecutionError(`the write of ${input} was stopped (the call ran out of time); nothing was written.`, 'TIMEOUT');
  }
}

/** Options of {@link pinFolder}. */
export interface PinFolderOptions {
  /** Create missing folders on the way (counted in `created`). Default: false. */
  create?: boolean;
  /**
   * What the caller was doing, for messages: "... while it was being {doing}" (for example
   * `written`, `read`, `listed`). Default: `used`.
   */
  doing?: string;
  /**
   * How a failure that is not a link is reported: a missing folder (`ENOENT`), a file in the
   * way (`ENOTDIR`), no permission (`EACCES`). Default: {@link FolderMissingError} for a missing
   * folder, else a ToolExecutionError ("a part of X is a file, not a folder.", "cannot reach X (code)").
   */
  failure?: (error: FileSystemError) => Error;
}

/**
 * A folder inside the workspace held open (Linux) so that names inside it are reached through
 * the folder itself, never through a path that could change. Made by {@link pinFolder};
 * close it with {@link PinnedFolder.close} (once, when done). Names are single path
 * components; `""`, `.`, `..` and names holding a separator or NUL are refused
 * (InvalidPathError); a backslash is an ordinary character of a name except on Windows.
 */
export interface PinnedFolder {
  /** The folder's real path as resolved (for results and messages; never use it to reach files). */
  readonly real: string;
  /** Whether the folder is held by a descriptor (false in the by-path fallback). */
  readonly pinned: boolean;
  /** A path that reaches the folder itself (`/proc/self/fd/N`, or the real path in the fallback). */
  readonly path: string;
  /** A path that reaches `name` inside this very folder. */
  at(name: string): string;
  /** The folder's own status (`fstat` of the held descriptor). */
  stat(): Promise<FileStatus>;
  /** What `name` is, without following a link; `undefined` when it does not exist. @throws ToolExecutionError for other failures. */
  lstat(name: string): Promise<FileStatus | undefined>;
  /** The text of the link `name`. */
  readlink(name: string): Promise<string>;
  /** The folder's entries, read through the held folder (iterate it to the end, or break out of the loop). */
  openDir(options?: { bufferSize?: number }): Promise<AsyncIterable<FolderDirent>>;
  /**
   * Open the existing file `name` without following a link (`O_NOFOLLOW`, and `O_NONBLOCK`
   * so a FIFO does not block); `flags` default to read-only. The descriptor's real path is
   * checked against the workspace.
   * @throws PathTraversalError when `name` is (or became) a link, or the file opened is outside.
   * @throws the raw `ENOENT`/`EISDIR`/... error otherwise, for the caller to word.
   */
  openFile(name: string, flags?: number): Promise<PinnedFile>;
  /**
   * Create the new file `name` (`O_CREAT | O_EXCL | O_NOFOLLOW`, write-only) with permission
   * bits `mode` (less the umask). Fails with the raw `EEXIST` when the name is taken, also by a link.
   */
  createFile(name: string, mode?: number): Promise<PinnedFile>;
  /**
   * Open the subfolder `name` of this folder, never through a link, as a new pinned folder
   * (close both). @throws PathTraversalError when it is a link; the `failure` report otherwise.
   */
  openFolder(name: string, options?: Omit<PinFolderOptions, 'create'>): Promise<PinnedFolder>;
  /**
   * Replace (or create) `name` atomically: a new temporary file in this folder (created
   * exclusively, never through a link, named `.NAME.tg-<pid>-<threadId>.<hex>.tmp` after its
   * owner) is filled by `write`, flushed to disk and renamed over `name`; on any failure the
   * temporary file is removed and `name` is untouched. With `stop`, a write whose signal
   * aborted or whose deadline passed is not renamed into place (checked before the temporary
   * file is made and before the rename; `write` checks it between pieces with
   * {@link throwIfStopped}). The folder is noted in the owner's journal first, so that what a
   * killed thread or process leaves is found and removed (see `leftovers.ts`).
   * @param input - the path argument as given, for messages ("cannot write X (code)").
   * @param mode - permission bits for the file, applied from its creation (and again with
   *   `chmod`, past the umask); default 0666 less the umask.
   */
  replaceFile(name: string, input: string, write: (file: PinnedFile) => Promise<void>, mode?: number, stop?: WriteStop): Promise<void>;
  /**
   * Create a new private folder (0700) in this folder, for work that is moved into place when
   * complete (an extraction, say): named after its owner like the temporary files of
   * {@link PinnedFolder.replaceFile} (`.NAME.tg-<pid>-<threadId>.<hex>.tmp`) and noted in the
   * owner's journal first, so that if the thread or process is killed the folder is removed
   * with what it holds (see `leftovers.ts`). Move it into place or remove it when done.
   * @returns its name in this folder.
   */
  makeTemporaryFolder(name: string): Promise<string>;
  /** Release the folder (safe to call more than once). */
  close(): Promise<void>;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The default report of a failure that is not a link. */
function defaultFailure(input: string): (error: FileSystemError) => Error {
  return (error) => {
    if (error.code === 'ENOENT') return new FolderMissingError(`${input} does not exist (its folder is missing); use list_files to see what is there.`);
    if (error.code === 'ENOTDIR') return new ToolExecutionError(`a part of ${input} is a file, not a folder.`);
    return new ToolExecutionError(`cannot reach ${input} (${error.code ?? error.message})`);
  };
}

function swapped(workspace: Workspace, input: string, doing: string): PathTraversalError {
  return new PathTraversalError(input, workspace.realRoot, `changed to go through a symbolic link while it was being ${doing}`);
}

/** Is the real path of open descriptor `fd` inside the workspace? `undefined` when `/proc` cannot tell. */
async function descriptorInside(workspace: Workspace, fd: number): Promise<boolean | undefined> {
  if (process.platform !== 'linux') return undefined;
  let real: string;
  try {
    real = await fs.realpath(`/proc/self/fd/${fd}`);
  } catch {
    return undefined; // /proc not mounted: the other checks stand alone
  }
  return isInside(workspace.realRoot, real);
}

/**
 * Check that what descriptor `fd` has open is inside the workspace, by its real path read back
 * through `/proc/self/fd` (Linux). Elsewhere, or without `/proc`, it does nothing.
 * @param input - the path argument as given, for the message.
 * @param doing - what was being done ("opened"), for the message.
 * @throws PathTraversalError when it is outside.
 */
export async function checkDescriptorInside(workspace: Workspace, fd: number, input: string, doing = 'opened'): Promise<void> {
  if ((await descriptorInside(workspace, fd)) === false) {
    throw new PathTraversalError(input, workspace.realRoot, `changed to lead outside the workspace while it was being ${doing}`);
  }
}

/** What may not appear in one name: a separator (a backslash is one only on Windows) or NUL. */
const NOT_IN_A_NAME = process.platform === 'win32' ? /[\\/\0]/ : /[/\0]/;

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || NOT_IN_A_NAME.test(name)) {
    throw new InvalidPathError(name, 'is not a single name inside a folder');
  }
}

/**
 * Open the folder `realDir` (a real path inside the workspace, as {@link Workspace.resolve}
 * returns) from the workspace root one component at a time, never through a symbolic link.
 *
 * On Linux with `/proc` the folder stays pinned: every later operation on the returned
 * {@link PinnedFolder} goes through its descriptor. Elsewhere see the fallback in the module
 * notes (each component checked with `lstat`, then operations by path).
 *
 * @param input - the path argument as given, for messages.
 * @returns the folder and how many folders were created on the way (only with `create`).
 * @throws PathTraversalError (code `PATH_TRAVERSAL`) when `realDir` is outside the root, a
 *   component is (or became) a symbolic link, or the folder opened is outside.
 * @throws InvalidPathError when the workspace root does not exist, or `realDir` is not absolute.
 * @throws what `options.failure` makes for a missing folder (without `create`), a file in the
 *   way, or another failure (default: {@link FolderMissingError} / ToolExecutionError).
 */
export async function pinFolder(workspace: Workspace, realDir: string, input: string, options: PinFolderOptions = {}): Promise<{ folder: PinnedFolder; created: number }> {
  return openFolderInside(workspace, realDir, input, options, CAN_PIN_FOLDERS);
}

/**
 * The fallback of {@link pinFolder} on its own (what runs where folders cannot be pinned),
 * so that its checks are tested on Linux too. Weaker than `pinFolder`: see the module notes.
 * @internal not exported from `toolgate` or `toolgate/tool`; use {@link pinFolder}.
 */
export function pinFolderByPath(workspace: Workspace, realDir: string, input: string, options: PinFolderOptions = {}): Promise<{ folder: PinnedFolder; created: number }> {
  return openFolderInside(workspace, realDir, input, options, false);
}

async function openFolderInside(workspace: Workspace, realDir: string, input: string, options: PinFolderOptions, pin: boolean): Promise<{ folder: PinnedFolder; created: number }> {
  const root = workspace.realRoot;
  if (!path.isAbsolute(realDir)) throw new InvalidPathError(realDir, 'pinFolder needs a real path, as Workspace.resolve returns');
  if (!isInside(root, realDir)) throw new PathTraversalError(input, root);
  const rel = path.relative(root, realDir);
  const parts = rel === '' ? [] : rel.split(path.sep);
  const doing = options.doing ?? 'used';
  const failure = options.failure ?? defaultFailure(input);
  const ctx: Walk = { workspace, input, doing, failure, create: options.create === true, created: 0 };
  if (!pin) return { folder: await walkByPath(ctx, realDir, parts), created: ctx.created };
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(root, FOLDER_FLAGS);
  } catch (error) {
    throw walkError(ctx, error, root);
  }
  try {
    for (const part of parts) {
      const next = await openStep(ctx, `/proc/self/fd/${handle.fd}/${part}`);
      await handle.close();
      handle = next;
    }
    if ((await descriptorInside(workspace, handle.fd)) === false) {
      throw new PathTraversalError(input, root, `changed to lead outside the workspace while it was being ${doing}`);
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return { folder: new HeldFolder(ctx, realDir, handle), created: ctx.created };
}

/** What one walk needs to open, create and word its errors. */
interface Walk {
  workspace: Workspace;
  input: string;
  doing: string;
  failure: (error: FileSystemError) => Error;
  create: boolean;
  created: number;
}

/** Open the folder at `at` (a `/proc/self/fd/N/name` path), creating it when asked. */
async function openStep(ctx: Walk, at: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(at, FOLDER_FLAGS);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT' || !ctx.create) throw walkError(ctx, error, at);
  }
  await fs.mkdir(at).then(
    () => ctx.created++,
    (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw new ToolExecutionError(`cannot create the folder of ${ctx.input} (${e.code ?? e.message})`);
    },
  );
  try {
    return await fs.open(at, FOLDER_FLAGS);
  } catch (error) {
    throw walkError(ctx, error, at);
  }
}

/** The error for a failed open of folder `at`: a link is a traversal, the rest the caller's report. */
function walkError(ctx: Walk, error: unknown, at: string): Error {
  const code = errnoOf(error);
  if (code === 'ELOOP') return swapped(ctx.workspace, ctx.input, ctx.doing);
  if (code === 'ENOTDIR') {
    // O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR: a folder swapped for a link.
    let isLink = false;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      isLink = false;
    }
    if (isLink) return swapped(ctx.workspace, ctx.input, ctx.doing);
  }
  return ctx.failure(error as NodeJS.ErrnoException);
}

/** The fallback walk: each component looked at with lstat, links refused, missing folders made. */
async function walkByPath(ctx: Walk, realDir: string, parts: readonly string[]): Promise<PinnedFolder> {
  let current = ctx.workspace.realRoot;
  for (const part of parts) {
    current = path.join(current, part);
    let stat: Stats | undefined;
    try {
      stat = await fs.lstat(current);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT' || !ctx.create) throw ctx.failure(error as NodeJS.ErrnoException);
    }
    if (stat === undefined) {
      await fs.mkdir(current).then(
        () => ctx.created++,
        (e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw new ToolExecutionError(`cannot create the folder of ${ctx.input} (${e.code ?? e.message})`);
        },
      );
      stat = await fs.lstat(current).catch((e: NodeJS.ErrnoException) => {
        throw ctx.failure(e);
      });
    }
    if (stat.isSymbolicLink()) throw swapped(ctx.workspace, ctx.input, ctx.doing);
    if (!stat.isDirectory()) throw ctx.failure(Object.assign(new Error(`ENOTDIR: not a directory, ${current}`), { code: 'ENOTDIR' }));
  }
  const real = await fs.realpath(realDir).catch(() => realDir);
  if (!isInside(ctx.workspace.realRoot, real)) {
    throw new PathTraversalError(ctx.input, ctx.workspace.realRoot, `changed to lead outside the workspace while it was being ${ctx.doing}`);
  }
  return new ByPathFolder(ctx, realDir);
}

/** What both kinds of folder share: everything goes through {@link PinnedFolder.at}. */
abstract class FolderBase implements PinnedFolder {
  abstract readonly pinned: boolean;
  abstract readonly path: string;
  constructor(
    protected readonly ctx: Walk,
    readonly real: string,
  ) {}

  at(name: string): string {
    checkName(name);
    return `${this.path}/${name}`;
  }

  abstract stat(): Promise<FileStatus>;
  abstract close(): Promise<void>;

  async lstat(name: string): Promise<FileStatus | undefined> {
    try {
      return await fs.lstat(this.at(name));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      if (error instanceof InvalidPathError) throw error;
      throw new ToolExecutionError(`cannot look at ${name} (${errnoOf(error) ?? (error as Error).message})`);
    }
  }

  readlink(name: string): Promise<string> {
    return fs.readlink(this.at(name));
  }

  openDir(options: { bufferSize?: number } = {}): Promise<AsyncIterable<FolderDirent>> {
    return fs.opendir(this.path, { bufferSize: options.bufferSize ?? 256 });
  }

  async openFile(name: string, flags: number = C.O_RDONLY): Promise<PinnedFile> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.at(name), flags | C.O_NOFOLLOW | C.O_NONBLOCK);
    } catch (error) {
      if (errnoOf(error) === 'ELOOP') {
        throw new PathTraversalError(this.ctx.input, this.ctx.workspace.realRoot, `changed into a symbolic link while it was being ${this.ctx.doing}`);
      }
      throw error;
    }
    try {
      await checkDescriptorInside(this.ctx.workspace, handle.fd, this.ctx.input, this.ctx.doing);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  createFile(name: string, mode = 0o666): Promise<PinnedFile> {
    return fs.open(this.at(name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode);
  }

  async openFolder(name: string, options: Omit<PinFolderOptions, 'create'> = {}): Promise<PinnedFolder> {
    const real = path.join(this.real, name);
    const input = this.ctx.input;
    const ctx: Walk = { ...this.ctx, doing: options.doing ?? this.ctx.doing, failure: options.failure ?? this.ctx.failure, create: false, created: 0 };
    if (!this.pinned) return walkByPath(ctx, real, path.relative(this.ctx.workspace.realRoot, real).split(path.sep));
    const handle = await openStep(ctx, this.at(name));
    try {
      if ((await descriptorInside(ctx.workspace, handle.fd)) === false) {
        throw new PathTraversalError(input, ctx.workspace.realRoot, `changed to lead outside the workspace while it was being ${ctx.doing}`);
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    return new HeldFolder(ctx, real, handle);
  }

  async makeTemporaryFolder(name: string): Promise<string> {
    checkName(name);
    const temp = temporaryName(name);
    await noteTemporaryFolder(this.ctx.workspace.realRoot, this.real);
    await fs.mkdir(this.at(temp), { mode: 0o700 });
    return temp;
  }

  async replaceFile(name: string, input: string, write: (file: PinnedFile) => Promise<void>, mode?: number, stop?: WriteStop): Promise<void> {
    checkName(name);
    throwIfStopped(stop, input);
    const temp = temporaryName(name);
    await noteTemporaryFolder(this.ctx.workspace.realRoot, this.real);
    const cannot = (e: NodeJS.ErrnoException) => new ToolExecutionError(`cannot write ${input} (${e.code ?? e.message})`);
    const handle = await this.createFile(temp, mode ?? 0o666).catch((e: NodeJS.ErrnoException) => {
      throw cannot(e);
    });
    let renamed = false;
    try {
      try {
        // Fallback only: the temporary file's folder may have been swapped since the walk.
        if (!this.pinned) await checkDescriptorInside(this.ctx.workspace, handle.fd, input, 'written');
        await write(handle);
        if (mode !== undefined) await handle.chmod(mode).catch(() => undefined);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      throwIfStopped(stop, input);
      await fs.rename(this.at(temp), this.at(name)).catch((e: NodeJS.ErrnoException) => {
        throw cannot(e);
      });
      renamed = true;
    } finally {
      if (!renamed) await fs.unlink(this.at(temp)).catch(() => undefined);
    }
  }
}

/** A folder held by its descriptor (Linux with /proc). */
class HeldFolder extends FolderBase {
  readonly pinned = true;
  readonly path: string;
  private closed = false;
  constructor(
    ctx: Walk,
    real: string,
    private readonly handle: fs.FileHandle,
  ) {
    super(ctx, real);
    this.path = `/proc/self/fd/${handle.fd}`;
  }

  stat(): Promise<Stats> {
    return this.handle.stat();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close().catch(() => undefined);
  }
}

/** The fallback: a folder reached by its real path (see the module notes for what this leaves open). */
class ByPathFolder extends FolderBase {
  readonly pinned = false;
  readonly path: string;
  constructor(ctx: Walk, real: string) {
    super(ctx, real);
    this.path = real;
  }

  override at(name: string): string {
    checkName(name);
    return path.join(this.real, name);
  }

  stat(): Promise<Stats> {
    return fs.lstat(this.real);
  }

  async close(): Promise<void> {
    /* nothing held */
  }
}
