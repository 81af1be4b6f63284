/**
 * The files a call's path rules withhold, by identity (device and inode) rather than by name,
 * for {@link Workspace.withholds}: a hard link (`ln .env notes.txt`, `sub/hl` beside
 * `secrets/key.txt`) is the same file under another name, so a folder-walking tool that met
 * `notes.txt` would otherwise show `.env`'s content (case P9's family: the deciders judge a
 * path argument's other names, `judged-paths.ts`; this is the same rule for what a tool finds
 * by itself).
 *
 * Built once per call, when the first file with more than one link is judged: a walk of the
 * workspace (links not followed) noting each file that the rules withhold by its own path and
 * that has more than one link. The walk reads each folder asynchronously, a batch of entries
 * at a time, so the event loop runs between batches (other calls, timers, an abort). A walk
 * that cannot tell (cut short at {@link MAX_INDEXED_ENTRIES} entries, or a folder that could
 * not be read) is incomplete, and every file with more than one link then counts as withheld
 * (fail closed).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** Most entries the walk visits before it gives up and withholds every multi-link file. */
export const MAX_INDEXED_ENTRIES = 1_000_000;

/** Entries read from a folder at a time (one turn of the event loop each). */
const BATCH = 256;

/** What {@link withheldInodes} found. */
export interface WithheldInodes {
  /** `dev:ino` of each withheld file that has other names. */
  readonly keys: ReadonlySet<string>;
  /** True when the walk was cut short or a folder could not be read: every multi-link file counts as withheld. */
  readonly incomplete: boolean;
}

/** The identity key of a stat. */
export function inodeKey(stat: fs.Stats): string {
  return `${stat.dev}:${stat.ino}`;
}

/**
 * Walk `realRoot` and collect the identities of the files `withheld` (by their
 * workspace-relative, `/`-separated path) says yes to, among those with more than one link.
 * A folder removed while the walk runs is skipped; one that cannot be read (EACCES, ...)
 * makes the answer incomplete.
 * @param limit - most entries visited (default {@link MAX_INDEXED_ENTRIES}).
 * @throws the signal's reason when `signal` aborts.
 */
export async function withheldInodes(realRoot: string, withheld: (relative: string) => boolean, signal?: AbortSignal, limit = MAX_INDEXED_ENTRIES): Promise<WithheldInodes> {
  const keys = new Set<string>();
  let left = limit;
  const pending: string[] = [''];
  while (pending.length > 0) {
    signal?.throwIfAborted();
    const rel = pending.pop()!;
    try {
      const dir = await fs.promises.opendir(rel === '' ? realRoot : path.join(realRoot, rel), { bufferSize: BATCH });
      for await (const d of dir) {
        if (--left < 0) return { keys, incomplete: true };
        const sub = rel === '' ? d.name : `${rel}/${d.name}`;
        if (d.isDirectory()) pending.push(sub);
        else if (d.isFile() && withheld(sub)) {
          const stat = await fs.promises.lstat(path.join(realRoot, sub)).catch(() => undefined); // gone meanwhile
          if (stat !== undefined && stat.nlink > 1) keys.add(inodeKey(stat));
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile
      return { keys, incomplete: true };
    }
  }
  return { keys, incomplete: false };
}
