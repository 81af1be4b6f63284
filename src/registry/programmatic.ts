/**
 * Programmatic registration: a tool given as a plain object (`name`, `version`,
 * `description`, JSON Schemas, a `run` function), beside `@tool` classes. This module checks
 * such a definition and turns it into what the registry holds for every tool (a descriptor
 * and a schema entry); {@link ToolRegistry.register} does the rest, the same way for both.
 *
 * @module
 */
import crypto from 'node:crypto';
import { BRIDGED_TOOL_NAME_PATTERN, buildToolDescriptor, type ToolOptions } from '../decorators/tool.decorator.js';
import type { ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';
import type { ActionKind } from '../policy/action-kinds.js';
import type { SchemaFileEntry } from '../schema/schema-file.js';
import { compileForeignValidator, compileValidator, metaSchemaProblems } from '../schema/validator.js';
import type { JsonSchema, Tool, ToolClass, ToolContext, TruncationStrategy } from '../types/tool.js';
import type { RegisterOptions } from './registered-tool.js';

/**
 * A tool defined without a decorator: {@link ToolRegistry.register}`(definition)`. Its calls
 * go through the same executor path as a decorated tool's (arguments validated against
 * `inputSchema`, every decision, rate limit, timeout, close-out, ledger). `run` is a function
 * of this process, so it runs on the `main` runner: the timeout is cooperative (`ctx.signal`
 * aborts at the deadline) and there is no memory cap; a tool that needs a child process or a
 * worker thread is a `@tool` class in a module.
 *
 * @typeParam I - the argument object `run` receives (validated against `inputSchema`).
 * @typeParam O - what `run` returns (validated against `outputSchema` when given).
 */
export interface ToolDefinition<I = Record<string, unknown>, O = unknown> {
  /** Tool name as the model sees it, snake_case matching `^[a-z][a-z0-9_]{0,63}$`. Required. */
  name: string;
  /** Semver version (`1.0.0`). Required; registering the same `name@version` again replaces it. */
  version: string;
  /** What the tool does, for the model: when to use it and when not. Required, non-empty. */
  description: string;
  /**
   * JSON Schema of the arguments: `type: "object"`. Draft-07 (what generated schemas use),
   * or 2020-12 when its `$schema` says so. Checked against the meta-schema of its draft at
   * registration. Required.
   */
  inputSchema: JsonSchema;
  /** JSON Schema of `run`'s return value, checked the same way. Default none (any value passes). */
  outputSchema?: JsonSchema | null;
  /** Run one call, with arguments already validated. Throw to report a failure the model can read. */
  run(args: I, ctx: ToolContext): O | Promise<O>;
  /**
   * Release what the definition holds. Called once: when the executor closes, or earlier when
   * the `name@version` was registered again with another `close` and the calls still running
   * on this definition have ended (registering the same definition again does not call it;
   * the replacement's instance shares it). Default none.
   */
  close?(): void | Promise<void>;
  /** What a call does to the world, as `@tool({ kind })` (required, no default: policies match on it). */
  kind: ActionKind;
  /** Tags for filtering. Default `[]`. */
  tags?: string[];
  /** Lazy domain (`@tool({ domain })`): hidden until the model asks for it with `request_tools`. Default none (a core tool). */
  domain?: string;
  /** No side effects; must fit `kind`. Default false. */
  readOnly?: boolean;
  /** Calls need confirmation. Default false. */
  requiresConfirmation?: boolean;
  /** Writes only to its `workspace-path` arguments (see `ToolOptions.scopedWrite`). Default false. */
  scopedWrite?: boolean;
  /** Timeout in milliseconds (cooperative: `ctx.signal` aborts). Default 120000; `<= 0` for none. */
  timeoutMs?: number;
  /** Calls per minute allowed. Default: no limit. */
  rateLimitRpm?: number;
  /** Output cap in characters. Default 16000; `<= 0` for none. */
  maxOutputLength?: number;
  /** How long output is cut. Default `head`. */
  truncation?: TruncationStrategy;
  /** Where the definition comes from, for listings and messages (`plugin:search`). Default `register()`. */
  source?: string;
  /**
   * A stable name of this definition's behaviour, mixed into the registration revision
   * (`RegisteredTool.revision`, on which remembered approvals are keyed) with its name,
   * version, schemas and safety flags. Give one that changes whenever what `run` does changes
   * (a hash of its code and configuration, say): registering again with the same `revision`
   * keeps the revision, so remembered approvals still apply (in this process and, with a
   * durable store, in the next). Default: none, and each registration gets a fresh revision
   * (approvals given for an earlier registration, even of the same code, do not carry over:
   * two closures of the same source may capture different values). Non-empty when given.
   */
  revision?: string;
}

/** Options of a programmatic registration; every option documents its default. */
export interface DefinitionRegisterOptions extends Pick<RegisterOptions, 'upstream' | 'foreignSchemas'> {
  /**
   * The tool is an MCP server's, bridged in: its name may also hold `-` (`BRIDGED_TOOL_NAME_PATTERN`).
   * Default false.
   */
  bridged?: boolean;
}

/** The keys a {@link ToolDefinition} may have. */
const DEFINITION_KEYS = new Set([
  'name', 'version', 'description', 'inputSchema', 'outputSchema', 'run', 'close', 'kind', 'tags', 'domain', 'readOnly',
  'requiresConfirmation', 'scopedWrite', 'timeoutMs', 'rateLimitRpm', 'maxOutputLength', 'truncation', 'source', 'revision',
]);

/** Registrations without a `revision` so far in this process (each gets its own salt). */
let unnamedRegistrations = 0;

/** Is `value` a programmatic definition (a plain object with `run` and `inputSchema`), not a descriptor or class? */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  return value !== null && typeof value === 'object' && typeof (value as { run?: unknown }).run === 'function' && 'inputSchema' in value;
}

/** What {@link ToolRegistry.register} needs of a checked definition. */
export interface CheckedDefinition {
  descriptor: ToolDescriptor;
  entry: SchemaFileEntry;
  options: RegisterOptions;
}

/**
 * Check a definition and build its descriptor (runner `main`, the class around `run`) and
 * schema entry.
 * @throws ToolDefinitionError naming the tool and the field at fault: an unknown key, a
 *   `runner` or `memoryMb` (a function runs on the main thread), an option `@tool` would
 *   refuse, a missing description, a schema that is not an object schema, does not fit the
 *   meta-schema of its draft (the message names `inputSchema.properties.x.type`, say), or
 *   does not compile.
 */
export function checkToolDefinition(definition: ToolDefinition, options: DefinitionRegisterOptions = {}): CheckedDefinition {
  const label = typeof definition.name === 'string' && definition.name !== '' ? definition.name : '?';
  const bad = (field: string, problem: string) => ToolDefinitionError.fromBadOption(label, field, problem);
  for (const key of Object.keys(definition)) {
    if (key === 'runner' || key === 'memoryMb' || key === 'module') {
      throw bad(key, 'does not apply: run is a function of this process, so the tool runs on the main runner (for a child process or a worker thread, write a @tool class in a module)');
    }
    if (!DEFINITION_KEYS.has(key)) throw bad(key, `is not a known field; known: ${[...DEFINITION_KEYS].join(', ')}`);
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') throw bad('description', 'is required: a non-empty string saying when to use the tool');
  if (definition.source !== undefined && (typeof definition.source !== 'string' || definition.source === '')) throw bad('source', 'must be a non-empty string when given');
  if (definition.close !== undefined && typeof definition.close !== 'function') throw bad('close', 'must be a function when given');
  if (definition.revision !== undefined && (typeof definition.revision !== 'string' || definition.revision === '')) throw bad('revision', 'must be a non-empty string when given');
  const { run, close, inputSchema, outputSchema, source, revision, ...flags } = definition;
  const target = definitionClass(label, run, close);
  const toolOptions: ToolOptions = { ...(flags as Omit<ToolOptions, 'runner'>), runner: 'main' };
  const descriptor = buildToolDescriptor(toolOptions, target, undefined, options.bridged === true ? BRIDGED_TOOL_NAME_PATTERN : undefined);
  const key = `${descriptor.name}@${descriptor.version}`;
  let foreign = options.foreignSchemas === true;
  for (const [field, schema] of [['inputSchema', inputSchema], ['outputSchema', outputSchema]] as const) {
    if (field === 'outputSchema' && (schema === undefined || schema === null)) continue;
    const { draft, problems } = metaSchemaProblems(options.foreignSchemas === true ? withDialect(schema) : schema);
    if (problems.length !== 0) {
      const named = problems.map((p) => `${p.path === '' ? field : `${field}.${p.path}`} ${p.message}`).join('; ');
      throw ToolDefinitionError.fromBadSchema(key, `${named} (checked against the JSON Schema ${draft} meta-schema)`);
    }
    if (draft === '2020-12') foreign = true;
  }
  if ((inputSchema as { type?: unknown }).type !== 'object') {
    throw ToolDefinitionError.fromBadSchema(key, `inputSchema must have type "object" (run(args) takes an object); got type ${JSON.stringify((inputSchema as { type?: unknown }).type)}`);
  }
  for (const [field, schema] of [['inputSchema', inputSchema], ['outputSchema', outputSchema]] as const) {
    if (schema === undefined || schema === null) continue;
    try {
      (foreign ? compileForeignValidator : compileValidator)(schema, field === 'inputSchema' ? 'argument' : 'output');
    } catch (error) {
      throw ToolDefinitionError.fromBadSchema(key, `${field} does not compile: ${(error as Error).message}`);
    }
  }
  const entry: SchemaFileEntry = {
    name: descriptor.name, version: descriptor.version, description: descriptor.description!, className: target.name,
    source: source ?? 'register()', inputSchema, outputSchema: outputSchema ?? null,
  };
  // What `run` does cannot be read from it (a closure's captured values, a bound or native
  // function): without the caller's `revision`, every registration is a new revision, so a
  // replacement never runs under approvals remembered for what it replaced.
  const revisionSalt = revision !== undefined
    ? `revision:${revision}\u0000${descriptor.description}`
    : `registration:${process.pid}:${++unnamedRegistrations}:${crypto.randomUUID()}`;
  const registerOptions: RegisterOptions = { revisionSalt };
  if (foreign) registerOptions.foreignSchemas = true;
  if (options.upstream !== undefined) registerOptions.upstream = options.upstream;
  return { descriptor, entry, options: registerOptions };
}

/**
 * A foreign schema (an MCP server's) as {@link compileForeignValidator} reads it: draft-07 when
 * its `$schema` names draft-04 to draft-07, else 2020-12 (the MCP default), whatever the URL's
 * exact spelling.
 */
function withDialect(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const dialect = (schema as { $schema?: unknown }).$schema;
  const draft07 = typeof dialect === 'string' && /draft-0[4-7]/.test(dialect);
  return { ...schema, $schema: draft07 ? 'http://json-schema.org/draft-07/schema#' : 'https://json-schema.org/draft/2020-12/schema' };
}

/**
 * Per `close` function: instances made with it and not closed yet. A `name@version`
 * registered again (the same definition, or one with the same `close`) makes a new instance
 * while the old one may still be open; `close` runs when the last of them closes, so once.
 */
const openInstances = new WeakMap<NonNullable<ToolDefinition['close']>, number>();

/** The class the main runner instantiates: each instance calls the definition's `run` (and, when the last open one closes, `close`). */
function definitionClass(name: string, run: ToolDefinition['run'], close: ToolDefinition['close']): ToolClass {
  if (typeof run !== 'function') throw ToolDefinitionError.fromBadOption(name, 'run', 'is required: a function (args, ctx) => result');
  const target = class RegisteredFunctionTool implements Tool<Record<string, unknown>, unknown> {
    private open = true;

    constructor() {
      if (close !== undefined) openInstances.set(close, (openInstances.get(close) ?? 0) + 1);
    }

    run(args: Record<string, unknown>, ctx: ToolContext): unknown {
      return run(args, ctx);
    }

    close(): void | Promise<void> {
      if (!this.open || close === undefined) return;
      this.open = false;
      const left = (openInstances.get(close) ?? 1) - 1;
      openInstances.set(close, left);
      return left === 0 ? close() : undefined;
    }
  };
  return target;
}
