/**
 * What a call's path arguments reach, for the deciders that judge paths (protected paths,
 * policy path rules): {@link judgedPaths}. A path argument is judged by more than its real
 * path (security case P9 and its family):
 * - `target`: its real path (every link resolved: `env-link -> .env` is judged as `.env`);
 * - `spelled`: the path as written, normalised, when it differs (a rule or a protected name
 *   on the link's own name still counts);
 * - `alias`: another name of the same file (a hard link: `ln .env notes.txt`), found by a
 *   bounded walk of the workspace, for a file with more than one link;
 * - `inside`: for a tool that moves, copies or deletes what it is given (`contents`), every
 *   entry below a folder argument (a folder is judged by what it moves);
 * - `landing`: where those entries land, below each other path argument of the call (the
 *   destination of a move or copy: the tree that results is judged, not only its root).
 * Walks never follow symbolic links (a link is an entry, judged by its name) and stop at
 * {@link MAX_WALKED_ENTRIES} entries; a walk cut short makes the result `incomplete`, which
 * the deciders treat as a question (fail closed).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside, spelledRelative } from './workspace.js';
import { isGitDirShape, type PathEntry } from './protected-names.js';

/** Most entries one call's walks visit (folder contents and the search for hard links together). */
export const MAX_WALKED_ENTRIES = 5000;

/** How a judged path was reached (see the module's TSDoc). */
type JudgedVia = 'target' | 'spelled' | 'alias' | 'inside' | 'landing';

/** One path to judge. */
interface JudgedPath {
  /** The argument it comes from, as the model gave it. */
  readonly given: string;
  /** Workspace-relative, `/`-separated; `.` for the root. */
  readonly relative: string;
  readonly via: JudgedVia;
  /** A file (true), a folder (false), or not known (it does not exist yet, or is a link). */
  readonly isFile: boolean | undefined;
}

/** {@link judgedPaths}' answer. */
export interface JudgedPaths {
  /** Every path to judge, targets first; no two alike. */
  readonly paths: readonly JudgedPath[];
  /**
   * Folders (workspace-relative) that a moved or copied tree would make look like a git
   * repository folder (`HEAD`, `config`, `objects`, `refs`, `commondir`, `gitdir`): the
   * destination of a folder whose own entries have that shape.
   */
  readonly landingShapes: readonly string[];
  /** Why the list may be missing paths (a walk cut short), if it may. */
  readonly incomplete: string | undefined;
}

/** A path argument, resolved (the executor's `ResolvedPath`). */
interface Resolved {
  readonly given: string;
  readonly real: string;
}

/** What {@link judgedPaths} is told about the call. */
export interface JudgedPathsOptions {
  /** The workspace's root as given and its real path. */
  readonly workspace: { readonly root: string; readonly realRoot: string };
  /**
   * Whether the tool moves, copies or deletes what its folder arguments hold, so that their
   * contents (and where they land) are judged. Default false.
   */
  readonly contents?: boolean;
  /** Look for other names (hard links) of files with more than one link. Default true. */
  readonly aliases?: boolean;
}

/**
 * The paths a call's path arguments reach (see the module's TSDoc), as the file system holds
 * them at this moment (computed afresh each time it is asked).
 */
export function judgedPaths(resolved: readonly Resolved[], options: JudgedPathsOptions): JudgedPaths {
  const { workspace } = options;
  const realRoot = workspace.realRoot;
  const out: JudgedPath[] = [];
  const seen = new Set<string>();
  const add = (p: JudgedPath) => {
    const key = `${p.relative}\u0000${p.via === 'target' || p.via === 'spelled' ? '' : p.via}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(p);
  };
  const budget = { left: MAX_WALKED_ENTRIES, cut: undefined as string | undefined };
  const targets = resolved.map((r) => ({ ...r, relative: relativeOf(realRoot, r.real), stat: statOf(r.real) }));
  for (const t of targets) add({ given: t.given, relative: t.relative, via: 'target', isFile: t.stat === undefined ? undefined : t.stat.isFile() ? true : t.stat.isDirectory() ? false : undefined });
  for (const t of targets) {
    const spelled = spelledRelative(workspace.root, workspace.realRoot, t.given);
    if (spelled !== undefined && spelled !== t.relative) add({ given: t.given, relative: spelled, via: 'spelled', isFile: undefined });
  }
  if (options.aliases !== false) {
    for (const t of targets) {
      if (t.stat === undefined || !t.stat.isFile() || t.stat.nlink < 2) continue;
      for (const alias of aliasesOf(realRoot, t.real, t.stat, budget)) add({ given: t.given, relative: alias, via: 'alias', isFile: true });
    }
  }
  const landingShapes: string[] = [];
  if (options.contents === true) {
    for (const t of targets) {
      if (t.stat === undefined || !t.stat.isDirectory()) continue;
      const tree = walkTree(t.real, budget, `${t.given} holds`);
      const others = targets.filter((o) => o.real !== t.real && !isInside(t.real, o.real));
      for (const entry of tree.entries) {
        add({ given: t.given, relative: join(t.relative, entry.parts), via: 'inside', isFile: entry.isFile });
        for (const o of others) add({ given: o.given, relative: join(o.relative, entry.parts), via: 'landing', isFile: entry.isFile });
      }
      for (const [folder, held] of tree.folders) {
        if (!isGitDirShape(held)) continue;
        for (const o of others) landingShapes.push(join(o.relative, folder === '' ? [] : folder.split('/')));
      }
    }
  }
  return { paths: out, landingShapes, incomplete: budget.cut };
}

/** `relative` of a real path inside the root, `/`-separated (`.` for the root). */
function relativeOf(realRoot: string, real: string): string {
  return path.relative(realRoot, real).split(path.sep).join('/') || '.';
}

function join(base: string, parts: readonly string[]): string {
  return parts.length === 0 ? base : base === '.' ? parts.join('/') : `${base}/${parts.join('/')}`;
}

/** The stat of what a real path names (links already resolved), or `undefined` when nothing is there. */
function statOf(real: string): fs.Stats | undefined {
  try {
    return fs.statSync(real);
  } catch {
    return undefined;
  }
}

/** One entry of a walked tree: its parts below the walked folder, and its kind (`undefined` for a link or another kind). */
interface TreeEntry {
  readonly parts: readonly string[];
  readonly isFile: boolean | undefined;
}

/**
 * The entries below `folder` (not following links), and each folder's own entries by its
 * `/`-joined parts (`''` for `folder` itself), within the budget.
 */
function walkTree(folder: string, budget: { left: number; cut: string | undefined }, what: string): { entries: TreeEntry[]; folders: Map<string, PathEntry[]> } {
  const entries: TreeEntry[] = [];
  const folders = new Map<string, PathEntry[]>();
  const pending: string[][] = [[]];
  while (pending.length > 0) {
    const parts = pending.pop()!;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(path.join(folder, ...parts), { withFileTypes: true });
    } catch {
      continue;
    }
    const held: PathEntry[] = [];
    for (const d of dirents) {
      if (--budget.left < 0) {
        budget.cut ??= `${what} more than ${MAX_WALKED_ENTRIES} entries, more than toolgate checks for protected names and path rules`;
        folders.set(parts.join('/'), held);
        return { entries, folders };
      }
      const isFile = d.isFile() ? true : d.isDirectory() ? false : undefined;
      // A link (or another kind) counts as either kind: git follows a linked HEAD or objects.
      if (isFile === undefined) held.push({ name: d.name, isFile: true }, { name: d.name, isFile: false });
      else held.push({ name: d.name, isFile });
      const sub = [...parts, d.name];
      entries.push({ parts: sub, isFile });
      // A repository's own folder is judged by its name (`.git`, a protected path); what it
      // holds (thousands of objects) is git's, not a path a rule names.
      if (d.isDirectory() && d.name.toLowerCase() !== '.git') pending.push(sub);
    }
    folders.set(parts.join('/'), held);
  }
  return { entries, folders };
}

/**
 * The other workspace-relative names of the file `real` (same device and inode), found by a
 * walk of the workspace within the budget (links not followed).
 */
function aliasesOf(realRoot: string, real: string, stat: fs.Stats, budget: { left: number; cut: string | undefined }): string[] {
  const found: string[] = [];
  let left = stat.nlink - 1;
  const pending: string[] = [realRoot];
  while (pending.length > 0 && left > 0) {
    const folder = pending.pop()!;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of dirents) {
      if (--budget.left < 0) {
        budget.cut ??= `${relativeOf(realRoot, real)} has other names (hard links), and the workspace holds more than ${MAX_WALKED_ENTRIES} entries to search for them`;
        return found;
      }
      const at = path.join(folder, d.name);
      if (d.isDirectory()) pending.push(at);
      else if (d.isFile() && at !== real) {
        try {
          const s = fs.lstatSync(at);
          if (s.ino === stat.ino && s.dev === stat.dev) {
            found.push(relativeOf(realRoot, at));
            left--;
          }
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return found;
}
