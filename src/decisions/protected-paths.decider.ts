/**
 * Protected-paths decider: a call of a writing tool whose path arguments reach into a
 * protected folder or file asks first, in every mode and whatever the scoped write folders;
 * in a read-only mode it is denied. Protected: every `.git` (a repository's folder, or a
 * worktree's `.git` file, at any depth: git runs programs its `config` and `hooks/` name, so a
 * `plans/.git/config` written in plan mode would run a command at the next `git status`
 * there), every `.toolgate` (toolgate's own settings), the other names of `PROTECTED_NAMES`
 * (`.hg`, `.jj`, `.envrc`, `.husky`), a folder the write would give two of a git
 * repository folder's entries (a bare repository planted file by file), and the names or
 * workspace-relative paths of the executor's `protectedPaths` option.
 *
 * Names match case-insensitively on every file system (on a case-sensitive one that protects
 * a little more than needed; on a case-insensitive one `.GIT` is `.git`).
 *
 * @module
 */
import path from 'node:path';
import fs from 'node:fs';
import { gitDirShapeOf, PROTECTED_NAMES } from '../workspace/protected-names.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

const NAME = 'protected-paths';
/** The protected names, as messages list them. */
const PROTECTED_LIST = PROTECTED_NAMES.join(', ');

/** The protected-paths step of the pipeline. */
export class ProtectedPathsDecider implements Decider {
  readonly name = NAME;
  /** Protected path components (lower case). */
  private readonly names: ReadonlySet<string>;
  /** Protected workspace-relative paths (lower case, `/`-separated, no trailing slash). */
  private readonly prefixes: readonly string[];

  /**
   * @param extra - further protected entries: a plain name (`.env`) is protected wherever it
   *   appears; an entry with a `/` (`config/secrets`) is a path relative to the workspace root,
   *   protected with everything below it.
   */
  constructor(extra: readonly string[] = []) {
    const names = new Set(PROTECTED_NAMES);
    const prefixes: string[] = [];
    for (const entry of extra) {
      const clean = entry.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '').toLowerCase();
      if (clean === '') continue;
      if (clean.includes('/')) prefixes.push(clean);
      else names.add(clean);
    }
    this.names = names;
    this.prefixes = prefixes;
  }

  decide(call: PreparedCall): Decision | undefined {
    if (call.tool.readOnly) return undefined;
    if (call.commands.length !== 0) {
      const named = this.namedByCommands(call);
      if (named !== undefined) return named;
    }
    if (call.paths.length === 0) return undefined;
    for (const { given, real } of call.paths) {
      const relative = path.relative(call.workspace.realRoot, real);
      const named = this.protectedPart(relative);
      const shaped = named === undefined ? gitDirShape(call.workspace.realRoot, relative) : undefined;
      const hit = named ?? shaped;
      if (hit === undefined) continue;
      const why = shaped !== undefined
        ? `${JSON.stringify(given)} would make ${JSON.stringify(shaped)} look like a git repository folder (HEAD, config, objects, refs), whose config git runs programs from (toolgate asks before such writes)`
        : `${JSON.stringify(given)} is inside ${JSON.stringify(hit)}, a protected path (toolgate asks before any write to ${PROTECTED_LIST} and the executor's protectedPaths)`;
      if (call.mode?.readOnly) return deny(NAME, 'MODE_DENIED', `${call.tool.name} is not allowed in ${call.mode.name} mode: ${why}.`, hit);
      return { verdict: 'ask', decider: NAME, reason: `${why}.`, rule: hit };
    }
    return undefined;
  }

  /**
   * A shell command whose words or redirections name a protected path (`echo x >
   * .git/hooks/pre-commit`, `cp hook sub/.git/hooks/`, `tee .toolgate/policy.toml`): it may
   * write there, so it asks (under `allow-all` too). Reading commands that name one ask as
   * well: the analysis cannot tell a read from a write by the words alone.
   */
  private namedByCommands(call: PreparedCall): Decision | undefined {
    for (const analysis of call.commands) {
      for (const command of analysis.commands) {
        for (const word of [...command.argv.slice(1), ...command.writes]) {
          const hit = this.protectedPart(word.replace(/^(\.\/)+/, '').split('/').join(path.sep));
          if (hit === undefined) continue;
          const why = `the command \`${command.text.length > 200 ? `${command.text.slice(0, 200)}…` : command.text}\` names ${JSON.stringify(word)}, inside ${JSON.stringify(hit)}, a protected path (toolgate asks before any write to ${PROTECTED_LIST} and the executor's protectedPaths)`;
          if (call.mode?.readOnly) return deny(NAME, 'MODE_DENIED', `${call.tool.name} is not allowed in ${call.mode.name} mode: ${why}.`, hit);
          return { verdict: 'ask', decider: NAME, reason: `${why}.`, rule: hit };
        }
      }
    }
    return undefined;
  }

  /** The protected component or prefix a workspace-relative path reaches, if any. */
  private protectedPart(relative: string): string | undefined {
    const parts = relative.split(path.sep);
    for (const part of parts) if (this.names.has(part.toLowerCase())) return part;
    const joined = parts.join('/').toLowerCase();
    return this.prefixes.find((prefix) => joined === prefix || joined.startsWith(`${prefix}/`));
  }
}

/**
 * The folder (workspace-relative) a file write to `relative` would make look like a git
 * repository folder ({@link gitDirShapeOf}), counting what it holds on disk.
 */
function gitDirShape(root: string, relative: string): string | undefined {
  const folder = gitDirShapeOf(relative.split(path.sep), true, (parts) => {
    try {
      return fs.readdirSync(path.join(root, ...parts), { withFileTypes: true }).map((d) => ({ name: d.name, isFile: d.isFile() }));
    } catch {
      return []; // a folder the write makes: nothing there yet
    }
  });
  return folder === undefined ? undefined : folder.length === 0 ? '.' : folder.join('/');
}
