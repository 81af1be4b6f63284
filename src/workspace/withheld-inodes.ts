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
 * that has more than one link ({@link withheldInodes}). The walk reads each folder
 * asynchronously, {@link WALK_BATCH} entries at a time, so the event loop runs between
 * batches (other calls, timers, an abort), and it looks at its signal before every entry, so
 * an abort ends it within one batch, in a folder of any size.
 *
 * A walk that cannot see everything is incomplete: cut short at {@link MAX_INDEXED_ENTRIES}
 * entries, or a folder it could not read (the walk goes on past that folder, so every
 * withheld file it can reach is still found). What it did not see may hold a withheld file
 * whose other name is the file asked about, so a file with more than one link that was not
 * found withheld is then shown only when every one of its names was seen, and none is
 * withheld: a second walk over the same entries counts the names of each multi-link file
 * ({@link countNames}), and a file whose link count is higher than the names counted keeps a
 * name the walks did not see (in the unread folder, past the bound, or outside the workspace)
 * and stays withheld (fail closed). docs/sandbox.md has the reasoning.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** Most entries a walk visits before it stops (and the answer is incomplete). */
export const MAX_INDEXED_ENTRIES = 1_000_000;

/** Entries read from a folder at a time (one turn of the event loop each); an abort lands within one batch. */
export const WALK_BATCH = 256;

/** What {@link withheldInodes} found. */
export interface WithheldInodes {
  /** `dev:ino` of each withheld file with other names that the walk reached. */
  readonly keys: ReadonlySet<string>;
  /**
   * True when the walk was cut short or a folder could not be read: a withheld file may lie
   * where it did not look, so a multi-link file not in {@link keys} is shown only when
   * {@link countNames} accounts for every one of its names.
   */
  readonly incomplete: boolean;
}

/** The identity key of a stat. */
export function inodeKey(stat: fs.Stats | fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}`;
}

/**
 * Walk `realRoot` and collect the identities of the files `withheld` (by their
 * workspace-relative, `/`-separated path) says yes to, among those with more than one link.
 * A folder removed while the walk runs is skipped; one that cannot be read (EACCES, ...)
 * makes the answer incomplete, and the walk goes on with the others.
 * @param limit - most entries visited (default {@link MAX_INDEXED_ENTRIES}).
 * @throws the signal's reason when `signal` aborts (looked at before every entry).
 */
export async function withheldInodes(realRoot: string, withheld: (relative: string) => boolean, signal?: AbortSignal, limit = MAX_INDEXED_ENTRIES): Promise<WithheldInodes> {
  const keys = new Set<string>();
  const note = async (sub: string): Promise<void> => {
    const stat = await fs.promises.lstat(path.join(realRoot, sub)).catch(() => undefined); // gone meanwhile
    if (stat !== undefined && stat.nlink > 1) keys.add(inodeKey(stat));
  };
  const complete = await walkFiles(realRoot, signal, limit, (sub) => (withheld(sub) ? note(sub) : undefined));
  return { keys, incomplete: !complete };
}

/** What {@link countNames} found: the names of each multi-link file seen in the walked part of the workspace. */
export interface NameCounts {
  /**
   * Whether every name of the file `stat` describes was seen, and none is withheld: the names
   * counted reach its link count now and the highest link count seen while counting. False
   * (not proven) for a file the walk did not meet, one with a withheld name, or one with a
   * name the walk could not see (a folder it could not read, past its bound, outside the
   * workspace).
   * @param stat - the file's stat with `bigint: true` (exact inode numbers: a rounded one could
   *   add another file's names to its count).
   */
  accountsFor(stat: fs.BigIntStats): boolean;
}

/** Names seen of one multi-link file, and the highest link count they showed. */
interface Seen {
  names: number;
  nlink: bigint;
}

/**
 * Walk `realRoot` as {@link withheldInodes} does (the same entries, the same bound) and count
 * the names of each file with more than one link. Made only when that walk was incomplete
 * and a multi-link file it did not find withheld is judged. Each file is stat'ed
 * synchronously (a round trip through libuv's thread pool per entry costs more than the
 * system call); the event loop still turns once per batch.
 * @param limit - most entries visited (default {@link MAX_INDEXED_ENTRIES}).
 * @throws the signal's reason when `signal` aborts (looked at before every entry).
 */
export async function countNames(realRoot: string, withheld: (relative: string) => boolean, signal?: AbortSignal, limit = MAX_INDEXED_ENTRIES): Promise<NameCounts> {
  const seen = new Map<string, Seen>();
  const denied = new Set<string>();
  await walkFiles(realRoot, signal, limit, (sub): undefined => {
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.lstatSync(path.join(realRoot, sub), { bigint: true, throwIfNoEntry: false });
    } catch {
      stat = undefined; // unreadable meanwhile: its names stay uncounted (not proven)
    }
    if (stat === undefined || stat.nlink < 2n) return;
    const key = inodeKey(stat);
    // A withheld name found now (one the first walk could not read, or made since) proves the opposite.
    if (withheld(sub)) {
      denied.add(key);
      return;
    }
    const known = seen.get(key);
    if (known === undefined) seen.set(key, { names: 1, nlink: stat.nlink });
    else {
      known.names++;
      if (stat.nlink > known.nlink) known.nlink = stat.nlink;
    }
  });
  return {
    accountsFor(stat) {
      const key = inodeKey(stat);
      if (denied.has(key)) return false;
      const known = seen.get(key);
      return known !== undefined && BigInt(known.names) >= known.nlink && BigInt(known.names) >= stat.nlink;
    },
  };
}

/** What {@link withheldCovers} found. */
export interface WithheldCovers {
  /**
   * Workspace-relative, `/`-separated paths to cover: each entry the rules withhold that no
   * other one holds (a folder whole), then each other name (hard link) of a withheld file.
   */
  readonly paths: readonly string[];
  /** False when something went unseen: past the bound, or a folder that could not be read. */
  readonly complete: boolean;
}

/**
 * What a sandbox must cover for a shell command, whose reads cannot be judged one by one
 * (`grep -r KEY`): every entry below `realRoot` (links not followed: a withheld link is listed
 * by its own name, and the sandbox hides where it leads) that `withheld` says yes to, topmost only (a withheld folder is covered whole, its entries still walked for their
 * links), and every other name of a withheld file with more than one link. The second walk, for
 * those other names, runs only when a withheld file has more than one link. Each walk visits at
 * most `limit` entries; what it did not see makes the answer incomplete (the caller refuses to
 * run the command rather than leave a withheld path uncovered).
 * @param limit - most entries visited per walk (default {@link MAX_INDEXED_ENTRIES}).
 * @param beforeRead - called with each folder's workspace-relative path (`''` for the root)
 *   just before the first walk opens it (`cover-snapshots.ts` stamps the folder there).
 * @throws the signal's reason when `signal` aborts (looked at before every entry).
 */
export async function withheldCovers(realRoot: string, withheld: (relative: string) => boolean, signal?: AbortSignal, limit = MAX_INDEXED_ENTRIES, beforeRead?: (relative: string) => void): Promise<WithheldCovers> {
  const paths: string[] = [];
  const covered = new Set<string>();
  const underCover = (sub: string): boolean => {
    for (let cut = sub.lastIndexOf('/'); cut > 0; cut = sub.lastIndexOf('/', cut - 1)) if (covered.has(sub.slice(0, cut))) return true;
    return false;
  };
  const cover = (sub: string): void => {
    covered.add(sub);
    paths.push(sub);
  };
  const keys = new Set<string>();
  const noteWithheld = (sub: string): undefined => {
    const inside = underCover(sub);
    if (!inside && !withheld(sub)) return undefined;
    if (!inside) cover(sub);
    const stat = lstatOrUndefined(path.join(realRoot, sub));
    if (stat !== undefined && stat.nlink > 1) keys.add(inodeKey(stat));
    return undefined;
  };
  let complete = await walkFiles(
    realRoot,
    signal,
    limit,
    noteWithheld,
    (sub) => {
      if (!underCover(sub) && withheld(sub)) cover(sub);
    },
    beforeRead,
    // a withheld name that is a link: the sandbox hides where it leads (src/sandbox/bubblewrap.ts)
    (sub) => {
      if (!underCover(sub) && withheld(sub)) cover(sub);
    },
  );
  if (keys.size > 0) {
    const otherNames = await walkFiles(realRoot, signal, limit, (sub) => {
      if (underCover(sub) || covered.has(sub)) return undefined;
      const stat = lstatOrUndefined(path.join(realRoot, sub));
      if (stat !== undefined && stat.nlink > 1 && keys.has(inodeKey(stat))) paths.push(sub);
      return undefined;
    });
    complete &&= otherNames;
  }
  return { paths, complete };
}

/** A synchronous lstat (one system call costs less than a trip through libuv's thread pool), or undefined when the entry is gone. */
function lstatOrUndefined(full: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(full);
  } catch {
    return undefined;
  }
}

/**
 * Visit every regular file below `realRoot` (links not followed), folder by folder, each folder
 * read {@link WALK_BATCH} entries at a time; `visit` gets the workspace-relative,
 * `/`-separated path, and `onFolder` each folder's, when it is met (before its entries),
 * `beforeRead` each folder's (`''` for the root) just before it is opened, and `onLink` each
 * symbolic link's (not followed). A folder removed
 * (or replaced by a file) meanwhile is skipped.
 * @returns false when something went unseen: a folder could not be opened or read to its end
 *   (the walk goes on with the others), or `limit` entries were visited (the walk stops).
 * @throws the signal's reason when `signal` aborts, looked at before every entry: an abort is
 *   delivered while the walk waits (for a batch, or the stat of a withheld file), and it stops
 *   at the next entry, so within one batch however large the folder.
 */
async function walkFiles(realRoot: string, signal: AbortSignal | undefined, limit: number, visit: (relative: string) => Promise<void> | undefined, onFolder?: (relative: string) => void, beforeRead?: (relative: string) => void, onLink?: (relative: string) => void): Promise<boolean> {
  signal?.throwIfAborted();
  // Set by the abort event: a variable read per entry rather than a call on the signal.
  let aborted = false;
  const onAbort = (): void => {
    aborted = true;
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let left = limit;
    let complete = true;
    const pending: string[] = [''];
    while (pending.length > 0) {
      if (aborted) throw signal!.reason;
      const rel = pending.pop()!;
      beforeRead?.(rel);
      let dir: fs.Dir;
      try {
        dir = await fs.promises.opendir(rel === '' ? realRoot : path.join(realRoot, rel), { bufferSize: WALK_BATCH });
      } catch (error) {
        if (!isGone(error)) complete = false;
        continue;
      }
      try {
        for await (const d of dir) {
          if (aborted) throw signal!.reason;
          if (--left < 0) return false;
          const sub = rel === '' ? d.name : `${rel}/${d.name}`;
          if (d.isDirectory()) {
            onFolder?.(sub);
            pending.push(sub);
          } else if (d.isFile()) {
            const visiting = visit(sub);
            if (visiting !== undefined) await visiting; // no turn of the microtask queue for the files not withheld
          } else if (d.isSymbolicLink()) onLink?.(sub);
        }
      } catch (error) {
        if (aborted) throw signal!.reason;
        // A read that failed part-way (EIO, the folder removed): what it held is unseen.
        if (!isGone(error)) complete = false;
      }
    }
    return complete;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A folder removed, or replaced by something else, since its parent was read. */
function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
