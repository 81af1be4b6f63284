/**
 * The snapshot store: copies of workspace files kept under `.toolgate/snapshots/` in the
 * workspace, so that an agent can undo its own edits.
 *
 * Layout: one folder per file, named by the first 12 hex digits of the SHA-256 of the file's
 * workspace-relative path (the file's key); in it, for snapshot number N of that file,
 * `N.bin` (the bytes, exactly) and `N.json` (the metadata, written last: a snapshot without
 * it does not exist). A snapshot's id is `<key>-<N>`, e.g. `3f9a1c2b7d10-4`: short, stable,
 * and ordered per file. At most {@link MAX_SNAPSHOTS_PER_FILE} are kept per file (the oldest
 * go first). Every read and write goes through the workspace's safe I/O, so a store folder
 * replaced by a link that leads outside is refused like any other path, and every write is
 * atomic. Numbers are not reserved: two snapshots of one file taken at the same instant may
 * get the same number (the later write wins; both hold that file's bytes of that instant).
 * Plain functions, no side effects at import.
 *
 * @module
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { FolderMissingError, pinFolder, readFileInside, ToolExecutionError, writeFileInside, type PinnedFolder, type Workspace } from '../../src/tool.js';
import { deleteFileInside, statInside } from './fs-inside.js';

/** Folder of the store, relative to the workspace root. */
const SNAPSHOT_DIR = '.toolgate/snapshots';
/** Snapshots kept per file; older ones are removed when a new one is taken. */
export const MAX_SNAPSHOTS_PER_FILE = 20;
/** Largest file snapshotted, in bytes (64 MiB). */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** What is recorded about one snapshot (`N.json`). */
export interface SnapshotMeta {
  /** `<key>-<N>`. */
  id: string;
  /** The file's path relative to the workspace root when the snapshot was taken. */
  path: string;
  /** When it was taken (ISO 8601, UTC). */
  created: string;
  /** Size in bytes. */
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
}

const ID_PATTERN = /^([0-9a-f]{12})-([1-9][0-9]{0,8})$/;

/** The key (store folder name) of a workspace-relative path. */
export function keyOf(relativePath: string): string {
  return crypto.createHash('sha256').update(relativePath, 'utf8').digest('hex').slice(0, 12);
}

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** Split a snapshot id into key and number. @throws ToolExecutionError for a malformed id. */
export function parseSnapshotId(id: string): { key: string; seq: number } {
  const m = ID_PATTERN.exec(id.trim());
  if (!m) throw new ToolExecutionError(`${JSON.stringify(id)} is not a snapshot id (ids look like "3f9a1c2b7d10-4"); use list_snapshots to see them.`);
  return { key: m[1]!, seq: Number(m[2]) };
}

/** Is the workspace-relative path inside the store's own folder? */
function isInStore(relativePath: string): boolean {
  return relativePath === '.toolgate' || relativePath.startsWith('.toolgate/');
}

function isMeta(value: unknown): value is SnapshotMeta {
  const v = value as SnapshotMeta;
  return (
    v !== null && typeof v === 'object' && typeof v.id === 'string' && ID_PATTERN.test(v.id) && typeof v.path === 'string' &&
    typeof v.created === 'string' && Number.isSafeInteger(v.size) && typeof v.sha256 === 'string' && /^[0-9a-f]{64}$/.test(v.sha256)
  );
}

/**
 * The names in the store folder `dir` (workspace-relative), read through the folder pinned
 * with `pinFolder`, so a folder of the store swapped for a link lists nothing of the outside;
 * `undefined` when the folder does not exist (or a part of it is a file).
 */
async function namesIn(workspace: Workspace, dir: string, failed: (code: string | undefined) => Error): Promise<string[] | undefined> {
  let folder: PinnedFolder;
  try {
    ({ folder } = await pinFolder(workspace, workspace.resolve(dir), dir, {
      doing: 'read',
      failure: (e) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? new FolderMissingError(dir) : failed(e.code)),
    }));
  } catch (error) {
    if (error instanceof FolderMissingError) return undefined;
    throw error;
  }
  try {
    const names: string[] = [];
    for await (const entry of await folder.openDir()) names.push(entry.name);
    return names;
  } catch (error) {
    throw failed((error as NodeJS.ErrnoException).code);
  } finally {
    await folder.close();
  }
}

/** Snapshot numbers present in a key's folder (those with metadata), ascending. */
async function numbersOf(workspace: Workspace, key: string): Promise<number[]> {
  const dir = `${SNAPSHOT_DIR}/${key}`;
  const names = await namesIn(workspace, dir, (code) => new ToolExecutionError(`cannot read the snapshot store (${code})`));
  if (names === undefined) return [];
  return names.map((n) => /^([1-9][0-9]{0,8})\.json$/.exec(n)?.[1]).filter((n): n is string => n !== undefined).map(Number).sort((a, b) => a - b);
}

/**
 * Read one snapshot's metadata.
 * @throws ToolExecutionError when it does not exist or is damaged.
 */
export async function readMeta(workspace: Workspace, key: string, seq: number): Promise<SnapshotMeta> {
  const id = `${key}-${seq}`;
  let bytes: Uint8Array;
  try {
    ({ bytes } = await readFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${seq}.json`, 65536));
  } catch (error) {
    if (error instanceof ToolExecutionError) throw new ToolExecutionError(`there is no snapshot ${id}; use list_snapshots to see the snapshots kept.`);
    throw error;
  }
  let meta: unknown;
  try {
    meta = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    meta = undefined;
  }
  if (!isMeta(meta) || meta.id !== id || keyOf(meta.path) !== key) throw new ToolExecutionError(`the metadata of snapshot ${id} is damaged; it cannot be used.`);
  return meta;
}

/** Every snapshot of the store (or of one file's key), newest first. Damaged entries are skipped. */
export async function listMetas(workspace: Workspace, onlyKey?: string): Promise<SnapshotMeta[]> {
  let keys: string[];
  if (onlyKey !== undefined) keys = [onlyKey];
  else {
    const names = await namesIn(workspace, SNAPSHOT_DIR, (code) => new ToolExecutionError(`cannot read the snapshot store (${code})`));
    if (names === undefined) return [];
    keys = names.filter((n) => /^[0-9a-f]{12}$/.test(n));
  }
  const metas: SnapshotMeta[] = [];
  for (const key of keys) {
    for (const seq of await numbersOf(workspace, key)) {
      try {
        metas.push(await readMeta(workspace, key, seq));
      } catch (error) {
        if (!(error instanceof ToolExecutionError)) throw error;
      }
    }
  }
  return metas.sort((a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id, 'en', { numeric: true }));
}

/**
 * The bytes of a snapshot, checked against its recorded size and SHA-256.
 * @throws ToolExecutionError when they are missing or do not match (a damaged snapshot is never restored).
 */
export async function readSnapshotBytes(workspace: Workspace, meta: SnapshotMeta): Promise<Uint8Array> {
  const { key, seq } = parseSnapshotId(meta.id);
  let bytes: Uint8Array;
  try {
    ({ bytes } = await readFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${seq}.bin`, MAX_SNAPSHOT_BYTES + 1));
  } catch (error) {
    if (error instanceof ToolExecutionError) throw new ToolExecutionError(`the content of snapshot ${meta.id} is missing; it cannot be restored.`);
    throw error;
  }
  if (bytes.length !== meta.size || sha256(bytes) !== meta.sha256) {
    throw new ToolExecutionError(`the content of snapshot ${meta.id} does not match its recorded SHA-256 (it was changed or damaged); it cannot be restored.`);
  }
  return bytes;
}

/** What {@link takeSnapshot} did. */
export interface Taken {
  meta: SnapshotMeta;
  /** False when the newest snapshot of the file already held these bytes (it is returned instead). */
  created: boolean;
  /** Ids removed to stay within {@link MAX_SNAPSHOTS_PER_FILE}. */
  pruned: string[];
}

/**
 * Snapshot the bytes `bytes` of the file at workspace-relative `relativePath`.
 * @param keep - an id never pruned by this call (the snapshot being restored).
 */
export async function storeSnapshot(workspace: Workspace, relativePath: string, bytes: Uint8Array, keep?: string): Promise<Taken> {
  const key = keyOf(relativePath);
  const numbers = await numbersOf(workspace, key);
  const digest = sha256(bytes);
  const newest = numbers.at(-1);
  if (newest !== undefined) {
    const last = await readMeta(workspace, key, newest).catch(() => undefined);
    if (last !== undefined && last.sha256 === digest && last.size === bytes.length && last.path === relativePath) return { meta: last, created: false, pruned: [] };
  }
  await ensureIgnored(workspace);
  const seq = (newest ?? 0) + 1;
  const meta: SnapshotMeta = { id: `${key}-${seq}`, path: relativePath, created: new Date().toISOString(), size: bytes.length, sha256: digest };
  await writeFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${seq}.bin`, bytes);
  await writeFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${seq}.json`, `${JSON.stringify(meta, null, 2)}\n`);
  const pruned: string[] = [];
  const all = [...numbers, seq];
  const excess = all.length - MAX_SNAPSHOTS_PER_FILE;
  for (const old of all.filter((n) => `${key}-${n}` !== keep).slice(0, Math.max(0, excess))) {
    // Metadata first: a snapshot without it no longer exists, even if its bytes stay behind.
    await deleteFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${old}.json`).catch(() => undefined);
    await deleteFileInside(workspace, `${SNAPSHOT_DIR}/${key}/${old}.bin`).catch(() => undefined);
    pruned.push(`${key}-${old}`);
  }
  return { meta, created: true, pruned };
}

/** Keep the store out of version control: `.toolgate/.gitignore` holding `*`, written once. */
async function ensureIgnored(workspace: Workspace): Promise<void> {
  const ignore = '.toolgate/.gitignore';
  const real = workspace.resolve(ignore);
  if ((await statInside(workspace, real, ignore)) === undefined) await writeFileInside(workspace, ignore, '# snapshots of toolgate edit tools\n*\n');
}

/** The workspace-relative path of a file argument, refusing the store itself. */
export function snapshotPathOf(workspace: Workspace, filepath: string): { real: string; relative: string } {
  const real = workspace.resolve(filepath);
  const relative = workspace.relative(real);
  if (relative === '.') throw new ToolExecutionError(`${filepath} is the workspace folder itself; give a file path.`);
  if (isInStore(relative)) throw new ToolExecutionError(`${filepath} is inside the snapshot store (${path.posix.dirname(SNAPSHOT_DIR)}/); snapshots of snapshots are not taken.`);
  return { real, relative };
}
