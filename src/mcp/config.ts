/**
 * The toolgate config file: its `mcpServers` section (which MCP servers to bridge in) and its
 * `tools` section (the toolset, `tools.builtin`: docs/toolsets.md).
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "trusted": true },
 *     "search": { "url": "http://127.0.0.1:8931/mcp", "headers": { "Authorization": "Bearer ..." } }
 *   }
 * }
 * ```
 *
 * The shape follows the `mcpServers` object of MCP clients such as Claude Desktop (stdio:
 * `command`, `args`, `env`, `cwd`; streamable HTTP: `url`, `headers`), plus toolgate's own
 * fields (`trusted`, timeouts, `requiresConfirmation`, `disabled`).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ToolgateOptionError } from '../errors/errors.js';
import { MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import { checkToolset, type ToolsetEntryConfig } from '../registry/toolset.js';
import { serverPrefix } from './proxy-names.js';
import { RESERVED_SERVER_PREFIX, SKILL_TOOL_PREFIX } from '../decorators/tool-namespaces.js';

/** File name looked up in the workspace when no config file is named. */
const CONFIG_FILE_NAME = 'toolgate.config.json';

/** What every bridged server may set, whatever its transport. Every field documents its default. */
interface McpServerCommon {
  /**
   * Believe the server's `annotations.readOnlyHint`: its tools marked read-only count as
   * read-only (allowed in read-only modes) and get the action kind `mcp_read`. Annotations of
   * untrusted servers are hints, not guarantees (MCP specification, "Tool annotations"), so
   * their tools always count as writing, of kind `mcp_write_or_unknown`, whatever they say.
   * Default false.
   */
  trusted?: boolean;
  /**
   * Milliseconds a call may go without a response or a progress notification; each progress
   * notification starts it again. Default 60000 (the SDK's request timeout).
   */
  timeoutMs?: number;
  /**
   * Milliseconds a call may take in all, whatever progress it reports. Default 600000 (10 min).
   */
  maxTotalTimeoutMs?: number;
  /** Milliseconds to wait for the server to start and answer `initialize` and `tools/list`. Default 30000. */
  startTimeoutMs?: number;
  /**
   * Whether calls to this server's tools need confirmation (`confirm: true`, a confirmation
   * handler's yes, `--yes`, or a policy rule that allows them). `true`: every tool, read-only
   * ones too; `false`: none. Default: the tools that do not count as read-only (see `trusted`)
   * ask, as our own writing tools do; read-only ones run without asking.
   */
  requiresConfirmation?: boolean;
  /** Leave this server out. Default false. */
  disabled?: boolean;
  /**
   * Which protocol revision to speak. `auto`: ask `server/discover` first and speak
   * 2026-07-28 when the server answers it, else 2025-11-25 (`initialize`); over stdio the
   * question goes to a short-lived second copy of the server (one more process start).
   * `2025-11-25`: `initialize` at once, no question and no second process (for a server known
   * to be older, or one whose start is costly or has effects). `2026-07-28`: that revision
   * only; a server that does not offer it fails to start. Default `auto`.
   */
  protocolVersion?: 'auto' | '2025-11-25' | '2026-07-28';
}

/** The values of a bridged server's `protocolVersion`. */
const PROTOCOL_CHOICES: readonly string[] = ['auto', '2025-11-25', '2026-07-28'];

/** A server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  /** Program to run (looked up in `PATH`). */
  command: string;
  /** Its arguments. Default none. */
  args?: string[];
  /**
   * Variables added to the child's environment. The child inherits from toolgate's own
   * environment only the allowlist shell commands get ({@link commandEnv}); what a server
   * needs besides (an API token, say) goes here. Default none.
   */
  env?: Record<string, string>;
  /** Working folder of the child; relative to the config file's folder. Default: that folder. */
  cwd?: string;
}

/** A server reached over MCP streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommon {
  /** Endpoint URL (`http:` or `https:`). */
  url: string;
  /** HTTP headers sent with every request (authorisation, say). Default none. */
  headers?: Record<string, string>;
  /**
   * The server uses OAuth 2.1 (MCP authorization): `true` or the settings below. toolgate
   * discovers the authorization server, registers itself (dynamic registration, or a client ID
   * metadata document) unless a client is given, authorizes with PKCE through a loopback
   * redirect (`toolgate mcp login <server>`), and keeps the tokens in the state folder (mode
   * 0600), refreshing them. Not together with an `Authorization` header. Default: no OAuth.
   */
  oauth?: true | McpOAuthConfig;
}

/**
 * Opens an authorization URL for the person (prints it, starts a browser): resolves once it
 * was shown; the redirect back arrives at the loopback listener (src/mcp/oauth.ts).
 */
export type OAuthAuthorizer = (server: string, authorizationUrl: URL) => Promise<void>;

/** The `oauth` settings of a streamable HTTP server; every field is optional. */
export interface McpOAuthConfig {
  /** A client registered beforehand with the authorization server (no dynamic registration). Default none. */
  clientId?: string;
  /** That client's secret (confidential clients). Default none. */
  clientSecret?: string;
  /** How the client authenticates at the token endpoint (`client_secret_basic`, `client_secret_post`, `none`). Default: what the server supports. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** HTTPS URL of a client ID metadata document, used as the client ID where the server accepts one. Default none. */
  clientMetadataUrl?: string;
  /** Scope to ask for when the server names none. Default: the server's. */
  scope?: string;
  /** Loopback port of the redirect listener (a fixed port for servers that register redirect URIs exactly). Default 0: a free port. */
  redirectPort?: number;
  /**
   * `authorization_code` (a person approves once); `client_credentials` (a machine client:
   * `clientId` and either `clientSecret` or `privateKeyFile`); `identity_assertion` (enterprise
   * cross-app access, SEP-990: the person's ID token from `idTokenFile` is exchanged at the
   * identity provider's `idpTokenEndpoint` for an authorization grant, which the server's
   * authorization server trades for an access token; needs `clientId`, `clientSecret`,
   * `idpClientId`). Default `authorization_code`.
   */
  grant?: 'authorization_code' | 'client_credentials' | 'identity_assertion';
  /** PEM file of the client's private key: the client authenticates with a signed JWT (`private_key_jwt`, RFC 7523); relative to the config file's folder. Default none. */
  privateKeyFile?: string;
  /** JWS algorithm of that key (`ES256`, `RS256`, ...). Default `ES256`. */
  signingAlgorithm?: string;
  /** `identity_assertion`: the identity provider's token endpoint (token exchange, RFC 8693). */
  idpTokenEndpoint?: string;
  /** `identity_assertion`: toolgate's client ID at the identity provider. */
  idpClientId?: string;
  /** `identity_assertion`: file holding the person's ID token from the identity provider (read at each exchange); relative to the config file's folder. */
  idTokenFile?: string;
}

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** The toolgate config file. */
export interface ToolgateConfig {
  /** MCP servers to bridge in, by name; each name becomes the prefix of its tools' names. */
  mcpServers?: Record<string, McpServerConfig>;
  /** The toolset (docs/toolsets.md). */
  tools?: ToolsConfig;
}

/** The `tools` section of the config file. */
interface ToolsConfig {
  /**
   * When present, REPLACES the default set (the builtin and ported tools) wholesale: only the
   * tools listed are registered. Each entry is a tool name or `{ name, description?,
   * readOnly?, requiresConfirmation?, timeoutMs?, maxOutputLength? }` overriding those of the
   * tool (`src/registry/toolset.ts`). Default: absent, every default tool as declared.
   */
  builtin?: ToolsetEntryConfig[];
}

const COMMON_KEYS = ['trusted', 'timeoutMs', 'maxTotalTimeoutMs', 'startTimeoutMs', 'requiresConfirmation', 'disabled', 'protocolVersion'];
const STDIO_KEYS = new Set(['command', 'args', 'env', 'cwd', ...COMMON_KEYS]);
const HTTP_KEYS = new Set(['url', 'headers', 'oauth', ...COMMON_KEYS]);
const OAUTH_KEYS = new Set(['clientId', 'clientSecret', 'tokenEndpointAuthMethod', 'clientMetadataUrl', 'scope', 'redirectPort', 'grant', 'privateKeyFile', 'signingAlgorithm', 'idpTokenEndpoint', 'idpClientId', 'idTokenFile']);

/**
 * Check an `mcpServers` object (from a config file or from code).
 * @param servers - the object, keyed by server name.
 * @param where - what to call it in messages (`toolgate.config.json: mcpServers`).
 * @param baseDir - folder that relative `cwd` values are resolved against.
 * @returns a copy with `cwd` resolved.
 * @throws ToolgateOptionError naming the server and field at fault.
 */
export function checkMcpServers(servers: unknown, where = 'mcpServers', baseDir = process.cwd()): Record<string, McpServerConfig> {
  if (servers === undefined) return {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) throw ToolgateOptionError.fromBadOption(where, 'must be an object keyed by server name');
  const out: Record<string, McpServerConfig> = {};
  const prefixes = new Map<string, string>();
  for (const [name, raw] of Object.entries(servers)) {
    const at = `${where}.${name}`;
    const bad = (problem: string) => ToolgateOptionError.fromBadOption(at, problem);
    const prefix = serverPrefix(name);
    if (prefix === undefined) throw bad('the server name needs at least one letter or digit (it prefixes its tools\' names)');
    if (prefix === RESERVED_SERVER_PREFIX) throw bad(`the server name makes the tool name prefix "${prefix}__", which is reserved for the tools skills declare (${SKILL_TOOL_PREFIX}<skill>__<tool>); rename the server`);
    const other = prefixes.get(prefix);
    if (other !== undefined) throw bad(`its tools would share the name prefix "${prefix}__" with server ${JSON.stringify(other)}; rename one of them`);
    prefixes.set(prefix, name);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('must be an object with "command" (stdio) or "url" (streamable HTTP)');
    const entry = raw as Record<string, unknown>;
    const isStdio = 'command' in entry;
    const isHttp = 'url' in entry;
    if (isStdio === isHttp) throw bad('needs exactly one of "command" (stdio) or "url" (streamable HTTP)');
    const known = isStdio ? STDIO_KEYS : HTTP_KEYS;
    for (const key of Object.keys(entry)) {
      // `type` is what some clients write ("stdio", "http"); it says nothing more than the fields.
      if (!known.has(key) && key !== 'type') throw bad(`has an unknown field ${JSON.stringify(key)}; allowed: ${[...known].join(', ')}`);
    }
    for (const flag of ['trusted', 'requiresConfirmation', 'disabled']) {
      if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean') throw bad(`${flag} must be a boolean`);
    }
    if (entry.protocolVersion !== undefined && !PROTOCOL_CHOICES.includes(entry.protocolVersion as string)) throw bad(`protocolVersion must be one of ${PROTOCOL_CHOICES.join(', ')}; got ${JSON.stringify(entry.protocolVersion)}`);
    for (const ms of ['timeoutMs', 'maxTotalTimeoutMs', 'startTimeoutMs']) {
      const v = entry[ms];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_TIMEOUT_MS)) throw bad(`${ms} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; got ${JSON.stringify(v)}`);
    }
    if (isStdio) {
      if (typeof entry.command !== 'string' || entry.command.trim() === '') throw bad('command must be a non-empty string');
      if (entry.args !== undefined && (!Array.isArray(entry.args) || entry.args.some((a) => typeof a !== 'string'))) throw bad('args must be an array of strings');
      checkStringMap(entry.env, 'env', bad);
      for (const key of Object.keys((entry.env as object | undefined) ?? {})) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw bad(`env: ${JSON.stringify(key)} is not a valid variable name`);
      }
      if (entry.cwd !== undefined && typeof entry.cwd !== 'string') throw bad('cwd must be a string');
      out[name] = { ...(entry as unknown as McpStdioServerConfig), cwd: path.resolve(baseDir, (entry.cwd as string | undefined) ?? '.') };
    } else {
      let url: URL;
      try {
        url = new URL(String(entry.url));
      } catch {
        throw bad(`url must be an absolute http: or https: URL; got ${JSON.stringify(entry.url)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`url must be an http: or https: URL; got ${url.protocol}`);
      checkStringMap(entry.headers, 'headers', bad);
      checkOAuth(entry, bad);
      out[name] = { ...(entry as unknown as McpHttpServerConfig) };
      const oauth = (entry.oauth ?? undefined) as McpOAuthConfig | true | undefined;
      if (oauth !== undefined && oauth !== true) {
        const files = Object.fromEntries((['privateKeyFile', 'idTokenFile'] as const).filter((k) => oauth[k] !== undefined).map((k) => [k, path.resolve(baseDir, oauth[k]!)]));
        (out[name] as McpHttpServerConfig).oauth = { ...oauth, ...files };
      }
    }
    delete (out[name] as { type?: unknown }).type;
  }
  return out;
}

/**
 * Check the `tools` section's shape (which tools exist is checked when they load).
 * @throws ToolgateOptionError naming the key, or the entry of `builtin` (index and name).
 */
function checkToolsSection(tools: unknown, where: string): void {
  if (tools === undefined) return;
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools)) throw ToolgateOptionError.fromBadOption(where, 'must be an object such as { "builtin": ["read_file", ...] }');
  for (const key of Object.keys(tools)) {
    if (key !== 'builtin') throw ToolgateOptionError.fromBadOption(`${where}.${key}`, 'is not a known key; allowed: builtin');
  }
  const builtin = (tools as ToolsConfig).builtin;
  if (builtin !== undefined) checkToolset(builtin, `${where}.builtin`);
}

/** Check an HTTP server's `oauth` section. */
function checkOAuth(entry: Record<string, unknown>, bad: (problem: string) => Error): void {
  const oauth = entry.oauth;
  if (oauth === undefined) return;
  if (Object.keys((entry.headers as object | undefined) ?? {}).some((h) => h.toLowerCase() === 'authorization')) throw bad('has both "oauth" and an Authorization header; keep one');
  if (oauth === true) return;
  if (oauth === null || typeof oauth !== 'object' || Array.isArray(oauth)) throw bad('oauth must be true or an object');
  const o = oauth as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!OAUTH_KEYS.has(key)) throw bad(`oauth has an unknown field ${JSON.stringify(key)}; allowed: ${[...OAUTH_KEYS].join(', ')}`);
  for (const key of ['clientId', 'clientSecret', 'scope', 'clientMetadataUrl', 'privateKeyFile', 'signingAlgorithm', 'idpTokenEndpoint', 'idpClientId', 'idTokenFile']) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === '')) throw bad(`oauth.${key} must be a non-empty string`);
  }
  if (o.clientMetadataUrl !== undefined && !/^https:\/\/[^/]+\/./.test(o.clientMetadataUrl as string)) throw bad('oauth.clientMetadataUrl must be an https: URL with a path');
  if (o.tokenEndpointAuthMethod !== undefined && !['client_secret_basic', 'client_secret_post', 'none'].includes(o.tokenEndpointAuthMethod as string)) throw bad('oauth.tokenEndpointAuthMethod must be client_secret_basic, client_secret_post or none');
  if (o.redirectPort !== undefined && (typeof o.redirectPort !== 'number' || !Number.isInteger(o.redirectPort) || o.redirectPort < 0 || o.redirectPort > 65535)) throw bad('oauth.redirectPort must be a TCP port number (0: a free one)');
  if (o.grant !== undefined && !['authorization_code', 'client_credentials', 'identity_assertion'].includes(o.grant as string)) throw bad('oauth.grant must be authorization_code, client_credentials or identity_assertion');
  if (o.grant === 'identity_assertion' && ['clientId', 'clientSecret', 'idpTokenEndpoint', 'idpClientId', 'idTokenFile'].some((k) => o[k] === undefined)) throw bad('oauth.grant identity_assertion needs clientId, clientSecret, idpTokenEndpoint, idpClientId and idTokenFile');
  if (o.idpTokenEndpoint !== undefined && !/^https?:\/\//.test(o.idpTokenEndpoint as string)) throw bad('oauth.idpTokenEndpoint must be an http: or https: URL');
  if (o.grant === 'client_credentials' && (o.clientId === undefined || (o.clientSecret === undefined) === (o.privateKeyFile === undefined))) throw bad('oauth.grant client_credentials needs clientId and one of clientSecret or privateKeyFile');
  if (o.privateKeyFile !== undefined && o.grant !== 'client_credentials') throw bad('oauth.privateKeyFile needs grant client_credentials');
}

function checkStringMap(value: unknown, field: string, bad: (problem: string) => Error): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw bad(`${field} must be an object of string values`);
  }
}

/** What {@link loadConfig} returns. */
export interface LoadedConfig {
  /** The file read, or `undefined` when there was none. */
  file: string | undefined;
  /**
   * A `toolgate.config.json` found in the workspace but not read, because no file was named:
   * a folder's own file must not start programs by itself (a cloned repository would run its
   * commands the moment toolgate is used in it, and a model that may write files could add
   * servers). Callers tell the user to name it with `--config` to use it.
   */
  unread?: string;
  /** The checked config (empty when there was no file). */
  config: ToolgateConfig & { mcpServers: Record<string, McpServerConfig> };
}

/**
 * Read a toolgate config file.
 * @param file - the file to read; when absent, the config is empty and a
 *   `toolgate.config.json` in `workspace` is reported in `unread`, never read (see there).
 * @param workspace - folder to look in when no file is named. Default: the current folder.
 * @throws ToolgateOptionError when a named file is missing, or a file is not JSON or does not
 *   fit the shape (the message names the file and the field).
 */
export function loadConfig(file?: string, workspace = process.cwd()): LoadedConfig {
  if (file === undefined) {
    const found = path.join(workspace, CONFIG_FILE_NAME);
    return fs.existsSync(found) ? { file: undefined, config: { mcpServers: {} }, unread: found } : { file: undefined, config: { mcpServers: {} } };
  }
  const chosen = path.resolve(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(chosen, 'utf8'));
  } catch (error) {
    throw ToolgateOptionError.fromBadOption('config', `cannot read ${chosen}: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw ToolgateOptionError.fromBadOption('config', `${chosen} must hold a JSON object`);
  const mcpServers = checkMcpServers((parsed as ToolgateConfig).mcpServers, `${path.basename(chosen)}: mcpServers`, path.dirname(chosen));
  checkToolsSection((parsed as ToolgateConfig).tools, `${path.basename(chosen)}: tools`);
  return { file: chosen, config: { ...(parsed as ToolgateConfig), mcpServers } };
}
