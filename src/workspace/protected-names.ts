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
 * What a git repository folder holds (a bare repository, or a `.git` under another name):
 * git reads `config` (and runs what it names) in any folder that has `HEAD`, `objects` and
 * `refs`. A write that gives one folder two of these is planting such a folder.
 */
export const GIT_DIR_ENTRIES: readonly string[] = Object.freeze(['HEAD', 'config', 'objects', 'refs']);


/** The protected name a path (relative, `/`- or platform-separated) passes through, if any. */
export function protectedNameIn(relative: string): string | undefined {
  return relative.split(/[\\/]/).find((part) => PROTECTED_NAMES.includes(part.toLowerCase()));
}

