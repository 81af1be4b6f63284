/**
 * The repository a git tool works on: found from a folder of the workspace (the workspace root
 * by default) with git's discovery stopped at the workspace's edge, checked to lie wholly
 * inside the workspace (work tree, git folder and common git folder), and then addressed
 * explicitly (`--git-dir`, `--work-tree`) by every command. Also: checks of ref and path
 * arguments, and the designed errors of the git tools.
 *
 * Plain functions and classes, no side effects at import.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside, PathTraversalError, ToolExecutionError, type ToolContext, type ToolErrorCode, type Workspace } from '../../src/tool.js';
import { filterDriverOverrides, gitEnv, runGit, type GitRun, type RunGitOptions } from './git-process.js';

/**
 * Why a git tool failed, in words a program can test (the `reason` of {@link GitToolError}):
 * - `not_a_repository`: no repository at or above the folder, inside the workspace;
 * - `bare_repository`: the repository has no work tree;
 * - `unsafe_repository`: git refuses it (owned by another user);
 * - `no_commits`: the branch has no commit yet;
 * - `unknown_ref`: a ref, commit or range that does not exist;
 * - `bad_argument`: a ref, name, path or message that is malformed (a leading `-`, a control
 *   character, a name git does not accept, a path outside the repository);
 * - `path_not_found`: a path that matches no file git knows;
 * - `ignored_path`: a path ignored by `.gitignore`;
 * - `nothing_to_commit`: no staged change to commit;
 * - `unresolved_conflicts`: the index holds unmerged files;
 * - `dirty_tree`: local changes or untracked files a checkout would overwrite;
 * - `branch_exists`, `branch_not_merged`, `branch_checked_out`: branch operations refused;
 * - `git_failed`: any other failure of git (its message is quoted).
 */
export type GitFailure =
  | 'not_a_repository' | 'bare_repository' | 'unsafe_repository' | 'no_commits' | 'unknown_ref' | 'bad_argument'
  | 'path_not_found' | 'ignored_path' | 'nothing_to_commit' | 'unresolved_conflicts' | 'dirty_tree'
  | 'branch_exists' | 'branch_not_merged' | 'branch_checked_out' | 'git_failed';

/**
 * A failure of a git tool the model can act on: `code` is `INVALID_ARGUMENTS` for arguments to
 * fix and `TOOL_ERROR` for the repository's state; `reason` says which case it is; the
 * message says what, where, and what to do next.
 */
export class GitToolError extends ToolExecutionError {
  /** Which failure this is (see {@link GitFailure}). */
  readonly reason: GitFailure;

  /**
   * @param reason - which failure.
   * @param message - what failed and how to go on.
   * @param code - the result's error code; default from the reason.
   */
  constructor(reason: GitFailure, message: string, code?: ToolErrorCode) {
    super(message, code ?? (ARGUMENT_FAILURES.has(reason) ? 'INVALID_ARGUMENTS' : 'TOOL_ERROR'));
    this.reason = reason;
  }

  /** A malformed argument. */
  static badArgument(argument: string, problem: string): GitToolError {
    return new GitToolError('bad_argument', `${argument} ${problem}`);
  }

  /** git failed in a way not recognised: its own message, quoted. */
  static gitFailed(what: string, run: GitRun): GitToolError {
    const text = (run.stderr.trim() || run.stdout.trim() || `exit status ${run.code}`).slice(0, 2000);
    return new GitToolError('git_failed', `${what} failed: ${text}`);
  }
}

const ARGUMENT_FAILURES = new Set<GitFailure>(['unknown_ref', 'bad_argument', 'path_not_found', 'ignored_path']);

/** Longest ref, branch name or range accepted, in characters. */
const MAX_REF_LENGTH = 256;

/**
 * Check a ref, revision or range argument before it reaches git: a non-empty string of at most
 * {@link MAX_REF_LENGTH} characters, without control characters, and not starting with `-`
 * (git would read it as an option: case R6). Tools also pass refs after `--end-of-options`
 * where the git command understands it.
 * @returns the ref unchanged.
 * @throws GitToolError `bad_argument` (`INVALID_ARGUMENTS`).
 */
export function checkRef(value: unknown, argument: string): string {
  if (typeof value !== 'string') throw GitToolError.badArgument(argument, 'must be a string.');
  if (value.trim() === '') throw GitToolError.badArgument(argument, 'is empty; give a branch, tag or commit such as "HEAD" or "main".');
  if (value.length > MAX_REF_LENGTH) throw GitToolError.badArgument(argument, `is longer than ${MAX_REF_LENGTH} characters.`);
  if (value.startsWith('-')) {
    throw GitToolError.badArgument(argument, `${JSON.stringify(value.slice(0, 80))} starts with "-", which git would read as an option; give a branch, tag or commit name.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw GitToolError.badArgument(argument, 'contains a control character (a newline, tab or NUL); give a plain ref name.');
  return value;
}

/** Bytes of path names a read's list may hold ({@link GitRepository.pathspecsShown}). */
const MAX_LISTED_BYTES = 1024 * 1024;

/** What {@link openRepository} needs besides the workspace. */
export interface OpenOptions {
  /** The `repository` argument: a folder of the workspace; default the workspace root. */
  repository?: string;
  /** A read-only call (no optional locks, no index refresh written). */
  readOnly: boolean;
}

/** Options of {@link GitRepository.git}. */
export type GitCallOptions = Pick<RunGitOptions, 'input' | 'maxOutputBytes' | 'timeoutMs'> & {
  /** Extra environment variables (an identity). */
  env?: Record<string, string>;
};

/** A repository inside the workspace, opened for one call. */
export class GitRepository {
  /**
   * @param workspace - the call's workspace.
   * @param top - real path of the work tree's top folder (inside the workspace).
   * @param gitDir - real path of the git folder (inside the workspace).
   * @param env - the environment of every git process of this call.
   * @param ctx - the call's signal and deadline.
   */
  constructor(
    readonly workspace: Workspace,
    readonly top: string,
    readonly gitDir: string,
    private readonly env: Record<string, string>,
    private readonly ctx: Pick<ToolContext, 'signal' | 'deadline'>,
  ) {}

  /** The work tree's top folder relative to the workspace root (`.` for the root). */
  get label(): string {
    return this.workspace.relative(this.top);
  }

  /**
   * Run `git <args>` on this repository: `--no-pager`, literal pathspecs, and the git folder
   * and work tree given explicitly (so neither the environment nor `core.worktree` can move
   * them), in the top folder.
   */
  git(args: readonly string[], options: GitCallOptions = {}): Promise<GitRun> {
    const argv = ['--no-pager', '--literal-pathspecs', `--git-dir=${this.gitDir}`, `--work-tree=${this.top}`, ...args];
    return runGit(argv, {
      cwd: this.top,
      env: options.env ? { ...this.env, ...options.env } : this.env,
      input: options.input,
      maxOutputBytes: options.maxOutputBytes,
      timeoutMs: options.timeoutMs,
      signal: this.ctx.signal,
      deadline: this.ctx.deadline,
    });
  }

  /** A configuration value of the repository (with our overrides applied), or `undefined` when unset. */
  async config(key: string): Promise<string | undefined> {
    const run = await this.git(['config', '--get', '--end-of-options', key]);
    return run.code === 0 ? run.stdout.replace(/\n$/, '') : undefined;
  }

  /**
   * Path arguments as git pathspecs relative to the top folder (`.` for the top itself). Each
   * is resolved by the workspace first (a path leading outside is a PathTraversalError); the
   * name given is kept (a symbolic link names the link, as git sees it).
   * @throws GitToolError `bad_argument` for a path outside this repository's work tree.
   * @throws PathTraversalError for a path outside the workspace.
   */
  pathspecs(inputs: readonly string[] | undefined, argument = 'paths'): string[] {
    const specs: string[] = [];
    for (const input of inputs ?? []) {
      const real = this.workspace.resolve(input);
      const given = lexicalPath(this.workspace, input);
      let rel = path.relative(this.top, given);
      if (!isRelativeInside(rel)) rel = path.relative(this.top, real);
      if (!isRelativeInside(rel)) {
        throw GitToolError.badArgument(argument, `${JSON.stringify(input)} is not inside the repository at ${this.label}; give paths inside it, relative to the workspace root.`);
      }
      specs.push(rel === '' ? '.' : rel.split(path.sep).join('/'));
    }
    return specs;
  }

  /**
   * The pathspecs of a read that shows what the repository holds (a diff, a commit), narrowed
   * by the call's path rules (`workspace.withholds`): `listArgs` is the same git command printing
   * only the paths it would show (`--name-only -z --no-renames`); when the rules withhold some
   * of them, the read is limited to the others, each named literally. `specs` as given when
   * nothing is withheld (or the call has no path rules); `[]` when everything is.
   * @throws GitToolError `bad_argument` when the paths are too many to check.
   */
  async pathspecsShown(listArgs: readonly string[], specs: readonly string[]): Promise<{ specs: string[]; withheld: number }> {
    if (!this.workspace.hasPathFilter) return { specs: [...specs], withheld: 0 };
    const run = await this.git([...listArgs, '--', ...specs], { maxOutputBytes: MAX_LISTED_BYTES });
    if (run.code !== 0) return { specs: [...specs], withheld: 0 }; // the read itself reports the error
    if (run.cut) throw GitToolError.badArgument('paths', `the changes touch more paths than toolgate checks against the policy's path rules; pass paths to narrow the read.`);
    const names = [...new Set(run.stdout.split('\0').filter((n) => n !== ''))];
    const kept: string[] = [];
    for (const n of names) if (!(await this.workspace.withholds(path.join(this.top, n), this.ctx.signal))) kept.push(n);
    if (kept.length === names.length) return { specs: [...specs], withheld: 0 };
    return { specs: kept, withheld: names.length - kept.length };
  }

  /**
   * The commit a ref names (full hash), checked with `rev-parse --verify`.
   * @throws GitToolError `unknown_ref` when it names no commit.
   */
  async commitOf(ref: string, argument: string): Promise<string> {
    checkRef(ref, argument);
    const run = await this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
    const hash = run.stdout.trim();
    if (run.code !== 0 || !/^[0-9a-f]{40,64}$/.test(hash)) throw unknownRef(ref, argument, this.label);
    return hash;
  }

  /** True when HEAD points at a commit (false in a repository without commits). */
  async hasCommits(): Promise<boolean> {
    const run = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    return run.code === 0;
  }
}

/** `unknown_ref` for a ref that names nothing. */
export function unknownRef(ref: string, argument: string, label: string): GitToolError {
  return new GitToolError(
    'unknown_ref',
    `${argument} ${JSON.stringify(ref.slice(0, 120))} names no commit in the repository at ${label}; use git_branch to list branches or git_log to see commits.`,
  );
}

/** The path as given, made absolute against the workspace's real root, without resolving links. */
function lexicalPath(workspace: Workspace, input: string): string {
  const root = workspace.realRoot;
  if (!path.isAbsolute(input)) return path.resolve(root, input);
  for (const r of [workspace.root, root]) {
    if (input === r || input.startsWith(r.endsWith(path.sep) ? r : r + path.sep)) return path.join(root, input.slice(r.length));
  }
  return path.normalize(input);
}

function isRelativeInside(rel: string): boolean {
  return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${path.sep}`));
}

/**
 * Open the repository containing `options.repository` (default: the workspace root).
 *
 * Discovery runs with `GIT_CEILING_DIRECTORIES` at the workspace's parent, so a repository
 * above the workspace is never used; then the work tree, the git folder and the common git
 * folder (of a linked work tree) must all be inside the workspace. The filter drivers the
 * repository's config defines are listed and switched off for every later command.
 * @throws GitToolError `not_a_repository`, `bare_repository`, `unsafe_repository`, or
 *   `bad_argument` when `repository` is not a folder.
 * @throws PathTraversalError when `repository` is outside the workspace, or the repository's
 *   work tree or git folder lies outside it (a `.git` file or `core.worktree` leading out).
 */
export async function openRepository(ctx: ToolContext, options: OpenOptions): Promise<GitRepository> {
  const workspace = ctx.workspace;
  const realRoot = workspace.realRoot;
  const given = options.repository ?? '.';
  const start = workspace.resolve(given);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(start);
  } catch {
    throw GitToolError.badArgument('repository', `${JSON.stringify(given)} does not exist; give a folder of the workspace, or leave repository out for the workspace root.`);
  }
  if (!stat.isDirectory()) throw GitToolError.badArgument('repository', `${JSON.stringify(given)} is a file; give the folder of the repository.`);

  const baseEnv = { ceiling: path.dirname(realRoot), readOnly: options.readOnly };
  const env = gitEnv(process.env, baseEnv);
  const where = workspace.relative(start);
  const found = await runGit(['--no-pager', 'rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], {
    cwd: start, env, signal: ctx.signal, deadline: ctx.deadline,
  });
  if (found.code !== 0) throw discoveryError(found, where);
  const [topLine, gitDirLine, commonLine] = found.stdout.split('\n');
  if (!topLine || !gitDirLine || !commonLine) throw GitToolError.gitFailed(`finding the repository at ${where}`, found);
  const real = (p: string) => {
    try {
      return fs.realpathSync.native(path.resolve(start, p));
    } catch {
      return path.resolve(start, p);
    }
  };
  const top = real(topLine);
  const gitDir = real(gitDirLine);
  const commonDir = real(commonLine);
  for (const [what, p] of [['work tree', top], ['git folder', gitDir], ['common git folder', commonDir]] as const) {
    if (!isInside(realRoot, p)) {
      throw new PathTraversalError(given, realRoot, `is in a repository whose ${what} (${p}) is outside the workspace; the git tools work only on repositories wholly inside it`);
    }
  }

  // Object stores git reads from: the repository's own (which may be a link) and those its
  // alternates file names; any outside the workspace would let git_show print outside files.
  for (const store of objectStores(commonDir)) {
    if (!isInside(realRoot, store)) {
      throw new PathTraversalError(given, realRoot, `is in a repository that reads objects from ${store} (its objects folder or objects/info/alternates), outside the workspace; the git tools work only on repositories wholly inside it`);
    }
  }

  const repo = new GitRepository(workspace, top, gitDir, env, ctx);
  const filters = await repo.git(['config', '-z', '--name-only', '--get-regexp', '^filter\\.']);
  if (filters.code !== 0 && filters.code !== 1) throw GitToolError.gitFailed(`reading the configuration of the repository at ${repo.label}`, filters);
  const overrides = filterDriverOverrides(filters.stdout.split('\0').filter(Boolean));
  if (overrides.length === 0) return repo;
  return new GitRepository(workspace, top, gitDir, gitEnv(process.env, { ...baseEnv, config: overrides }), ctx);
}

/**
 * The real paths of the object stores of a repository: its `objects` folder and every entry
 * of `objects/info/alternates` (relative entries are relative to the objects folder; `#`
 * lines are comments), followed one level, as git follows them recursively only through
 * stores that must themselves pass this check.
 */
function objectStores(commonDir: string): string[] {
  const realOf = (p: string) => {
    try {
      return fs.realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const objects = realOf(path.join(commonDir, 'objects'));
  const stores = [objects];
  const pending = [objects];
  while (pending.length && stores.length < 64) {
    const dir = pending.shift()!;
    let text = '';
    try {
      text = fs.readFileSync(path.join(dir, 'info', 'alternates'), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const entry = line.trim();
      if (entry === '' || entry.startsWith('#')) continue;
      const store = realOf(path.resolve(dir, entry.replace(/^"(.*)"$/, '$1')));
      if (!stores.includes(store)) {
        stores.push(store);
        pending.push(store);
      }
    }
  }
  return stores;
}

/** The error for a failed discovery, by git's message (C locale). */
function discoveryError(run: GitRun, where: string): GitToolError {
  const text = run.stderr;
  if (/not a git repository/i.test(text)) {
    return new GitToolError(
      'not_a_repository',
      `${where} is not in a git repository (none at or above it, inside the workspace). Give repository as the folder of one inside the workspace, or create one with run_command "git init".`,
    );
  }
  if (/dubious ownership/i.test(text)) {
    return new GitToolError('unsafe_repository', `git refuses the repository at ${where}: it is owned by another user (git's safe.directory protection). Ask the user to fix its ownership.`);
  }
  if (/bare repository|must be run in a work tree/i.test(text)) {
    return new GitToolError('bare_repository', `${where} is a bare repository (no work tree) or inside one; the git tools need a repository with a work tree.`);
  }
  return GitToolError.gitFailed(`finding the repository at ${where}`, run);
}

/**
 * Map git's message of a failed read (log, show, diff, blame) to a designed error.
 * @param what - the operation, for the message ("git_log").
 */
export function readError(what: string, run: GitRun, refs: ReadonlyArray<readonly [string, string]>, label: string): GitToolError {
  const text = run.stderr;
  if (/does not have any commits yet/.test(text)) {
    return new GitToolError('no_commits', `the current branch of the repository at ${label} has no commits yet; commit something first (git_add, then git_commit).`);
  }
  if (/bad revision|unknown revision|ambiguous argument|bad object|invalid object name|not a valid object name|no such ref|is not a commit/i.test(text)) {
    const named = refs.find(([, ref]) => text.includes(ref)) ?? refs[0];
    if (named !== undefined) return unknownRef(named[1], named[0], label);
  }
  if (/no such path|does not exist in|exists on disk, but not in/i.test(text)) {
    return new GitToolError('path_not_found', `${what}: ${text.replace(/^fatal: /, '').trim()} (in the repository at ${label}); check the path with git_status or git_log.`);
  }
  return GitToolError.gitFailed(what, run);
}

/** The note added when output was cut at the byte bound. */
export function cutNote(run: GitRun, hint: string): string {
  return run.cut ? `\n[output cut after ${Math.round(run.stdout.length / 1024)} KiB; ${hint}]` : '';
}
