/**
 * Workspace path resolution: the one resolver used by every file tool and by the mode gate.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidPathError, PathTraversalError, ToolExecutionError } from '../errors/errors.js';
import { clip } from '../util/values.js';
import type { PathFilter } from './path-filter.js';
import { countNames, inodeKey, withheldInodes, type NameCounts, type WithheldInodes } from './withheld-inodes.js';
import { workspaceCovers } from './cover-snapshots.js';
import { readOnlyStatePaths } from '../sandbox/own-state-paths.js';
import { homeDotEntry, homesInside } from './home-dotfiles.js';

/** Longest path argument accepted, in characters (Linux's PATH_MAX is 4096 bytes). */
const MAX_PATH_LENGTH = 4096;

/** A UTF-16 surrogate that is not half of a pair (`String.prototype.isWellFormed`, ES2024, in a regular expression). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** How many symbolic links one resolution may follow before it is refused (as the kernel's ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * Is `candidate` the same as `root` or below it? Both must be absolute and normalised.
 * Compares whole path segments, so `/ws/proj-evil` is not inside `/ws/proj`.
 */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  if (rel === '') return true;
  if (path.isAbsolute(rel)) return false;
  // "..foo" is a name inside the root; only ".." as a whole segment climbs out.
  return rel !== '..' && !rel.startsWith(`..${path.sep}`);
}

/**
 * A workspace: a root folder and the resolver that keeps paths inside it.
 *
 * Rules (cases P1, P2, P4, P5 of shared/cases/security.md):
 * - relative paths resolve against the root; absolute paths are accepted only inside it;
 * - `~` paths are refused (no home expansion: they would leave the workspace);
 * - symbolic links are resolved, including those of the nearest existing parent of a file
 *   that does not exist yet, and a dangling link's target; the real path must stay inside
 *   the root's real path;
 * - siblings whose names start with the root's name (`/ws/proj-evil`) are outside;
 * - empty paths and NUL bytes are {@link InvalidPathError}s.
 *
 * Checks happen at resolution time: a link swapped in between the check and the use (a
 * race with another process) is not detected.
 */
export class Workspace {
  /** Root folder as given (absolute). */
  readonly root: string;
  /**
   * Real paths of the only folders writes may go to (a read-only mode's scoped write
   * folders), or `undefined` when writes may go anywhere in the workspace.
   */
  readonly writeRoots: readonly string[] | undefined;
  private realRootCache: string | undefined;
  /** The call's path rules, when the workspace is one call's ({@link withPathFilter}). */
  private readonly pathFilter: PathFilter | undefined;
  private withheldCount = 0;
  /** The withheld files' identities, looked for at the first multi-link file judged (withheld-inodes.ts). */
  private withheldIds: Promise<WithheldInodes> | undefined;
  /** The names counted of each multi-link file, when that walk was incomplete (withheld-inodes.ts). */
  private nameCounts: Promise<NameCounts> | undefined;

  /**
   * @param root - the workspace root folder; relative roots resolve against the process's
   *   working directory. It need not exist until a path is resolved.
   * @param writeRoots - real paths of the folders writes are confined to (default: none).
   */
  constructor(root: string, writeRoots?: readonly string[], pathFilter?: PathFilter) {
    this.root = path.resolve(root);
    this.writeRoots = writeRoots;
    this.pathFilter = pathFilter;
  }

  /** This workspace for one call whose path rules are `filter` (see {@link withholds}). */
  withPathFilter(filter: PathFilter): Workspace {
    const ws = new Workspace(this.root, this.writeRoots, filter);
    ws.realRootCache = this.realRootCache;
    return ws;
  }

  /**
   * Whether the call's path rules withhold a path the tool found by itself: an entry of a
   * folder it walks, or where an archive member would land. Every tool that walks a folder
   * skips an entry for which this is true (and does not descend into a withheld folder); one
   * that writes such a path refuses. The deciders judged the call's own path arguments already.
   *
   * The path is judged by its real path (every link resolved: `env-link -> .env` is `.env`),
   * by its spelling (normalised, inside the root), and, for a file with more than one link,
   * by its other names in the workspace (a hard link of `.env` is `.env`), as the policy
   * decider judges a path argument; a `deny` rule covering either withholds it, and so does an
   * `ask` rule that the person was not asked about for this call. The other names are found by
   * one asynchronous walk of the workspace per call, made when the first file with more than
   * one link is judged (`withheld-inodes.ts`). When that walk cannot see everything (more than
   * 1,000,000 entries, or a folder it cannot read), a file with more than one link that it did
   * not find withheld is shown only when a second walk counts all of its names (its link
   * count) and none is withheld; otherwise it is withheld (a name left unseen may be a withheld
   * file's: docs/sandbox.md). A path outside the workspace or that cannot be resolved is judged
   * by its spelling only.
   * Without path rules (no policy files, or the `Workspace` is not a call's) nothing is withheld.
   *
   * @param input - absolute, or relative to the root.
   * @param signal - stops the walks for other names (the call's signal), within one batch of
   *   256 entries; the promise then rejects with the signal's reason.
   * @returns true when withheld; each true answer adds one to {@link withheld}.
   */
  async withholds(input: string, signal?: AbortSignal): Promise<boolean> {
    if (this.pathFilter === undefined) return false;
    if (!this.judgedByName(input) && !(await this.isOtherNameOfWithheld(input, signal))) return false;
    this.withheldCount++;
    return true;
  }


  /**
   * What a sandbox must cover so that a shell command, whose reads are not judged one by one
   * (`grep -r KEY`, `cat *`), sees nothing the call's path rules withhold: the real paths of
   * the withheld entries of the workspace (a folder whole; a link by its own path, the sandbox
   * covering where it leads) and the other names (hard links) of withheld files, found by walking the workspace (links not followed; `withheld-inodes.ts`,
   * `withheldCovers`), or kept from an earlier walk under the same rules when no folder of the
   * workspace and no mount has changed since (`cover-snapshots.ts`, which argues why that
   * misses nothing the walk would find). Each path found adds one to {@link withheld}.
   * @param signal - stops the walk (the call's signal), within one batch of 256 entries; the
   *   promise then rejects with the signal's reason.
   * @returns the absolute paths, and `complete: false` when part of the workspace went unseen
   *   (more than 1,000,000 entries, or a folder that could not be read): a withheld path may
   *   then be left uncovered, so the caller must not run the command.
   */
  async sandboxCovers(signal?: AbortSignal): Promise<{ paths: string[]; complete: boolean }> {
    const filter = this.pathFilter;
    if (filter === undefined) return { paths: [], complete: true };
    const found = await workspaceCovers(this.realRoot, filter, signal);
    this.withheldCount += found.paths.length;
    return { paths: found.paths.map((p) => path.join(this.realRoot, p)), complete: found.complete };
  }

  /** Whether the path rules withhold `input` by its real path or its spelling. */
  private judgedByName(input: string): boolean {
    const filter = this.pathFilter!;
    const judged: string[] = [];
    try {
      judged.push(this.relative(this.resolve(input)));
    } catch {
      // judged by its spelling alone
    }
    const spelled = spelledRelative(this.root, this.realRootCache ?? this.root, input);
    if (spelled !== undefined && spelled !== judged[0]) judged.push(spelled);
    return judged.some((p) => p !== '.' && !p.startsWith('../') && filter(p));
  }

  /**
   * Whether `input` is a file with more than one link (a hard link) of which another name is
   * withheld: the same content under a name no rule covers (case P9's family).
   */
  private async isOtherNameOfWithheld(input: string, signal: AbortSignal | undefined): Promise<boolean> {
    // A synchronous stat: this runs for every entry a folder tool judges, and one system call
    // costs far less than a round trip through libuv's thread pool (only the walk is async).
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(path.resolve(this.root, input), { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat === undefined || !stat.isFile() || stat.nlink < 2) return false;
    const filter = this.pathFilter!;
    // One walk per call, shared by every question asked while it runs; a walk stopped by a
    // signal is not kept (the next question starts another).
    const walk = (this.withheldIds ??= withheldInodes(this.realRoot, (p) => filter(p), signal));
    let ids: WithheldInodes;
    try {
      ids = await walk;
    } catch (error) {
      if (this.withheldIds === walk) this.withheldIds = undefined;
      throw error;
    }
    if (ids.keys.has(inodeKey(stat))) return true;
    if (!ids.incomplete) return false;
    // The walk did not see everything: shown only when every name of the file was seen and
    // none is withheld (exact inode numbers: a rounded one could borrow another file's names).
    let exact: fs.BigIntStats | undefined;
    try {
      exact = fs.statSync(path.resolve(this.root, input), { bigint: true, throwIfNoEntry: false });
    } catch {
      exact = undefined;
    }
    if (exact === undefined) return true; // gone meanwhile (or unreadable): not proven
    if (!exact.isFile() || exact.nlink < 2n) return false; // replaced meanwhile by a file with one name
    const counting = (this.nameCounts ??= countNames(this.realRoot, (p) => filter(p), signal));
    try {
      return !(await counting).accountsFor(exact);
    } catch (error) {
      if (this.nameCounts === counting) this.nameCounts = undefined;
      throw error;
    }
  }

  /**
   * Whether the call has path rules that {@link withholds} answers from (false: it always
   * answers false). A tool may skip the work of listing what it would ask about otherwise.
   */
  get hasPathFilter(): boolean {
    return this.pathFilter !== undefined;
  }

  /** How many times {@link withholds} said yes in this call (what a tool left out). */
  get withheld(): number {
    return this.withheldCount;
  }

  /**
   * Check that a resolved path may be written: not toolgate's own file or folder (the user's
   * policy and config folder, the state folder with the ledgers, a ledger folder this process
   * has open, `protectOwnStatePath` additions: `readOnlyStatePaths`, the list the sandbox binds
   * read-only), and inside one of {@link writeRoots} when set. File tools call it (through
   * `writeFileInside`, `resolveWritable`, and for each member an archive unpacks) at the
   * moment of writing, so a link put in place after the gate's check (a snapshot's path now
   * leading to `~/.config/toolgate/policy.toml`), or a path the deciders never saw (an
   * archive member), cannot carry a write there (cases O1 and M1).
   * @throws ToolExecutionError (code `POLICY_DENIED`) for toolgate's own files, (code
   *   `MODE_DENIED`) outside the write roots.
   */
  assertWritable(real: string, input: string): void {
    this.writeCheck()(real, input);
  }

  /**
   * {@link assertWritable} for many paths of one step (an archive's members): toolgate's own
   * paths are listed once, when it is made.
   */
  writeCheck(): (real: string, input: string) => void {
    const ownState = readOnlyStatePaths();
    return (real, input) => this.checkWritable(ownState, real, input);
  }

  private checkWritable(ownState: readonly string[], real: string, input: string): void {
    const own = ownState.find((o) => isInside(o, real));
    if (own !== undefined) {
      throw new ToolExecutionError(`${clip(input, 300)} leads to ${own}, toolgate's own file or folder (its policy, approvals, ledger or outputs), which no tool call may change; nothing was written. Change toolgate's settings with toolgate's own commands.`, 'POLICY_DENIED');
    }
    if (this.writeRoots === undefined) return;
    if (this.writeRoots.some((r) => real !== r && isInside(r, real))) return;
    throw new ToolExecutionError(
      `${clip(input, 300)} leads outside the folders this mode may write to (${this.writeRoots.map((r) => this.relative(r)).join(', ')}); nothing was written.`,
      'MODE_DENIED',
    );
  }

  /**
   * The hidden entry of the user's home folder (`~/.bashrc`, `~/.gitconfig`, `~/.config`) that
   * the real path `real` is or is inside, when this workspace holds the home folder; else
   * `undefined`. A tool that writes a path the deciders never saw (an archive member, a
   * snapshot's file) refuses such a path, as it refuses `.git` (home-dotfiles.ts).
   */
  homeDotEntryOf(real: string): string | undefined {
    return homeDotEntry(real, homesInside(this.realRoot));
  }

  /**
   * Real path of the root (symbolic links resolved), cached after the first call.
   * @throws InvalidPathError when the root does not exist.
   */
  get realRoot(): string {
    if (this.realRootCache === undefined) {
      try {
        this.realRootCache = fs.realpathSync.native(this.root);
      } catch (error) {
        throw new InvalidPathError(this.root, `the workspace root does not exist (${(error as NodeJS.ErrnoException).code ?? error})`);
      }
    }
    return this.realRootCache;
  }

  /**
   * Resolve a path argument to an absolute real path inside the workspace.
   *
   * Resolution follows the kernel's rules: components are taken left to right, a symbolic
   * link is replaced by its target before a later `..` applies, and for a path that does not
   * exist yet the existing part is resolved and the rest appended; `..` after a folder that
   * does not exist is refused, as the kernel refuses it.
   *
   * @param input - the path as the model gave it (relative to the root, or absolute inside it).
   * @returns the absolute path with every existing symbolic link resolved; the file itself
   *   need not exist.
   * @throws InvalidPathError when the path is not a string, is empty, holds a NUL byte or a
   *   lone UTF-16 surrogate, goes
   *   through more than 40 symbolic links, or uses `..` after a folder that does not exist.
   * @throws PathTraversalError when it resolves outside the workspace.
   */
  resolve(input: unknown): string {
    if (typeof input !== 'string') throw new InvalidPathError(input, 'a path must be a string');
    if (input.trim() === '') throw new InvalidPathError(input, 'the path is empty; name a file or folder inside the workspace (use "." for the root)');
    if (input.includes('\0')) throw new InvalidPathError(clip(input, 300), 'the path contains a NUL byte');
    // A lone UTF-16 surrogate has no UTF-8 form: the file system would get U+FFFD instead, a
    // name other than the one judged and shown.
    if (LONE_SURROGATE.test(input)) throw new InvalidPathError(clip(input, 300).replace(new RegExp(LONE_SURROGATE, 'g'), '\ufffd'), 'the path holds a lone UTF-16 surrogate (half of a character), which cannot be a file name');
    if (input.length > MAX_PATH_LENGTH) throw new InvalidPathError(clip(input, 300), `is longer than ${MAX_PATH_LENGTH} characters`);
    const realRoot = this.realRoot;
    // A shell would expand "~" and "~user/..." to a home directory; we never expand them, and
    // refuse them rather than read them as names. "~notes.txt" (no separator) is a plain name.
    if (input === '~' || /^~[^/\\]*[/\\]/.test(input)) {
      throw new PathTraversalError(shorten(input), realRoot, 'refers to a home directory, which is outside the workspace');
    }
    let base = realRoot;
    let rest = input;
    if (path.isAbsolute(input)) {
      // Accept absolute paths spelled with the root as given or with its real path.
      const prefix = [this.root, realRoot].find((r) => input === r || input.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
      if (prefix !== undefined) rest = input.slice(prefix.length);
      else base = path.parse(input).root;
    }
    let real: string;
    try {
      // Fast path: the whole path exists; realpath(3) applies the kernel's rules.
      real = fs.realpathSync.native(rest === '' ? base : `${base}${base.endsWith(path.sep) ? '' : path.sep}${rest}`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new InvalidPathError(shorten(input), 'goes through too many symbolic links (a loop?)');
      if (code === 'ENAMETOOLONG') throw new InvalidPathError(shorten(input), 'is too long');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new InvalidPathError(shorten(input), `cannot be resolved (${code})`);
      try {
        real = walk(base, rest, { hops: 0, input }).path;
      } catch (walkError) {
        // A path that climbs out on paper is a traversal attempt, whatever else is wrong with it.
        if (walkError instanceof InvalidPathError && !isInside(realRoot, path.resolve(base, rest))) {
          throw new PathTraversalError(shorten(input), realRoot);
        }
        throw walkError;
      }
    }
    if (!isInside(realRoot, real)) {
      throw new PathTraversalError(shorten(input), realRoot, real === path.resolve(realRoot, input) ? undefined : 'leads outside the workspace through a symbolic link');
    }
    return real;
  }

  /** Path relative to the root for display (`.` for the root itself, `/` separators). */
  relative(absolute: string): string {
    const rel = path.relative(this.realRoot, absolute);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }
}

/** Paths in messages are cut to this many characters (a model may send megabytes). */
const SHOWN_PATH_LENGTH = 300;

function shorten(input: string): string {
  return clip(input, SHOWN_PATH_LENGTH);
}

/**
 * Resolve `rest` against the real folder `base` one component at a time, as the kernel would,
 * for a path of which some part does not exist. Symbolic links are followed (also dangling
 * ones: a write would create their target); once a component is missing, the rest cannot
 * contain links and is appended as it is.
 */
function walk(base: string, rest: string, state: { hops: number; input: string }): { path: string; missing: boolean } {
  let current = base;
  let missing = false;
  for (const component of rest.split(/[\\/]+/)) {
    if (component === '' || component === '.') continue;
    if (component === '..') {
      // The kernel cannot climb out of a folder that does not exist (ENOENT); neither do we,
      // since text-only climbing would skip the links of the folders it climbs back into.
      if (missing) throw new InvalidPathError(clip(state.input, 300), 'uses ".." after a folder that does not exist');
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, component);
    if (missing) {
      current = next;
      continue;
    }
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      missing = true;
      current = next;
      continue;
    }
    if (stat.isSymbolicLink()) {
      if (++state.hops > MAX_LINK_HOPS) throw new InvalidPathError(clip(state.input, 300), 'goes through too many symbolic links (a loop?)');
      const target = fs.readlinkSync(next);
      const resolved = walk(path.isAbsolute(target) ? path.parse(target).root : current, target, state);
      current = resolved.path;
      missing = resolved.missing;
      continue;
    }
    current = next;
  }
  return { path: current, missing };
}

/**
 * `input` as written, normalised without resolving links, workspace-relative with `/`
 * separators; `undefined` when it does not stay inside the root on paper.
 */
export function spelledRelative(root: string, realRoot: string, input: string): string | undefined {
  let rest = input;
  if (path.isAbsolute(input)) {
    const prefix = [root, realRoot].find((r) => input === r || input.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
    if (prefix === undefined) return undefined;
    rest = input.slice(prefix.length);
  }
  const normal = path.posix.normalize(rest.split(path.sep).join('/').replace(/^\/+/, '') || '.').replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '' ? '.' : normal;
}

const workspaces = new Map<string, Workspace>();

/**
 * Shared {@link Workspace} for a root, so the root's real path is computed once per process.
 * The real path is cached: if the root is itself a link that is later pointed elsewhere, use
 * a new `Workspace`.
 * @param root - absolute or relative root folder (relative ones against the working directory).
 */
export function workspaceFor(root: string, writeRoots?: readonly string[]): Workspace {
  const key = writeRoots === undefined ? root : `${root}\u0000${writeRoots.join('\u0000')}`;
  let ws = workspaces.get(key);
  if (ws === undefined) {
    ws = new Workspace(root, writeRoots);
    if (workspaces.size > 256) workspaces.clear();
    workspaces.set(key, ws);
  }
  return ws;
}
