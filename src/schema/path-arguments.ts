/**
 * Finding path arguments (fields marked `@format workspace-path`, or `@format
 * workspace-path-or-url` for a value that is not an http(s) URL) and command arguments
 * (`@format shell-command`, `@format shell-input`) from a schema, so gates and policies never guess from argument
 * names.
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import { SHELL_COMMAND_FORMAT, SHELL_INPUT_FORMAT, WORKSPACE_PATH_FORMAT, WORKSPACE_PATH_OR_URL_FORMAT } from './validator.js';

/** Where a path argument sits: a top-level property holding one path or an array of paths. */
export interface PathArgument {
  /** Property name in the arguments object. */
  readonly name: string;
  /** True when the property is an array of paths. */
  readonly isArray: boolean;
  /** True when a value may be an http(s) URL instead (`workspace-path-or-url`): such a value is no path. */
  readonly orUrl?: boolean;
}

/** The path format a schema (or one of its `anyOf` variants) carries, if any. */
function pathFormatOf(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const s = schema as JsonSchema;
  if (s.format === WORKSPACE_PATH_FORMAT || s.format === WORKSPACE_PATH_OR_URL_FORMAT) return s.format;
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (!Array.isArray(variants)) return undefined;
  const formats = variants.map(pathFormatOf);
  // A plain path variant wins: every value is then judged as a path.
  return formats.find((f) => f === WORKSPACE_PATH_FORMAT) ?? formats.find((f) => f !== undefined);
}

/**
 * Whether a `workspace-path-or-url` value is a URL (its text, trimmed, starts with `http://`
 * or `https://`, any case), and so not a path argument.
 */
function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value.trim());
}

/**
 * Path arguments of an input schema: top-level properties whose schema (or an `anyOf`
 * variant) has `format: "workspace-path"` or `"workspace-path-or-url"`, or arrays whose items do.
 */
export function findPathArguments(inputSchema: JsonSchema): PathArgument[] {
  const props = (inputSchema.properties ?? {}) as Record<string, unknown>;
  const found: PathArgument[] = [];
  for (const [name, schema] of Object.entries(props)) {
    let format = pathFormatOf(schema);
    let isArray = false;
    if (format === undefined && schema && typeof schema === 'object') {
      format = pathFormatOf((schema as JsonSchema).items);
      isArray = true;
    }
    if (format === undefined) continue;
    found.push(format === WORKSPACE_PATH_OR_URL_FORMAT ? { name, isArray, orUrl: true } : { name, isArray });
  }
  return found;
}

/**
 * Command arguments of an input schema: names of the top-level properties whose schema is a
 * string with `format: "shell-command"` (the command line a shell runs), in schema order.
 */
export function findCommandArguments(inputSchema: JsonSchema): string[] {
  return topLevelStringsOf(inputSchema, SHELL_COMMAND_FORMAT);
}

/**
 * Shell-input arguments of an input schema: names of the top-level properties whose schema is
 * a string with `format: "shell-input"` (text typed into a running program's standard input,
 * judged like a command line of what reads it), in schema order.
 */
export function findInputArguments(inputSchema: JsonSchema): string[] {
  return topLevelStringsOf(inputSchema, SHELL_INPUT_FORMAT);
}

function topLevelStringsOf(inputSchema: JsonSchema, format: string): string[] {
  const props = (inputSchema.properties ?? {}) as Record<string, unknown>;
  const found: string[] = [];
  for (const [name, schema] of Object.entries(props)) {
    if (schema === null || typeof schema !== 'object') continue;
    const s = schema as JsonSchema;
    if (s.type === 'string' && s.format === format) found.push(name);
  }
  return found;
}

/**
 * The path values present in validated arguments, in schema order (an http(s) URL given to a
 * `workspace-path-or-url` argument is not a path, and is left out).
 */
export function pathValues(args: Record<string, unknown>, pathArgs: readonly PathArgument[]): string[] {
  const values: string[] = [];
  const add = (arg: PathArgument, v: unknown) => {
    if (arg.orUrl === true && typeof v === 'string' && isHttpUrl(v)) return;
    values.push(v as string);
  };
  for (const arg of pathArgs) {
    const value = args[arg.name];
    if (value === undefined || value === null) continue;
    if (arg.isArray && Array.isArray(value)) {
      for (const v of value) add(arg, v);
    } else {
      add(arg, value);
    }
  }
  return values;
}

/**
 * Drop `null` values of optional properties whose schema does not allow `null`: OpenAI's
 * strict mode makes optional fields nullable and models then send `null` for "absent".
 * Walks nested objects and arrays of objects. Returns the same object when nothing changed.
 */
export function dropNullOptionals(schema: JsonSchema, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (!items || typeof items !== 'object') return value;
    let changed = false;
    const next = value.map((v) => {
      const n = dropNullOptionals(items, v);
      if (n !== v) changed = true;
      return n;
    });
    return changed ? next : value;
  }
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props || !hasNullOrObject(value as Record<string, unknown>)) return value;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const propSchema = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    if (!propSchema) continue;
    if (v === null && !required.has(key) && !allowsNull(propSchema)) {
      out ??= { ...(value as Record<string, unknown>) };
      delete out[key];
      continue;
    }
    const n = dropNullOptionals(propSchema, v);
    if (n !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      out[key] = n;
    }
  }
  return out ?? value;
}

/** Fast check: does any own value need a closer look (null, or an object to recurse into)? */
function hasNullOrObject(value: Record<string, unknown>): boolean {
  for (const key in value) {
    const v = value[key];
    if (v === null || typeof v === 'object') return true;
  }
  return false;
}

function allowsNull(schema: JsonSchema): boolean {
  const t = schema.type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(variants) && variants.some(allowsNull);
}
