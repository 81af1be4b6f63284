/**
 * Reading zip and tar.gz archives entry by entry, through well-kept libraries that have no
 * file-system side effects of their own: `yauzl` for zip (lazy entries, checks that every
 * entry's real size matches its declared size) and `tar-stream` behind `node:zlib` for tar.gz
 * (pax and GNU long names). Each entry becomes one {@link ArchiveEntry} shape for both formats,
 * so the extraction policy ({@link ./archive-policy.ts}) and the writer live in one place and
 * the libraries never write a file.
 *
 * Chosen over node-tar and adm-zip because those extract to disk themselves (with their own
 * rules for links and names, and adm-zip with a history of path-traversal fixes); here the
 * libraries only parse, and what is written where is decided by our policy.
 *
 * @module
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tarStream from 'tar-stream';
import yauzl from 'yauzl';
import { readFileInside, ToolExecutionError, type Workspace } from '../../src/tool.js';

/** Archive formats the archive tools read and write. */
export type ArchiveFormat = 'zip' | 'tar.gz';

/** What an entry is. `other` covers devices, FIFOs and anything else that is never extracted. */
export type ArchiveEntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

/** One entry of an archive, as stored (the name is not yet checked). */
export interface ArchiveEntry {
  /** Name as stored in the archive (`/` separators; a directory's trailing `/` removed). */
  name: string;
  kind: ArchiveEntryKind;
  /** Declared size of the content in bytes (0 for directories and links). */
  size: number;
  /** Unix permission bits as stored (0 when the archive has none). */
  mode: number;
  /** Target of a link: a symbolic link's text, or a hard link's entry name. */
  linkTarget?: string;
  /** The format's own name of the type, for `other` entries (`character-device`, `fifo`...). */
  rawType?: string;
}

/** Longest symbolic link target read from a zip entry's content, in bytes. */
const MAX_LINK_TARGET_BYTES = 4096;

/**
 * Called once per entry, in archive order. `body` opens the entry's content (files only);
 * an entry whose body is not read is skipped.
 */
export type EntryVisitor = (entry: ArchiveEntry, body: (() => Promise<AsyncIterable<Buffer>>) | undefined) => Promise<void>;

/**
 * The format of archive bytes, from their magic numbers (zip: `PK\x03\x04`, or `PK\x05\x06`
 * for an empty zip; gzip: `1f 8b`), or `undefined` when neither.
 */
function sniffFormat(bytes: Uint8Array): ArchiveFormat | undefined {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))) return 'zip';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  return undefined;
}

/**
 * Visit every entry of an archive held in memory.
 * @throws ToolExecutionError when the archive is damaged or not of the format given.
 */
export async function readArchive(bytes: Buffer, format: ArchiveFormat, visit: EntryVisitor, label: string): Promise<void> {
  if (format === 'zip') await readZip(bytes, visit, label);
  else await readTarGz(bytes, visit, label);
}

function damaged(label: string, format: ArchiveFormat, error: unknown): ToolExecutionError {
  if (error instanceof ToolExecutionError) return error;
  const message = (error as Error)?.message ?? String(error);
  return new ToolExecutionError(`${label} is not a readable ${format} archive (${message}).`, 'TOOL_ERROR', { cause: error });
}

// ------------------------------------------------------------------------------------------- tar
const TAR_KINDS: Record<string, ArchiveEntryKind> = {
  file: 'file',
  'contiguous-file': 'file',
  directory: 'directory',
  symlink: 'symlink',
  link: 'hardlink',
};

async function readTarGz(bytes: Buffer, visit: EntryVisitor, label: string): Promise<void> {
  const extract = tarStream.extract();
  const gunzip = zlib.createGunzip();
  const failure: { error?: unknown } = {};
  gunzip.on('error', (error) => {
    failure.error = error;
    extract.destroy(error);
  });
  Readable.from([bytes]).pipe(gunzip).pipe(extract);
  try {
    for await (const stream of extract) {
      const header = stream.header;
      const kind = TAR_KINDS[header.type ?? 'file'] ?? 'other';
      const entry: ArchiveEntry = {
        name: kind === 'directory' ? header.name.replace(/\/+$/, '') : header.name,
        kind,
        size: kind === 'file' ? (header.size ?? 0) : 0,
        mode: (header.mode ?? 0) & 0o7777,
      };
      if (kind === 'symlink' || kind === 'hardlink') entry.linkTarget = header.linkname ?? '';
      if (kind === 'other') entry.rawType = header.type ?? 'unknown';
      // An entry's content that the visitor does not read is drained by the iterator.
      await visit(entry, kind === 'file' ? async () => stream as AsyncIterable<Buffer> : undefined);
    }
  } catch (error) {
    throw damaged(label, 'tar.gz', failure.error ?? error);
  } finally {
    gunzip.destroy();
    extract.destroy();
  }
}

// ------------------------------------------------------------------------------------------- zip
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function openZip(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
}

function zipKind(entry: yauzl.Entry): { kind: ArchiveEntryKind; mode: number; rawType?: string } {
  const unix = (entry.externalFileAttributes >>> 16) & 0xffff;
  const type = unix & S_IFMT;
  const mode = unix & 0o7777;
  if (entry.fileName.endsWith('/') || type === S_IFDIR) return { kind: 'directory', mode };
  if (type === S_IFLNK) return { kind: 'symlink', mode };
  if (type === 0 || type === S_IFREG) return { kind: 'file', mode };
  return { kind: 'other', mode, rawType: `unix type 0o${type.toString(8)}` };
}

async function readStreamText(stream: AsyncIterable<Buffer> & { destroy(): void }, limit: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      stream.destroy();
      throw new ToolExecutionError(`${what} is longer than ${limit} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readZip(bytes: Buffer, visit: EntryVisitor, label: string): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(bytes);
  } catch (error) {
    throw damaged(label, 'zip', error);
  }
  const openStream = (entry: yauzl.Entry) =>
    new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(damaged(label, 'zip', error)) : resolve(stream))));
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        reject(error);
      };
      zip.on('error', (error) => fail(rejectedName(error) ?? damaged(label, 'zip', error)));
      zip.on('end', () => resolve());
      zip.on('entry', (raw: yauzl.Entry) => {
        void (async () => {
          const { kind, mode, rawType } = zipKind(raw);
          const entry: ArchiveEntry = { name: kind === 'directory' ? raw.fileName.replace(/\/+$/, '') : raw.fileName, kind, size: kind === 'file' ? raw.uncompressedSize : 0, mode };
          if (rawType !== undefined) entry.rawType = rawType;
          if (kind === 'symlink') {
            if (raw.uncompressedSize > MAX_LINK_TARGET_BYTES) throw new ToolExecutionError(`the link entry ${JSON.stringify(raw.fileName)} of ${label} has a target longer than ${MAX_LINK_TARGET_BYTES} bytes.`);
            entry.linkTarget = await readStreamText(await openStream(raw), MAX_LINK_TARGET_BYTES, `the target of ${raw.fileName}`);
          }
          await visit(entry, kind === 'file' ? () => openStream(raw) : undefined);
          if (!failed) zip.readEntry();
        })().catch(fail);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

/**
 * yauzl refuses absolute and `..` names itself (when it decodes names); report those as the
 * policy would (case P7), not as a damaged archive.
 */
function rejectedName(error: unknown): ToolExecutionError | undefined {
  const message = (error as Error)?.message ?? '';
  const match = /^(absolute path|invalid relative path): (.*)$/s.exec(message);
  if (match === null) return undefined;
  return new ToolExecutionError(
    `the archive entry ${JSON.stringify(match[2]!.slice(0, 300))} ${match[1] === 'absolute path' ? 'has an absolute name' : 'climbs out of the target folder with ".."'}; the archive is refused and nothing was extracted.`,
  );
}

/** Largest archive file the archive tools read, in bytes (256 MiB). */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

/**
 * Read an archive file of the workspace and tell its format from its first bytes.
 * @throws PathTraversalError for a path outside the workspace.
 * @throws ToolExecutionError when it is missing, larger than {@link MAX_ARCHIVE_BYTES}, or
 *   neither a zip nor a gzip file.
 */
export async function loadArchive(workspace: Workspace, filepath: string): Promise<{ bytes: Buffer; format: ArchiveFormat; path: string }> {
  const real = workspace.resolve(filepath);
  const { bytes, size } = await readFileInside(workspace, filepath, MAX_ARCHIVE_BYTES + 1);
  if (size > MAX_ARCHIVE_BYTES) throw new ToolExecutionError(`${filepath} is ${size} bytes; archives up to ${MAX_ARCHIVE_BYTES} bytes are read.`);
  const format = sniffFormat(bytes);
  if (format === undefined) throw new ToolExecutionError(`${filepath} is neither a zip nor a tar.gz archive (its first bytes are not a zip or gzip signature).`);
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), format, path: real };
}
