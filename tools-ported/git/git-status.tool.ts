import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { cutNote, GitToolError, openRepository } from './git-repository.js';

/** Arguments of git_status. */
export interface GitStatusInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
}

/**
 * Show the state of a git repository in the workspace: the current branch (and how far it is
 * ahead of or behind its upstream), the staged changes, the changes not staged yet, untracked
 * files and unresolved conflicts, with paths relative to the repository's top folder. Use it
 * before git_add and git_commit, and after changing files; use git_diff to see the changed
 * lines. Reads only: no hook, filter or fsmonitor of the repository runs.
 */
@tool({ name: 'git_status', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitStatusTool implements Tool<GitStatusInput, string> {
  run(args: GitStatusInput, ctx: ToolContext): Promise<string> {
    return gitStatus(args, ctx);
  }
}

/**
 * The long `git status` of the repository, after a line naming it.
 * @throws GitToolError when the folder is not in a repository inside the workspace.
 */
export async function gitStatus(args: GitStatusInput, ctx: ToolContext): Promise<string> {
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: true });
  const run = await repo.git(['status', '--long', '--branch', '--ignore-submodules=all', '--untracked-files=normal']);
  if (run.code !== 0) throw GitToolError.gitFailed('git status', run);
  return `Repository: ${repo.label}\n${run.stdout.trimEnd()}${cutNote(run, 'the repository has very many changes; pass paths to git_diff to look at parts')}`;
}
