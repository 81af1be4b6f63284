/**
 * Where skills are found, and which are trusted. Two skill folders, read in this order:
 *
 * - the user's: `$XDG_CONFIG_HOME/toolgate/skills/` (else `~/.config/toolgate/skills/`), beside
 *   the user's policy file; trusted (the user put them there; sandboxed commands cannot write
 *   there, see docs/sandbox.md);
 * - the workspace's: `<workspace>/.toolgate/skills/`, untrusted until the user trusts each
 *   skill by its content in `skills-trust.json` of the same user folder:
 *   `{"workspaces": [{"path": "/abs/path", "skills": {"<name>": "sha256:..."}}]}` (real paths;
 *   the digest is {@link skillDigest} of the skill's folder, every file; `toolgate skills trust`
 *   writes it). A skill added or
 *   changed later (by a command the user approved, say) is untrusted until pinned again: trust
 *   is never given to content the user has not seen. As a workspace's policy file can only
 *   narrow, a workspace's skills can only add instructions: an untrusted workspace skill is
 *   listed and read, but its tools are not registered. Neither `.toolgate` nor `skills` may be
 *   a symbolic link there (a repository could ship one to elsewhere), nor a skill folder or its
 *   `SKILL.md`.
 *
 * A skill of the workspace with the name of one of the user's is left out (a repository must
 * not shadow a skill the user trusts).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownStateFolders } from '../../src/internal.js';
import type { ToolContext } from '../../src/tool.js';
import { readSkill, SKILL_LIMITS, SkillFileError, type Skill } from './skill-file.js';
import { snapshotSkillFolder, SNAPSHOT_LIMITS, type SkillSnapshot } from './skill-snapshot.js';

/** A skill folder that could not be read, and why (the file at fault is named). */
export interface SkillProblem {
  /** The file or folder at fault. */
  readonly file: string;
  /** What is wrong, for a person. */
  readonly message: string;
}

/** Skills found, with whether their tools may be registered. */
export interface SkillCatalog {
  /** Every skill read, user's first, each folder's in name order. */
  readonly skills: readonly Skill[];
  /** Skills whose tools may be registered: the user's, and the workspace's when it is trusted. */
  readonly trusted: ReadonlySet<Skill>;
  /** Skill folders that were not loaded, and why. */
  readonly problems: readonly SkillProblem[];
  /** The user's skill folder. */
  readonly userFolder: string;
  /** The workspace's skill folder, when a workspace was given. */
  readonly workspaceFolder: string | undefined;
  /** Does `skills-trust.json` name the workspace (its real path)? Its skills are trusted only as pinned. */
  readonly workspaceTrusted: boolean;
  /** The workspace's real path, when a workspace was given. */
  readonly workspaceRoot: string | undefined;
  /** The content digest ({@link skillDigest}) of each workspace skill, as read now (absent: too large to pin). */
  readonly digests: ReadonlyMap<Skill, string>;
  /** Each workspace skill's folder as read once (its files, what the digest covers; absent: too large to pin). */
  readonly snapshots: ReadonlyMap<Skill, SkillSnapshot>;
  /** The digests `skills-trust.json` pins for the workspace, by skill name (empty when none). */
  readonly pins: ReadonlyMap<string, string>;
  /** The trust file (`skills-trust.json` of the user's config folder). */
  readonly trustFile: string;
}

/** Where {@link findSkills} looks. */
export interface FindSkillsOptions {
  /** The workspace root (absolute); no workspace skills when absent. */
  readonly workspaceRoot?: string;
  /** Environment for `XDG_CONFIG_HOME` and `HOME`. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The environment a call of a catalog tool (`list_skills`, `read_skill`) finds the user's
 * config folder from: the one its tool system lent it (its `configEnv`, through the call's
 * caller services, read here by shape), else `process.env`.
 */
export function configEnvOf(ctx: Pick<ToolContext, 'client'>): NodeJS.ProcessEnv {
  const env = (ctx.client?.services as { configEnv?: unknown } | undefined)?.configEnv;
  return env !== null && typeof env === 'object' ? env as NodeJS.ProcessEnv : process.env;
}

/** The file of the user's config folder that names the workspaces whose skills are trusted. */
const SKILLS_TRUST_FILE = 'skills-trust.json';

/** The user's toolgate config folder (`$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`). */
function userConfigFolder(env: NodeJS.ProcessEnv = process.env): string {
  return ownStateFolders(env)[0]!;
}

/**
 * Find and read every skill of the user's and the workspace's skill folders. Never throws for
 * a bad skill: it is left out and named in `problems` (the others load).
 */
export function findSkills(options: FindSkillsOptions = {}): SkillCatalog {
  const config = userConfigFolder(options.env);
  const userFolder = path.join(config, 'skills');
  const problems: SkillProblem[] = [];
  const skills: Skill[] = [];
  const trusted = new Set<Skill>();
  for (const [skill] of readFolder(userFolder, 'user', problems)) {
    skills.push(skill);
    trusted.add(skill);
  }
  let workspaceFolder: string | undefined;
  let workspaceTrusted = false;
  let workspaceRoot: string | undefined;
  const digests = new Map<Skill, string>();
  const snapshots = new Map<Skill, SkillSnapshot>();
  let pinned = new Map<string, string>();
  const trustFile = path.join(config, SKILLS_TRUST_FILE);
  if (options.workspaceRoot !== undefined) {
    const root = realOr(options.workspaceRoot);
    workspaceRoot = root;
    workspaceFolder = path.join(root, '.toolgate', 'skills');
    const pins = trustedWorkspaces(trustFile, problems).get(root);
    workspaceTrusted = pins !== undefined;
    pinned = pins ?? pinned;
    const linked = [path.join(root, '.toolgate'), workspaceFolder].find((p) => fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink());
    if (linked !== undefined) {
      problems.push({ file: linked, message: `${linked} is a symbolic link; a workspace's skills are read only from a real folder (a repository could ship a link to elsewhere), so none were loaded` });
    } else {
      const names = new Set(skills.map((s) => s.id));
      // Each skill folder is read once (a snapshot) and the skill parsed from those bytes: the
      // digest compared with the pin is that of the very content loaded.
      for (const [skill, snapshot] of readFolder(workspaceFolder, 'workspace', problems)) {
        if (names.has(skill.id)) {
          problems.push({ file: skill.file, message: `the workspace's skill ${skill.name} has the name of one of the user's skills; the user's is kept and this one left out` });
          continue;
        }
        names.add(skill.id);
        skills.push(skill);
        if (snapshot === undefined) continue;
        digests.set(skill, snapshot.digest);
        snapshots.set(skill, snapshot);
        if (pins?.get(skill.name) === snapshot.digest) trusted.add(skill);
      }
    }
  }
  return { skills, trusted, problems, userFolder, workspaceFolder, workspaceTrusted, workspaceRoot, digests, snapshots, pins: pinned, trustFile };
}

/**
 * The content digest of a skill folder (see `snapshotSkillFolder`: every entry, paths and
 * bytes, dot files and links included): what `skills-trust.json` pins.
 * @returns the digest, or `undefined` when the folder cannot be read or exceeds 512 files or 16 MiB.
 */
export function skillDigest(folder: string): string | undefined {
  return snapshotSkillFolder(folder)?.digest;
}

/**
 * Why a skill of `catalog` is untrusted and how to trust it (the exact entry for
 * `skills-trust.json`), or `undefined` when it is trusted or a user's skill.
 */
export function untrustedReason(skill: Skill, catalog: SkillCatalog): string | undefined {
  if (skill.origin !== 'workspace' || catalog.trusted.has(skill)) return undefined;
  const digest = catalog.digests.get(skill);
  if (digest === undefined) return `the workspace's skill ${skill.name} is untrusted: its folder is over ${SNAPSHOT_LIMITS.files} files or ${SNAPSHOT_LIMITS.bytes} bytes (or unreadable), so it cannot be pinned`;
  const entry = JSON.stringify({ path: catalog.workspaceRoot, skills: { [skill.name]: digest } });
  const why = catalog.pins.has(skill.name) ? 'it changed since it was trusted: its content is not the one pinned in' : catalog.workspaceTrusted ? 'it is not pinned in' : 'the workspace is not named in';
  const command = `toolgate skills trust ${skill.name} --workspace ${shellWord(catalog.workspaceRoot ?? '.')}`;
  return `the workspace's skill ${skill.name} is untrusted (${why} ${catalog.trustFile}); the user can review its files and tools and trust this content with \`${command}\` (or add to "workspaces" there: ${entry})`;
}

/** A path as one shell word (single-quoted unless it is plain). */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The skills of one skill folder (each sub-folder with a `SKILL.md`), bad ones named in
 * `problems`. A workspace's skill is read from a snapshot of its folder (with it; none when the
 * folder is too large to pin: it is then read from the disk, and cannot be trusted).
 */
function readFolder(folder: string, origin: Skill['origin'], problems: SkillProblem[]): Array<[Skill, SkillSnapshot | undefined]> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ file: folder, message: `cannot read the skill folder: ${(error as Error).message}` });
    return [];
  }
  const out: Array<[Skill, SkillSnapshot | undefined]> = [];
  const seen = new Set<string>();
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name)).slice(0, SKILL_LIMITS.skills)) {
    if (entry.name.startsWith('.')) continue;
    const dir = path.join(folder, entry.name);
    if (entry.isSymbolicLink() && origin === 'workspace') {
      problems.push({ file: dir, message: `${dir} is a symbolic link; a workspace's skill must be a real folder, so it was not loaded` });
      continue;
    }
    if (!(entry.isDirectory() || (entry.isSymbolicLink() && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()))) continue;
    try {
      const snapshot = origin === 'workspace' ? snapshotSkillFolder(dir) : undefined;
      const skill = readSkill(dir, origin, snapshot);
      if (seen.has(skill.id)) throw new SkillFileError(skill.file, `the name ${skill.name} is used by another skill of ${folder}`);
      seen.add(skill.id);
      out.push([skill, snapshot]);
    } catch (error) {
      problems.push(error instanceof SkillFileError ? { file: error.file, message: error.message } : { file: dir, message: `${dir}: ${(error as Error).message}` });
    }
  }
  return out;
}

/**
 * The workspaces of the user's `skills-trust.json`, by real path, each with its pinned skills
 * (name to digest). `{"workspaces": [{"path": "/abs", "skills": {"name": "sha256:..."}}]}`; a
 * bare path (the earlier form) names the workspace and pins nothing. None when the file is
 * absent or bad (named in `problems`).
 */
function trustedWorkspaces(file: string, problems: SkillProblem[]): Map<string, Map<string, string>> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return new Map();
  }
  try {
    const data = JSON.parse(text) as { workspaces?: unknown };
    if (!Array.isArray(data.workspaces)) throw new Error('"workspaces" must be a list');
    const out = new Map<string, Map<string, string>>();
    for (const entry of data.workspaces as unknown[]) {
      const given = typeof entry === 'string' ? { path: entry, skills: {} } : entry as { path?: unknown; skills?: unknown };
      if (given === null || typeof given !== 'object' || typeof given.path !== 'string' || !path.isAbsolute(given.path)) throw new Error('each workspace must be {"path": "/absolute/path", "skills": {"<name>": "sha256:..."}}');
      const skills = given.skills ?? {};
      if (skills === null || typeof skills !== 'object' || Array.isArray(skills) || Object.values(skills).some((d) => typeof d !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(d))) {
        throw new Error(`the skills of ${given.path} must map names to digests ("sha256:" and 64 hex digits)`);
      }
      const root = realOr(given.path);
      const pins = out.get(root) ?? new Map<string, string>();
      for (const [name, digest] of Object.entries(skills as Record<string, string>)) pins.set(name, digest);
      out.set(root, pins);
    }
    return out;
  } catch (error) {
    problems.push({ file, message: `${file} is not valid (${(error as Error).message}); no workspace's skills are trusted until it is fixed` });
    return new Map();
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
