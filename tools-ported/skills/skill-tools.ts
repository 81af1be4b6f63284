/**
 * The tools skills declare, as programmatic tool definitions (`ToolRegistry.register`), with
 * action kind `dynamic_skill_tool` and lazy domain `skills`. They are registered at start by
 * the tool system (`src/system/tool-folders.ts` imports this module by URL, as it loads the
 * ported tools) and run through the same executor as every tool: the decisions (policy rules
 * on the kind and the name, approval modes, remembered answers), the ledger and close-out. A
 * shell or script tool runs as `run_command` runs a command (`runCommand`: a clean
 * environment, the call's bubblewrap sandbox, the workspace as working folder, a timeout); an
 * HTTP tool as `http_request` sends a request (local addresses refused). They ask by default
 * (`requiresConfirmation`), like `run_command`: a policy `allow` rule lifts the question.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { ToolExecutionError, type ToolContext } from '../../src/tool.js';
import { runCommand } from '../shell/run-command.tool.js';
import { httpRequest } from '../web/http-request.tool.js';
import { findSkills, untrustedReason, type FindSkillsOptions, type SkillProblem } from './skill-catalog.js';
import type { Skill, SkillTool } from './skill-file.js';

/** The lazy domain of every skill-declared tool. */
export const SKILL_TOOLS_DOMAIN = 'skills';

/** A skill tool as `ToolRegistry.register` takes it (the shape of `ToolDefinition`). */
export interface SkillToolDefinition {
  name: string;
  version: string;
  description: string;
  inputSchema: Record<string, unknown>;
  kind: 'dynamic_skill_tool';
  domain: string;
  tags: string[];
  requiresConfirmation: boolean;
  timeoutMs: number;
  source: string;
  revision: string;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** How a script tool runs its script: from a private copy of the checked bytes. */
const SCRIPT_COMMAND = 'f=$(mktemp) && printf \'%s\' "$SKILL_SCRIPT_TEXT" > "$f" && chmod 700 "$f" && unset SKILL_SCRIPT_TEXT && { "$f"; s=$?; rm -f "$f"; exit $s; }';

/** The definitions of one skill's tools, registered all or none. */
export interface SkillToolSet {
  /** The skill's `SKILL.md` (named in errors). */
  readonly file: string;
  /** Its tools' definitions. */
  readonly definitions: SkillToolDefinition[];
}

/** What {@link skillToolDefinitions} found. */
export interface SkillTools {
  /** One entry per trusted skill that declares tools. */
  readonly sets: SkillToolSet[];
  /** Skills that were not loaded, and untrusted skills whose tools were left out. */
  readonly problems: SkillProblem[];
}

/**
 * The tool definitions of the trusted skills of the user's and the workspace's skill folders
 * (see `skill-catalog.ts`). An untrusted workspace skill's tools are left out, and named in
 * `problems` with how to trust the workspace. Never throws for a bad skill.
 */
export function skillToolDefinitions(options: FindSkillsOptions = {}): SkillTools {
  const catalog = findSkills(options);
  const problems = [...catalog.problems];
  const sets: SkillToolSet[] = [];
  for (const skill of catalog.skills) {
    if (skill.tools.length === 0) continue;
    if (!catalog.trusted.has(skill)) {
      problems.push({ file: skill.file, message: `the tools of ${skill.name} (${skill.tools.map((t) => t.name).join(', ')}) were not registered: ${untrustedReason(skill, catalog)}` });
      continue;
    }
    sets.push({ file: skill.file, definitions: skill.tools.map((tool) => definition(skill, tool)) });
  }
  return { sets, problems };
}

function definition(skill: Skill, tool: SkillTool): SkillToolDefinition {
  return {
    name: tool.name,
    version: '1.0.0',
    description: `${tool.description} (A tool of the skill ${skill.name}; read its instructions with read_skill first.)`,
    inputSchema: tool.inputSchema,
    kind: 'dynamic_skill_tool',
    domain: SKILL_TOOLS_DOMAIN,
    tags: ['skill', `skill:${skill.id}`],
    requiresConfirmation: true,
    // The command's own timeout stops it first (as run_command's).
    timeoutMs: tool.timeoutMs + 10_000,
    source: `skill:${skill.file}`,
    revision: `${skill.revision}:${tool.name}`,
    run: (args, ctx) => runSkillTool(skill, tool, args, ctx),
  };
}

/**
 * Run one call of a skill's tool (arguments already validated against its schema).
 * @throws ToolExecutionError when a script changed since the skill was loaded, a URL
 *   placeholder has no argument, or the command failed to start; what `runCommand` and
 *   `httpRequest` throw.
 */
async function runSkillTool(skill: Skill, tool: SkillTool, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  const { run } = tool;
  if (run.type === 'http') return sendRequest(run, args, ctx);
  const env: Record<string, string> = { SKILL_DIR: skill.folder, SKILL_ARGS: JSON.stringify(args) };
  for (const [name, value] of Object.entries(args)) {
    const key = `SKILL_ARG_${name.toUpperCase()}`;
    if (/^[A-Z_][A-Z0-9_]*$/.test(key) && ['string', 'number', 'boolean'].includes(typeof value)) env[key] = String(value);
  }
  let command: string;
  if (run.type === 'script') {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(run.file);
    } catch (error) {
      throw new ToolExecutionError(`the script ${run.file} of the skill ${skill.name} cannot be read (${(error as Error).message}); nothing was run`);
    }
    if (crypto.createHash('sha256').update(bytes).digest('hex') !== run.sha256) {
      throw new ToolExecutionError(`the script ${run.file} of the skill ${skill.name} changed since the skill was loaded; nothing was run (restart to load the skill again)`);
    }
    // The bytes checked are the bytes run: the script travels in the environment and is written
    // to the command's private /tmp (a file swapped after the check is never run; the skill
    // folder need not be visible in the sandbox).
    env.SKILL_SCRIPT_TEXT = bytes.toString('utf8');
    command = SCRIPT_COMMAND;
  } else {
    command = run.command;
  }
  try {
    return await runCommand({ command, timeout_ms: tool.timeoutMs, env }, ctx, process.env);
  } catch (error) {
    // A secret-looking argument name cannot become a variable: say so rather than fail obscurely.
    if (error instanceof ToolExecutionError && error.code === 'INVALID_ARGUMENTS' && /looks like it holds a secret/.test(error.message)) {
      throw new ToolExecutionError(`${error.message} (an argument of ${tool.name}; it is still in SKILL_ARGS)`, 'INVALID_ARGUMENTS');
    }
    throw error;
  }
}

/** An HTTP tool's request: `{name}` placeholders of the URL filled from the arguments; the rest as a JSON body (POST, PUT, PATCH). */
async function sendRequest(run: Extract<SkillTool['run'], { type: 'http' }>, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  const used = new Set<string>();
  const url = run.url.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = args[name];
    if (value === undefined || value === null || typeof value === 'object') throw new ToolExecutionError(`the URL needs the argument ${name} (a string, number or boolean); nothing was sent`, 'INVALID_ARGUMENTS');
    // "." and ".." are not escaped, and as a path segment they would climb out of the path the skill fixed.
    if (String(value) === '.' || String(value) === '..') throw new ToolExecutionError(`the argument ${name} may not be "." or ".." (it would change the URL's path); nothing was sent`, 'INVALID_ARGUMENTS');
    used.add(name);
    return encodeURIComponent(String(value));
  });
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !used.has(k)));
  const withBody = ['POST', 'PUT', 'PATCH'].includes(run.method);
  const headers = { ...run.headers, ...(withBody ? { 'Content-Type': 'application/json' } : {}) };
  return httpRequest({ method: run.method as 'GET', url, headers, ...(withBody ? { body: JSON.stringify(rest) } : {}) }, { signal: ctx.signal, deadline: ctx.deadline });
}
