import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { GitToolError, openRepository } from './git-repository.js';

/** Arguments of git_add. */
export interface GitAddInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * Files or folders to stage, relative to the workspace root ("." for everything in the
   * workspace root's folder). New, changed and deleted files under them are all staged.
   * @minItems 1
   * @items.type string
   * @items.format workspace-path
   */
  paths: string[];
  /**
   * Also stage files that .gitignore ignores (git add --force).
   * @default false
   */
  force?: boolean;
}

/**
 * Stage files for the next commit in a git repository (git add): new, changed and deleted
 * files under the given paths. Lists what was staged; git_commit then records it. Paths are
 * taken literally (no wildcards). No hook, filter driver or fsmonitor of the repository runs.
 */
@tool({ name: 'git_add', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitAddTool implements Tool<GitAddInput, string> {
  run(args: GitAddInput, ctx: ToolContext): Promise<string> {
    return gitAdd(args, ctx);
  }
}

/**
 * Stage `args.paths`.
 * @throws GitToolError `path_not_found` for a path that matches no file, `ignored_path` for an
 *   ignored one (without force), `bad_argument` for a path outside the repository.
 */
export async function gitAdd(args: GitAddInput, ctx: ToolContext): Promise<string> {
  if (!Array.isArray(args.paths) || args.paths.length === 0) throw GitToolError.badArgument('paths', 'is empty; name the files or folders to stage ("." for all).');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: false });
  const specs = repo.pathspecs(args.paths);
  const argv = ['add', '--verbose'];
  if (args.force) argv.push('--force');
  const run = await repo.git([...argv, '--', ...specs]);
  if (run.code !== 0) {
    const text = run.stderr;
    const missing = /pathspec '(.*)' did not match any files/.exec(text);
    if (missing) {
      throw new GitToolError('path_not_found', `paths: "${missing[1]}" matches no file in the repository at ${repo.label} (neither on disk nor in the index); check the name with git_status. Nothing was staged.`);
    }
    if (/ignored by one of your \.gitignore files/.test(text)) {
      const ignored = text.split('\n').filter((l) => l && !/^(The following|hint:|Use -f|fatal:)/.test(l));
      throw new GitToolError('ignored_path', `paths: ${ignored.join(', ') || 'a path'} is ignored by .gitignore, so it was not staged${specs.length > 1 ? ' (the other paths were)' : ''}; pass force=true to stage it anyway.`);
    }
    if (/unmerged|needs merge/i.test(text)) throw new GitToolError('unresolved_conflicts', `git add failed: ${text.trim().slice(0, 1000)}`);
    throw GitToolError.gitFailed('git add', run);
  }
  const lines = run.stdout.split('\n').filter(Boolean);
  if (lines.length === 0) return `Nothing new to stage under ${specs.join(', ')} (repository ${repo.label}): no changes there that are not staged already.`;
  const described = lines.map((l) => l.replace(/^add '(.*)'$/, 'staged $1').replace(/^remove '(.*)'$/, 'staged the deletion of $1'));
  return `Repository ${repo.label}: ${lines.length} ${lines.length === 1 ? 'change' : 'changes'} staged\n${described.join('\n')}`;
}
