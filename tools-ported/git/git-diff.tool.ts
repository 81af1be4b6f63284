import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkRef, cutNote, openRepository, readError } from './git-repository.js';

/** Arguments of git_diff. */
export interface GitDiffInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * Compare against this commit, branch or tag instead of the index (for example "HEAD",
   * "main", "HEAD~3"), or give a range of commits ("main..feature", "v1.0...HEAD") to
   * compare two commits. Must not start with "-".
   */
  ref?: string;
  /**
   * Show the staged changes (the index against HEAD, or against `ref`) instead of the
   * working tree's.
   * @default false
   */
  staged?: boolean;
  /**
   * Only these files or folders, relative to the workspace root. Default: the whole repository.
   * @items.type string
   * @items.format workspace-path
   */
  paths?: string[];
  /**
   * Unchanged lines shown around each change.
   * @TJS-type integer
   * @minimum 0
   * @maximum 100
   * @default 3
   */
  context_lines?: number;
  /**
   * Only a summary of changed files with counts of added and removed lines (`--stat`), no lines.
   * @default false
   */
  stat?: boolean;
}

/**
 * Show changes in a git repository as a unified diff: by default the working tree's changes not
 * staged yet; with staged=true the changes staged for the next commit; with ref the working
 * tree (or index) against that commit, or the difference between two commits for a range
 * "a..b". Untracked files are not shown (git_status lists them). Narrow it with paths, or use
 * stat=true for an overview first. Reads only: no external diff, textconv, filter or hook runs.
 */
@tool({ name: 'git_diff', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitDiffTool implements Tool<GitDiffInput, string> {
  run(args: GitDiffInput, ctx: ToolContext): Promise<string> {
    return gitDiff(args, ctx);
  }
}

/**
 * The diff, or a sentence saying there is none.
 * @throws GitToolError `unknown_ref` for a ref that names nothing, `bad_argument` for a
 *   malformed ref or a path outside the repository.
 */
export async function gitDiff(args: GitDiffInput, ctx: ToolContext): Promise<string> {
  const ref = args.ref === undefined ? undefined : checkRef(args.ref, 'ref');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: true });
  const given = repo.pathspecs(args.paths);
  const argv = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all', `--unified=${args.context_lines ?? 3}`];
  if (args.staged) argv.push('--cached');
  const chosen = ['--end-of-options', ...(ref === undefined ? [] : [ref])];
  // What the call's path rules withhold is left out of the diff (a note counts it).
  const { specs, withheld } = await repo.pathspecsShown([...argv, '--name-only', '-z', '--no-renames', ...chosen], given);
  if (withheld > 0 && specs.length === 0) return `No differences shown: ${describe(ref, args.staged ?? false)} touch only paths the policy withholds (repository ${repo.label}).`;
  if (args.stat) argv.push('--stat=120');
  argv.push(...chosen, '--', ...specs);
  const run = await repo.git(argv);
  if (run.code !== 0) throw readError('git_diff', run, ref === undefined ? [] : [['ref', ref]], repo.label);
  const what = describe(ref, args.staged ?? false);
  const scope = given.length ? ` in ${given.join(', ')}` : '';
  if (run.stdout.trim() === '') return `No differences: ${what}${scope} (repository ${repo.label}).`;
  return `Repository ${repo.label}: ${what}${scope}\n${run.stdout.trimEnd()}${cutNote(run, 'pass paths, or stat=true for a summary')}`;
}

function describe(ref: string | undefined, staged: boolean): string {
  if (ref !== undefined && /\.\.\.?/.test(ref)) return `commits ${ref}`;
  if (staged) return `staged changes (index against ${ref ?? 'HEAD'})`;
  if (ref !== undefined) return `working tree against ${ref}`;
  return 'unstaged changes (working tree against the index)';
}
