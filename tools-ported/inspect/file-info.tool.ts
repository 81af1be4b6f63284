import { fstatSync } from 'node:fs';
import path from 'node:path';
import { openFileInside, pinFolder, tool, ToolExecutionError, type FileStatus, type OpenInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { CheckedFolders, looksBinary, SNIFF_BYTES } from '../common/inspect-fs.js';

/** Arguments of file_info. */
export interface FileInfoInput {
  /**
   * Path of the file or folder, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
}

/** What file_info reports. */
export interface FileInfoOutput {
  /** The path, relative to the workspace root. */
  filepath: string;
  /** What the path is (after following a link inside the workspace). */
  type: 'file' | 'directory' | 'fifo' | 'socket' | 'character_device' | 'block_device' | 'other';
  /** Size in bytes. */
  size_bytes: number;
  /** Permission bits in octal, such as "0644". */
  permissions: string;
  /** Permission bits as ls shows them, such as "rw-r--r--". */
  permissions_text: string;
  /** Last change of the content (ISO 8601). */
  modified: string;
  /** Last read (ISO 8601; many systems update it lazily). */
  accessed: string;
  /** Last change of the content or the metadata (ISO 8601). */
  changed: string;
  /** Creation time (ISO 8601), when the file system records it. */
  created?: string;
  /** The link's text, when the path named is a symbolic link (its target is described). */
  link_target?: string;
  /** For files: true for text, false for binary (a NUL byte in the first 8 KiB). */
  text?: boolean;
  /** For text files: the number of lines (a final newline does not start a line). */
  line_count?: number;
  /** For folders: the number of entries. */
  entries?: number;
}

/**
 * Describe a file or folder: type, size in bytes, permissions, modification, access, change
 * and creation times, and for a text file its line count (for a folder, its number of
 * entries). Use it to check a file's size before reading it, or whether it changed; use
 * detect_file_type for the MIME type and encoding, and read_lines or read_file for content.
 */
@tool({ name: 'file_info', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class FileInfoTool implements Tool<FileInfoInput, FileInfoOutput> {
  run(args: FileInfoInput, ctx: ToolContext): Promise<FileInfoOutput> {
    return fileInfo(ctx.workspace, args.filepath, ctx.signal);
  }
}

/** "rwxr-x---" of a mode. */
export function permissionsText(mode: number): string {
  const bits = 'rwxrwxrwx';
  let out = '';
  for (let i = 0; i < 9; i++) out += mode & (0o400 >> i) ? bits[i] : '-';
  // setuid, setgid and sticky replace the execute letters, as ls shows them.
  const mark = (index: number, flag: number, on: string, off: string) => {
    if (mode & flag) out = out.slice(0, index) + (out[index] === 'x' ? on : off) + out.slice(index + 1);
  };
  mark(2, 0o4000, 's', 'S');
  mark(5, 0o2000, 's', 'S');
  mark(8, 0o1000, 't', 'T');
  return out;
}

function typeOf(stat: FileStatus): FileInfoOutput['type'] {
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'directory';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice()) return 'character_device';
  if (stat.isBlockDevice()) return 'block_device';
  return 'other';
}

/** Count the lines of an open file in chunks (a final newline does not start a line). */
async function countLines(file: OpenInside, signal?: AbortSignal): Promise<number> {
  const buffer = Buffer.alloc(1024 * 1024);
  let position = 0;
  let lines = 0;
  let last = -1;
  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let at = buffer.indexOf(10);
    while (at !== -1 && at < bytesRead) {
      lines++;
      at = buffer.indexOf(10, at + 1);
    }
    last = buffer[bytesRead - 1]!;
  }
  return last === -1 || last === 10 ? lines : lines + 1;
}

/**
 * Describe `filepath`. Its status is read through its pinned folder (`pinFolder`), files are
 * opened with the checks of `openFileInside` and folders are pinned themselves, so what is
 * described is what was checked; other kinds (FIFOs, sockets, devices) are described from
 * their status alone, never opened.
 * @throws PathTraversalError for a path outside the workspace (also through a link).
 * @throws ToolExecutionError when it does not exist.
 */
export async function fileInfo(workspace: Workspace, filepath: string, signal?: AbortSignal): Promise<FileInfoOutput> {
  const real = workspace.resolve(filepath);
  let linkTarget: string | undefined;
  const base = path.basename(filepath.replace(/[\\/]+$/, ''));
  if (base !== '' && base !== '.' && base !== '..' && real !== workspace.realRoot) {
    // Is the name itself a link? Look in its (checked) folder; its target is what `real` describes.
    const folders = new CheckedFolders(workspace, signal);
    try {
      const parent = workspace.resolve(path.dirname(path.isAbsolute(filepath) ? filepath : path.join(workspace.realRoot, filepath)));
      const entry = await folders.lstat(parent, base);
      // Only when that link is the path described (".." after a link climbs differently).
      if (entry?.kind === 'link' && workspace.resolve(path.join(parent, base)) === real) linkTarget = entry.target;
    } catch {
      linkTarget = undefined; // not worth failing the call over
    } finally {
      await folders.close();
    }
  }
  const first = await statPinned(workspace, real, filepath);
  const out = (stat: FileStatus): FileInfoOutput => ({
    filepath: workspace.relative(real),
    type: typeOf(stat),
    size_bytes: stat.size,
    permissions: `0${(stat.mode & 0o7777).toString(8).padStart(3, '0')}`,
    permissions_text: permissionsText(stat.mode),
    modified: stat.mtime.toISOString(),
    accessed: stat.atime.toISOString(),
    changed: stat.ctime.toISOString(),
    ...(stat.birthtimeMs > 0 ? { created: stat.birthtime.toISOString() } : {}),
    ...(linkTarget !== undefined ? { link_target: linkTarget } : {}),
  });
  if (first.isFile()) {
    const file = await openFileInside(workspace, filepath);
    try {
      const stat = fstatSync(file.fd); // the file opened and checked, not the path again
      const sniff = Buffer.alloc(Math.min(SNIFF_BYTES, file.size));
      await file.read(sniff, 0, sniff.length, 0);
      const text = !looksBinary(sniff);
      return { ...out(stat), text, ...(text ? { line_count: await countLines(file, signal) } : {}) };
    } finally {
      await file.close();
    }
  }
  if (first.isDirectory()) {
    const { folder } = await pinFolder(workspace, real, filepath, { doing: 'opened', failure: (e) => new ToolExecutionError(`cannot open ${filepath} (${e.code ?? e.message})`) });
    try {
      const stat = await folder.stat();
      let entries = 0;
      for await (const _ of await folder.openDir({ bufferSize: 256 })) {
        entries++;
        if (entries % 4096 === 0) signal?.throwIfAborted();
      }
      return { ...out(stat), entries };
    } finally {
      await folder.close();
    }
  }
  return out(first);
}

/**
 * The status of `real` (links already resolved by the workspace) read through its pinned
 * folder, never through a link swapped in on the way, so nothing outside is described.
 */
async function statPinned(workspace: Workspace, real: string, filepath: string): Promise<FileStatus> {
  const missing = () => new ToolExecutionError(`${filepath} does not exist; use tree or find_files to see what is there.`);
  if (real === workspace.realRoot) {
    const { folder } = await pinFolder(workspace, real, filepath, { doing: 'opened' });
    try {
      return await folder.stat();
    } finally {
      await folder.close();
    }
  }
  const { folder } = await pinFolder(workspace, path.dirname(real), filepath, { doing: 'opened', failure: missing });
  try {
    const stat = await folder.lstat(path.basename(real)).catch(() => undefined);
    if (stat === undefined) throw missing();
    return stat;
  } finally {
    await folder.close();
  }
}
