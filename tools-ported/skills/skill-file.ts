/**
 * One skill folder read and checked: its `SKILL.md` (Anthropic's Agent Skills format: YAML
 * front matter with `name` and `description`, instructions in the body) and the tools its
 * front matter declares (a shell line, an HTTP request or a script of the folder, each with a
 * JSON Schema of its arguments). Reading only: nothing here runs a tool or registers one.
 * The YAML is read by the `yaml` package (this module is its one importer among the skills).
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { SKILL_TOOL_PREFIX } from '../../src/internal.js';
import type { SkillSnapshot } from './skill-snapshot.js';

/** The file every skill folder holds. */
const SKILL_FILE = 'SKILL.md';

/** Bounds of a skill (sizes in bytes or characters, counts). */
export const SKILL_LIMITS = Object.freeze({
  /** Most bytes of a `SKILL.md`. */
  fileBytes: 256 * 1024,
  /** Most characters of a description. */
  description: 1024,
  /** Most tools one skill declares. */
  tools: 16,
  /** Most files `read_skill` lists. */
  listedFiles: 200,
  /** Most bytes of a declared tool's script (it travels in the command's environment). */
  scriptBytes: 64 * 1024,
  /** Most skills in one folder. */
  skills: 200,
});

/** How a declared tool runs. */
type SkillToolRun =
  | { readonly type: 'shell'; readonly command: string }
  | { readonly type: 'script'; readonly file: string; readonly sha256: string }
  | { readonly type: 'http'; readonly method: string; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** A tool a skill declares, checked. */
export interface SkillTool {
  /** The tool name the model sees: `skill__<skill>__<tool>`, snake_case (`SKILL_TOOL_PREFIX`). */
  readonly name: string;
  /** The name as declared in the front matter. */
  readonly declared: string;
  /** What the tool does (from the front matter), prefixed with the skill's name. */
  readonly description: string;
  /** JSON Schema of the arguments (`type: "object"`). */
  readonly inputSchema: Record<string, unknown>;
  /** How it runs. */
  readonly run: SkillToolRun;
  /** Milliseconds a call may run, 1000 to 600000. */
  readonly timeoutMs: number;
}

/** A skill folder, read and checked. */
export interface Skill {
  /** Its name as the front matter gives it (`pdf-tools`). */
  readonly name: string;
  /** Its name in snake_case (`pdf_tools`), the prefix of its tools. */
  readonly id: string;
  /** When to use it (the front matter's `description`). */
  readonly description: string;
  /** The instructions: the body of `SKILL.md` after the front matter. */
  readonly instructions: string;
  /** The folder (real path). */
  readonly folder: string;
  /** The `SKILL.md` file (real path). */
  readonly file: string;
  /** `user` or `workspace`: which skill folder it came from. */
  readonly origin: 'user' | 'workspace';
  /** The tools it declares (empty when none). */
  readonly tools: readonly SkillTool[];
  /** SHA-256 of `SKILL.md` and its tools' scripts: what remembered approvals are keyed on. */
  readonly revision: string;
}

/** A skill that cannot be loaded: the file at fault and why. */
export class SkillFileError extends Error {
  constructor(readonly file: string, readonly problem: string) {
    super(`${file}: ${problem}; the skill was not loaded (the other skills are not affected)`);
    this.name = 'SkillFileError';
  }
}

const SNAKE = /^[a-z][a-z0-9_]{0,63}$/;
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const TOOL_KEYS = new Set(['name', 'description', 'shell', 'script', 'http', 'input_schema', 'timeout_ms']);
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A name as snake_case (`pdf-tools` is `pdf_tools`), or `undefined` when it cannot be one
 * (upper case, spaces, a leading digit, more than 64 characters).
 */
export function snakeName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const snake = name.replace(/-/g, '_');
  return SNAKE.test(snake) ? snake : undefined;
}

/**
 * Read and check the skill in `folder`.
 * @param folder - the skill's folder (absolute); its `SKILL.md` is read.
 * @param origin - which skill folder it came from.
 * @param snapshot - the folder as read once (`snapshotSkillFolder`): `SKILL.md` and the
 *   scripts are then taken from it, not from the disk (what was digested is what is loaded);
 *   a script must then be a regular file of the folder, not reached through a link.
 * @throws SkillFileError naming the file and the problem: no `SKILL.md`, a symlink, too big,
 *   no front matter or bad YAML, a missing or unusable `name`/`description`, a declared tool
 *   with a bad name, no or several ways to run, a bad schema shape, a script outside the
 *   folder (`..`, an absolute path, a symlink leading out) or missing.
 */
export function readSkill(folder: string, origin: Skill['origin'], snapshot?: SkillSnapshot): Skill {
  const file = path.join(folder, SKILL_FILE);
  const fail = (problem: string): never => {
    throw new SkillFileError(file, problem);
  };
  const text = snapshot === undefined ? skillFileText(file, fail) : snapshotText(snapshot, fail);
  const match = FRONT_MATTER.exec(text);
  if (match === null) fail('no YAML front matter: the file must start with a line "---", the name and description, and another "---"');
  let data: unknown;
  try {
    data = YAML.parse(match![1]!, { uniqueKeys: true, maxAliasCount: 10 });
  } catch (error) {
    fail(`the front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) fail('the front matter must be a mapping with name and description');
  const meta = data as Record<string, unknown>;
  if (typeof meta.name !== 'string' || meta.name.trim() === '') fail('the front matter has no name');
  const id = snakeName(meta.name);
  if (id === undefined) fail(`the name ${JSON.stringify(meta.name)} cannot be a tool name prefix: use lower-case letters, digits, "-" or "_", starting with a letter, at most 64`);
  if (typeof meta.description !== 'string' || meta.description.trim() === '') fail('the front matter has no description (say what the skill does and when to use it)');
  const description = (meta.description as string).trim();
  if (description.length > SKILL_LIMITS.description) fail(`the description has ${description.length} characters; at most ${SKILL_LIMITS.description}`);
  const realFolder = fs.realpathSync(folder);
  const hash = crypto.createHash('sha256').update(text);
  const tools = checkTools(meta.tools, id!, { folder: realFolder, snapshot }, fail, hash);
  return {
    name: meta.name as string, id: id!, description, instructions: text.slice(match![0].length).trim(), folder: realFolder,
    file: path.join(realFolder, SKILL_FILE), origin, tools, revision: hash.digest('hex'),
  };
}

/** `SKILL.md` read from the disk: a regular file of the folder, bounded. */
function skillFileText(file: string, fail: (problem: string) => never): string {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) fail(`no ${SKILL_FILE} in the skill folder`);
  if (stat!.isSymbolicLink()) fail(`${SKILL_FILE} is a symbolic link; a skill's file must be a regular file of its folder`);
  if (!stat!.isFile()) fail(`${SKILL_FILE} is not a regular file`);
  if (stat!.size > SKILL_LIMITS.fileBytes) fail(`${SKILL_FILE} is ${stat!.size} bytes; at most ${SKILL_LIMITS.fileBytes} are read`);
  return fs.readFileSync(file, 'utf8');
}

/** `SKILL.md` as a snapshot holds it, checked as {@link skillFileText} checks the disk's. */
function snapshotText(snapshot: SkillSnapshot, fail: (problem: string) => never): string {
  const entry = snapshot.entries.get(SKILL_FILE);
  if (entry === undefined) fail(`no ${SKILL_FILE} in the skill folder`);
  if (entry!.type === 'link') fail(`${SKILL_FILE} is a symbolic link; a skill's file must be a regular file of its folder`);
  if (entry!.type !== 'file') fail(`${SKILL_FILE} is not a regular file`);
  const { bytes } = entry as { bytes: Buffer };
  if (bytes.length > SKILL_LIMITS.fileBytes) fail(`${SKILL_FILE} is ${bytes.length} bytes; at most ${SKILL_LIMITS.fileBytes} are read`);
  return bytes.toString('utf8');
}

/** Where a skill's scripts are read: its (real) folder, or the snapshot of it when one was taken. */
interface ScriptSource {
  readonly folder: string;
  readonly snapshot: SkillSnapshot | undefined;
}

function checkTools(given: unknown, skillId: string, folder: ScriptSource, fail: (problem: string) => never, hash: crypto.Hash): SkillTool[] {
  if (given === undefined || given === null) return [];
  if (!Array.isArray(given)) fail('tools must be a list of tool declarations');
  const list = given as unknown[];
  if (list.length > SKILL_LIMITS.tools) fail(`${list.length} tools are declared; at most ${SKILL_LIMITS.tools}`);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const at = `tools[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(`${at} must be a mapping`);
    const decl = raw as Record<string, unknown>;
    for (const key of Object.keys(decl)) if (!TOOL_KEYS.has(key)) fail(`${at}.${key} is not a known key; known: ${[...TOOL_KEYS].join(', ')}`);
    const own = snakeName(decl.name);
    if (own === undefined) fail(`${at}.name ${JSON.stringify(decl.name)} is not a snake_case name (lower-case letters, digits, "-" or "_", starting with a letter)`);
    const name = `${SKILL_TOOL_PREFIX}${skillId}__${own}`;
    if (name.length > 64) fail(`${at}: the tool name ${name} is longer than 64 characters; shorten the skill's or the tool's name`);
    if (seen.has(name)) fail(`${at}.name ${own} is declared twice`);
    seen.add(name);
    if (typeof decl.description !== 'string' || decl.description.trim() === '') fail(`${at}.description is required: say what the tool does`);
    const ways = (['shell', 'script', 'http'] as const).filter((k) => decl[k] !== undefined);
    if (ways.length !== 1) fail(`${at} must say how it runs with exactly one of shell, script or http; got ${ways.length === 0 ? 'none' : ways.join(' and ')}`);
    const schema = decl.input_schema ?? { type: 'object', properties: {}, additionalProperties: false };
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') {
      fail(`${at}.input_schema must be a JSON Schema of type "object" (the arguments)`);
    }
    const timeout = decl.timeout_ms ?? 120_000;
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1000 || timeout > 600_000) fail(`${at}.timeout_ms must be an integer from 1000 to 600000`);
    return {
      name, declared: own!, description: `[skill ${skillId}] ${(decl.description as string).trim()}`,
      inputSchema: schema as Record<string, unknown>, run: checkRun(decl, at, folder, fail, hash), timeoutMs: timeout as number,
    };
  });
}

function checkRun(decl: Record<string, unknown>, at: string, source: ScriptSource, fail: (problem: string) => never, hash: crypto.Hash): SkillToolRun {
  if (decl.shell !== undefined) {
    if (typeof decl.shell !== 'string' || decl.shell.trim() === '') fail(`${at}.shell must be a command line`);
    return { type: 'shell', command: decl.shell as string };
  }
  if (decl.script !== undefined) {
    const { file, bytes } = source.snapshot === undefined
      ? (() => {
        const real = scriptFile(decl.script, `${at}.script`, source.folder, fail);
        return { file: real, bytes: fs.readFileSync(real) };
      })()
      : snapshotScript(decl.script, `${at}.script`, source as ScriptSource & { snapshot: SkillSnapshot }, fail);
    if (bytes.length > SKILL_LIMITS.scriptBytes) fail(`${at}.script ${JSON.stringify(decl.script)} is ${bytes.length} bytes; at most ${SKILL_LIMITS.scriptBytes}`);
    if (bytes.includes(0)) fail(`${at}.script ${JSON.stringify(decl.script)} holds NUL bytes; a script must be text (with a #! line)`);
    const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
    hash.update(`\0${file}\0${sha256}`);
    return { type: 'script', file, sha256 };
  }
  const http = decl.http;
  if (http === null || typeof http !== 'object' || Array.isArray(http)) fail(`${at}.http must be a mapping { method, url, headers? }`);
  const { method = 'GET', url, headers = {}, ...rest } = http as Record<string, unknown>;
  if (Object.keys(rest).length > 0) fail(`${at}.http.${Object.keys(rest)[0]} is not a known key; known: method, url, headers`);
  if (typeof method !== 'string' || !HTTP_METHODS.has(method.toUpperCase())) fail(`${at}.http.method must be one of ${[...HTTP_METHODS].join(', ')}`);
  // The whole authority (user, host, port: up to the first "/", "?" or "#") must be fixed: a
  // placeholder after "https://api.example.com" would still choose the host (".evil.example").
  if (typeof url !== 'string' || !/^https?:\/\/[^/?#{}]+(?:[/?#]|$)/i.test(url)) fail(`${at}.http.url must be an http(s) URL whose host is fixed (placeholders like {id} only in the path or query)`);
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== 'string')) fail(`${at}.http.headers must map names to strings`);
  return { type: 'http', method: (method as string).toUpperCase(), url: url as string, headers: headers as Record<string, string> };
}

/**
 * A script as the snapshot holds it: a regular file of the folder at that path, not reached
 * through a symbolic link (the snapshot's bytes are what was digested).
 */
function snapshotScript(given: unknown, at: string, source: ScriptSource & { snapshot: SkillSnapshot }, fail: (problem: string) => never): { file: string; bytes: Buffer } {
  if (typeof given !== 'string' || given === '') fail(`${at} must be a path relative to the skill folder`);
  const parts = (given as string).split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (path.isAbsolute(given as string) || parts.includes('..')) fail(`${at} ${JSON.stringify(given)} leaves the skill folder: give a path inside it, without ".."`);
  for (let i = 1; i < parts.length; i++) {
    if (source.snapshot.entries.get(parts.slice(0, i).join('/'))?.type === 'link') fail(`${at} ${JSON.stringify(given)} is under a symbolic link; a workspace skill's script must be a regular file of its folder`);
  }
  const entry = source.snapshot.entries.get(parts.join('/'));
  if (entry === undefined) fail(`${at} ${JSON.stringify(given)} does not exist in the skill folder`);
  if (entry!.type === 'link') fail(`${at} ${JSON.stringify(given)} is a symbolic link; a workspace skill's script must be a regular file of its folder`);
  if (entry!.type !== 'file') fail(`${at} ${JSON.stringify(given)} is not a regular file`);
  return { file: path.join(source.folder, ...parts), bytes: (entry as { bytes: Buffer }).bytes };
}

/** The real path of a script, checked to be a regular file inside the skill's (real) folder. */
function scriptFile(given: unknown, at: string, folder: string, fail: (problem: string) => never): string {
  if (typeof given !== 'string' || given === '') fail(`${at} must be a path relative to the skill folder`);
  const rel = given as string;
  if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) fail(`${at} ${JSON.stringify(rel)} leaves the skill folder: give a path inside it, without ".."`);
  const full = path.join(folder, rel);
  let real: string;
  try {
    real = fs.realpathSync(full);
  } catch {
    return fail(`${at} ${JSON.stringify(rel)} does not exist in the skill folder`);
  }
  if (!real.startsWith(folder + path.sep)) fail(`${at} ${JSON.stringify(rel)} is a symbolic link (or under one) that leads out of the skill folder, to ${real}`);
  if (!fs.statSync(real).isFile()) fail(`${at} ${JSON.stringify(rel)} is not a regular file`);
  return real;
}
