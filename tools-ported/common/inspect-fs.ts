/**
 * File-system helpers of the inspect/ tools: folders opened and checked inside the workspace,
 * bounded folder listings that never follow a link, binary sniffing, and a streaming line
 * reader. Plain functions and one class; importing this module does nothing by itself.
 *
 * @module
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pinFolder, ToolExecutionError, type FileStatus, type FolderDirent, type OpenInside, type PinnedFolder, type Workspace } from '../../src/tool.js';

/** Folders tree, grep_files and find_files skip unless asked (`include_ignored`). */
export const IGNORED_FOLDERS: readonly string[] = ['.git', 'node_modules'];

/** Bytes sniffed at the start of a file to tell text from binary. */
export const SNIFF_BYTES = 8192;

/** What kind of entry a folder holds (symbolic links are never followed). */
export type EntryKind = 'file' | 'directory' | 'link' | 'other';

/** One entry of a folder. */
export interface FolderEntry {
  name: string;
  kind: EntryKind;
}

/** A name as shown: quoted JSON when it holds control or line-separator characters. */
export function shownName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name) ? JSON.stringify(name) : name;
}

/** Does `bytes` start with a UTF-16 or UTF-32 byte-order mark (text that holds NUL bytes)? */
function hasWideBom(bytes: Uint8Array): boolean {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe) return true; // UTF-16LE, and UTF-32LE (FF FE 00 00)
  if (a === 0xfe && b === 0xff) return true; // UTF-16BE
  return a === 0x00 && b === 0x00 && c === 0xfe && d === 0xff; // UTF-32BE
}

/**
 * Does the start of a file look binary? A NUL byte in the first {@link SNIFF_BYTES} bytes
 * says so (as git and grep decide), unless a UTF-16/32 byte-order mark explains it.
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (hasWideBom(sample)) return false;
  return sample.subarray(0, SNIFF_BYTES).includes(0);
}

/**
 * Resolve a folder argument and check that it is a folder.
 * @returns its real path.
 * @throws PathTraversalError when it is outside the workspace.
 * @throws ToolExecutionError when it is missing or not a folder.
 */
export async function resolveFolder(workspace: Workspace, directory: string, fileHint: string): Promise<{ real: string; stat: Stats }> {
  const real = workspace.resolve(directory);
  let stat: Stats;
  try {
    stat = await fs.stat(real);
  } catch {
    throw new ToolExecutionError(`${directory} does not exist; use list_files or tree to see what is there.`);
  }
  if (!stat.isDirectory()) throw new ToolExecutionError(`${directory} is not a folder; ${fileHint}`);
  return { real, stat };
}

function kindOf(entry: FolderDirent | FileStatus): EntryKind | undefined {
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) return 'other';
  return undefined; // the file system did not say (DT_UNKNOWN)
}

/**
 * Folders pinned inside the workspace with `pinFolder` (src/workspace/pinned-folder.ts:
 * opened from the root one component at a time, never through a link); everything read of a
 * folder (its names, an entry's status, a link's text) goes through the pinned folder, so a
 * folder swapped for a link to the outside during a walk shows nothing of the outside (it is
 * left out, as a folder that cannot be opened). One pinned folder per folder at a time;
 * {@link close} releases them.
 */
export class CheckedFolders {
  private readonly open = new Map<string, PinnedFolder | null>();

  /**
   * @param signal - the call's signal, handed to the walk for other names of withheld files
   *   (`Workspace.withholds`): an abort ends it within one batch.
   */
  constructor(
    private readonly workspace: Workspace,
    private readonly signal?: AbortSignal,
  ) {}

  /** The pinned folder at absolute path `dir`, or `null` when it is outside, gone, or not a folder. */
  private async folder(dir: string): Promise<PinnedFolder | null> {
    if (this.open.has(dir)) return this.open.get(dir)!;
    let folder: PinnedFolder | null = null;
    try {
      folder = (await pinFolder(this.workspace, this.workspace.resolve(dir), dir, { doing: 'read' })).folder;
    } catch {
      folder = null; // outside (PathTraversalError), gone, or a link
    }
    this.open.set(dir, folder);
    return folder;
  }

  /** lstat `name` in folder `dir` (and read its link text), or `undefined` when not shown. */
  async lstat(dir: string, name: string): Promise<{ stat: Stats; kind: EntryKind; target?: string } | undefined> {
    const folder = await this.folder(dir);
    if (folder === null) return undefined;
    try {
      const stat = await fs.lstat(folder.at(name));
      const kind = kindOf(stat) ?? 'other';
      return { stat, kind, target: kind === 'link' ? await folder.readlink(name).catch(() => '?') : undefined };
    } catch {
      return undefined;
    }
  }

  /**
   * The entries of folder `dir` (sorted by name), reading at most `maxNames` of them and
   * counting the rest, without those the call's path rules withhold (`Workspace.withholds`); `undefined` when the folder is outside or cannot be opened. The folder
   * is closed again afterwards (a walk visits each folder once).
   */
  async list(dir: string, maxNames: number): Promise<{ entries: FolderEntry[]; total: number } | undefined> {
    const folder = await this.folder(dir);
    if (folder === null) return undefined;
    const entries: FolderEntry[] = [];
    let total = 0;
    try {
      const opened = await folder.openDir({ bufferSize: 256 });
      for await (const dirent of opened) {
        if (entries.length < maxNames && (await this.workspace.withholds(path.join(dir, dirent.name), this.signal))) continue; // the policy's path rules withhold it
        total++;
        if (entries.length >= maxNames) continue;
        let kind = kindOf(dirent);
        if (kind === undefined) {
          const stat = await fs.lstat(folder.at(dirent.name)).catch(() => undefined);
          kind = (stat && kindOf(stat)) ?? 'other';
        }
        entries.push({ name: dirent.name, kind });
      }
    } catch {
      return undefined;
    } finally {
      await this.release(dir);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries, total };
  }

  private async release(dir: string): Promise<void> {
    const folder = this.open.get(dir);
    this.open.delete(dir);
    await folder?.close();
  }

  /** Close every open folder. */
  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((f) => f?.close()));
    this.open.clear();
  }
}

/** One line of a text file from {@link readLines}. */
export interface TextLine {
  /** The line without its end (`\n` or `\r\n`), cut at `maxLineChars`. */
  text: string;
  /** Characters cut from the end of the line (0 when it is whole). */
  cut: number;
}

/**
 * The lines of an open file, read in chunks and decoded as UTF-8 (invalid bytes become
 * U+FFFD), without holding more than one chunk and one line (cut at `maxLineChars`) in
 * memory. A final line end does not start another line.
 */
export async function* readLines(file: Pick<OpenInside, 'read'>, options: { maxLineChars: number; chunkBytes?: number; signal?: AbortSignal }): AsyncGenerator<TextLine> {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
  const buffer = Buffer.alloc(options.chunkBytes ?? 64 * 1024);
  let position = 0;
  let current = '';
  let cut = 0;
  const take = (piece: string) => {
    const room = options.maxLineChars - current.length;
    if (piece.length <= room) current += piece;
    else {
      current += piece.slice(0, Math.max(0, room));
      cut += piece.length - Math.max(0, room);
    }
  };
  const finish = (): TextLine => {
    let text = current;
    if (cut === 0 && text.endsWith('\r')) text = text.slice(0, -1);
    const line = { text, cut };
    current = '';
    cut = 0;
    return line;
  };
  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    position += bytesRead;
    const chunk = bytesRead === 0 ? decoder.decode() : decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      take(chunk.slice(start, nl));
      start = nl + 1;
      yield finish();
    }
    take(chunk.slice(start));
    if (bytesRead === 0) break;
  }
  if (current.length > 0 || cut > 0) yield finish();
}
