import fs from 'node:fs';
import path from 'node:path';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { configEnvOf, findSkills, untrustedReason, type SkillCatalog } from './skill-catalog.js';
import { SKILL_LIMITS, snakeName, type Skill } from './skill-file.js';
import { SKILL_TOOLS_DOMAIN } from './skill-tools.js';

/** Arguments of read_skill. */
export interface ReadSkillInput {
  /**
   * The skill's name, as list_skills shows it.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * A file of the skill's folder to read instead of the instructions: its path relative to the
   * folder, as read_skill's Files list shows it (`SKILL.md`, `templates/notes.md`). Text files
   * only; the file's text is returned as it is.
   * @minLength 1
   * @maxLength 512
   */
  file?: string;
}

/** Most characters read_skill returns (a file longer than this is refused, not cut). */
export const READ_SKILL_MAX_CHARS = 64_000;

/**
 * Read a skill's instructions (the body of its SKILL.md) and list the files of its folder
 * (scripts, templates, references) and the tools it declares. Call it before doing a task a
 * skill is for (list_skills names the skills and what each is for), and follow what it says.
 * With `file`, returns that file of the skill's folder instead (a template, a reference).
 * Read-only.
 */
@tool({ name: 'read_skill', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['skills', 'ported'], runner: 'main', timeoutMs: 30_000, maxOutputLength: 64_000 })
export class ReadSkillTool implements Tool<ReadSkillInput, string> {
  async run(args: ReadSkillInput, ctx: ToolContext): Promise<string> {
    const catalog = findSkills({ workspaceRoot: ctx.workspace.realRoot, env: configEnvOf(ctx) });
    const id = snakeName(args.name.trim());
    const skill = catalog.skills.find((s) => s.name === args.name.trim() || s.id === id);
    if (skill === undefined) {
      const names = catalog.skills.map((s) => s.name);
      throw new ToolExecutionError(`there is no skill ${JSON.stringify(args.name.slice(0, 64))}; skills: ${names.length === 0 ? '(none)' : names.join(', ')}`, 'INVALID_ARGUMENTS');
    }
    return args.file === undefined ? showSkill(skill, catalog) : readSkillFile(skill, args.file);
  }
}

/**
 * The text of one file of a skill's folder, by its path relative to the folder.
 * @throws ToolExecutionError (INVALID_ARGUMENTS) for a path that is absolute, climbs with `..`,
 *   passes a symbolic link, is not a regular file, is not UTF-8 text, or is over
 *   {@link READ_SKILL_MAX_CHARS} characters.
 */
export function readSkillFile(skill: Skill, file: string): string {
  const bad = (why: string): never => {
    throw new ToolExecutionError(`cannot read ${JSON.stringify(file.slice(0, 200))} of the skill ${skill.name}: ${why}`, 'INVALID_ARGUMENTS');
  };
  const parts = file.split('/');
  if (path.isAbsolute(file) || file.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) bad('give a path relative to the skill\'s folder, as read_skill lists them (no "..", no leading "/")');
  let at = skill.folder;
  for (const part of parts) {
    at = path.join(at, part);
    const stat = fs.lstatSync(at, { throwIfNoEntry: false });
    if (stat === undefined) bad('no such file in the skill\'s folder');
    if (stat!.isSymbolicLink()) bad('it is (or is under) a symbolic link; only the folder\'s own files are read');
  }
  if (!fs.statSync(at).isFile()) bad('not a regular file');
  if (fs.statSync(at).size > SKILL_LIMITS.fileBytes) bad(`over ${SKILL_LIMITS.fileBytes} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(at));
  } catch {
    return bad('not UTF-8 text (read_skill reads text files only)');
  }
  if (text.length > READ_SKILL_MAX_CHARS) bad(`${text.length} characters; read_skill returns at most ${READ_SKILL_MAX_CHARS}`);
  return text;
}

/** What read_skill returns for `skill`. */
export function showSkill(skill: Skill, catalog: SkillCatalog): string {
  const lines = [`# Skill ${skill.name} (${skill.origin}${catalog.trusted.has(skill) ? '' : ', untrusted'})`, `Folder: ${skill.folder}`, `Description: ${skill.description}`, ''];
  lines.push(skill.instructions === '' ? '[no instructions]' : skill.instructions, '');
  const files = listFiles(skill.folder);
  lines.push(`## Files (${files.shown.length}${files.more ? '+' : ''}; read one with read_skill and its file argument; run scripts only through the skill's tools)`, ...files.shown.map((f) => `- ${f}`));
  if (files.more) lines.push(`[more files not listed: at most ${SKILL_LIMITS.listedFiles}]`);
  if (skill.tools.length > 0) {
    lines.push('', '## Tools');
    for (const t of skill.tools) lines.push(`- ${t.name}: ${t.description.replace(/^\[skill [^\]]+\] /, '')}`);
    lines.push(catalog.trusted.has(skill)
      ? `Call them by name; when they are not offered yet, call request_tools with {"domains": ["${SKILL_TOOLS_DOMAIN}"]} first. Each call is decided like any other (it may ask the user).`
      : `These tools are NOT available: ${untrustedReason(skill, catalog) ?? 'the skill is not trusted'}. Tell the user if the task needs them.`);
  }
  return lines.join('\n');
}

/** The files of a skill folder, relative, links not followed, dot entries left out, bounded. */
function listFiles(folder: string): { shown: string[]; more: boolean } {
  const shown: string[] = [];
  const queue = [''];
  while (queue.length > 0) {
    const rel = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(folder, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) queue.push(name);
      else if (shown.length >= SKILL_LIMITS.listedFiles) return { shown, more: true };
      else shown.push(entry.isSymbolicLink() ? `${name} (symbolic link)` : name);
    }
  }
  return { shown, more: false };
}
