/**
 * The toolset: which of the default tools (the builtin and ported ones) a tool system offers,
 * and what it changes of each. Written as `tools.builtin` in `toolgate.config.json` (or the
 * `toolset` option of `ToolSystem`): when present, the list REPLACES the default set
 * wholesale (a tool not named is not registered at all, so it can be neither offered nor
 * called); each entry is a tool name, or an object naming the tool and overriding its
 * description, `readOnly`, `requiresConfirmation`, `timeoutMs` and `maxOutputLength`.
 * Tools from `--tools` folders and MCP servers are not part of the default set and stay.
 *
 * @module
 */
import type { ToolDescriptor } from '../decorators/metadata.js';
import { kindFitsReadOnly, MAX_TIMEOUT_MS, TOOL_NAME_PATTERN } from '../decorators/tool.decorator.js';
import { ToolgateOptionError } from '../errors/errors.js';
import type { RegisterOptions, ToolOverrides } from './registered-tool.js';

/** One entry of a toolset as written: a tool name, or the name with overrides. */
export type ToolsetEntryConfig = string | ({ name: string } & ToolOverrides);

/** A checked toolset entry. */
export interface ToolsetEntry {
  /** The tool name. */
  name: string;
  /** Its place in the list (0-based), for messages. */
  index: number;
  /** What it overrides; `undefined` when it names the tool only. */
  overrides: ToolOverrides | undefined;
}

/** The keys an entry object may have. */
const ENTRY_KEYS = ['name', 'description', 'readOnly', 'requiresConfirmation', 'timeoutMs', 'maxOutputLength'] as const;

/**
 * Check a toolset as written (shape only: which tools exist is known when they load).
 * @param value - the list (`tools.builtin`).
 * @param where - what to call it in messages (`toolgate.config.json: tools.builtin`).
 * @returns the entries, in order.
 * @throws ToolgateOptionError naming the entry (`tools.builtin[2] (read_file)`) and what is
 *   wrong: not a list, an entry neither a name nor an object, a bad name, an unknown key, a
 *   value of the wrong type or out of range, a tool named twice.
 */
export function checkToolset(value: unknown, where: string): ToolsetEntry[] {
  if (!Array.isArray(value)) throw ToolgateOptionError.fromBadOption(where, 'must be a list of tool names or { name, ...overrides } objects');
  const out: ToolsetEntry[] = [];
  const seen = new Map<string, number>();
  value.forEach((raw: unknown, index) => {
    const object = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    const name = typeof raw === 'string' ? raw : object?.name;
    const at = `${where}[${index}]${typeof name === 'string' ? ` (${name})` : ''}`;
    const bad = (problem: string) => ToolgateOptionError.fromBadOption(at, problem);
    if (typeof raw !== 'string' && object === undefined) throw bad(`must be a tool name or an object { name, ...overrides }; got ${raw === null ? 'null' : Array.isArray(raw) ? 'a list' : typeof raw}`);
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) throw bad(`needs a tool name matching ${TOOL_NAME_PATTERN}; got ${JSON.stringify(name)}`);
    const earlier = seen.get(name);
    if (earlier !== undefined) throw bad(`names ${name} again (first at [${earlier}]); name each tool once`);
    seen.set(name, index);
    if (object === undefined) {
      out.push({ name, index, overrides: undefined });
      return;
    }
    const overrides: ToolOverrides = {};
    for (const [key, v] of Object.entries(object)) {
      switch (key) {
        case 'name':
          break;
        case 'description':
          if (typeof v !== 'string' || v.trim() === '') throw bad('description must be a non-empty string');
          overrides.description = v.trim();
          break;
        case 'readOnly':
        case 'requiresConfirmation':
          if (typeof v !== 'boolean') throw bad(`${key} must be true or false; got ${JSON.stringify(v)}`);
          overrides[key] = v;
          break;
        case 'timeoutMs':
          if (typeof v !== 'number' || !Number.isInteger(v) || v > MAX_TIMEOUT_MS) throw bad(`timeoutMs must be a whole number of milliseconds up to ${MAX_TIMEOUT_MS} (<= 0: no timeout); got ${JSON.stringify(v)}`);
          overrides.timeoutMs = v;
          break;
        case 'maxOutputLength':
          if (typeof v !== 'number' || !Number.isInteger(v)) throw bad(`maxOutputLength must be a whole number of characters (<= 0: no truncation); got ${JSON.stringify(v)}`);
          overrides.maxOutputLength = v;
          break;
        default:
          throw bad(`has an unknown key ${JSON.stringify(key)}; allowed: ${ENTRY_KEYS.join(', ')}`);
      }
    }
    out.push({ name, index, overrides: Object.keys(overrides).length === 0 ? undefined : overrides });
  });
  return out;
}

/**
 * What a loader asks of each tool of the default set: register it (with these options) or
 * leave it out; and, once every folder is loaded, whether each entry found its tool.
 */
export interface ToolsetSelector {
  /**
   * `false` to leave the tool out, else the options to register it with.
   * @throws ToolgateOptionError naming the entry when its overrides do not fit the tool
   *   (`readOnly` against the tool's action kind).
   */
  select(descriptor: ToolDescriptor): RegisterOptions | false;
  /**
   * Check that every entry named a tool of the default set.
   * @throws ToolgateOptionError naming the first entry (index and name) that did not, with
   *   close names.
   */
  finish(): void;
}

/**
 * The selector of a toolset (see {@link ToolsetSelector}).
 * @param value - the toolset as written; checked with {@link checkToolset}.
 * @param where - what to call it in messages.
 */
export function toolsetSelector(value: unknown, where: string): ToolsetSelector {
  const entries = checkToolset(value, where);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const found = new Set<string>();
  const available = new Set<string>();
  return {
    select(descriptor) {
      available.add(descriptor.name);
      const entry = byName.get(descriptor.name);
      if (entry === undefined) return false;
      found.add(entry.name);
      const overrides = entry.overrides;
      if (overrides === undefined) return {};
      const readOnly = overrides.readOnly ?? descriptor.readOnly;
      if (!kindFitsReadOnly(descriptor.kind, readOnly)) {
        throw ToolgateOptionError.fromBadOption(
          `${where}[${entry.index}] (${entry.name})`,
          `readOnly: ${readOnly} does not fit ${entry.name}, whose action kind is ${JSON.stringify(descriptor.kind)} (${readOnly ? 'a tool of that kind changes things' : 'a tool of that kind only reads'}); leave readOnly out`,
        );
      }
      if (readOnly && descriptor.scopedWrite) {
        throw ToolgateOptionError.fromBadOption(`${where}[${entry.index}] (${entry.name})`, `readOnly: true does not fit ${entry.name}, which writes (scopedWrite); leave readOnly out`);
      }
      return { overrides };
    },
    finish() {
      for (const entry of entries) {
        if (found.has(entry.name)) continue;
        // Names holding (or held by) the one written first ("list_file" -> list_files), then names sharing a word.
        const names = [...available].sort();
        const near = names.filter((n) => n.includes(entry.name) || entry.name.includes(n));
        const close = [...near, ...names.filter((n) => !near.includes(n) && sharesWord(n, entry.name))].slice(0, 5);
        throw ToolgateOptionError.fromBadOption(
          `${where}[${entry.index}] (${entry.name})`,
          `names no tool of the default set${close.length ? `; did you mean ${close.join(', ')}?` : ''} (\`toolgate list\` without the config shows the default set)`,
        );
      }
    },
  };
}

function sharesWord(a: string, b: string): boolean {
  const words = new Set(b.split('_').filter((w) => w.length > 2));
  return a.split('_').some((w) => words.has(w));
}
