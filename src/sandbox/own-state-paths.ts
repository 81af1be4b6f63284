/**
 * toolgate's own files, which no command it runs may change, whatever the workspace is (the
 * user's home included): the user's policy and config folder, the state folder (ledgers,
 * with the calls' questions, answers and the sessions' approval modes), the folders of the
 * ledgers this process has open (`--state-dir`, `ledger.dir`), and any path a caller adds.
 * The sandbox binds them read-only ({@link ownStateProtections}); the cockpit keeps its
 * secrets (token, login codes, page keys) in this process's memory only, which a sandboxed
 * command cannot see (its own PID namespace).
 *
 * NOTE for the merge of issue 30: the `paths` work lists toolgate's own state for the file
 * tools' protected paths; the two lists must become one function.
 *
 * Dependency-free (Node's own modules), as the rest of `src/sandbox/`.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownStateFolders, ownStatePaths as sharedOwnStatePaths } from '../workspace/own-state-paths.js';

/** Paths added with {@link protectOwnStatePath}, absolute. */
const added = new Set<string>();

/**
 * Add a path (a file or a folder) of toolgate's own state that the sandbox must keep
 * read-only: an output folder given by the caller, say. For the life of the process.
 * @throws TypeError for a path that is not absolute.
 */
export function protectOwnStatePath(file: string): void {
  if (typeof file !== 'string' || !path.isAbsolute(file)) throw new TypeError(`an own state path must be absolute; got ${JSON.stringify(file)}`);
  added.add(path.normalize(file));
}

/** A ledger file's name (`src/ledger/paths.ts`: `ledger-<16 hex digits>.sqlite`, and its WAL and shared-memory companions). */
const LEDGER_FILE = /\/ledger-[0-9a-f]{16}\.sqlite(?:-wal|-shm)?$/;

/** The folders of the ledger files this process has open now (read from `/proc/self/fd`; none where there is no `/proc`). */
function openLedgerFolders(): string[] {
  const found = new Set<string>();
  let fds: string[];
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (LEDGER_FILE.test(target)) found.add(path.dirname(target));
    } catch {
      // closed meanwhile
    }
  }
  return [...found];
}

/**
 * toolgate's own state paths for `env` (absolute; some may not exist): what the file tools
 * protect (`ownStatePaths` of `src/workspace/own-state-paths.ts`: the config folder with the
 * user's policy file and saved "always" answers, the default state folder, and the real paths
 * of linked ones), plus the folder of every ledger this process has open and the paths added
 * with {@link protectOwnStatePath}. One list for both, so the sandbox and the deciders agree.
 */
export function readOnlyStatePaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return sharedOwnStatePaths({ env, extra: [...openLedgerFolders(), ...added] });
}

/** `child` is `parent` or inside it (both absolute and normalized). */
function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** The real path of `file`, or of its nearest existing ancestor joined with the rest. */
function realish(file: string): string {
  const rest: string[] = [];
  let at = path.resolve(file);
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return path.resolve(file);
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

/**
 * The bubblewrap arguments that keep toolgate's own state read-only for a command whose
 * writable folders are `writable` (real paths; mounted before these arguments), and the
 * `extra` real paths given (the home folder's dotfiles that run code, `home-dotfile-mounts.ts`),
 * which must exist (these also when they are a writable folder or hold one). Only paths strictly inside a writable folder need them (the rest of the
 * file system is read-only already). For each:
 * - a missing folder of the config or state folders is made first, on the host (empty,
 *   mode 0700), so that a command cannot create one with a policy file of its own in it;
 * - every folder between the writable root and it is bound onto itself, writable: a mount
 *   point cannot be renamed or removed, so the protected path cannot be moved away and
 *   planted again under its name;
 * - it is bound read-only onto itself: no write, no removal, nothing renamed over it.
 *
 * `sealed` (real paths of folders; the home folder's folders that hold a link on the way to a
 * dotfile, `home-dotfile-mounts.ts`) are sealed when inside a writable folder: bound read-only
 * onto themselves, so that no entry can be made, removed or renamed in them (the link stays
 * what it is), and each of their folders and files bound writable again onto itself (so its
 * content stays writable; links and special files among them stay as they are, read-only).
 * At most {@link MAX_SEALED_ENTRIES} entries of one folder are bound again; the rest stay
 * read-only (fail closed).
 *
 * Every folder binding comes before every read-only one, outermost first: a folder bound
 * again later would bring back the host's view below it, undoing a binding made there before.
 */
export function ownStateProtections(writable: readonly string[], env: NodeJS.ProcessEnv = process.env, extra: readonly string[] = [], sealed: readonly string[] = []): string[] {
  /** Folder bindings by path: `--bind` (a pin, an entry of a sealed folder) or `--ro-bind` (a sealed folder). */
  const folderBinds = new Map<string, '--bind' | '--ro-bind'>();
  const readOnly: string[] = [];
  const pin = (target: string, root: string) => {
    for (let dir = path.dirname(target); dir !== root && within(dir, root); dir = path.dirname(dir)) {
      if (!folderBinds.has(dir)) folderBinds.set(dir, '--bind');
    }
  };
  const seals = [...new Set(sealed)].filter((folder) => writable.some((dir) => within(folder, dir))); // the rest is read-only already
  for (const folder of seals) folderBinds.set(folder, '--ro-bind');
  for (const folder of seals) {
    pin(folder, writable.find((dir) => within(folder, dir))!);
    let names: fs.Dirent[] = [];
    try {
      names = fs.readdirSync(folder, { withFileTypes: true }).slice(0, MAX_SEALED_ENTRIES);
    } catch {
      // unreadable: nothing in it is bound again (read-only as a whole)
    }
    for (const d of names) {
      const entry = path.join(folder, d.name);
      if ((d.isDirectory() || d.isFile()) && !folderBinds.has(entry)) folderBinds.set(entry, '--bind');
    }
  }
  const folders = new Set(ownStateFolders(env));
  const targets = [...readOnlyStatePaths(env).map((given) => ({ given, target: realish(given), extra: false })), ...extra.map((target) => ({ given: target, target, extra: true }))];
  for (const { given, target, extra: isExtra } of targets) {
    const root = writable.find((dir) => within(target, dir) && target !== dir);
    if (root === undefined) {
      // an extra path that is a writable folder or holds one: read-only over it (nothing to pin)
      if (isExtra && writable.some((dir) => within(dir, target))) readOnly.push('--ro-bind', target, target);
      continue;
    }
    if (!fs.existsSync(target)) {
      if (!folders.has(given)) continue;
      try {
        fs.mkdirSync(target, { recursive: true, mode: 0o700 });
      } catch {
        continue; // not ours to make here: nor the command's, which runs as the same user
      }
    }
    // Folders between the root and the target.
    pin(target, root);
    readOnly.push('--ro-bind', target, target);
  }
  // Outermost first (a stable sort: at one depth, in the order found).
  const depth = (p: string) => p.split('/').length;
  const ordered = [...folderBinds].sort(([a], [b]) => depth(a) - depth(b));
  return [...ordered.flatMap(([dir, flag]) => [flag, dir, dir]), ...readOnly];
}

/** Most entries of one sealed folder bound writable again (a home folder holds a few hundred). */
const MAX_SEALED_ENTRIES = 4096;
