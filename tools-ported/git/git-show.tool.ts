import path from 'node:path';
import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { checkRef, cutNote, GitToolError, openRepository, readError } from './git-repository.js';

/** Arguments of git_show. */
export interface GitShowInput {
  /**
   * Folder of the repository (or any folder inside it), relative to the workspace root.
   * Default: the workspace root.
   * @format workspace-path
   */
  repository?: string;
  /**
   * The commit, branch or tag to show (default "HEAD"), or "<commit>:<path>" for a file's
   * content at that commit (path relative to the repository's top folder, for example
   * "HEAD~2:src/main.ts"). Must not start with "-".
   * @default "HEAD"
   */
  ref?: string;
  /**
   * Only the changes of these files or folders, relative to the workspace root.
   * @items.type string
   * @items.format workspace-path
   */
  paths?: string[];
  /**
   * Only a summary of the files the commit changed (`--stat`), without the changed lines.
   * @default false
   */
  stat?: boolean;
  /**
   * Unchanged lines shown around each change.
   * @TJS-type integer
   * @minimum 0
   * @maximum 100
   * @default 3
   */
  context_lines?: number;
}

/**
 * Show one commit of a git repository: its hash, author, date, full message and changes as a
 * unified diff (or only a summary with stat=true); or, with ref "<commit>:<path>", the content
 * of a file as it was at that commit. Use git_log to find commits. Binary content is not
 * shown. Reads only: no external diff, textconv or hook runs.
 */
@tool({ name: 'git_show', version: '1.0.0', kind: 'file_read', readOnly: true, domain: 'git', tags: ['git', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class GitShowTool implements Tool<GitShowInput, string> {
  run(args: GitShowInput, ctx: ToolContext): Promise<string> {
    return gitShow(args, ctx);
  }
}

/**
 * The commit (or file content) as `git show` prints it.
 * @throws GitToolError `unknown_ref` when ref names nothing, `path_not_found` for a
 *   "<commit>:<path>" whose path is not in that commit, `bad_argument`.
 */
export async function gitShow(args: GitShowInput, ctx: ToolContext): Promise<string> {
  const ref = checkRef(args.ref ?? 'HEAD', 'ref');
  const repo = await openRepository(ctx, { repository: args.repository, readOnly: true });
  const given = repo.pathspecs(args.paths);
  // "<commit>:<path>" shows a file's content: that path is judged by the call's path rules.
  const shownPath = /^(?::[0-3]:|[^:]*:)(.+)$/s.exec(ref)?.[1];
  if (shownPath !== undefined && (await repo.workspace.withholds(path.join(repo.top, shownPath), ctx.signal))) {
    throw GitToolError.badArgument('ref', `${JSON.stringify(shownPath)} is a path the policy's rules deny (or ask about); it is not shown.`);
  }
  const { specs, withheld } = shownPath !== undefined ? { specs: given, withheld: 0 } : await repo.pathspecsShown(['show', '--no-color', '--format=', '--name-only', '-z', '--no-renames', '--end-of-options', ref], given);
  if (withheld > 0 && specs.length === 0) return `${ref} in the repository at ${repo.label} changes only paths the policy withholds; nothing is shown.`;
  const argv = [
    'show', '--no-color', '--no-show-signature', '--no-ext-diff', '--no-textconv', '--decorate=short', '--date=iso',
    `--unified=${args.context_lines ?? 3}`,
  ];
  if (args.stat) argv.push('--stat=120');
  argv.push('--end-of-options', ref, '--', ...specs);
  const run = await repo.git(argv);
  if (run.code !== 0) throw readError('git_show', run, [['ref', ref]], repo.label);
  if (run.binary) {
    return `${ref} in the repository at ${repo.label} is binary content (${run.stdout.length} characters or more); it is not shown. Use git_diff with stat=true or file tools for binary files.`;
  }
  return `${run.stdout.trimEnd()}${cutNote(run, 'use stat=true, or paths to show part of the commit')}`;
}
