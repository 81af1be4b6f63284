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
 * folder or holds one (`~/.config` scoped: `~/.config/autostart` is read-only there too), except those `granted` holds whole (real paths a person allowed this call to
 * write; default none: a grant of a path inside an entry, `~/.ssh/config`, leaves the entry read-only). bubblewrap binds only what exists, and a mount point must exist on
 * the host, so an entry that is missing is made first, on the host, where an empty one reads
 * as a missing one (`makeWhenMissing`): an empty file (mode 0600), an empty folder (mode
 * 0700, its parents too), both then read-only, so the command cannot create it either. The
 * others (`~/.bash_profile`, `~/.xsession`, ...) stay missing, and creatable (docs/sandbox.md).
 * An entry that is a symbolic link is protected at its target only (a mount follows the
 * link; the link itself can be removed and replaced), and not at all when it dangles.
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
