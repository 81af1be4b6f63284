/**
 * The user's home dotfiles that run code (`HOME_RUN_CODE_ENTRIES` of
 * `src/workspace/home-dotfiles.ts`: `~/.bashrc`, `~/.profile`, `~/.gitconfig`, `~/.ssh`,
 * `~/.config/autostart`, ...), made read-only in the sandbox when a writable folder holds the
 * home folder (case G1's family with O1's set-up). The deciders judge a command's words, and a
 * command can reach these without naming them (`for f in .b*rc`, `D=.config/autostart`, a
 * script): the kernel's mounts do not depend on the words.
 *
 * Dependency-free (Node's own modules), as the rest of `src/sandbox/`.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { HOME_RUN_CODE_ENTRIES, homesInside } from '../workspace/home-dotfiles.js';

/** `child` is `parent` or inside it (both absolute and normalized). */
function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/**
 * The real paths to bind read-only for a command whose writable folders are `writable` (real
 * paths): each entry of `HOME_RUN_CODE_ENTRIES` of a home folder that is inside a writable
 * folder or holds one (`~/.config` scoped: `~/.config/autostart` is read-only there too),
 * except those `granted` holds whole (real paths a person allowed this call to write; default
 * none: a grant of a path inside an entry, `~/.ssh/config`, leaves the entry read-only).
 *
 * **Side effect: it creates placeholders in the user's real home folder**, on the host, and
 * leaves them there. bubblewrap binds only what exists, and a mount point must exist on the
 * host, so an entry that is missing (inside a writable folder) is made first where an empty
 * one reads as a missing one (`makeWhenMissing`): an empty file (mode 0600: `~/.bashrc`,
 * `~/.profile`, `~/.gitconfig`, ...) or an empty folder (mode 0700, its parents too:
 * `~/.ssh`, `~/.config/autostart`), both then bound read-only, so the command cannot create
 * it either. The others (`~/.bash_profile`, `~/.xsession`, ...) are not made, and stay
 * creatable (docs/sandbox.md says why).
 *
 * An entry that is a symbolic link, or lies below one (`~/.config -> dotfiles/config`), is
 * bound at its target; the link itself is kept in place by {@link homeDotfileSeals}. A
 * dangling one has no target to bind (its seals keep the link and the folder its target would
 * be made in).
 */
export function homeDotfileTargets(writable: readonly string[], granted: readonly string[] = []): string[] {
  const targets: string[] = [];
  // A writable folder inside an entry (`~/.config` scoped: `~/.config/autostart` below it) counts too.
  const reached = (p: string) => writable.some((dir) => within(p, dir) || within(dir, p));
  for (const home of new Set(homesInside('/').map((h) => realOr(h)))) {
    if (!reached(home)) continue;
    for (const entry of HOME_RUN_CODE_ENTRIES) {
      const at = path.join(home, ...entry.path.split('/'));
      if (granted.some((g) => within(at, g))) continue;
      let target: string | undefined = at;
      try {
        if (fs.lstatSync(at).isSymbolicLink()) target = realOr(at, true);
      } catch {
        target = entry.makeWhenMissing && writable.some((dir) => within(at, dir)) && make(at, entry.kind) ? realOr(at) : undefined;
      }
      if (target !== undefined && reached(target)) targets.push(target);
    }
  }
  return [...new Set(targets)];
}

/**
 * The real folders to seal (`ownStateProtections`' `sealed`: read-only, with their entries
 * bound writable again) for a command whose writable folders are `writable`: each folder that
 * holds a symbolic link on the way to an entry of `HOME_RUN_CODE_ENTRIES` (the home folder for
 * `~/.config -> dotfiles/config` or `~/.bashrc -> dotfiles/bashrc`). A mount follows a link,
 * so the entry's target is read-only ({@link homeDotfileTargets}) but the link itself could
 * be removed and a folder or file of the command's made under its name (`rm ~/.config; mkdir
 * -p ~/.config/autostart`); in a sealed folder no entry can be made, removed or renamed. For a
 * dangling link, the nearest existing folder of where its target would be is sealed too (a
 * write through the link would create it). Entries `granted` holds whole are left out; only
 * folders inside a writable folder are returned (the rest is read-only already).
 */
export function homeDotfileSeals(writable: readonly string[], granted: readonly string[] = []): string[] {
  const seals: string[] = [];
  for (const home of new Set(homesInside('/').map((h) => realOr(h)))) {
    for (const entry of HOME_RUN_CODE_ENTRIES) {
      if (granted.some((g) => within(path.join(home, ...entry.path.split('/')), g))) continue;
      let folder = home; // a real path
      for (const name of entry.path.split('/')) {
        const at = path.join(folder, name);
        let link: boolean;
        try {
          link = fs.lstatSync(at).isSymbolicLink();
        } catch {
          break; // missing: no link further down
        }
        if (!link) {
          folder = at;
          continue;
        }
        seals.push(folder);
        const target = realOr(at, true);
        if (target === undefined) {
          const made = nearestFolder(path.resolve(folder, readlinkOr(at)));
          if (made !== undefined) seals.push(made);
          break;
        }
        folder = target;
      }
    }
  }
  return [...new Set(seals)].filter((p) => writable.some((dir) => within(p, dir)));
}

/** The link's text, `.` when it cannot be read (gone meanwhile). */
function readlinkOr(at: string): string {
  try {
    return fs.readlinkSync(at);
  } catch {
    return '.';
  }
}

/** The real path of the nearest existing folder that is `p` or above it. */
function nearestFolder(p: string): string | undefined {
  for (let dir = p; ; dir = path.dirname(dir)) {
    const real = realOr(dir, true);
    if (real !== undefined) {
      try {
        if (fs.statSync(real).isDirectory()) return real;
      } catch {
        // gone meanwhile
      }
    }
    if (dir === path.dirname(dir)) return undefined;
  }
}

/** The real path of `p`; `p` itself when it has none, or undefined then when `strict`. */
function realOr(p: string, strict: true): string | undefined;
function realOr(p: string): string;
function realOr(p: string, strict = false): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return strict ? undefined : p;
  }
}

/** Make a missing entry, empty; whether it is there now (not as a link). */
function make(at: string, kind: 'file' | 'folder'): boolean {
  try {
    if (kind === 'folder') {
      fs.mkdirSync(at, { recursive: true, mode: 0o700 });
    } else {
      fs.mkdirSync(path.dirname(at), { recursive: true, mode: 0o700 });
      fs.writeFileSync(at, '', { flag: 'wx', mode: 0o600 });
    }
  } catch {
    // appeared meanwhile, or not ours to make
  }
  try {
    return !fs.lstatSync(at).isSymbolicLink();
  } catch {
    return false;
  }
}
