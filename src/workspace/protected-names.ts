/**
 * The names toolgate protects wherever they appear in a path (`.git`, `.toolgate`): git and
 * toolgate run programs or take rules from what such folders hold. The protected-paths decider
 * asks before writes there; tools that write names the model chose (archives) refuse them.
 * No imports: the authoring entry (`toolgate/tool`) exports it.
 *
 * @module
 */
/**
 * Names protected wherever they appear in a path, before the executor's own additions
 * (`.git`, `.toolgate`; compared in lower case). The CLI refuses a `--scoped-write` folder
 * with one of them at start.
 */
export const PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.toolgate']);


/** The protected name a path (relative, `/`- or platform-separated) passes through, if any. */
export function protectedNameIn(relative: string): string | undefined {
  return relative.split(/[\\/]/).find((part) => PROTECTED_NAMES.includes(part.toLowerCase()));
}

