/**
 * Step 2 of a call, prepare: parse (or copy) the arguments within their bounds, validate them
 * against the input schema, and resolve every path argument inside the workspace, once, for
 * every decider.
 *
 * @module
 */
import type { ResolvedPath } from '../decisions/decision.js';
import { PathTraversalError, type ToolErrorCode } from '../errors/errors.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { schemaFileOf } from '../registry/schema-origin.js';
import type { SandboxPolicy } from '../sandbox/bubblewrap.js';
import { dropNullOptionals, pathValues } from '../schema/path-arguments.js';
import { checkJsonData, copyJsonData, isPlainObject, MAX_ARGUMENT_VALUES, parseArguments, textHasTooManyValues, textTooLarge, TOO_LARGE, TOO_MANY_VALUES } from './arguments.js';
import type { CallState } from './call-state.js';

/** JSON text this short cannot nest deeper than the 64 levels arguments may have: it skips the check. */
const SMALL_TEXT = 128;

/** Why a call could not be prepared: its result code and message, and what to log as its arguments (default: as given). */
export interface PrepareFailure {
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly loggedArguments?: string;
}

/** What {@link prepareCall} takes from the executor's options. */
export interface PrepareSettings {
  /** Largest arguments, in bytes of JSON text (`Infinity`: no bound). */
  readonly maxArgumentBytes: number;
  /** Workspace root of calls that give none (default `process.cwd()` at call time). */
  readonly workspaceRoot: string | undefined;
  /** How processes the tool starts are confined. */
  readonly sandbox: SandboxPolicy;
}

/**
 * Prepare `state` from the arguments as given: `state.args`, `state.workspaceRoot`,
 * `state.sandbox`, `state.paths` and `state.repairs` are set when it succeeds.
 * @returns `undefined` when prepared, else why not (`INVALID_ARGUMENTS`, `INVALID_PATH`).
 * @throws PathTraversalError when a path argument leaves the workspace.
 */
export function prepareCall(state: CallState, given: unknown, settings: PrepareSettings): PrepareFailure | undefined {
  const { tool } = state;
  const limit = settings.maxArgumentBytes;
  // Parse text, or copy an object once, so that what is checked is what runs; neither
  // past the argument bound.
  let value: Record<string, unknown>;
  if (typeof given === 'object' && given !== null && isPlainObject(given)) {
    const copied = copyJsonData(given, limit);
    if (copied === TOO_LARGE) return tooLarge(tool, limit, false);
    if (copied === TOO_MANY_VALUES) return tooLarge(tool, limit, true);
    if (typeof copied === 'string') return invalid(tool, copied);
    value = copied;
  } else {
    if (typeof given === 'string' && textTooLarge(given, limit)) return tooLarge(tool, limit, false);
    if (typeof given === 'string' && textHasTooManyValues(given)) return tooLarge(tool, limit, true);
    const parsed = parseArguments(given);
    if (!parsed.ok) return invalid(tool, parsed.message);
    // Parsed text gets the checks a given object gets (nesting, values), without a copy (it
    // is fresh already); text too short to nest 64 levels skips them.
    if (typeof given === 'string' && given.length > SMALL_TEXT) {
      const checked = checkJsonData(parsed.value, limit);
      if (checked === TOO_LARGE) return tooLarge(tool, limit, false);
      if (checked === TOO_MANY_VALUES) return tooLarge(tool, limit, true);
      if (typeof checked === 'string') return invalid(tool, checked);
    }
    value = parsed.value;
    if (parsed.repairs.length) state.repairs = parsed.repairs;
  }
  const args = dropNullOptionals(tool.inputSchema, value) as Record<string, unknown>;
  const problem = tool.validateInput(args);
  if (problem !== undefined) return invalid(tool, `${problem}. Expected ${signatureOf(tool)}${staleSchemaHint(tool, problem)}`);
  state.args = args;
  state.workspaceRoot = state.options.workspaceRoot ?? settings.workspaceRoot ?? process.cwd();
  state.sandbox = settings.sandbox;
  // Path arguments are resolved once here, for every decider (the tool resolves again in
  // its own context, at the moment of use).
  if (tool.pathArguments.length !== 0) {
    const resolved: ResolvedPath[] = [];
    const { workspace } = state;
    for (const p of pathValues(args, tool.pathArguments)) {
      try {
        resolved.push({ given: p, real: workspace.resolve(p) });
      } catch (error) {
        if (error instanceof PathTraversalError) throw error;
        return { code: 'INVALID_PATH', message: (error as Error).message };
      }
    }
    state.paths = resolved;
  }
  return undefined;
}

/**
 * For an unknown argument of a user's tool whose schema was read from a generated schema file:
 * where the schema comes from, and that `toolgate schemas` regenerates it (a file left stale
 * after the tool's types gained a property refuses the new argument). `''` otherwise.
 */
function staleSchemaHint(tool: RegisteredTool, problem: string): string {
  const file = / an unknown argument '/.test(problem) ? schemaFileOf(tool) : undefined;
  if (file === undefined) return '';
  return ` (${tool.name}'s JSON Schema comes from the generated schema file ${file}; if the tool's types changed since, run \`toolgate schemas\` to regenerate it, then restart)`;
}

function invalid(tool: RegisteredTool, problem: string): PrepareFailure {
  return { code: 'INVALID_ARGUMENTS', message: `Invalid arguments for ${tool.name}: ${problem}.` };
}

/** The failure of arguments past `maxArgumentBytes`, or {@link MAX_ARGUMENT_VALUES} values (logged by their size only). */
function tooLarge(tool: RegisteredTool, limit: number, values: boolean): PrepareFailure {
  const shown = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
  const what = values ? `they hold more than ${MAX_ARGUMENT_VALUES} values` : `they are larger than ${shown} (the executor's maxArgumentBytes)`;
  return {
    code: 'INVALID_ARGUMENTS',
    message: `Invalid arguments for ${tool.name}: ${what} and were not read. Pass large data as a file instead: write it into the workspace in parts of a few MiB, then give its path.`,
    loggedArguments: values ? `[arguments with more than ${MAX_ARGUMENT_VALUES} values]` : `[arguments larger than ${limit} bytes]`,
  };
}

/** `read_file(filepath: string, max_lines?: number)`: a compact signature for error messages. */
function signatureOf(tool: RegisteredTool): string {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const parts = Object.entries(props).map(([k, s]) => `${k}${required.has(k) ? '' : '?'}: ${typeName(s)}`);
  return `${tool.name}(${parts.join(', ')})`;
}

function typeName(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') return `${typeName(schema.items as Record<string, unknown>)}[]`;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Record<string, unknown>[]).map(typeName).join(' | ');
  return 'any';
}
