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

/** A name in a path and what it names: a file, or a folder. */
export interface PathEntry {
  readonly name: string;
  readonly isFile: boolean;
}

/**
 * Whether `entry` is one of what a git repository folder holds (a bare repository, or a
 * `.git` under another name): a file `HEAD` or `config`, a folder `objects` or `refs`. git
 * reads `config` (and runs what it names) in a folder that has them.
 */
export function isGitDirEntry(entry: PathEntry): boolean {
  return entry.isFile ? entry.name === 'HEAD' || entry.name === 'config' : entry.name === 'objects' || entry.name === 'refs';
}

/**
 * The folder that writing the path `parts` (a file when `isFile`, else a folder) would give
 * two of a git repository folder's entries ({@link isGitDirEntry}), counting what `held`
 * lists in that folder already: planting a repository whose config git would obey. The one
 * rule file writes (the protected-paths decider) and archives both apply.
 * @param held - what a folder (its parts) holds now; called only for folders on the path whose next part is such an entry.
 * @returns the folder's parts (`[]` for the root the path is relative to), or `undefined`.
 */
export function gitDirShapeOf(parts: readonly string[], isFile: boolean, held: (folder: readonly string[]) => Iterable<PathEntry>): readonly string[] | undefined {
  for (let i = 0; i < parts.length; i++) {
    const entry: PathEntry = { name: parts[i]!, isFile: isFile && i === parts.length - 1 };
    if (!isGitDirEntry(entry)) continue;
    const folder = parts.slice(0, i);
    const found = new Set([entry.name]);
    for (const other of held(folder)) if (isGitDirEntry(other)) found.add(other.name);
    if (found.size >= 2) return folder;
  }
  return undefined;
}

/** The protected name a path (relative, `/`- or platform-separated) passes through, if any. */
export function protectedNameIn(relative: string): string | undefined {
  return relative.split(/[\\/]/).find((part) => PROTECTED_NAMES.includes(part.toLowerCase()));
}

