/**
 * The `@tool` class decorator: validates its options when the module loads and records a
 * {@link ToolDescriptor}; nothing else.
 *
 * @module
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isValidVersion } from '../util/semver.js';
import { ToolDefinitionError } from '../errors/errors.js';
import { ACTION_KINDS, isActionKind, onlyReads, type ActionKind } from '../policy/action-kinds.js';
import { DEFAULT_RUNNER, isRunnerKind, RUNNER_KINDS } from '../runner/kinds.js';
import { isModelClass, MODEL_CLASSES, type ModelClass } from '../types/model-class.js';
import type { OutputProjection, RunnerKind, ToolClass, TruncationStrategy } from '../types/tool.js';
import { defineToolMetadata, type ToolDescriptor } from './metadata.js';

/** Tool names as providers accept them (OpenAI, Anthropic and MCP all fit this). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * The names a bridged MCP tool may keep: {@link TOOL_NAME_PATTERN} plus `-` (every provider
 * accepts `^[a-zA-Z0-9_-]{1,64}$`), so a server's kebab-case tool keeps its name.
 */
export const BRIDGED_TOOL_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** Default timeout of a tool call, in milliseconds (120 s). */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Largest timeout a timer can hold, in milliseconds (2^31 - 1, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Default output cap, in characters. */
export const DEFAULT_MAX_OUTPUT_LENGTH = 16_000;

/** Options of {@link tool}. Every option documents its default. */
export interface ToolOptions {
  /** Tool name as the model sees it; snake_case matching `^[a-z][a-z0-9_]{0,63}$`. Required. */
  name: string;
  /** Semver version, e.g. `1.0.0`. Required; the registry keeps every version. */
  version: string;
  /**
   * What a call does to the world, one of {@link ACTION_KINDS} (from the least to the most
   * severe: `internal`, `file_read`, `mcp_read`, `file_write`, `mcp_write_or_unknown`,
   * `task_subagent`, `shell_command`, `network`). Required, no default: policy rules and
   * approval modes match on it, so every tool says it. When a tool does several things,
   * name the most severe (`download_url` reaches the network and writes a file: `network`).
   *
   * It must agree with `readOnly` ({@link kindFitsReadOnly}):
   * - `readOnly: true` allows only `internal`, `file_read`, `mcp_read` and `network` (a
   *   read-only tool does not change the workspace; fetching a web page changes nothing here,
   *   but still reaches another machine, so it stays `network`);
   * - `internal`, `file_read` and `mcp_read` (the kinds the `read-only` approval mode lets
   *   through, {@link onlyReads}) need `readOnly: true`: a tool that writes cannot say it
   *   only reads.
   */
  kind: ActionKind;
  /** Description for the model. Default: the class TSDoc summary (from the schema file). */
  description?: string;
  /** Tags for filtering. Default `[]`. */
  tags?: string[];
  /**
   * The domain the tool belongs to (`git`, `archive`), snake_case like a tool name. With lazy
   * visibility on, a tool with a domain is hidden until the model asks for its domain with
   * `request_tools`; a tool without one is core (always offered). Default: none (core).
   */
  domain?: string;
  /**
   * The tool does not change the workspace or anything else (allowed in read-only modes); it
   * must agree with `kind` (see there). Default `false`.
   */
  readOnly?: boolean;
  /** Calls need `confirm: true` or a confirmation handler's yes. Default `false`. */
  requiresConfirmation?: boolean;
  /**
   * The tool writes only to the files and folders named by its `@format workspace-path`
   * arguments, so read-only modes may let it write inside their scoped write folders (after
   * checking every one of those paths). Declare it only when it is true of the code. Requires
   * at least one path argument; meaningless with `readOnly`. Default `false`.
   */
  scopedWrite?: boolean;
  /**
   * The model class the tool is meant for: `vision` (its result carries an image only a vision
   * model can look at, like `read_image`) or `text-only` (it stands in for looking, like
   * `describe_image`). Agents and exports given a model class offer only the tools of that
   * class and the tools without one (`isOfferedToModel` in decisions/visibility.decider.ts). Offering,
   * not authorization: a call is not refused for it. Default: none (offered to every model).
   */
  forModel?: ModelClass;
  /** Timeout in milliseconds, at most 2147483647. Default 120000; `<= 0` disables the timeout. */
  timeoutMs?: number;
  /** Allowed calls per minute (positive integer). Default: no limit. */
  rateLimitRpm?: number;
  /**
   * Memory cap of the JavaScript heap (V8 old generation), in MiB (16 to 65536). Default: the
   * executor's `defaultMemoryMb` (1024). In the `process` runner the cap is hard: a call past
   * it ends its child process and answers `MEMORY_LIMIT`, and memory outside the heap
   * (Buffers, ArrayBuffers) may add at most 256 MiB before the same happens. In the `pool`
   * runner it is V8's best effort for the worker thread (some allocation shapes past it abort
   * the whole host). Ignored by the `main` runner.
   */
  memoryMb?: number;
  /** Output cap in characters. Default 16000; `<= 0` disables truncation. */
  maxOutputLength?: number;
  /** `head` keeps the start of long output, `head-tail` its start and end. Default `head`. */
  truncation?: TruncationStrategy;
  /**
   * Output projection: what the model sees (`head`, `head-tail` or a summary function; a
   * string here overrides `truncation`), what the ledger keeps (`trace`), and whether the whole
   * output is kept (`storeFull`). Default: as without it (see {@link OutputProjection}).
   */
  output?: OutputProjection;
  /**
   * Where calls run. `process` (default): a child process per call at a time, with hard
   * memory caps and timeouts that kill it, so no tool can abort the host. `pool`: a worker
   * thread, a faster round trip (tens of microseconds instead of about a hundred) for tools
   * whose memory use is known to be small; a heap breach there can abort the host. `main`: the
   * main thread, for tools that keep state between calls (sessions); its timeout is
   * cooperative and it has no memory cap.
   */
  runner?: RunnerKind;
  /** Module URL for workers. Default: detected from the call site (pass `import.meta.url` to be explicit). */
  module?: string;
}

const KNOWN_OPTIONS = new Set<keyof ToolOptions>([
  'name', 'version', 'kind', 'description', 'tags', 'domain', 'readOnly', 'requiresConfirmation', 'scopedWrite', 'timeoutMs',
  'rateLimitRpm', 'forModel', 'memoryMb', 'maxOutputLength', 'truncation', 'output', 'runner', 'module',
]);

/**
 * Whether an action kind agrees with a tool's `readOnly` flag (see `ToolOptions.kind`):
 * `readOnly` tools may only be `internal`, `file_read`, `mcp_read` or `network`, and those
 * kinds but `network` need `readOnly`.
 */
export function kindFitsReadOnly(kind: ActionKind, readOnly: boolean): boolean {
  return readOnly ? onlyReads(kind) || kind === 'network' : !onlyReads(kind);
}

/**
 * Check decorator options and build the descriptor. Exported so that the validation can be
 * tested without decorators.
 *
 * @throws ToolDefinitionError naming the tool and the option at fault.
 */
export function buildToolDescriptor(
  options: ToolOptions,
  target: ToolClass,
  detectedModuleUrl?: string,
  /** The name pattern: {@link TOOL_NAME_PATTERN}, or {@link BRIDGED_TOOL_NAME_PATTERN} for bridged MCP tools. */
  namePattern: RegExp = TOOL_NAME_PATTERN,
): ToolDescriptor {
  if (options === null || typeof options !== 'object') {
    throw ToolDefinitionError.fromBadOption('?', 'name', 'is required: @tool({ name, version, kind, ... })');
  }
  const label = typeof options.name === 'string' && options.name ? options.name : target?.name ?? '?';
  const bad = (option: string, problem: string) => ToolDefinitionError.fromBadOption(label, option, problem);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key as keyof ToolOptions)) throw bad(key, 'is not a known option');
  }
  if (typeof options.name !== 'string' || !namePattern.test(options.name)) {
    throw bad('name', `must match ${namePattern} (snake_case, at most 64 characters); got ${JSON.stringify(options.name)}`);
  }
  if (typeof options.version !== 'string' || !isValidVersion(options.version)) {
    throw bad('version', `must be a valid semver version such as "1.0.0"; got ${JSON.stringify(options.version)}`);
  }
  const kinds = ACTION_KINDS.map((k) => JSON.stringify(k)).join(', ');
  if (options.kind === undefined) throw bad('kind', `is required: say what a call does, one of ${kinds}`);
  if (!isActionKind(options.kind)) throw bad('kind', `must be one of ${kinds}; got ${JSON.stringify(options.kind)}`);
  if (options.description !== undefined && (typeof options.description !== 'string' || !options.description.trim())) {
    throw bad('description', 'must be a non-empty string when given');
  }
  if (options.tags !== undefined && (!Array.isArray(options.tags) || options.tags.some((t) => typeof t !== 'string' || !t))) {
    throw bad('tags', 'must be an array of non-empty strings');
  }
  if (options.domain !== undefined && (typeof options.domain !== 'string' || !TOOL_NAME_PATTERN.test(options.domain))) {
    throw bad('domain', `must match ${TOOL_NAME_PATTERN} (snake_case, like a tool name); got ${JSON.stringify(options.domain)}`);
  }
  for (const flag of ['readOnly', 'requiresConfirmation', 'scopedWrite'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') throw bad(flag, 'must be a boolean');
  }
  if (options.scopedWrite === true && options.readOnly === true) throw bad('scopedWrite', 'is for tools that write; a readOnly tool needs no scoped write');
  if (!kindFitsReadOnly(options.kind, options.readOnly ?? false)) {
    throw options.readOnly === true
      ? bad('kind', `${JSON.stringify(options.kind)} changes things, which a readOnly tool does not; use "internal", "file_read", "mcp_read" or "network", or drop readOnly`)
      : bad('kind', `${JSON.stringify(options.kind)} says the tool only reads, but it is not readOnly; add readOnly: true, or name what it changes ("file_write", "shell_command", ...)`);
  }
  if (options.forModel !== undefined && !isModelClass(options.forModel)) {
    throw bad('forModel', `must be one of ${MODEL_CLASSES.map((c) => JSON.stringify(c)).join(', ')}; got ${JSON.stringify(options.forModel)}`);
  }
  const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (options.timeoutMs !== undefined && (!isFiniteNumber(options.timeoutMs) || options.timeoutMs > MAX_TIMEOUT_MS)) {
    throw bad('timeoutMs', `must be a number of milliseconds up to ${MAX_TIMEOUT_MS} (<= 0 disables the timeout); got ${options.timeoutMs}`);
  }
  if (options.rateLimitRpm !== undefined && (!Number.isInteger(options.rateLimitRpm) || options.rateLimitRpm <= 0)) {
    throw bad('rateLimitRpm', `must be a positive integer (calls per minute); got ${options.rateLimitRpm}`);
  }
  if (options.memoryMb !== undefined && (!Number.isInteger(options.memoryMb) || options.memoryMb < 16 || options.memoryMb > 65536)) {
    throw bad('memoryMb', `must be an integer number of MiB from 16 to 65536; got ${options.memoryMb}`);
  }
  if (options.maxOutputLength !== undefined && !Number.isInteger(options.maxOutputLength)) {
    throw bad('maxOutputLength', 'must be an integer number of characters (<= 0 disables truncation)');
  }
  if (options.truncation !== undefined && options.truncation !== 'head' && options.truncation !== 'head-tail') {
    throw bad('truncation', `must be "head" or "head-tail"; got ${JSON.stringify(options.truncation)}`);
  }
  const projection = checkProjection(options.output);
  if (projection !== undefined) throw bad(`output.${projection.option}`, projection.problem);
  if (options.runner !== undefined && !isRunnerKind(options.runner)) {
    throw bad('runner', `must be one of ${Object.keys(RUNNER_KINDS).map((k) => JSON.stringify(k)).join(', ')}; got ${JSON.stringify(options.runner)}`);
  }
  if (options.module !== undefined && (typeof options.module !== 'string' || !/^(file|data):/.test(options.module))) {
    throw bad('module', 'must be a file: or data: URL such as import.meta.url');
  }
  if (typeof target !== 'function' || typeof target.prototype?.run !== 'function') {
    throw bad('name', 'decorates a class without a run(args, ctx) method');
  }
  return Object.freeze({
    name: options.name,
    version: options.version,
    kind: options.kind,
    description: options.description?.trim(),
    tags: Object.freeze([...(options.tags ?? [])]),
    ...(options.domain === undefined ? {} : { domain: options.domain }),
    readOnly: options.readOnly ?? false,
    requiresConfirmation: options.requiresConfirmation ?? false,
    scopedWrite: options.scopedWrite ?? false,
    ...(options.forModel === undefined ? {} : { forModel: options.forModel }),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    rateLimitRpm: options.rateLimitRpm,
    memoryMb: options.memoryMb,
    maxOutputLength: options.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH,
    truncation: typeof options.output?.model === 'string' ? options.output.model : options.truncation ?? 'head',
    output: Object.freeze({ ...options.output }),
    runner: options.runner ?? DEFAULT_RUNNER,
    moduleUrl: options.module ?? detectedModuleUrl,
    exportName: target.name,
    target,
  });
}

/**
 * URL of the module that called `tool(...)`: the decorator expression is evaluated in the
 * defining module's top level, so the caller's frame names that module. Returns `undefined`
 * when the stack does not show a file URL (bundlers, eval).
 */
function callerModuleUrl(): string | undefined {
  const original = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.prepareStackTrace = (_error, frames) => frames;
    Error.captureStackTrace(holder, tool);
    const frames = holder.stack as NodeJS.CallSite[] | undefined;
    const file = frames?.[0]?.getFileName();
    if (!file) return undefined;
    if (file.startsWith('file:')) return file;
    if (path.isAbsolute(file)) return pathToFileURL(file).href;
    return undefined;
  } catch {
    return undefined;
  } finally {
    Error.prepareStackTrace = original;
  }
}

/**
 * Declare a class as a tool.
 *
 * ```ts
 * /** Read a UTF-8 text file from the workspace. *\/
 * @tool({ name: 'read_file', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['fs'] })
 * export class ReadFileTool implements Tool<ReadFileInput, string> { ... }
 * ```
 *
 * The input schema comes from the type of `run`'s first parameter, the output schema from
 * its return type, generated by `toolgate schemas` at build time.
 *
 * @throws ToolDefinitionError when an option is wrong, at module load, naming the tool and option.
 */
export function tool(options: ToolOptions): (target: ToolClass) => void {
  const moduleUrl = options?.module === undefined ? callerModuleUrl() : undefined;
  return (target: ToolClass) => {
    defineToolMetadata(target, buildToolDescriptor(options, target, moduleUrl));
  };
}

/** The problem with an `output` option (its field and why), or `undefined` when it is valid. */
function checkProjection(output: OutputProjection | undefined): { option: string; problem: string } | undefined {
  if (output === undefined) return undefined;
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return { option: 'model', problem: 'the output option must be an object { model?, trace?, storeFull? }' };
  for (const key of Object.keys(output)) {
    if (key !== 'model' && key !== 'trace' && key !== 'storeFull') return { option: key, problem: 'is not an output option (model, trace, storeFull)' };
  }
  if (output.model !== undefined && output.model !== 'head' && output.model !== 'head-tail' && typeof output.model !== 'function') {
    return { option: 'model', problem: `must be "head", "head-tail" or a function (output: string) => string; got ${JSON.stringify(output.model)}` };
  }
  if (output.trace !== undefined && output.trace !== 'output' && output.trace !== 'metadata') return { option: 'trace', problem: `must be "output" or "metadata"; got ${JSON.stringify(output.trace)}` };
  if (output.storeFull !== undefined && typeof output.storeFull !== 'boolean') return { option: 'storeFull', problem: `must be true or false; got ${JSON.stringify(output.storeFull)}` };
  return undefined;
}
