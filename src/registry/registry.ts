/**
 * The tool registry: `{name: {version: Tool}}`, resolution by semver, filtering, exports.
 *
 * @module
 */
import { compareVersions, isGreater, isPrerelease, isValidRange, maxSatisfying } from '../util/semver.js';
import { getToolMetadata, type ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';
import type { AnthropicTool } from '../formats/anthropic.js';
import { exportTool, type ExportFormat } from '../formats/export.js';
import type { McpTool } from '../formats/mcp.js';
import type { OpenAITool } from '../formats/openai.js';
import type { SchemaFileEntry } from '../schema/schema-file.js';
import type { ToolClass } from '../types/tool.js';
import { checkToolDefinition, isToolDefinition, type DefinitionRegisterOptions, type ToolDefinition } from './programmatic.js';
import { RegisteredTool, type RegisterOptions } from './registered-tool.js';
import { toolNamespaceProblem } from '../decorators/tool-namespaces.js';
import { isCallerTool } from './visibility.js';

/** Filter for {@link ToolRegistry.list}. */
export interface ToolFilter {
  /** Keep tools carrying at least one of these tags. */
  tags?: readonly string[];
  /** Keep only read-only (true) or only writing (false) tools. */
  readOnly?: boolean;
  /** Keep only these names. */
  names?: readonly string[];
  /** List every version, not only the highest of each name. Default false. */
  allVersions?: boolean;
}

/** Why {@link ToolRegistry.resolve} found nothing. */
export type ResolveFailure =
  | { found: false; code: 'UNKNOWN_TOOL'; message: string }
  | { found: false; code: 'VERSION_NOT_FOUND'; message: string }
  | { found: false; code: 'SERVER_UNAVAILABLE'; message: string };

/** Tool names an unknown-tool message lists at most (related names first). */
const MAX_NAMES_SHOWN = 60;

/**
 * Holds every version of every tool. `get(name)` returns the highest semver version
 * (computed at registration, not per call); `get(name, range)` the highest one satisfying a
 * semver range (cached per range).
 */
export class ToolRegistry {
  private readonly byName = new Map<string, Map<string, RegisteredTool>>();
  private readonly latest = new Map<string, RegisteredTool>();
  private readonly rangeCache = new Map<string, RegisteredTool | null>();

  /**
   * Register a tool class (decorated with `@tool`) with its generated schema entry.
   * @param target - the class, or its descriptor (loaders pass a descriptor with the module location).
   * @param entry - the class's entry from the generated schema file (or schemas from
   *   elsewhere, such as an MCP server's, with `options.foreignSchemas`).
   * @param options - see {@link RegisterOptions}.
   * @returns the registered tool.
   * @throws ToolDefinitionError when the class is not a tool, `name@version` is already
   *   registered, the schema entry does not fit, or the name is in the skills' name space
   *   (`skill__`) without kind `dynamic_skill_tool` (or the reverse; see `tool-namespaces.ts`).
   */
  register(target: ToolClass | ToolDescriptor, entry: SchemaFileEntry, options?: RegisterOptions): RegisteredTool;
  /**
   * Register a tool given as a plain object (no decorator, no generated schema file): JSON
   * Schemas given directly, checked against the meta-schema of their draft (draft-07, or
   * 2020-12 when `$schema` says so); `run` runs on the `main` runner behind the same gates as
   * every tool. Registering a `name@version` that is registered already replaces its
   * definition and runner together: a call still waiting (for an approval, its rate-limit
   * turn) when its tool is replaced is answered `TOOL_REPLACED` and not run, and remembered
   * approvals of the old definition do not apply to the new one: each registration gets a
   * revision of its own (same code or not), unless the definition gives a stable
   * `revision` (see {@link ToolDefinition.revision}) and its schemas and flags are unchanged.
   *
   * ```ts
   * registry.register({
   *   name: 'add_numbers', version: '1.0.0', kind: 'internal', readOnly: true,
   *   description: 'Add two numbers.',
   *   inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
   *   run: ({ a, b }) => a + b,
   * });
   * ```
   * @param definition - see {@link ToolDefinition}.
   * @param options - see {@link DefinitionRegisterOptions}.
   * @returns the registered tool.
   * @throws ToolDefinitionError naming the tool and the field at fault (see {@link checkToolDefinition}),
   *   or when the name and kind break the skills' name space (`skill__<skill>__<tool>` is for
   *   kind `dynamic_skill_tool` only, and that kind only for such names; `tool-namespaces.ts`).
   */
  register<I extends Record<string, any> = Record<string, any>, O = unknown>(definition: ToolDefinition<I, O>, options?: DefinitionRegisterOptions): RegisteredTool;
  register(target: ToolClass | ToolDescriptor | ToolDefinition<any, any>, entry?: SchemaFileEntry | DefinitionRegisterOptions, options?: RegisterOptions): RegisteredTool {
    if (isToolDefinition(target)) {
      const checked = checkToolDefinition(target, entry as DefinitionRegisterOptions | undefined);
      return this.add(checked.descriptor, checked.entry, checked.options, true);
    }
    if (entry === undefined) throw ToolDefinitionError.other('?', 'register(target, entry): a class or descriptor needs its schema entry');
    return this.add(target as ToolClass | ToolDescriptor, entry as SchemaFileEntry, options, false);
  }

  private add(target: ToolClass | ToolDescriptor, entry: SchemaFileEntry, options: RegisterOptions | undefined, replace: boolean): RegisteredTool {
    const descriptor = typeof target === 'function' ? getToolMetadata(target) : target;
    if (descriptor === undefined) {
      throw ToolDefinitionError.other((target as ToolClass).name ?? '?', `${(target as ToolClass).name} is not decorated with @tool`);
    }
    const key = `${descriptor.name}@${descriptor.version}`;
    // Skills' tools and bridged tools never share a name nor a policy rule (tool-namespaces.ts).
    const namespace = toolNamespaceProblem(descriptor.name, descriptor.kind);
    if (namespace !== undefined) throw ToolDefinitionError.other(descriptor.name, namespace);
    let versions = this.byName.get(descriptor.name);
    if (versions?.has(descriptor.version) && !replace) throw ToolDefinitionError.fromDuplicate(key);
    const tool = new RegisteredTool(descriptor, entry, options);
    if (versions === undefined) {
      versions = new Map();
      this.byName.set(descriptor.name, versions);
    }
    versions.set(descriptor.version, tool);
    this.latest.set(descriptor.name, highest([...versions.values()]));
    this.rangeCache.clear();
    return tool;
  }

  /**
   * Was `tool` replaced since it was resolved: is another registration of its `name@version`
   * the current one? (`false` when it is current, and when it was only removed.) The executor
   * asks this just before a call runs, so that a call never runs a definition other than the
   * one it was checked and approved for.
   */
  isReplaced(tool: RegisteredTool): boolean {
    const now = this.byName.get(tool.name)?.get(tool.version);
    return now !== undefined && now !== tool;
  }

  /**
   * Remove a tool version, or every version of a name (tools that come and go at run time,
   * such as an MCP server's proxies). Calls already running are not affected.
   * @param version - the exact version; default every version.
   * @returns how many `name@version` entries were removed.
   */
  unregister(name: string, version?: string): number {
    const versions = this.byName.get(name);
    if (versions === undefined) return 0;
    let removed = 0;
    if (version === undefined) {
      removed = versions.size;
      versions.clear();
    } else if (versions.delete(version)) {
      removed = 1;
    }
    if (versions.size === 0) {
      this.byName.delete(name);
      this.latest.delete(name);
    } else {
      this.latest.set(name, highest([...versions.values()]));
    }
    if (removed) this.rangeCache.clear();
    return removed;
  }

  /**
   * The highest version of `name` (the highest release; prereleases only when there is no
   * release, as semver ranges do), or the highest satisfying `range`.
   * @param range - a semver range (`^1.2`, `1.x`, `>=2 <3`); default: any version.
   * @returns the tool, or `undefined` when none matches.
   */
  get(name: string, range?: string): RegisteredTool | undefined {
    const found = this.resolve(name, range);
    return found instanceof RegisteredTool ? found : undefined;
  }

  /** Like {@link get}, but says why nothing was found (for results a model can act on). */
  resolve(name: string, range?: string): RegisteredTool | ResolveFailure {
    if (range === undefined || range === '' || range === '*' || range === 'latest') {
      const tool = this.latest.get(name);
      if (tool !== undefined) return tool;
      return this.notFound(name);
    }
    const versions = this.byName.get(name);
    if (versions === undefined) return this.notFound(name);
    if (range.length > MAX_RANGE_LENGTH) {
      return { found: false, code: 'VERSION_NOT_FOUND', message: `Version range of ${name} is ${range.length} characters long; at most ${MAX_RANGE_LENGTH} are accepted.` };
    }
    const cacheKey = `${name}\u0000${range}`;
    let tool = this.rangeCache.get(cacheKey);
    if (tool === undefined) {
      const best = !isValidRange(range) ? null : maxSatisfying([...versions.keys()], range);
      tool = best === null ? null : versions.get(best)!;
      if (this.rangeCache.size >= RANGE_CACHE_SIZE) this.rangeCache.clear();
      this.rangeCache.set(cacheKey, tool);
    }
    if (tool !== null) return tool;
    return {
      found: false,
      code: 'VERSION_NOT_FOUND',
      message: `Tool ${name} has no version matching ${JSON.stringify(range)}; registered: ${[...versions.keys()].sort(compareVersions).join(', ')}.`,
    };
  }

  private readonly unavailable = new Map<string, string>();

  /**
   * Say that the tools whose names start with `prefix` cannot be had now (a bridged MCP server
   * that did not start: its tools were never listed), so a call to one of them is answered
   * `SERVER_UNAVAILABLE` with `reason` instead of `UNKNOWN_TOOL`. `undefined` clears it.
   * @param prefix - a name prefix such as `files__`.
   * @param reason - what the model reads, saying why and what still works.
   */
  markUnavailable(prefix: string, reason: string | undefined): void {
    if (reason === undefined) this.unavailable.delete(prefix);
    else this.unavailable.set(prefix, reason);
  }

  private notFound(name: string): ResolveFailure {
    for (const [prefix, reason] of this.unavailable) {
      if (name.startsWith(prefix)) return { found: false, code: 'SERVER_UNAVAILABLE', message: reason };
    }
    return { found: false, code: 'UNKNOWN_TOOL', message: this.unknownToolMessage(name) };
  }

  private unknownToolMessage(name: string): string {
    // The caller tools (ask_user, run_subagent...) are offered by their caller, never listed
    // as available: the count then agrees with what `toolSpecs` exports and `toolgate list` counts.
    const names = [...this.byName].filter(([, versions]) => ![...versions.values()].some(isCallerTool)).map(([n]) => n).sort();
    const words = new Set(name.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2));
    const close = names.filter((n) => n.includes(name) || name.includes(n) || editDistance(n, name) <= 2);
    // Tools sharing a word with the name asked for ("delete_everything" -> delete_file) come
    // first, so a long registry still shows the model the ones it most likely wanted.
    const related = names.filter((n) => !close.includes(n) && n.split('_').some((w) => words.has(w)));
    const hints = [...close, ...related].slice(0, 3);
    const hint = hints.length ? ` Did you mean ${hints.join(', ')}?` : '';
    const ordered = [...close, ...related, ...names.filter((n) => !close.includes(n) && !related.includes(n))];
    const shown = ordered.length > MAX_NAMES_SHOWN ? `${ordered.slice(0, MAX_NAMES_SHOWN).join(', ')}, ... (${names.length} in all)` : ordered.join(', ');
    return `Unknown tool ${JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}...` : name)}.${hint} Available tools: ${shown || '(none)'}.`;
  }

  /** Is any version of `name` registered? */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Registered versions of `name`, ascending semver order. */
  versions(name: string): string[] {
    return [...(this.byName.get(name)?.keys() ?? [])].sort(compareVersions);
  }

  /** Tools matching a filter, sorted by name then version. Default: the highest version of each name. */
  list(filter: ToolFilter = {}): RegisteredTool[] {
    const out: RegisteredTool[] = [];
    const names = filter.names ? new Set(filter.names) : undefined;
    for (const [name, versions] of this.byName) {
      if (names && !names.has(name)) continue;
      const candidates = filter.allVersions ? [...versions.values()] : [this.latest.get(name)!];
      for (const tool of candidates) {
        if (filter.readOnly !== undefined && tool.readOnly !== filter.readOnly) continue;
        if (filter.tags && filter.tags.length && !tool.tags.some((t) => filter.tags!.includes(t))) continue;
        out.push(tool);
      }
    }
    return out.sort((a, b) => (a.name === b.name ? compareVersions(a.version, b.version) : a.name < b.name ? -1 : 1));
  }

  /** Number of registered `name@version` entries. */
  get size(): number {
    let n = 0;
    for (const versions of this.byName.values()) n += versions.size;
    return n;
  }

  /** OpenAI function-calling specs of the listed tools. */
  toOpenAI(filter?: ToolFilter): OpenAITool[] {
    return this.list(filter).map((t) => exportTool(t, 'openai') as OpenAITool);
  }

  /** OpenAI strict-mode specs (see `toOpenAIStrictTool` for tools that cannot be strict). */
  toOpenAIStrict(filter?: ToolFilter): OpenAITool[] {
    return this.list(filter).map((t) => exportTool(t, 'openai-strict') as OpenAITool);
  }

  /** Anthropic tool specs. */
  toAnthropic(filter?: ToolFilter): AnthropicTool[] {
    return this.list(filter).map((t) => exportTool(t, 'anthropic') as AnthropicTool);
  }

  /** MCP `tools/list` entries. */
  toMcp(filter?: ToolFilter): McpTool[] {
    return this.list(filter).map((t) => exportTool(t, 'mcp') as McpTool);
  }

  /** Specs in any {@link ExportFormat}. */
  export(format: ExportFormat, filter?: ToolFilter): Array<OpenAITool | AnthropicTool | McpTool> {
    return this.list(filter).map((t) => exportTool(t, format));
  }
}

/** Longest semver range accepted, in characters. */
const MAX_RANGE_LENGTH = 256;
/** Resolved ranges kept; the cache starts over when full (ranges come from callers). */
const RANGE_CACHE_SIZE = 512;

/** The default version: the highest release, or the highest prerelease when there is no release. */
function highest(tools: RegisteredTool[]): RegisteredTool {
  if (tools.length === 1) return tools[0]!;
  const releases = tools.filter((t) => !isPrerelease(t.version));
  const pool = releases.length ? releases : tools;
  return pool.reduce((best, t) => (isGreater(t.version, best.version) ? t : best));
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
