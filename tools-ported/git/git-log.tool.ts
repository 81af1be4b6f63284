import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkRef, cutNote, openRepository, readError } from './git-repository.js';

/** Arguments of git_log. */
export interface GitLogInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * Start from this commit, branch or tag, or show a range ("main..feature": commits on
   * feature not on main). Default: HEAD. Must not start with "-".
   */
  ref?: string;
  /**
   * Only commits that change these files or folders, relative to the workspace root.
   * @items.type string
   * @items.format workspace-path
   */
  paths?: string[];
  /**
   * Commits shown at most, newest first.
   * @TJS-type integer
   * @minimum 1
   * @maximum 500
   * @default 20
   */
  max_count?: number;
  /**
   * Newest commits skipped first (for the next page: the previous skip plus max_count).
   * @TJS-type integer
   * @minimum 0
   * @default 0
   */
  skip?: number;
  /**
   * Also list the files each commit changed, with A (added), M (modified), D (deleted) or R (renamed).
   * @default false
   */
  show_files?: boolean;
}

/** The default of `max_count`. */
export const DEFAULT_LOG_COUNT = 20;

/**
 * List the commits of a git repository, newest first, one line each: short hash, date, author,
 * the branches and tags pointing at it, and the subject. Use ref for another branch or a range,
 * paths for the history of some files, skip and max_count to page; git_show shows one commit
 * in full. Reads only: no hook or signature program runs.
 */
@tool({ name: 'git_log', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitLogTool implements Tool<GitLogInput, string> {
  run(args: GitLogInput, ctx: ToolContext): Promise<string> {
    return gitLog(args, ctx);
  }
}

/**
 * The commit list, or a sentence saying no commit matched.
 * @throws GitToolError `no_commits` on a branch without commits, `unknown_ref`, `bad_argument`.
 */
export async function gitLog(args: GitLogInput, ctx: ToolContext): Promise<string> {
  const ref = args.ref === undefined ? undefined : checkRef(args.ref, 'ref');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: true });
  const specs = repo.pathspecs(args.paths);
  const count = args.max_count ?? DEFAULT_LOG_COUNT;
  const skip = args.skip ?? 0;
  const argv = [
    'log', '--no-color', '--no-show-signature', '--no-ext-diff', '--no-textconv', '--date=short', '--decorate=short',
    '--format=%h %ad %an%d: %s', `--max-count=${count}`, `--skip=${skip}`,
  ];
  if (args.show_files) argv.push('--name-status');
  argv.push('--end-of-options');
  if (ref !== undefined) argv.push(ref);
  argv.push('--', ...specs);
  const run = await repo.git(argv);
  if (run.code !== 0) throw readError('git_log', run, ref === undefined ? [] : [['ref', ref]], repo.label);
  const lines = run.stdout.trimEnd();
  const scope = `${ref ?? 'HEAD'}${specs.length ? ` touching ${specs.join(', ')}` : ''}`;
  if (lines === '') return `No commits: ${scope}${skip ? ` after skipping ${skip}` : ''} (repository ${repo.label}).`;
  const shown = lines.split('\n').filter((l) => /^[0-9a-f]{7,} /.test(l)).length;
  const more = shown === count ? `\n[${shown} commits shown; there may be more: call again with skip=${skip + count}]` : '';
  return `Repository ${repo.label}: commits of ${scope}, newest first\n${lines}${more}${cutNote(run, 'use a smaller max_count')}`;
}
