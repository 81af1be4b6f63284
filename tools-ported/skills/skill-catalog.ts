/**
 * Where skills are found, and which are trusted. Two skill folders, read in this order:
 *
 * - the user's: `$XDG_CONFIG_HOME/toolgate/skills/` (else `~/.config/toolgate/skills/`), beside
 *   the user's policy file; trusted (the user put them there; sandboxed commands cannot write
 *   there, see docs/sandbox.md);
 * - the workspace's: `<workspace>/.toolgate/skills/`, untrusted until the user trusts the
 *   workspace in `skills-trust.json` of the same user folder (`{"workspaces": ["/abs/path"]}`,
 *   real paths). As a workspace's policy file can only narrow, a workspace's skills can only
 *   add instructions: an untrusted workspace skill is listed and read, but its tools are not
 *   registered. Neither `.toolgate` nor `skills` may be a symbolic link there (a repository
 *   could ship one to elsewhere), nor a skill folder or its `SKILL.md`.
 *
 * A skill of the workspace with the name of one of the user's is left out (a repository must
 * not shadow a skill the user trusts).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownStateFolders } from '../../src/internal.js';
import { readSkill, SKILL_LIMITS, SkillFileError, type Skill } from './skill-file.js';

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
  /** Are the workspace's skills trusted (its real path is in `skills-trust.json`)? */
  readonly workspaceTrusted: boolean;
}

/** Where {@link findSkills} looks. */
export interface FindSkillsOptions {
  /** The workspace root (absolute); no workspace skills when absent. */
  readonly workspaceRoot?: string;
  /** Environment for `XDG_CONFIG_HOME` and `HOME`. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
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
  for (const skill of readFolder(userFolder, 'user', problems)) {
    skills.push(skill);
    trusted.add(skill);
  }
  let workspaceFolder: string | undefined;
  let workspaceTrusted = false;
  if (options.workspaceRoot !== undefined) {
    const root = realOr(options.workspaceRoot);
    workspaceFolder = path.join(root, '.toolgate', 'skills');
    workspaceTrusted = trustedWorkspaces(config, problems).has(root);
    const linked = [path.join(root, '.toolgate'), workspaceFolder].find((p) => fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink());
    if (linked !== undefined) {
      problems.push({ file: linked, message: `${linked} is a symbolic link; a workspace's skills are read only from a real folder (a repository could ship a link to elsewhere), so none were loaded` });
    } else {
      const names = new Set(skills.map((s) => s.id));
      for (const skill of readFolder(workspaceFolder, 'workspace', problems)) {
        if (names.has(skill.id)) {
          problems.push({ file: skill.file, message: `the workspace's skill ${skill.name} has the name of one of the user's skills; the user's is kept and this one left out` });
          continue;
        }
        names.add(skill.id);
        skills.push(skill);
        if (workspaceTrusted) trusted.add(skill);
      }
    }
  }
  return { skills, trusted, problems, userFolder, workspaceFolder, workspaceTrusted };
}

/** The skills of one skill folder (each sub-folder with a `SKILL.md`), bad ones named in `problems`. */
function readFolder(folder: string, origin: Skill['origin'], problems: SkillProblem[]): Skill[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ file: folder, message: `cannot read the skill folder: ${(error as Error).message}` });
    return [];
  }
  const out: Skill[] = [];
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
      const skill = readSkill(dir, origin);
      if (seen.has(skill.id)) throw new SkillFileError(skill.file, `the name ${skill.name} is used by another skill of ${folder}`);
      seen.add(skill.id);
      out.push(skill);
    } catch (error) {
      problems.push(error instanceof SkillFileError ? { file: error.file, message: error.message } : { file: dir, message: `${dir}: ${(error as Error).message}` });
    }
  }
  return out;
}

/** The real paths listed in the user's `skills-trust.json` (`{"workspaces": [...]}`); none when it is absent or bad (named in `problems`). */
function trustedWorkspaces(config: string, problems: SkillProblem[]): Set<string> {
  const file = path.join(config, SKILLS_TRUST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return new Set();
  }
  try {
    const data = JSON.parse(text) as { workspaces?: unknown };
    if (!Array.isArray(data.workspaces) || data.workspaces.some((w) => typeof w !== 'string' || !path.isAbsolute(w))) throw new Error('it must be {"workspaces": ["/absolute/path", ...]}');
    return new Set((data.workspaces as string[]).map(realOr));
  } catch (error) {
    problems.push({ file, message: `${file} is not valid (${(error as Error).message}); no workspace's skills are trusted until it is fixed` });
    return new Set();
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
