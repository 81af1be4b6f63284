/**
 * The names toolgate protects wherever they appear in a path (`.git`, `.toolgate`, `.hg`,
 * `.jj`, `.envrc`, `.husky`): git, toolgate and other programs run what such folders hold or take rules
 * from it. The protected-paths decider
 * asks before writes there; tools that write names the model chose (archives) refuse them.
 * No imports: the authoring entry (`toolgate/tool`) exports it.
 *
 * @module
 */
/**
 * Names protected wherever they appear in a path, before the executor's own additions
 * (compared in lower case): folders and files whose content a program runs or trusts when a
 * person later works there: `.git` (hooks, `core.fsmonitor`, a pager), `.toolgate` (rules),
 * `.hg` and `.jj` (Mercurial's and Jujutsu's repository config), `.envrc` (direnv runs it on
 * `cd`) and `.husky` (git hooks). The CLI
 * refuses a `--scoped-write` folder with one of them at start.
 */
export const PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.toolgate', '.hg', '.jj', '.envrc', '.husky']);

/**
 * Code points HFS+ ignores in names (git's `is_hfs_dotgit`): zero-width joiners and marks,
 * directional formatting, the deprecated format characters and the byte-order mark, so that
 * `.g\u200cit` is `.git` there.
 */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * The name a file system that folds names may make of `name`, for comparing it with a
 * protected name: HFS+'s ignored code points removed, compatibility forms unified (NFKC:
 * fullwidth `．ｇｉｔ`), lower case (case-insensitive file systems), an NTFS alternate data
 * stream dropped (`.git::$INDEX_ALLOCATION` is the folder `.git`), and trailing dots and
 * spaces dropped (Windows and vfat store `.git.` and `.git ` as `.git`). Git refuses these
 * forms in a tree for the same reason (`core.protectHFS`, `core.protectNTFS`).
 *
 * @internal
 */
function foldedName(name: string): string {
  let folded = name.replace(HFS_IGNORED, '').normalize('NFKC').toLowerCase();
  const stream = folded.indexOf(':');
  if (stream > 0) folded = folded.slice(0, stream);
  return folded.replace(/[. ]+$/, '');
}

/**
 * Whether the path component `part` names `name` (lower case) on some file system: the same
 * {@link foldedName}, or `name`'s NTFS short (8.3) name, `GIT~1` for `.git` (its first six
 * letters, `~` and a digit; for `.git` also git's hashed `GI7EBA~1`).
 *
 * @internal
 */
export function namesProtected(part: string, name: string): boolean {
  const folded = foldedName(part);
  if (folded === name) return true;
  const tilde = /^([a-z0-9]{1,6})~[1-9]$/.exec(folded);
  if (tilde === null) return false;
  const short = name.replace(/^\.+/, '').replace(/[^a-z0-9]/g, '').slice(0, 6);
  return tilde[1] === short || (name === '.git' && tilde[1] === 'gi7eba');
}

/**
 * A name in a path and what it names: a file, or a folder.
 *
 * @internal
 */
export interface PathEntry {
  readonly name: string;
  readonly isFile: boolean;
}

/**
 * Whether `entry` is one of what a git repository folder holds (a bare repository, a `.git`
 * under another name, or a worktree's admin folder): a file `HEAD`, `config`, `commondir`
 * (it points git at another folder's `objects` and `refs`, standing in for both) or `gitdir`,
 * a folder `objects` or `refs`. git reads `config` (and runs what it names) in a folder that
 * has them. Names compare as {@link foldedName} folds them (a case-insensitive file system
 * finds `head` for `HEAD`); an entry whose kind is not known yet (`isFile` undefined: a path a write will
 * make, as a file or a folder) counts with either kind.
 *
 * @internal
 */
export function isGitDirEntry(entry: PathEntry | { readonly name: string; readonly isFile: boolean | undefined }): boolean {
  const name = foldedName(entry.name);
  const asFile = name === 'head' || name === 'config' || name === 'commondir' || name === 'gitdir';
  const asFolder = name === 'objects' || name === 'refs';
  return entry.isFile === undefined ? asFile || asFolder : entry.isFile ? asFile : asFolder;
}

/** Folders of a git repository folder whose files git runs (`hooks`) or reads as settings. */
const GIT_DIR_INNER: ReadonlySet<string> = new Set(['hooks', 'info', 'modules', 'worktrees']);

/** The name {@link isGitDirEntry} counts `name` as (one entry per name whatever its case). */
function entryKey(name: string): string {
  return foldedName(name);
}

/**
 * The folder that writing the path `parts` (a file when `isFile`, a folder when false, either
 * when undefined) would give two of a git repository folder's entries ({@link isGitDirEntry}),
 * counting what `held` lists in that folder already: planting a repository whose config git
 * would obey; or, for a path below its `hooks`, `info`, `modules` or `worktrees`, the folder
 * that already is one (a bare repository `git init --bare b` made: `b/hooks/pre-receive`). The one rule file writes (the protected-paths decider), moves and copies (the
 * tree they land) and archives all apply.
 * @param held - what a folder (its parts) holds now; called only for folders on the path whose next part is such an entry.
 * @returns the folder's parts (`[]` for the root the path is relative to), or `undefined`.
 *
 * @internal
 */
export function gitDirShapeOf(parts: readonly string[], isFile: boolean | undefined, held: (folder: readonly string[]) => Iterable<PathEntry>): readonly string[] | undefined {
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const entry = { name: parts[i]!, isFile: last ? isFile : false };
    // below what git runs from or reads as settings in a repository folder (`b/hooks/x`,
    // `b/info/attributes`, `b/modules/m/config`, `b/worktrees/w/...`): the folder must not
    // already be one (a `git init --bare b` made it so, with no protected name)
    if (!last && GIT_DIR_INNER.has(foldedName(entry.name))) {
      if (isGitDirShape(held(parts.slice(0, i)))) return parts.slice(0, i);
      continue;
    }
    if (!isGitDirEntry(entry)) continue;
    const folder = parts.slice(0, i);
    const found = new Set([entryKey(entry.name)]);
    for (const other of held(folder)) if (isGitDirEntry(other)) found.add(entryKey(other.name));
    if (found.size >= 2) return folder;
  }
  return undefined;
}

/**
 * Whether the entries of one folder make it look like a git repository folder: two or more
 * of {@link isGitDirEntry}'s names among them.
 */
export function isGitDirShape(entries: Iterable<PathEntry>): boolean {
  const found = new Set<string>();
  for (const entry of entries) if (isGitDirEntry(entry)) found.add(entryKey(entry.name));
  return found.size >= 2;
}

/**
 * The protected name a path (relative, `/`- or platform-separated) passes through, if any,
 * in any spelling a file system may take for it ({@link namesProtected}: `.GIT`, `.git.`,
 * `GIT~1`, `.g\u200cit`).
 *
 * @internal
 */
export function protectedNameIn(relative: string): string | undefined {
  return relative.split(/[\\/]/).find((part) => PROTECTED_NAMES.some((name) => namesProtected(part, name)));
}

