/**
 * A workspace skill's folder read once into memory: every entry's bytes (files) or target
 * (symbolic links), and the content digest of exactly those bytes. The skill is then parsed
 * from the snapshot (`readSkill` with it), never from the disk again, so what is trusted (the
 * digest the user pinned) is what was read and what is used: a folder changed while it is read
 * cannot have one content digested and another loaded.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One entry of a snapshot, by its path relative to the folder (`/` separated). */
type SnapshotEntry =
  | { readonly type: 'file'; readonly bytes: Buffer }
  | { readonly type: 'link'; readonly target: string }
  | { readonly type: 'other' };

/** A skill folder as read once. */
export interface SkillSnapshot {
  /** Every entry below the folder (folders themselves are not entries), in digest order. */
  readonly entries: ReadonlyMap<string, SnapshotEntry>;
  /** The content digest of {@link entries}: `sha256:` and 64 hex digits (see {@link snapshotSkillFolder}). */
  readonly digest: string;
}

/** Bounds of a snapshot: a bigger skill folder cannot be pinned (the SDK's skills limits). */
export const SNAPSHOT_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/**
 * Read a skill folder once. The digest is `sha256:` and the SHA-256 of one line per entry, in
 * path order, depth first (`f <path> <sha256 of its bytes>` for a file, `l <path> <target>` for a
 * symbolic link, `o <path>` for anything else; dot files included): any change to any file (a
 * new one, a removed one, a script edited) changes it.
 * @returns the snapshot, or `undefined` when the folder cannot be read or exceeds
 *   {@link SNAPSHOT_LIMITS} (512 entries, 16 MiB).
 */
export function snapshotSkillFolder(folder: string): SkillSnapshot | undefined {
  const entries = new Map<string, SnapshotEntry>();
  const lines: string[] = [];
  let bytes = 0;
  const walk = (rel: string): boolean => {
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(path.join(folder, rel), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const full = path.join(folder, name);
      if (lines.length >= SNAPSHOT_LIMITS.files) return false;
      if (entry.isDirectory()) {
        if (!walk(name)) return false;
      } else if (entry.isSymbolicLink()) {
        const target = fs.readlinkSync(full);
        entries.set(name, { type: 'link', target });
        lines.push(`l ${name} ${target}`);
      } else if (entry.isFile()) {
        // O_NOFOLLOW: a file swapped for a link after the listing is not followed out of the folder.
        const data = readNoFollow(full);
        bytes += data.length;
        if (bytes > SNAPSHOT_LIMITS.bytes) return false;
        entries.set(name, { type: 'file', bytes: data });
        lines.push(`f ${name} ${crypto.createHash('sha256').update(data).digest('hex')}`);
      } else {
        entries.set(name, { type: 'other' });
        lines.push(`o ${name}`);
      }
    }
    return true;
  };
  try {
    if (!walk('')) return undefined;
  } catch {
    return undefined;
  }
  return { entries, digest: `sha256:${crypto.createHash('sha256').update(lines.join('\n')).digest('hex')}` };
}

/** A regular file's bytes, refusing to follow a symbolic link at its place or to read anything else (throws). */
function readNoFollow(file: string): Buffer {
  // O_NONBLOCK: a FIFO swapped in after the listing does not hang the read (it is refused below).
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${file} is no longer a regular file`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
