/**
 * The path filter of a call: which workspace paths the call's path rules withhold from a tool
 * that walks folders or writes what an archive holds (security case P9's family). The deciders
 * judge a call's path arguments; what a tool finds inside a folder argument (`grep_files
 * directory="."` reaching `.env`) is judged here, entry by entry, through
 * `ctx.workspace.withholds(path)` (see `Workspace.withholds`).
 *
 * - {@link PathFilter}: the question a workspace asks (a workspace-relative path in, withheld
 *   or not out);
 * - {@link PathFilterSpec}: the plain data a call carries to its runner (a worker thread or a
 *   child process rebuilds the filter from it: `src/decisions/policy-path-filter.ts`).
 *
 * @module
 */

/**
 * Whether the call's path rules withhold one path: `relative` is workspace-relative with `/`
 * separators (`.` for the root). True for a path a `deny` rule covers, or an `ask` rule the
 * person was not asked about for this call.
 */
export type PathFilter = ((relative: string) => boolean) & {
  /**
   * Names the rules the filter answers from: two filters with the same key withhold exactly the
   * same paths of the same workspace, so what was worked out for one may be kept for the other
   * (`cover-snapshots.ts`). Absent: nothing is kept across filters.
   */
  readonly rulesKey?: string;
};

/** What a runner needs to rebuild a call's {@link PathFilter}: plain JSON data. */
export interface PathFilterSpec {
  /** The user's policy file (absolute), if one counts. */
  readonly user?: string;
  /** The workspace's policy file (absolute), if one counts. */
  readonly workspace?: string;
  /** The tool as the rules see it. */
  readonly tool: { readonly name: string; readonly kind: string; readonly commandArguments: readonly string[] };
  /** The call's validated arguments, when a rule with `paths` has `args` too (absent: none). */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Ids (`file:line`) of `ask` rules a person answered yes to for this call: they withhold nothing. */
  readonly answered: readonly string[];
}
