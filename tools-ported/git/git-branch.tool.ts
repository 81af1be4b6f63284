import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkRef, GitToolError, openRepository, unknownRef, type GitRepository } from './git-repository.js';

/** Arguments of git_branch. */
export interface GitBranchInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * The branch to create (or, with delete=true, to delete), for example "feature/login".
   * Leave it out to list the branches.
   */
  name?: string;
  /**
   * Where a new branch starts: a commit, branch or tag. Default: the current commit (HEAD).
   * Must not start with "-".
   */
  start_point?: string;
  /**
   * Delete the branch `name` instead of creating it. Only a branch whose commits are all
   * merged into the current branch (or its upstream) is deleted.
   * @default false
   */
  delete?: boolean;
}

/**
 * List, create or delete branches of a git repository. Without name: lists the local branches
 * with their last commit, the current one marked "*". With name: creates that branch at
 * start_point (default HEAD) without switching to it (git_checkout switches). With name and
 * delete=true: deletes it if it is fully merged. No hook of the repository runs.
 */
@tool({ name: 'git_branch', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitBranchTool implements Tool<GitBranchInput, string> {
  run(args: GitBranchInput, ctx: ToolContext): Promise<string> {
    return gitBranch(args, ctx);
  }
}

/**
 * Check a new or existing branch name: {@link checkRef}, then git's own rules for
 * `refs/heads/<name>` (`git check-ref-format`).
 * @throws GitToolError `bad_argument`.
 */
export async function checkBranchName(repo: GitRepository, name: string, argument: string): Promise<string> {
  checkRef(name, argument);
  const run = await repo.git(['check-ref-format', `refs/heads/${name}`]);
  if (run.code !== 0) {
    throw GitToolError.badArgument(argument, `${JSON.stringify(name)} is not a valid branch name (no spaces, "..", "~", "^", ":", "?", "*", "[", "\\", and no "/" at either end); for example "feature/login".`);
  }
  return name;
}

/**
 * List, create or delete.
 * @throws GitToolError `branch_exists`, `branch_not_merged`, `branch_checked_out`,
 *   `unknown_ref` (start point or branch to delete), `no_commits`, `bad_argument`.
 */
export async function gitBranch(args: GitBranchInput, ctx: ToolContext): Promise<string> {
  if (args.name === undefined) {
    if (args.start_point !== undefined || args.delete) throw GitToolError.badArgument('name', 'is required with start_point or delete=true: name the branch.');
  } else {
    checkRef(args.name, 'name');
    if (args.delete && args.start_point !== undefined) throw GitToolError.badArgument('start_point', 'is for creating a branch; leave it out with delete=true.');
  }
  if (args.start_point !== undefined) checkRef(args.start_point, 'start_point');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: args.name === undefined });
  if (args.name === undefined) return listBranches(repo);
  const name = await checkBranchName(repo, args.name, 'name');
  if (args.delete) return deleteBranch(repo, name);

  if (!(await repo.hasCommits()) && args.start_point === undefined) {
    throw new GitToolError('no_commits', `the repository at ${repo.label} has no commits yet, so a branch has nothing to point at; commit first (git_add, then git_commit).`);
  }
  const start = args.start_point === undefined ? 'HEAD' : await repo.commitOf(args.start_point, 'start_point');
  const run = await repo.git(['branch', '--no-track', '--end-of-options', name, start]);
  if (run.code !== 0) {
    if (/already exists/.test(run.stderr)) {
      throw new GitToolError('branch_exists', `a branch named ${name} already exists in the repository at ${repo.label}; choose another name, or switch to it with git_checkout.`);
    }
    throw GitToolError.gitFailed('git branch', run);
  }
  const at = await repo.git(['log', '-1', '--no-show-signature', '--format=%h %s', '--end-of-options', `refs/heads/${name}`, '--']);
  return `Repository ${repo.label}: created the branch ${name} at ${at.stdout.trim()}${args.start_point === undefined ? ' (the current commit)' : ''}. It is not checked out; use git_checkout to switch to it.`;
}

async function listBranches(repo: GitRepository): Promise<string> {
  const run = await repo.git(['branch', '--list', '--no-color', '-v']);
  if (run.code !== 0) throw GitToolError.gitFailed('git branch', run);
  const text = run.stdout.trimEnd();
  if (text === '') {
    const head = await repo.git(['symbolic-ref', '--short', '-q', 'HEAD']);
    return `Repository ${repo.label} has no branches with commits yet${head.code === 0 ? ` (the current branch, ${head.stdout.trim()}, has no commits)` : ''}.`;
  }
  return `Repository ${repo.label}: local branches ("*" marks the current one; hash and subject of each one's last commit)\n${text}`;
}

async function deleteBranch(repo: GitRepository, name: string): Promise<string> {
  const run = await repo.git(['branch', '--delete', '--end-of-options', name]);
  if (run.code !== 0) {
    const text = run.stderr;
    if (/not found/.test(text)) throw unknownRef(name, 'name', repo.label);
    if (/not fully merged/.test(text)) {
      throw new GitToolError('branch_not_merged', `the branch ${name} has commits that are not merged into the current branch, so it was not deleted (they would be lost). Merge them first, or ask the user to delete it.`);
    }
    if (/checked out at|Cannot delete branch/i.test(text)) {
      throw new GitToolError('branch_checked_out', `the branch ${name} is checked out, so it cannot be deleted; switch to another branch with git_checkout first.`);
    }
    throw GitToolError.gitFailed('git branch --delete', run);
  }
  return `Repository ${repo.label}: ${run.stdout.trim() || `deleted the branch ${name}.`}`;
}
