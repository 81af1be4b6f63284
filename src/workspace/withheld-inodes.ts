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
 * that has more than one link. A walk cut short at {@link MAX_INDEXED_ENTRIES} entries cannot
 * tell, so every file with more than one link is then withheld (fail closed).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** Most entries the walk visits before it gives up and withholds every multi-link file. */
const MAX_INDEXED_ENTRIES = 100_000;

/** What {@link withheldInodes} found. */
export interface WithheldInodes {
  /** `dev:ino` of each withheld file that has other names. */
  readonly keys: ReadonlySet<string>;
  /** True when the walk was cut short: every multi-link file counts as withheld. */
  readonly incomplete: boolean;
}

/** The identity key of a stat. */
export function inodeKey(stat: fs.Stats): string {
  return `${stat.dev}:${stat.ino}`;
}

/**
 * Walk `realRoot` and collect the identities of the files `withheld` (by their
 * workspace-relative, `/`-separated path) says yes to, among those with more than one link.
 */
export function withheldInodes(realRoot: string, withheld: (relative: string) => boolean): WithheldInodes {
  const keys = new Set<string>();
  let left = MAX_INDEXED_ENTRIES;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(rel === '' ? realRoot : path.join(realRoot, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of dirents) {
      if (--left < 0) return { keys, incomplete: true };
      const sub = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) pending.push(sub);
      else if (d.isFile() && withheld(sub)) {
        try {
          const stat = fs.lstatSync(path.join(realRoot, sub));
          if (stat.nlink > 1) keys.add(inodeKey(stat));
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return { keys, incomplete: false };
}
