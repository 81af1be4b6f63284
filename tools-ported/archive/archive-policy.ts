/**
 * What an archive may contain to be extracted (case P7 of shared/cases/security.md), decided
 * for the whole entry list before anything is written.
 *
 * Rules, so that resolving every name and link by plain text gives the same answer as the
 * kernel would, and nothing can land outside the target folder:
 * - names are relative (`/x`, `C:x`, `\\server` refused), hold no `..` component, no NUL and
 *   no backslash (a separator on Windows), and are at most 4096 characters;
 * - only files, folders, symbolic links and hard links; devices and FIFOs are refused;
 * - a symbolic link's target is relative, and resolved from the link's folder it stays inside
 *   the target folder;
 * - a hard link names an earlier file entry of the same archive;
 * - no entry's path, and no link target's path, goes through a symbolic link entry of the
 *   archive (compared case-insensitively, for case-insensitive file systems), so the text
 *   resolution above cannot be fooled by a link that is followed on the way;
 * - no name twice (a folder may repeat), and no entry below a file entry;
 * - at most {@link MAX_ENTRIES} entries and {@link MAX_TOTAL_BYTES} bytes of content (zip
 *   bombs: declared sizes are checked here, real sizes while writing).
 *
 * @module
 */
import { ToolExecutionError } from '../../src/tool.js';
import { gitDirShapeOf, protectedNameIn, type PathEntry } from '../../src/internal.js';
import type { ArchiveEntry } from './archive-io.js';

/** Most entries an archive may have to be extracted. */
export const MAX_ENTRIES = 10_000;
/** Most bytes of content (uncompressed) one extraction may write: 512 MiB. */
export const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
/** Longest entry name or link target, in characters. */
const MAX_NAME_LENGTH = 4096;

/** An entry that passed the policy: `path` is its normalised relative name (`/` separators). */
export interface CheckedEntry extends ArchiveEntry {
  /** Normalised relative path (no `.`, no empty components). */
  path: string;
  /** For hard links: the normalised path of the file entry it links to. */
  linkPath?: string;
}

/** Shown names in messages are cut to this many characters. */
function shown(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

function refuse(reason: string): ToolExecutionError {
  return new ToolExecutionError(`${reason}; the archive is refused and nothing was extracted.`);
}

/**
 * Split an entry name into its components, refusing names that are absolute, climb with
 * `..`, or hold NUL bytes or backslashes.
 */
export function nameComponents(name: string, what = 'the archive entry'): string[] {
  if (name.length > MAX_NAME_LENGTH) throw refuse(`${what} ${shown(name)} is longer than ${MAX_NAME_LENGTH} characters`);
  if (name.includes('\0')) throw refuse(`${what} ${shown(name)} contains a NUL byte`);
  if (name.includes('\\')) throw refuse(`${what} ${shown(name)} contains a backslash (a path separator on Windows)`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw refuse(`${what} ${shown(name)} has an absolute name`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw refuse(`${what} ${shown(name)} climbs out of the target folder with ".."`);
  if (parts.length === 0) throw refuse(`${what} ${shown(name)} has an empty name`);
  return parts;
}

/** Key for comparing paths on case-insensitive file systems too. */
function foldKey(parts: readonly string[]): string {
  return parts.join('/').normalize('NFC').toLowerCase();
}

/**
 * Check a whole entry list (see the module rules).
 * @param existing - what a folder of the destination (its parts below it) holds on disk now;
 *   default nothing.
 * @returns the entries with their normalised paths, in archive order.
 * @throws ToolExecutionError naming the first entry that breaks a rule.
 */
export function checkEntries(entries: readonly ArchiveEntry[], existing: (folder: readonly string[]) => Iterable<PathEntry> = () => []): CheckedEntry[] {
  if (entries.length > MAX_ENTRIES) throw refuse(`the archive has ${entries.length} entries, more than the ${MAX_ENTRIES} allowed`);
  let total = 0;
  const checked: CheckedEntry[] = [];
  const kinds = new Map<string, CheckedEntry['kind']>();
  const symlinks = new Set<string>();
  for (const entry of entries) {
    if (entry.kind === 'other') throw refuse(`the archive entry ${shown(entry.name)} is a ${entry.rawType ?? 'special file'}, which is never extracted`);
    const parts = nameComponents(entry.name);
    const planted = protectedNameIn(parts.join('/'));
    if (planted !== undefined) throw refuse(`the archive entry ${shown(entry.name)} is inside ${shown(planted)}: git and toolgate run programs that such folders name, so archives never unpack one (unpack it yourself if you trust it)`);
    const key = foldKey(parts);
    const earlier = kinds.get(key);
    if (earlier !== undefined && !(earlier === 'directory' && entry.kind === 'directory')) throw refuse(`the archive holds ${shown(entry.name)} twice`);
    total += entry.size;
    if (total > MAX_TOTAL_BYTES) throw refuse(`the archive's content is larger than ${MAX_TOTAL_BYTES} bytes once unpacked (a zip bomb?)`);
    const result: CheckedEntry = { ...entry, path: parts.join('/') };
    if (entry.kind === 'symlink') {
      const target = entry.linkTarget ?? '';
      if (target === '' || target.includes('\0')) throw refuse(`the link ${shown(entry.name)} has an empty or invalid target`);
      if (target.length > MAX_NAME_LENGTH) throw refuse(`the link ${shown(entry.name)} has a target longer than ${MAX_NAME_LENGTH} characters`);
      if (protectedNameIn(target) !== undefined) throw refuse(`the link ${shown(entry.name)} points into ${shown(protectedNameIn(target)!)}, which archives never reach`);
      if (target.startsWith('/') || /^[a-zA-Z]:/.test(target) || target.includes('\\')) throw refuse(`the link ${shown(entry.name)} points to the absolute path ${shown(target)}, outside the target folder`);
      symlinks.add(key);
    } else if (entry.kind === 'hardlink') {
      const targetParts = nameComponents(entry.linkTarget ?? '', `the target of the hard link ${shown(entry.name)}`);
      const targetKind = kinds.get(foldKey(targetParts));
      if (targetKind !== 'file') throw refuse(`the hard link ${shown(entry.name)} points to ${shown(entry.linkTarget ?? '')}, which is not an earlier file of the archive (it may lead outside the target folder)`);
      result.linkPath = targetParts.join('/');
    }
    if (earlier === undefined) kinds.set(key, entry.kind);
    checked.push(result);
  }
  const shaped = gitDirShapeIn(checked, existing);
  if (shaped !== undefined) throw refuse(`the archive would make ${shown(shaped || '.')} look like a git repository folder (HEAD, config, objects, refs), whose config git runs programs from, so archives never unpack one (unpack it yourself if you trust it)`);
  // Second pass, with every link known: nothing may go through a link, or below a file.
  for (const entry of checked) {
    const parts = entry.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = foldKey(parts.slice(0, i));
      if (symlinks.has(prefix)) throw refuse(`the archive entry ${shown(entry.name)} goes through the link ${shown(parts.slice(0, i).join('/'))}`);
      const kind = kinds.get(prefix);
      if (kind === 'file' || kind === 'hardlink') throw refuse(`the archive entry ${shown(entry.name)} is below ${shown(parts.slice(0, i).join('/'))}, which is a file`);
    }
    if (entry.kind === 'symlink') checkLinkTarget(entry, parts, symlinks);
  }
  return checked;
}

/**
 * Resolve a symbolic link's target from the link's folder by text, refusing a climb above the
 * target folder and any step through another link entry.
 */
function checkLinkTarget(entry: CheckedEntry, parts: readonly string[], symlinks: ReadonlySet<string>): void {
  const target = entry.linkTarget ?? '';
  const at = parts.slice(0, -1);
  const steps = target.split('/').filter((p) => p !== '' && p !== '.');
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step === '..') {
      if (at.length === 0) throw refuse(`the link ${shown(entry.name)} points to ${shown(target)}, which leads outside the target folder`);
      at.pop();
      continue;
    }
    at.push(step);
    if (i < steps.length - 1 && symlinks.has(foldKey(at))) throw refuse(`the link ${shown(entry.name)} points through the link ${shown(at.join('/'))}`);
  }
}

/**
 * A folder the entries would make look like a git repository folder ({@link gitDirShapeOf}),
 * counting the entries before each one (folders implied by deeper entries too) and what the
 * destination holds already (`existing`: an archive holding only `HEAD`, unpacked where
 * `objects` and `refs` are, completes the shape as well), as a
 * `/`-separated path (`''` for the target folder itself), if any: a bare repository.
 */
function gitDirShapeIn(entries: readonly CheckedEntry[], existing: (folder: readonly string[]) => Iterable<PathEntry>): string | undefined {
  const held = new Map<string, PathEntry[]>();
  for (const entry of entries) {
    const parts = entry.path.split('/');
    // A link counts as either kind: git follows a linked HEAD or objects.
    const isFile = entry.kind === 'directory' ? false : entry.kind === 'symlink' ? undefined : true;
    const folder = gitDirShapeOf(parts, isFile, (at) => [...(held.get(at.join('/')) ?? []), ...existing(at)]);
    if (folder !== undefined) return folder.join('/');
    parts.forEach((name, i) => {
      const key = parts.slice(0, i).join('/');
      const list = held.get(key) ?? [];
      if (i < parts.length - 1) list.push({ name, isFile: false });
      else if (isFile === undefined) list.push({ name, isFile: true }, { name, isFile: false });
      else list.push({ name, isFile });
      held.set(key, list);
    });
  }
  return undefined;
}
