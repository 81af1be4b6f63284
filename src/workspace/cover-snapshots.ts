/**
 * The sandbox covers of a workspace, kept between shell commands while nothing they depend on
 * has changed (`Workspace.sandboxCovers`): the whole-workspace walk of {@link withheldCovers}
 * costs about 12 µs per entry (`npm run bench -- --covers`), paid before every sandboxed
 * command of a call with path rules; checking that a kept answer still holds costs one `lstat`
 * per folder.
 *
 * **What the answer depends on.** The covers are (1) the entries whose workspace-relative path
 * the rules withhold (files and folders, links not followed), and (2) every other name of a
 * withheld file, by identity (device, inode). So they are a function of the rules, of the
 * workspace's tree of names (which name is a folder, a regular file, a link, or neither; which
 * inode each file name leads to; where a withheld link leads is looked up afresh for every
 * sandbox, `src/sandbox/bubblewrap.ts`), and of which folders can be read. Every change to that tree is a
 * change to a folder: creating, removing or renaming an entry (a file turned into a hard link
 * of a secret is a removal and a link in its folder; `ln .env pub/x` is a new entry of `pub`)
 * and a folder's permissions all set that folder's ctime, which no user can set back (unlike
 * its mtime: `touch -d`). Not in it: file contents, a file's own permissions or link count
 * (links made outside the workspace add no name the sandbox could hide, and a name inside
 * that shares the secret's inode is an entry of a folder inside), times of files. A mount
 * inside the workspace changes what a path leads to without touching a folder: the mount
 * table is part of the key.
 *
 * **Snapshot.** While the walk runs, each folder is stamped just before it is read: device,
 * inode and ctime (`bigint`, nanoseconds), and the whole stamp list is kept with the answer,
 * under the real root, the rules' key ({@link PathFilter}'s `rulesKey`: the policy files'
 * parses, the tool, the answered `ask` rules) and `/proc/self/mountinfo`. Before a later
 * command, every stamped folder is stat'ed again: the answer is used only when all of them
 * still match (same device, inode, ctime, still a folder) and so does the mount table;
 * otherwise the workspace is walked again. A change made while the walk ran, after a folder
 * was stamped, gives that folder a newer ctime, unless it falls in the same tick of the file
 * system's clock as the stamped one; so a folder changed less than {@link RACY_MS} before it
 * was stamped (`racy`, as git calls it), a stamp that fails, a file system whose timestamps
 * are not known to follow every change (only ext2/3/4, xfs, btrfs, tmpfs and overlayfs
 * count), an incomplete walk, more than {@link MAX_KEPT_FOLDERS} folders, or an unreadable
 * mount table keep nothing: the next command walks again.
 *
 * Limits: the clock must not be set back by more than {@link RACY_MS} between the walk and a
 * later change (a ctime may then repeat); a hard link the kernel makes without a folder
 * changing does not exist.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import type { PathFilter } from './path-filter.js';
import { MAX_INDEXED_ENTRIES, WALK_BATCH, withheldCovers, type WithheldCovers } from './withheld-inodes.js';

/** A folder changed this recently (ms) before it was stamped may change again within its ctime's tick: nothing is kept. */
export const RACY_MS = 2000;

/** Snapshots kept (one per real root and rules), the least recently used dropped first. */
const MAX_SNAPSHOTS = 4;

/** Most folders a kept snapshot stamps (about 100 bytes each): a larger workspace is walked every time. */
const MAX_KEPT_FOLDERS = 250_000;

/**
 * File systems (statfs `f_type`) whose folders' ctime is set by every entry created, removed
 * or renamed in them, at most 1 s coarse: ext2/3/4, xfs, btrfs, tmpfs, overlayfs.
 */
const TRUSTED_FS_TYPES = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630]);

/** A kept answer, and what it was read from. */
interface Snapshot {
  readonly covers: WithheldCovers;
  readonly mounts: string;
  /** Each folder's workspace-relative path, and its `dev:ino:ctimeNs` at the same index. */
  readonly folders: readonly string[];
  readonly stamps: readonly string[];
}

const snapshots = new Map<string, Snapshot>();

/**
 * The covers of `realRoot` under `filter` ({@link withheldCovers}), from a kept snapshot when
 * every folder of the workspace and the mount table are as they were when it was walked, else
 * by walking (and then kept, when the walk allows it). A filter without a `rulesKey` is never
 * kept (it is walked every time).
 * @param limit - most entries visited per walk (default {@link MAX_INDEXED_ENTRIES}).
 * @throws the signal's reason when `signal` aborts (looked at before every entry, and every
 *   {@link WALK_BATCH} folders while checking a snapshot).
 */
export async function workspaceCovers(realRoot: string, filter: PathFilter, signal?: AbortSignal, limit = MAX_INDEXED_ENTRIES): Promise<WithheldCovers> {
  const withheld = (p: string): boolean => filter(p);
  if (filter.rulesKey === undefined) return withheldCovers(realRoot, withheld, signal, limit);
  const key = `${realRoot}\u0000${limit}\u0000${filter.rulesKey}`;
  const kept = snapshots.get(key);
  if (kept !== undefined) {
    snapshots.delete(key);
    if (await unchanged(realRoot, kept, signal)) {
      snapshots.set(key, kept); // most recently used last
      return kept.covers;
    }
  }
  const mounts = mountTable();
  const stamps = new FolderStamps(realRoot);
  const covers = await withheldCovers(realRoot, withheld, signal, limit, (rel) => stamps.stamp(rel));
  if (covers.complete && stamps.usable && stamps.folders.length <= MAX_KEPT_FOLDERS && mounts !== undefined) {
    if (snapshots.size >= MAX_SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
    snapshots.set(key, { covers, mounts, folders: stamps.folders, stamps: stamps.stamps });
  }
  return covers;
}

/** Forget every kept snapshot (tests). */
export function forgetCoverSnapshots(): void {
  snapshots.clear();
}

/** Whether every folder of `snapshot` and the mount table are as they were stamped. */
async function unchanged(realRoot: string, snapshot: Snapshot, signal: AbortSignal | undefined): Promise<boolean> {
  if (mountTable() !== snapshot.mounts) return false;
  const { folders, stamps } = snapshot;
  for (let i = 0; i < folders.length; i++) {
    if (i % WALK_BATCH === 0 && i > 0) {
      await turn();
      signal?.throwIfAborted();
    }
    const rel = folders[i]!;
    const stat = lstatBig(rel === '' ? realRoot : path.join(realRoot, rel));
    if (stat === undefined || !stat.isDirectory() || stampOf(stat) !== stamps[i]) return false;
  }
  signal?.throwIfAborted();
  return true;
}

/** The stamps of the folders a walk reads, and whether they can vouch for what it read. */
class FolderStamps {
  readonly folders: string[] = [];
  readonly stamps: string[] = [];
  /** False once a folder could not be stamped, was racy, or lies on a file system not trusted. */
  usable = true;
  private readonly devices = new Map<bigint, boolean>();

  constructor(private readonly realRoot: string) {}

  stamp(rel: string): void {
    if (!this.usable) return;
    const full = rel === '' ? this.realRoot : path.join(this.realRoot, rel);
    const now = BigInt(Date.now()) * 1_000_000n;
    const stat = lstatBig(full);
    if (stat === undefined || !stat.isDirectory() || stat.ctimeNs > now - BigInt(RACY_MS) * 1_000_000n || !this.trusted(stat.dev, full)) {
      this.usable = false;
      return;
    }
    this.folders.push(rel);
    this.stamps.push(stampOf(stat));
  }

  /** Whether the file system of device `dev` (holding `full`) is one whose folder ctimes are trusted. */
  private trusted(dev: bigint, full: string): boolean {
    let known = this.devices.get(dev);
    if (known === undefined) {
      try {
        known = TRUSTED_FS_TYPES.has(Number(fs.statfsSync(full).type));
      } catch {
        known = false;
      }
      this.devices.set(dev, known);
    }
    return known;
  }
}

function stampOf(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.ctimeNs}`;
}

function lstatBig(full: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(full, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** This process's mount table, or undefined when it cannot be read (nothing is then kept). */
function mountTable(): string | undefined {
  try {
    return fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
}
