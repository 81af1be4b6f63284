/**
 * The user's home folder's hidden entries (`~/.bashrc`, `~/.profile`, `~/.gitconfig`,
 * `~/.ssh/`, `~/.config/`), for a workspace that holds the home folder: shells, git, ssh and
 * desktop sessions run programs these name, outside every sandbox, the next time the person
 * works, as git runs a repository's `.git/config` (case G1's family with O1's set-up). The
 * protected-paths decider asks before a write there; tools that write paths the deciders
 * never saw (archive members, a snapshot's file) refuse them (`Workspace.homeDotEntryOf`).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** `candidate` is `root` or below it, by whole segments (as workspace.ts's `isInside`, which imports this module). */
function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${path.sep}`));
}

/**
 * The user's home folder (as `HOME` names it, and its real path) when the workspace `root`
 * holds it (the workspace is the home folder, or a folder above it); else none.
 */
export function homesInside(root: string): string[] {
  const home = process.env.HOME;
  if (home === undefined || !path.isAbsolute(home)) return [];
  let real = home;
  try {
    real = fs.realpathSync.native(home);
  } catch {
    // judged as spelled
  }
  return [...new Set([home, real])].filter((h) => isInside(root, h));
}

/**
 * The hidden entry of a home folder in `homes` that `absolute` is or is inside, as `~/.name`
 * (`~/.bashrc`, `~/.gitconfig`, `~/.ssh`, `~/.config`): shells, git, ssh and desktop sessions
 * run what these name, outside any sandbox, the next time the person uses them, as git runs
 * a repository's `.git/config` (case G1's family, for a workspace that is the home folder).
 */
export function homeDotEntry(absolute: string, homes: readonly string[]): string | undefined {
  for (const home of homes) {
    if (absolute === home || !isInside(home, absolute)) continue;
    const first = path.relative(home, absolute).split(path.sep)[0]!;
    if (first.startsWith('.') && first !== '.' && first !== '..') return `~/${first}`;
  }
  return undefined;
}

