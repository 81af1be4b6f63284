import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkBranchName } from './git-branch.tool.js';
import { checkRef, GitToolError, openRepository, unknownRef } from './git-repository.js';

/** Arguments of git_checkout. */
export interface GitCheckoutInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * The branch to switch to, or a commit or tag to look at (that leaves HEAD detached: no
   * branch). With create=true, the name of the new branch. Must not start with "-".
   */
  ref: string;
  /**
   * Create the branch `ref` first (at start_point, default the current commit) and switch to it.
   * @default false
   */
  create?: boolean;
  /**
   * With create=true: the commit, branch or tag the new branch starts at. Default: HEAD.
   */
  start_point?: string;
}

/**
 * Switch the working tree of a git repository to another branch (or a commit), updating the
 * files; with create=true, create a new branch and switch to it. Local changes that do not
 * collide are carried over; when they would be overwritten, or files are in conflict, nothing
 * changes and the error says what to do. Does not restore single files. No hook (post-checkout),
 * filter driver or fsmonitor of the repository runs.
 */
@tool({ name: 'git_checkout', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitCheckoutTool implements Tool<GitCheckoutInput, string> {
  run(args: GitCheckoutInput, ctx: ToolContext): Promise<string> {
    return gitCheckout(args, ctx);
  }
}

/**
 * Switch (or create and switch).
 * @throws GitToolError `unknown_ref`, `dirty_tree`, `unresolved_conflicts`, `branch_exists`,
 *   `bad_argument`.
 */
export async function gitCheckout(args: GitCheckoutInput, ctx: ToolContext): Promise<string> {
  const ref = checkRef(args.ref, 'ref');
  if (args.start_point !== undefined) {
    checkRef(args.start_point, 'start_point');
    if (!args.create) throw GitToolError.badArgument('start_point', 'is only for create=true (a new branch); leave it out to switch to ref.');
  }
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: false });
  // git checkout does not take --end-of-options (git 2.39): refs were checked not to start with "-",
  // a start point goes as its full hash, and "--" ends the refs so nothing is read as a path.
  let argv: string[];
  if (args.create) {
    const name = await checkBranchName(repo, ref, 'ref');
    const start = args.start_point === undefined ? undefined : await repo.commitOf(args.start_point, 'start_point');
    argv = ['checkout', '--no-recurse-submodules', '-b', name, ...(start === undefined ? [] : [start]), '--'];
  } else {
    argv = ['checkout', '--no-recurse-submodules', ref, '--'];
  }
  const run = await repo.git(argv);
  const text = run.stderr;
  if (run.code !== 0) {
    const files = (header: RegExp) => {
      const m = header.exec(text);
      if (!m) return '';
      return text.slice(m.index + m[0].length).split('\n').filter((l) => /^\t/.test(l)).map((l) => l.trim()).join(', ');
    };
    if (/would be overwritten by checkout/.test(text)) {
      const changed = files(/local changes to the following files would be overwritten by checkout:\n/);
      const untracked = files(/untracked working tree files would be overwritten by checkout:\n/);
      throw new GitToolError(
        'dirty_tree',
        `cannot switch to ${ref}: ${changed ? `your uncommitted changes to ${changed}` : ''}${changed && untracked ? ' and ' : ''}${untracked ? `the untracked files ${untracked}` : ''} would be overwritten. Nothing was changed. Commit them first (git_add, then git_commit), or move them aside, then retry.`,
      );
    }
    if (/resolve your current index first|you need to resolve|unmerged/i.test(text)) {
      throw new GitToolError('unresolved_conflicts', `cannot switch to ${ref}: the repository at ${repo.label} has files with unresolved merge conflicts. Resolve them (edit the conflict markers, git_add the files, git_commit), then retry. Nothing was changed.`);
    }
    if (args.create && /already exists/.test(text)) {
      throw new GitToolError('branch_exists', `a branch named ${ref} already exists; switch to it with create=false, or choose another name. Nothing was changed.`);
    }
    if (/did not match any file|invalid reference|not a commit|unknown revision|bad revision/i.test(text)) throw unknownRef(ref, 'ref', repo.label);
    throw GitToolError.gitFailed(`git checkout ${ref}`, run);
  }
  const head = await repo.git(['symbolic-ref', '--short', '-q', 'HEAD']);
  const commit = await repo.git(['log', '-1', '--no-show-signature', '--format=%h %s', '--end-of-options', 'HEAD', '--']);
  const where = head.code === 0 ? `on branch ${head.stdout.trim()}` : 'at a detached HEAD (no branch; create one with git_checkout create=true to keep new commits)';
  const carried = run.stdout.trim();
  return `Repository ${repo.label}: ${text.trim().split('\n').filter((l) => !/^(hint|Note):/.test(l)).join('\n')}\nNow ${where}, commit ${commit.stdout.trim()}.${carried ? `\nLocal changes kept:\n${carried}` : ''}`;
}
