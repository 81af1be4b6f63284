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
import os from 'node:os';
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
  // HOME unset (a daemon, a service): the account's home, which `~` in a command reaches too
  const home = process.env.HOME || os.homedir();
  if (!path.isAbsolute(home)) return [];
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


/**
 * One of the home folder's hidden entries that later run code: read by a shell, git, ssh, a
 * desktop session, systemd or an editor when the person next uses them, outside every sandbox.
 */
export interface HomeRunCodeEntry {
  /** Path below the home folder, `/`-separated (`.bashrc`, `.config/autostart`). */
  readonly path: string;
  /** A file or a folder. */
  readonly kind: 'file' | 'folder';
  /**
   * When missing, the sandbox may make it (an empty file, an empty 0700 folder) to bind it
   * read-only: false where an empty one is not read as a missing one (an empty
   * `.bash_profile` stops bash from reading `.profile`; an empty `.xsession` is an empty
   * session).
   */
  readonly makeWhenMissing: boolean;
}

const file = (p: string, makeWhenMissing = true): HomeRunCodeEntry => ({ path: p, kind: 'file', makeWhenMissing });
const folder = (p: string, makeWhenMissing = true): HomeRunCodeEntry => ({ path: p, kind: 'folder', makeWhenMissing });

/**
 * The home folder's hidden entries that later run code, which the sandbox binds read-only
 * when the workspace holds the home folder (`src/sandbox/home-dotfile-mounts.ts`): a command's
 * words may never name them (a glob, a variable, a script), so the deciders cannot see it
 * coming. Every one is a `~/.name` entry, which the protected-paths decider and
 * `Workspace.homeDotEntryOf` protect as a whole (all hidden entries, a wider set: caches
 * such as `~/.npm` stay writable for commands, which write there without naming them).
 */
export const HOME_RUN_CODE_ENTRIES: readonly HomeRunCodeEntry[] = Object.freeze([
  // shells
  file('.bashrc'), file('.bash_profile', false), file('.bash_login', false), file('.bash_logout'), file('.bash_aliases'),
  file('.profile'), file('.zshrc'), file('.zshenv'), file('.zprofile'), file('.zlogin'), file('.zlogout'),
  file('.kshrc'), file('.mkshrc'), file('.cshrc'), file('.tcshrc'), file('.login'), file('.pam_environment'),
  folder('.config/fish', false), folder('.config/environment.d'),
  // git, ssh, gpg, npm, tools run by shells
  file('.gitconfig'), folder('.config/git'), folder('.ssh'), folder('.gnupg', false), file('.npmrc'),
  file('.curlrc'), file('.wgetrc'), folder('.local/bin'),
  // desktop sessions and user services
  file('.xprofile'), file('.xsession', false), file('.xinitrc', false), file('.xsessionrc'),
  folder('.config/autostart'), folder('.config/systemd'),
  // editors and terminal multiplexers
  file('.vimrc', false), file('.exrc', false), folder('.vim', false), folder('.config/nvim', false),
  file('.emacs', false), folder('.emacs.d', false), file('.tmux.conf'),
]);
