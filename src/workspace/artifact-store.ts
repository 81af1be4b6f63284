/**
 * The artifact store of a workspace: the files an agent made for the user, registered one by
 * one with `artifact_register` and bound to the turn that made them (seed
 * `004_1a9ea3106da7ef2e.txt`, "all agent-created user results use this explicit registration
 * contract"). Used by the `artifact` tools (through `toolgate/tool`) and by applications that
 * show them (the reader half: {@link listArtifacts}, {@link readArtifact}).
 *
 * Layout, inside the workspace:
 * - `.artifacts/staging/<turn key>/`: where a turn writes a file before registering it
 *   ({@link prepareStaging}); the turn key is the first 12 hex digits of the SHA-256 of the
 *   turn id.
 * - `.toolgate/artifacts/<id>/<name>`: the registered file, moved there (never copied or
 *   followed), and `.toolgate/artifacts/<id>/artifact.json`, its {@link ArtifactRecord},
 *   written last (an artifact without it does not exist). Ids look like `art_3f9a1c2b7d10e4f5`.
 *
 * Registration takes one regular file: a symbolic link, a folder, anything else, a file over
 * {@link MAX_ARTIFACT_BYTES}, or a store already holding {@link MAX_ARTIFACTS} artifacts is a
 * `ToolExecutionError` that changes nothing.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolExecutionError } from '../errors/errors.js';
import { pinFolder, type PinnedFile, type PinnedFolder } from './pinned-folder.js';
import { Workspace } from './workspace.js';

/** Folder of registered artifacts, relative to the workspace root. */
export const ARTIFACT_DIR = '.toolgate/artifacts';
/** Folder of the turns' staging folders, relative to the workspace root. */
export const ARTIFACT_STAGING_DIR = '.artifacts/staging';
/** Largest file registered, in bytes (64 MiB). */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;
/** Most artifacts one workspace's store holds. */
export const MAX_ARTIFACTS = 1000;

const RECORD_FILE = 'artifact.json';
const ID_PATTERN = /^art_[0-9a-f]{16}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** What is recorded about one registered artifact (`artifact.json`). */
export interface ArtifactRecord {
  /** `art_` and 16 hex digits. */
  id: string;
  /** The file's name in the store (its name when registered). */
  name: string;
  /** A title for the user, when the model gave one. */
  title?: string;
  /** The turn that registered it (an agent's turn id; `default` when the call had none). */
  turn: string;
  /** Size in bytes. */
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
  /** When it was registered (ISO 8601, UTC). */
  created: string;
  /** Where the file was before it was moved in (workspace-relative). */
  source: string;
}

function asWorkspace(workspace: Workspace | string): Workspace {
  return typeof workspace === 'string' ? new Workspace(workspace) : workspace;
}

/** The staging folder key of a turn: 12 hex digits of the SHA-256 of its id. */
function turnKey(turn: string): string {
  return crypto.createHash('sha256').update(turn, 'utf8').digest('hex').slice(0, 12);
}

/**
 * Make the turn's staging folder and name a path in it for a file called `name`.
 * @returns the workspace-relative path to write (`.artifacts/staging/<turn key>/<name>`; outside the protected `.toolgate`, so writing and registering it do not ask for that reason).
 * @throws ToolExecutionError for a name that is not a plain file name, or a staging folder that cannot be made.
 * @throws PathTraversalError when a folder on the way was replaced by a link leading outside.
 */
export async function prepareStaging(workspace: Workspace, turn: string, name: string): Promise<string> {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.includes('..')) {
    throw new ToolExecutionError(`${JSON.stringify(String(name).slice(0, 200))} is not a plain file name: use letters, digits, ".", "_" and "-" (at most 128 characters, no folders), such as "report.csv".`);
  }
  const rel = `${ARTIFACT_STAGING_DIR}/${turnKey(turn)}`;
  // Made one folder at a time, never through a link (a folder swapped for one meanwhile is refused).
  const { folder } = await pinFolder(workspace, workspace.resolve(rel), rel, {
    create: true, doing: 'made',
    failure: (error) => new ToolExecutionError(`cannot make the staging folder ${rel} (${error.code ?? error.message}).`),
  });
  await folder.close();
  return `${rel}/${name}`;
}

/** The ids in the store, sorted (those with a record file). */
async function ids(workspace: Workspace): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(workspace.resolve(ARTIFACT_DIR));
  } catch {
    return [];
  }
  return names.filter((n) => ID_PATTERN.test(n)).sort();
}

/** `ENOENT`-style code of an error, for messages. */
const codeOf = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? String(error);

/**
 * Move the regular file at `input` into the store and record it for `turn`.
 * @param input - the file, workspace-relative (or absolute inside the workspace).
 * @returns the record written.
 * @throws ToolExecutionError (nothing changed) when `input` does not exist, is a symbolic
 *   link, a folder or anything but a regular file, is over {@link MAX_ARTIFACT_BYTES}, is
 *   already in the store, or the store is full ({@link MAX_ARTIFACTS}).
 * @throws PathTraversalError / InvalidPathError for a path outside the workspace or malformed.
 */
export async function registerArtifact(workspace: Workspace, input: string, options: { turn: string; title?: string | undefined }): Promise<ArtifactRecord> {
  // Resolve the folder, not the file: a link named as the file is refused, never followed.
  const parent = workspace.resolve(path.dirname(input) || '.');
  const name = path.basename(input);
  const from = path.join(parent, name);
  const shown = workspace.relative(from);
  const storeRoot = workspace.resolve(ARTIFACT_DIR);
  if (from === storeRoot || from.startsWith(storeRoot + path.sep)) throw new ToolExecutionError(`${shown} is already in the artifact store; nothing was registered.`);
  // Both folders are held open (pinned) from here on: the file checked is the file moved, even
  // when a folder on either path is swapped for a link meanwhile.
  const source = (await pinFolder(workspace, parent, shown, {
    doing: 'registered',
    failure: (error) => new ToolExecutionError(error.code === 'ENOENT' ? `${shown} does not exist; write the file first (artifact_prepare names a path for it).` : `cannot read ${shown} (${error.code ?? error.message}).`),
  })).folder;
  try {
    return await moveIntoStore(workspace, source, name, shown, options);
  } finally {
    await source.close();
  }
}

/** {@link registerArtifact} once the file's folder is pinned. */
async function moveIntoStore(workspace: Workspace, source: PinnedFolder, name: string, shown: string, options: { turn: string; title?: string | undefined }): Promise<ArtifactRecord> {
  const stat = await source.lstat(name);
  if (stat === undefined) throw new ToolExecutionError(`${shown} does not exist; write the file first (artifact_prepare names a path for it).`);
  if (stat.isSymbolicLink()) throw new ToolExecutionError(`${shown} is a symbolic link; register the file itself, not a link to it. Nothing was registered.`);
  if (stat.isDirectory()) throw new ToolExecutionError(`${shown} is a folder; register one regular file (pack a folder into an archive first). Nothing was registered.`);
  if (!stat.isFile()) throw new ToolExecutionError(`${shown} is not a regular file; nothing was registered.`);
  if (stat.size > MAX_ARTIFACT_BYTES) throw new ToolExecutionError(`${shown} is ${stat.size} bytes, more than the ${MAX_ARTIFACT_BYTES} bytes an artifact may have; nothing was registered.`);
  if (!NAME_PATTERN.test(name)) throw new ToolExecutionError(`${JSON.stringify(name.slice(0, 200))} is not a plain file name (letters, digits, ".", "_" and "-"); rename the file first. Nothing was registered.`);
  if ((await ids(workspace)).length >= MAX_ARTIFACTS) throw new ToolExecutionError(`the artifact store already holds ${MAX_ARTIFACTS} artifacts; nothing was registered.`);
  const id = `art_${crypto.randomBytes(8).toString('hex')}`;
  const rel = `${ARTIFACT_DIR}/${id}`;
  const store = (await pinFolder(workspace, path.join(workspace.realRoot, ...rel.split('/')), rel, { create: true, doing: 'made' })).folder;
  try {
    try {
      await fs.rename(source.at(name), store.at(name));
    } catch (error) {
      throw new ToolExecutionError(`cannot move ${shown} into the artifact store (${codeOf(error)}); nothing was registered.`);
    }
    // What moved must be the file that was checked (not a link or folder swapped in since).
    const moved = await store.lstat(name);
    if (moved === undefined || !moved.isFile() || moved.ino !== stat.ino || moved.dev !== stat.dev) {
      await fs.rename(store.at(name), source.at(name)).catch(() => undefined);
      throw new ToolExecutionError(`${shown} changed while it was registered; nothing was registered.`);
    }
    const file = await store.openFile(name);
    let bytes: Uint8Array;
    try {
      bytes = await readAll(file, moved.size);
    } finally {
      await file.close();
    }
    const record: ArtifactRecord = {
      id, name, ...(options.title ? { title: options.title } : {}), turn: options.turn, size: bytes.length,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'), created: new Date().toISOString(), source: shown,
    };
    const out = await store.createFile(RECORD_FILE);
    try {
      await out.writeFile(JSON.stringify(record, null, 2) + '\n');
    } finally {
      await out.close();
    }
    return record;
  } catch (error) {
    // Nothing half-made is left: the id's folder goes (its file was moved back, or never came).
    await store.close();
    await removeStoreFolder(workspace, id);
    throw error;
  } finally {
    await store.close();
  }
}

/** Remove the store folder of `id` (after a failed registration), through the pinned store root. */
async function removeStoreFolder(workspace: Workspace, id: string): Promise<void> {
  try {
    const root = (await pinFolder(workspace, path.join(workspace.realRoot, ...ARTIFACT_DIR.split('/')), ARTIFACT_DIR)).folder;
    try {
      await fs.rm(root.at(id), { recursive: true, force: true });
    } finally {
      await root.close();
    }
  } catch {
    // the store root is gone or changed: nothing of ours to remove there
  }
}

function isRecord(value: unknown): value is ArtifactRecord {
  const v = value as ArtifactRecord;
  return v !== null && typeof v === 'object' && typeof v.id === 'string' && ID_PATTERN.test(v.id) && typeof v.name === 'string' && NAME_PATTERN.test(v.name)
    && typeof v.turn === 'string' && Number.isSafeInteger(v.size) && typeof v.sha256 === 'string' && typeof v.created === 'string';
}

/** The first `size` bytes of an open file (fewer when it is shorter). */
async function readAll(file: PinnedFile, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (let n = 1; n > 0 && at < size; at += n) n = (await file.read(bytes, at, size - at, at)).bytesRead;
  return bytes.subarray(0, at);
}

/**
 * The bytes of `name` in the store folder of `id`, reached through the pinned folder (never
 * through a link, the file opened checked inside the workspace), or `undefined` when it is not
 * a regular file or is over `maxBytes`, or cannot be read.
 */
async function readStored(workspace: Workspace, id: string, name: string, maxBytes: number): Promise<Uint8Array | undefined> {
  const rel = `${ARTIFACT_DIR}/${id}`;
  try {
    const { folder } = await pinFolder(workspace, workspace.resolve(rel), rel, { doing: 'read' });
    try {
      const file = await folder.openFile(name);
      try {
        const stat = await file.stat();
        if (!stat.isFile() || stat.size > maxBytes) return undefined;
        return await readAll(file, stat.size);
      } finally {
        await file.close();
      }
    } finally {
      await folder.close();
    }
  } catch {
    return undefined;
  }
}

/** The record of `id`, or `undefined` (unknown, malformed id, damaged record, or a record file that is a link). */
async function recordOf(workspace: Workspace, id: string): Promise<ArtifactRecord | undefined> {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return undefined;
  const bytes = await readStored(workspace, id, RECORD_FILE, 65_536);
  if (bytes === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return isRecord(parsed) && parsed.id === id ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The artifacts registered in a workspace, oldest first.
 * @param workspace - a workspace, or its root folder.
 * @param filter - `turn`: only those of this turn. Default: all.
 * @returns their records (damaged ones are left out); `[]` when there are none.
 */
export async function listArtifacts(workspace: Workspace | string, filter: { turn?: string } = {}): Promise<ArtifactRecord[]> {
  const ws = asWorkspace(workspace);
  const out: ArtifactRecord[] = [];
  for (const id of await ids(ws)) {
    const record = await recordOf(ws, id);
    if (record !== undefined && (filter.turn === undefined || record.turn === filter.turn)) out.push(record);
  }
  return out.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
}

/**
 * One artifact's record and bytes.
 * @param workspace - a workspace, or its root folder.
 * @returns `undefined` for an unknown or malformed id, or a stored file that is no longer a
 *   regular file inside the workspace of the recorded size.
 */
export async function readArtifact(workspace: Workspace | string, id: string): Promise<{ record: ArtifactRecord; bytes: Uint8Array } | undefined> {
  const ws = asWorkspace(workspace);
  const record = await recordOf(ws, id);
  if (record === undefined) return undefined;
  const bytes = await readStored(ws, id, record.name, record.size);
  return bytes !== undefined && bytes.length === record.size ? { record, bytes } : undefined;
}
