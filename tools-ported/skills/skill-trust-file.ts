/**
 * Writing the user's `skills-trust.json` (`toolgate skills trust` and `untrust`): one skill's
 * pin set or removed for one workspace, every other entry kept as it is. The file is read by
 * `skill-catalog.ts` (the format is described there). A file that is not valid JSON of that
 * shape is never overwritten: the user's mistake is reported, not replaced.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** What {@link setSkillPin} did. */
export interface PinChange {
  /** Whether the file changed. */
  readonly changed: boolean;
  /** The digest pinned for the skill before (undefined: none). */
  readonly before: string | undefined;
}

type Entry = string | { path: string; skills?: Record<string, string>; [key: string]: unknown };

/**
 * Pin `digest` for skill `name` of the workspace at `root` (its real path) in `file`, or with
 * `digest` undefined remove the pin (and the workspace's entry when it pins nothing else).
 * Written to a temporary file beside it and renamed into place (mode 0600 when created).
 * @throws Error when the file exists and is not `{"workspaces": [...]}` (nothing is written).
 */
export function setSkillPin(file: string, root: string, name: string, digest: string | undefined): PinChange {
  const data = readTrustFile(file);
  const entries = data.workspaces as Entry[];
  const mine = (e: Entry) => realOr(typeof e === 'string' ? e : e.path) === root;
  let before: string | undefined;
  for (const e of entries) if (typeof e !== 'string' && mine(e) && typeof e.skills?.[name] === 'string') before ??= e.skills[name];
  if (before === digest) return { changed: false, before };
  let next: Entry[];
  if (digest === undefined) {
    next = entries.flatMap((e) => {
      if (typeof e === 'string' || !mine(e) || e.skills?.[name] === undefined) return [e];
      const { [name]: _gone, ...skills } = e.skills;
      return Object.keys(skills).length === 0 && Object.keys(e).every((k) => k === 'path' || k === 'skills') ? [] : [{ ...e, skills }];
    });
  } else {
    // The workspace's first object entry takes the pin (a bare path becomes one); others lose theirs.
    let placed = false;
    next = entries.map((e) => {
      if (!mine(e)) return e;
      const entry = typeof e === 'string' ? { path: e, skills: {} } : { ...e, skills: { ...(e.skills ?? {}) } };
      if (!placed) {
        entry.skills[name] = digest;
        placed = true;
      } else {
        delete entry.skills[name];
      }
      return entry;
    });
    if (!placed) next.push({ path: root, skills: { [name]: digest } });
  }
  writeAtomically(file, `${JSON.stringify({ ...data, workspaces: next }, null, 2)}\n`);
  return { changed: true, before };
}

/** The trust file's content (`{"workspaces": []}` when there is none). */
function readTrustFile(file: string): Record<string, unknown> & { workspaces: unknown[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { workspaces: [] };
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix it first: nothing was written`);
  }
  const list = (data as { workspaces?: unknown } | null)?.workspaces;
  const ok = data !== null && typeof data === 'object' && !Array.isArray(data) && Array.isArray(list)
    && list.every((e) => typeof e === 'string' || (e !== null && typeof e === 'object' && typeof (e as { path?: unknown }).path === 'string'
      && ((e as { skills?: unknown }).skills === undefined || (typeof (e as { skills?: unknown }).skills === 'object' && !Array.isArray((e as { skills?: unknown }).skills) && (e as { skills?: unknown }).skills !== null))));
  if (!ok) throw new Error(`${file} is not {"workspaces": [{"path": "/abs", "skills": {"<name>": "sha256:..."}}]}; fix it first: nothing was written`);
  return data as Record<string, unknown> & { workspaces: unknown[] };
}

/** Replace `file` (through a symbolic link at its place: a dotfile manager's) by `text`, at once. */
function writeAtomically(given: string, text: string): void {
  fs.mkdirSync(path.dirname(given), { recursive: true });
  const file = fs.existsSync(given) ? fs.realpathSync(given) : given;
  const temp = `${file}.${process.pid}.tmp`;
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode ?? 0o600;
  try {
    fs.writeFileSync(temp, text, { mode: mode & 0o777, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
