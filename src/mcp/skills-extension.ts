/**
 * The MCP skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on `toolgate mcp`,
 * through the SDK v2's own implementation (`@modelcontextprotocol/server/ext/skills`): the
 * capability in `initialize` and `server/discover`, `skills/list`, `skills/get`, and each skill
 * file as a `skill://<skill>/<path>` resource (`resources/read`, `resources/templates/list`),
 * cacheable on 2026-07-28 (`ttlMs` 0, `cacheScope: private`: the answer depends on the
 * workspace and its trust). The SDK's client (`SkillsClient`) verifies every file against
 * the listed digests.
 *
 * What is served, and how:
 * - Only the skills the tool system trusts: the user's, and the workspace's that the user
 *   pinned (docs/skills.md). The extension has no notion of an untrusted skill: a host loads
 *   what a server lists as the server's, and would show a repository's instructions as coming
 *   from the server it trusts, so an untrusted workspace skill is not served at all (a model
 *   still reads it with `read_skill`, which marks it untrusted).
 * - One call path: listing (`skills/list`, `skills/get`) runs `list_skills`, and reading a
 *   file runs `read_skill` with its `file` argument, both through the tool system as this
 *   client's calls: the same decisions (a policy that denies `read_skill` denies the read), the
 *   same ledger. Without both tools served to this client, nothing is listed.
 * - Files: the folder's regular UTF-8 text files (`read_skill` reads text only), at most 512
 *   and 64000 characters each; links, binary files and larger files are left out. A skill whose
 *   name the extension refuses (it allows lower-case letters, digits and single `-`, no `_`) is
 *   left out and logged (event `mcp_skill_not_served`).
 *
 * The SDK wires the extension onto its high-level `McpServer`; `toolgate mcp` serves through the
 * low-level `Server`, so {@link attachSkills} gives the extension an `McpServer` whose `server`
 * is ours (a test holds the wiring: the SDK client lists, gets and reads over stdio).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { McpServer, ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { skillEntry, SkillsExtension, type Skill as McpSkill, type SkillReadResult, type SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { Logger } from '../logging/logger.js';
import type { ToolExecutionResult } from '../types/result.js';

/** Where every served skill lives: `skill://<skill>/SKILL.md`. */
const BASE_URI = 'skill://';
/** The names the extension accepts (and the last segment of the skill's URI). */
const MCP_SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Files of one skill served at most, and characters of one file (`read_skill`'s bound). */
const MAX_FILES = 512;
const MAX_FILE_CHARS = 64_000;

/** What {@link attachSkills} needs of the MCP server it serves skills on. */
export interface SkillsServing {
  /** The workspace whose skills are served (absolute). */
  workspaceRoot: string;
  /** The environment the user's config folder is found from (the tool system's `configEnv`, as `list_skills` and `read_skill` read it). */
  configEnv: NodeJS.ProcessEnv;
  /** Is this tool served to this client (`list_skills`, `read_skill`)? */
  served(name: string): boolean;
  /** Run a tool as this client's call, through the tool system (decisions, ledger). */
  run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolExecutionResult>;
  /** Where skills that cannot be served are logged. */
  logger: Logger;
}

/** What the skills' catalog module (`tools-ported/skills/skill-catalog.js`) gives. */
interface CatalogModule {
  findSkills(options: { workspaceRoot: string; env: NodeJS.ProcessEnv }): { skills: Array<{ name: string; folder: string }>; trusted: ReadonlySet<unknown> };
}

/** The skills' catalog module, loaded by URL as the ported tools are (only when a client lists skills). */
const CATALOG_MODULE = new URL('../../tools-ported/skills/skill-catalog.js', import.meta.url);

/**
 * Serve skills on `server` through the SDK's skills extension (call before connecting).
 * @throws Error from the SDK when the server already handles a skills method.
 */
export function attachSkills(server: Server, serving: SkillsServing): void {
  const shell = new McpServer({ name: 'toolgate-skills', version: '0' });
  (shell as unknown as { server: Server }).server = server;
  const extension = new SkillsExtension({
    source: new ToolSystemSkills(serving),
    onWarning: (warning) => serving.logger.warn({ event: 'mcp_skill_not_served', path: warning.path }, warning.message),
  });
  extension.attach(shell);
}

/** The skills the tool system trusts, listed and read through its tools. */
class ToolSystemSkills implements SkillSource {
  constructor(private readonly serving: SkillsServing) {}

  async list(_params: { cursor?: string }, ctx: ServerContext): Promise<{ skills: McpSkill[] }> {
    return { skills: await this.entries(ctx) };
  }

  async get(uri: string, ctx: ServerContext): Promise<McpSkill | undefined> {
    return (await this.entries(ctx)).find((skill) => skill.uri === uri);
  }

  async read(uri: string, ctx: ServerContext): Promise<SkillReadResult | undefined> {
    const match = /^skill:\/\/([^/]+)\/(.+)$/.exec(uri);
    if (match === null || !this.serving.served('read_skill')) return undefined;
    const name = decodeURIComponent(match[1]!);
    const file = match[2]!.split('/').map(decodeURIComponent).join('/');
    if (!(await this.trustedFolders()).has(name)) return undefined;
    const result = await this.serving.run('read_skill', { name, file }, ctx);
    if (!result.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `read_skill did not read ${uri}: ${result.output.slice(0, 500)}`);
    return { text: result.output, mimeType: file.endsWith('.md') ? 'text/markdown' : 'text/plain' };
  }

  /** Every trusted skill's entry, after `list_skills` ran as this client's call. */
  private async entries(ctx: ServerContext): Promise<McpSkill[]> {
    if (!this.serving.served('list_skills') || !this.serving.served('read_skill')) return [];
    const listed = await this.serving.run('list_skills', {}, ctx);
    if (!listed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `list_skills did not run: ${listed.output.slice(0, 500)}`);
    const out: McpSkill[] = [];
    for (const [name, folder] of await this.trustedFolders()) {
      if (!MCP_SKILL_NAME.test(name)) {
        this.serving.logger.warn({ event: 'mcp_skill_not_served', skill: name }, `the skill ${name} is not served over MCP: the skills extension takes names of lower-case letters, digits and single "-"`);
        continue;
      }
      try {
        out.push(await skillEntry(name, textFiles(folder), { baseUri: BASE_URI }));
      } catch (error) {
        this.serving.logger.warn({ event: 'mcp_skill_not_served', skill: name, err: (error as Error).message }, `the skill ${name} is not served over MCP: ${(error as Error).message}`);
      }
    }
    return out.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  }

  /** The trusted skills' folders by name. */
  private async trustedFolders(): Promise<Map<string, string>> {
    const { findSkills } = (await import(CATALOG_MODULE.href)) as CatalogModule;
    const catalog = findSkills({ workspaceRoot: this.serving.workspaceRoot, env: this.serving.configEnv });
    return new Map(catalog.skills.filter((s) => catalog.trusted.has(s)).map((s) => [s.name, s.folder]));
  }
}

/** The regular UTF-8 text files of a skill folder (what `read_skill` serves), by relative path; links not followed. */
function textFiles(folder: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const queue = [''];
  let count = 0;
  while (queue.length > 0 && count < MAX_FILES) {
    const rel = queue.shift()!;
    for (const entry of fs.readdirSync(path.join(folder, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        queue.push(name);
        continue;
      }
      if (!entry.isFile() || count >= MAX_FILES) continue;
      const bytes = fs.readFileSync(path.join(folder, name));
      try {
        if (decoder.decode(bytes).length > MAX_FILE_CHARS) continue;
      } catch {
        continue;
      }
      out[name] = bytes;
      count++;
    }
  }
  return out;
}
