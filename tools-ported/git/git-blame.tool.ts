import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkRef, cutNote, GitToolError, openRepository, readError } from './git-repository.js';

/** Arguments of git_blame. */
export interface GitBlameInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * The file to annotate, relative to the workspace root.
   * @format workspace-path
   */
  filepath: string;
  /**
   * Annotate the file as it was at this commit, branch or tag. Default: the working tree's
   * file (uncommitted lines show as "Not Committed Yet"). Must not start with "-".
   */
  ref?: string;
  /**
   * First line annotated (1-based).
   * @TJS-type integer
   * @minimum 1
   */
  start_line?: number;
  /**
   * Last line annotated (inclusive). Default: the end of the file.
   * @TJS-type integer
   * @minimum 1
   */
  end_line?: number;
}

/**
 * Show who last changed each line of a file in a git repository, and in which commit: for each
 * line the short hash, author, date, line number and text. Use start_line and end_line for a
 * part of a long file, ref for the file at an older commit; git_show shows a commit found here.
 * Reads only: no textconv, filter or hook runs.
 */
@tool({ name: 'git_blame', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitBlameTool implements Tool<GitBlameInput, string> {
  run(args: GitBlameInput, ctx: ToolContext): Promise<string> {
    return gitBlame(args, ctx);
  }
}

/**
 * The annotated lines.
 * @throws GitToolError `path_not_found` for a file git does not know, `unknown_ref`,
 *   `bad_argument` for a line range outside the file or end_line before start_line.
 */
export async function gitBlame(args: GitBlameInput, ctx: ToolContext): Promise<string> {
  if (args.ref !== undefined) checkRef(args.ref, 'ref');
  if (args.start_line !== undefined && args.end_line !== undefined && args.end_line < args.start_line) {
    throw GitToolError.badArgument('end_line', `(${args.end_line}) is before start_line (${args.start_line}); give start_line <= end_line.`);
  }
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: true });
  const [spec] = repo.pathspecs([args.filepath], 'filepath');
  // git blame does not take --end-of-options (git 2.39): the ref goes as the full hash, which cannot start with "-".
  const hash = args.ref === undefined ? undefined : await repo.commitOf(args.ref, 'ref');
  const argv = ['blame', '--no-textconv', '--date=short'];
  if (args.start_line !== undefined || args.end_line !== undefined) argv.push(`-L${args.start_line ?? 1},${args.end_line ?? ''}`);
  if (hash !== undefined) argv.push(hash);
  argv.push('--', spec!);
  const run = await repo.git(argv);
  if (run.code !== 0) {
    const lines = /has only (\d+) lines?/.exec(run.stderr);
    if (lines) throw GitToolError.badArgument('start_line', `is past the end of ${spec}, which has ${lines[1]} lines.`);
    throw readError('git_blame', run, args.ref === undefined ? [] : [['ref', args.ref]], repo.label);
  }
  if (run.stdout.trim() === '') return `${spec} is empty; nothing to annotate.`;
  return `${spec}${args.ref === undefined ? '' : ` at ${args.ref}`} (repository ${repo.label}):\n${run.stdout.trimEnd()}${cutNote(run, 'use start_line and end_line to annotate part of the file')}`;
}
