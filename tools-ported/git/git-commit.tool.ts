import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { GitToolError, openRepository, type GitRepository } from './git-repository.js';

/** Arguments of git_commit. */
export interface GitCommitInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * The commit message: a subject line, optionally a blank line and a body. Taken as it is
   * (never run through a shell).
   * @minLength 1
   * @maxLength 65536
   */
  message: string;
  /**
   * First stage every change to files git already tracks (git commit --all); new files still
   * need git_add.
   * @default false
   */
  all?: boolean;
}

/** Author and committer used when the repository configures none. */
export const DEFAULT_IDENTITY = Object.freeze({ name: 'toolgate agent', email: 'toolgate@localhost' });

/**
 * Record the staged changes of a git repository as a new commit on the current branch, with
 * the given message (all=true first stages changes to tracked files). Reports the new commit's
 * hash and the files changed. Stage files with git_add first. The repository's hooks
 * (pre-commit, commit-msg, ...) do not run and nothing is signed. When the repository sets no
 * user.name or user.email, the commit is made as "toolgate agent <toolgate@localhost>" and the
 * output says so.
 */
@tool({ name: 'git_commit', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitCommitTool implements Tool<GitCommitInput, string> {
  run(args: GitCommitInput, ctx: ToolContext): Promise<string> {
    return gitCommit(args, ctx);
  }
}

/**
 * Commit. The message goes to git on standard input (`-F -`), never on a command line.
 * @throws GitToolError `nothing_to_commit`, `unresolved_conflicts`, `bad_argument` for an
 *   empty message.
 */
export async function gitCommit(args: GitCommitInput, ctx: ToolContext): Promise<string> {
  if (typeof args.message !== 'string' || args.message.trim() === '') {
    throw GitToolError.badArgument('message', 'is empty; give a commit message (a subject line, then optionally a blank line and a body).');
  }
  if (args.message.includes('\0')) throw GitToolError.badArgument('message', 'contains a NUL character, which a commit message cannot hold.');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: false });
  // git commit --all would stage conflicted files, markers and all, as resolved: refuse first.
  const unmerged = await repo.git(['ls-files', '--unmerged', '-z']);
  if (unmerged.code === 0 && unmerged.stdout !== '') {
    const files = [...new Set(unmerged.stdout.split('\0').filter(Boolean).map((l) => l.slice(l.indexOf('\t') + 1)))];
    throw new GitToolError(
      'unresolved_conflicts',
      `cannot commit in the repository at ${repo.label}: ${files.slice(0, 20).join(', ')} ${files.length === 1 ? 'has' : 'have'} unresolved merge conflicts. Fix the conflict markers in them, stage them with git_add, then commit. Nothing was committed.`,
    );
  }
  const identity = await identityFor(repo);
  const argv = ['commit', '--no-verify', '--no-gpg-sign', '--no-edit', '--cleanup=whitespace', '--file=-'];
  if (args.all) argv.push('--all');
  const run = await repo.git(argv, { input: args.message, env: identity.env });
  if (run.code !== 0) {
    const text = `${run.stdout}\n${run.stderr}`;
    if (/nothing to commit|no changes added to commit|nothing added to commit/.test(text)) {
      throw new GitToolError(
        'nothing_to_commit',
        `nothing to commit in the repository at ${repo.label}: no changes are staged${args.all ? ' and no tracked file changed' : ''}. Stage files with git_add first${args.all ? '' : ', or pass all=true to commit every change to tracked files'}; git_status shows what changed.`,
      );
    }
    if (/unmerged files|unresolved conflict/i.test(text)) {
      throw new GitToolError('unresolved_conflicts', `cannot commit in the repository at ${repo.label}: some files have unresolved merge conflicts. Fix the conflict markers in them, stage them with git_add, then commit.`);
    }
    if (/empty commit message/i.test(text)) throw GitToolError.badArgument('message', 'is empty once blank lines and trailing spaces are removed; give a real message.');
    throw GitToolError.gitFailed('git commit', run);
  }
  const summary = run.stdout.trimEnd();
  return `Repository ${repo.label}: committed.\n${summary}${identity.note}`;
}

/** The identity to commit with: the repository's, or the default (with a note) for what it lacks. */
async function identityFor(repo: GitRepository): Promise<{ env: Record<string, string>; note: string }> {
  const [name, email] = await Promise.all([repo.config('user.name'), repo.config('user.email')]);
  const env: Record<string, string> = {};
  const missing: string[] = [];
  if (!name?.trim()) {
    env.GIT_AUTHOR_NAME = DEFAULT_IDENTITY.name;
    env.GIT_COMMITTER_NAME = DEFAULT_IDENTITY.name;
    missing.push('user.name');
  }
  if (!email?.trim()) {
    env.GIT_AUTHOR_EMAIL = DEFAULT_IDENTITY.email;
    env.GIT_COMMITTER_EMAIL = DEFAULT_IDENTITY.email;
    missing.push('user.email');
  }
  const note = missing.length === 0
    ? ''
    : `\nNote: the repository sets no ${missing.join(' or ')}, so the commit was made with ${env.GIT_AUTHOR_NAME ?? name} <${env.GIT_AUTHOR_EMAIL ?? email}>. Ask the user to set ${missing.join(' and ')} in the repository's config for their own identity.`;
  return { env, note };
}
