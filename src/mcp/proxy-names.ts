/**
 * Names of bridged MCP tools: `{server}__{tool}`, fitted to the name pattern providers accept
 * (`^[a-z][a-z0-9_-]{0,63}$`, {@link BRIDGED_TOOL_NAME_PATTERN}), deterministic and collision-free
 * (case T11).
 *
 * How a name is made:
 * 1. The server's config key becomes a prefix ({@link serverPrefix}): lower case, runs of
 *    other characters turned into one `_`, no `_` at either end, `s` in front when it does not
 *    start with a letter. A prefix therefore never holds `__` nor ends in `_`, so the first
 *    `__` of a proxy name always ends the prefix, and names from different servers cannot meet.
 *    The prefix `skill` is refused by the config (`checkMcpServers`): `skill__` starts the
 *    names of the tools skills declare (`src/decorators/tool-namespaces.ts`).
 * 2. When the tool's own name already fits (`[a-z0-9_-]+`: snake_case or kebab-case, which
 *    every provider accepts) and the whole name is at most 64 characters, the name is
 *    `{prefix}__{tool}`: distinct tools give distinct names.
 * 3. Otherwise (a name changed by sanitising, or too long) the sanitised name is cut so that
 *    `_` and 8 hex digits of the SHA-256 of the original `server`/`tool` pair fit within 64
 *    characters: `{prefix}__{tool, cut}_{hash}`. The hash keeps two names that sanitise or cut
 *    alike apart, and is the same on every run.
 * 4. Should a name still be taken (by a native tool, or by one of the astronomically rare hash
 *    meetings), the hash is lengthened, then a counter is added, in the order the tools are
 *    named (sorted by server, then tool name, so that order is deterministic too).
 *
 * @module
 */
import crypto from 'node:crypto';
import { BRIDGED_TOOL_NAME_PATTERN } from '../decorators/tool.decorator.js';

/** Longest tool name providers accept, in characters. */
const MAX_TOOL_NAME_LENGTH = 64;

/** Separator between the server prefix and the tool name. */
const PROXY_SEPARATOR = '__';

/** Hex digits of the hash added to names that had to change. */
const HASH_DIGITS = 8;

/**
 * The prefix of a server's proxies: its config key lower-cased, with runs of characters
 * outside `[a-z0-9]` turned into one `_` and trimmed, `s` in front when it does not start with
 * a letter. Cut to 40 characters so that tool names keep room.
 * @returns the prefix, or `undefined` when nothing usable is left (the key has no letter or
 *   digit at all).
 */
export function serverPrefix(server: string): string | undefined {
  let prefix = server.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (prefix === '') return undefined;
  if (!/^[a-z]/.test(prefix)) prefix = `s${prefix}`;
  return prefix.slice(0, 40).replace(/_+$/, '');
}

function hashOf(server: string, tool: string, digits: number): string {
  return crypto.createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, digits);
}

/** `{prefix}__{tool}` cut so that `_{hash}` fits, then the hash. */
function hashedName(prefix: string, tool: string, hash: string): string {
  const cleaned = tool.toLowerCase().replace(/[^a-z0-9_-]+/g, '_');
  const room = MAX_TOOL_NAME_LENGTH - prefix.length - PROXY_SEPARATOR.length - 1 - hash.length;
  const head = cleaned.slice(0, Math.max(0, room)).replace(/_+$/, '');
  return head === '' ? `${prefix}${PROXY_SEPARATOR}${hash}` : `${prefix}${PROXY_SEPARATOR}${head}_${hash}`;
}

/**
 * The preferred proxy name of one tool, before collisions with other names are considered.
 * @param prefix - the server's prefix from {@link serverPrefix}.
 * @param server - the server's config key (hashed with the tool name when the name changes).
 * @param tool - the tool's name as the server lists it.
 */
function proxyName(prefix: string, server: string, tool: string): string {
  return plainName(prefix, tool) ?? hashedName(prefix, tool, hashOf(server, tool, HASH_DIGITS));
}

/** `{prefix}__{tool}` when the tool's name needs no change and the whole fits, else `undefined`. */
function plainName(prefix: string, tool: string): string | undefined {
  const plain = `${prefix}${PROXY_SEPARATOR}${tool}`;
  return /^[a-z0-9_-]+$/.test(tool) && BRIDGED_TOOL_NAME_PATTERN.test(plain) ? plain : undefined;
}

/** One tool to name: its server's key and prefix, and its name on that server. */
export interface ProxyNameRequest {
  /** The server's config key. */
  server: string;
  /** The server's prefix ({@link serverPrefix}). */
  prefix: string;
  /** The tool's name as the server lists it. */
  tool: string;
}

/**
 * Name a set of tools at once, never giving two of them, or a tool and a `taken` name, the
 * same name.
 * @param requests - the tools to name; duplicates (same server and tool) get one name.
 * @param taken - names already in use by others (native tools, other bridges).
 * @returns the proxy name of each request, keyed by `server\u0000tool`.
 */
export function assignProxyNames(requests: readonly ProxyNameRequest[], taken: (name: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  const sorted = [...requests].sort((a, b) => (a.server === b.server ? compare(a.tool, b.tool) : compare(a.server, b.server)));
  // Plain names first: a tool whose name fits keeps `{server}__{tool}` even when a hashed
  // name of another tool would have been the same.
  const pending: ProxyNameRequest[] = [];
  for (const r of sorted) {
    const key = `${r.server}\u0000${r.tool}`;
    if (out.has(key)) continue;
    const name = plainName(r.prefix, r.tool);
    if (name !== undefined && !used.has(name) && !taken(name)) {
      out.set(key, name);
      used.add(name);
    } else {
      pending.push(r);
    }
  }
  for (const r of pending) {
    const key = `${r.server}\u0000${r.tool}`;
    if (out.has(key)) continue;
    let name = proxyName(r.prefix, r.server, r.tool);
    for (let digits = HASH_DIGITS + 4; (used.has(name) || taken(name)) && digits <= 16; digits += 4) {
      name = hashedName(r.prefix, r.tool, hashOf(r.server, r.tool, digits));
    }
    for (let n = 2; used.has(name) || taken(name); n++) name = hashedName(r.prefix, r.tool, `${hashOf(r.server, r.tool, 12)}_${n}`);
    out.set(key, name);
    used.add(name);
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
