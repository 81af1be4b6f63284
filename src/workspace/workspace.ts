/**
 * Workspace path resolution: the one resolver used by every file tool and by the mode gate.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidPathError, PathTraversalError } from '../errors.js';

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
  private realRootCache: string | undefined;

  /**
   * @param root - the workspace root folder; relative roots resolve against the process's
   *   working directory. It need not exist until a path is resolved.
   */
  constructor(root: string) {
    this.root = path.resolve(root);
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
   * @param input - the path as the model gave it (relative to the root, or absolute inside it).
   * @returns the absolute path with every existing symbolic link resolved; the file itself
   *   need not exist.
   * @throws InvalidPathError when the path is not a string, is empty, or holds a NUL byte.
   * @throws PathTraversalError when it resolves outside the workspace.
   */
  resolve(input: unknown): string {
    if (typeof input !== 'string') throw new InvalidPathError(input, 'a path must be a string');
    if (input.trim() === '') throw new InvalidPathError(input, 'the path is empty; name a file or folder inside the workspace (use "." for the root)');
    if (input.includes('\0')) throw new InvalidPathError(input, 'the path contains a NUL byte');
    const realRoot = this.realRoot;
    if (input === '~' || input.startsWith('~/') || input.startsWith('~\\') || /^~[^/\\]*([/\\]|$)/.test(input)) {
      throw new PathTraversalError(input, realRoot, 'refers to a home directory, which is outside the workspace');
    }
    let absolute: string;
    if (path.isAbsolute(input)) {
      absolute = path.resolve(input);
      // Accept absolute paths spelled with the root as given or its real path.
      if (isInside(this.root, absolute)) absolute = path.join(realRoot, path.relative(this.root, absolute));
    } else {
      absolute = path.resolve(realRoot, input);
    }
    if (!isInside(realRoot, absolute)) throw new PathTraversalError(input, realRoot);
    const real = realPathOfPossiblyMissing(absolute, input, realRoot);
    if (!isInside(realRoot, real)) throw new PathTraversalError(input, realRoot, 'leads outside the workspace through a symbolic link');
    return real;
  }

  /** Path relative to the root for display (`.` for the root itself, `/` separators). */
  relative(absolute: string): string {
    const rel = path.relative(this.realRoot, absolute);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }
}

/**
 * Real path of `absolute`, which may not exist: resolve the nearest existing ancestor and
 * append the rest; a dangling link is followed to its target (which a write would create).
 */
function realPathOfPossiblyMissing(absolute: string, input: string, realRoot: string): string {
  let current = absolute;
  for (let hops = 0; hops <= MAX_LINK_HOPS; hops++) {
    try {
      return fs.realpathSync.native(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new PathTraversalError(input, realRoot, 'has a symbolic link loop');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new InvalidPathError(input, `cannot be resolved (${code})`);
    }
    // Some component is missing. Walk up to the nearest existing ancestor.
    const missing: string[] = [];
    let parent = current;
    let linkTarget: string | undefined;
    for (;;) {
      let stat: fs.Stats | undefined;
      try {
        stat = fs.lstatSync(parent);
      } catch {
        stat = undefined;
      }
      if (stat?.isSymbolicLink()) {
        // A dangling link: follow it by hand.
        linkTarget = path.resolve(path.dirname(parent), fs.readlinkSync(parent));
        break;
      }
      if (stat) break;
      const up = path.dirname(parent);
      if (up === parent) break;
      missing.unshift(path.basename(parent));
      parent = up;
    }
    if (linkTarget !== undefined) {
      current = path.join(linkTarget, ...missing);
      continue;
    }
    let realParent: string;
    try {
      realParent = fs.realpathSync.native(parent);
    } catch (error) {
      throw new InvalidPathError(input, `cannot be resolved (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
    return path.join(realParent, ...missing);
  }
  throw new PathTraversalError(input, realRoot, 'follows too many symbolic links');
}

const workspaces = new Map<string, Workspace>();

/**
 * Shared {@link Workspace} for a root, so the root's real path is computed once per process.
 * @param root - absolute or relative root folder.
 */
export function workspaceFor(root: string): Workspace {
  let ws = workspaces.get(root);
  if (ws === undefined) {
    ws = new Workspace(root);
    if (workspaces.size > 256) workspaces.clear();
    workspaces.set(root, ws);
  }
  return ws;
}
