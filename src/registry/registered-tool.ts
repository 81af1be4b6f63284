/**
 * A tool as the registry holds it: descriptor, schemas, revision, validators.
 *
 * @module
 */
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';
import type { ExportableTool } from '../formats/common.js';
import { isActionKind, type ActionKind } from '../policy/action-kinds.js';
import { kindFitsReadOnly } from '../decorators/tool.decorator.js';
import { findCommandArguments, findInputArguments, findPathArguments, type PathArgument } from '../schema/path-arguments.js';
import type { SchemaFileEntry } from '../schema/schema-file.js';
import { compileForeignValidator, compileValidator, type Validator } from '../schema/validator.js';
import { RUNNER_KINDS } from '../runner/kinds.js';
import type { JsonSchema, OutputProjection, RunnerKind, ToolClass, TruncationStrategy } from '../types/tool.js';
import { isModelClass, type ModelClass } from '../types/model-class.js';
import { getToolMetadata } from '../decorators/metadata.js';
import { manifestDescriptor } from './manifest.js';

// safe-stable-stringify (CommonJS) loads with the first revision or module check, not at start.
const require = createRequire(import.meta.url);
let stableStringify: ((value: unknown) => string | undefined) | undefined;
function stringify(value: unknown): string | undefined {
  stableStringify ??= (require('safe-stable-stringify') as { stringify: (value: unknown) => string | undefined }).stringify;
  return stableStringify(value);
}

/** The safety flags that count in a registration revision. */
export interface RevisionFlags {
  kind: ActionKind;
  readOnly: boolean;
  requiresConfirmation: boolean;
  scopedWrite: boolean;
}

/**
 * Registration revision: a SHA-256 (hex) of the canonical JSON of name, version, input schema,
 * output schema and the safety flags (`kind`, `readOnly`, `requiresConfirmation`, `scopedWrite`).
 * Stable across processes and key order; changes whenever the contract a model sees or the
 * tool's safety class changes, so remembered approvals can be keyed on it.
 */
export function registrationRevision(name: string, version: string, inputSchema: JsonSchema, outputSchema: JsonSchema | null, flags: RevisionFlags): string {
  const canonical = stringify({ name, version, inputSchema, outputSchema, flags: { kind: flags.kind, readOnly: flags.readOnly, requiresConfirmation: flags.requiresConfirmation, scopedWrite: flags.scopedWrite } }) ?? '';
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

/** How a tool is registered; every option documents its default. */
export interface RegisterOptions {
  /**
   * The schemas come from outside toolgate (an MCP server), not from our generator: they
   * are compiled leniently ({@link compileForeignValidator}: JSON Schema 2020-12 unless they
   * say draft-07, unknown keywords and formats ignored). Default false (strict draft-07).
   */
  foreignSchemas?: boolean;
  /**
   * When the schemas are compiled by ajv: `register` (now, so that a schema ajv rejects is a
   * definition error at once) or `first-use` (on the first validation of each: tools read
   * from a manifest, whose schemas the build already compiled, so that listing them never
   * loads ajv). Default `register`.
   */
  compile?: 'register' | 'first-use';
  /**
   * What an MCP server said of a bridged tool besides its schemas: its `title` and
   * `annotations`, kept as hints for the MCP `tools/list` this tool appears in again (our
   * decisions never read them). Default none.
   */
  upstream?: UpstreamToolMetadata;
  /**
   * What the operator's toolset changes of this tool (`tools.builtin` of the config file):
   * these values replace the descriptor's, and the flags count in the revision. Checked as
   * the decorator checks its options. Default none.
   */
  overrides?: ToolOverrides;
  /**
   * Mixed into {@link RegisteredTool.revision}: what else identifies the definition (for a
   * programmatic tool, its `revision` and description, else a salt of its own registration),
   * so that remembered approvals of one definition do not carry over to a replacement with
   * the same schemas and flags. Default none.
   */
  revisionSalt?: string;
}

/** The fields a toolset entry may override ({@link RegisterOptions.overrides}). */
export interface ToolOverrides {
  /** Description for the model. */
  description?: string;
  /** Counts as read-only; must fit the tool's action kind. */
  readOnly?: boolean;
  /** Calls need confirmation. */
  requiresConfirmation?: boolean;
  /** Timeout in milliseconds; `<= 0` for none. */
  timeoutMs?: number;
  /** Output cap in characters; `<= 0` for none. */
  maxOutputLength?: number;
}

/** A bridged tool's title and annotations, as its MCP server listed them. */
export interface UpstreamToolMetadata {
  /** Display name (`title`, or `annotations.title`). */
  title?: string;
  /** The server's annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`, and any other). */
  annotations?: Record<string, unknown>;
}

/** A registered tool version. Immutable apart from its lazily compiled validators. */
export class RegisteredTool implements ExportableTool {
  /** `name@version`. */
  readonly key: string;
  /** Tool name (snake_case, as the model sees it). */
  readonly name: string;
  /** Semver version. */
  readonly version: string;
  /** The decorator's description, else the class TSDoc from the schema file. */
  readonly description: string;
  /** Tags for filtering. */
  readonly tags: readonly string[];
  /** Domain of lazy visibility, or `undefined` for a core tool; see `ToolOptions.domain`. */
  readonly domain: string | undefined;
  /** What a call does to the world (see `ToolOptions.kind`); policy rules and approval modes match on it. */
  readonly kind: ActionKind;
  /** No side effects: allowed in read-only modes. */
  readonly readOnly: boolean;
  /** Calls need `confirm: true` or a confirmation handler's yes. */
  readonly requiresConfirmation: boolean;
  /** Writes only to the paths its path arguments name; see `ToolOptions.scopedWrite`. */
  readonly scopedWrite: boolean;
  /** The model class it is meant for (`ToolOptions.forModel`); `undefined`: every model. */
  readonly forModel: ModelClass | undefined;
  /** Milliseconds; `<= 0` for none. */
  readonly timeoutMs: number;
  /** Calls per minute allowed, or `undefined` for no limit. */
  readonly rateLimitRpm: number | undefined;
  /** MiB; `undefined` for the pool default. */
  readonly memoryMb: number | undefined;
  /** Characters; `<= 0` for no truncation. */
  readonly maxOutputLength: number;
  /** How output longer than `maxOutputLength` is cut. */
  readonly truncation: TruncationStrategy;
  /** The output projection (`@tool({ output })`): a summary function, what the ledger keeps, whether the whole output is kept. */
  readonly output: Readonly<OutputProjection>;
  /** Where calls run: `pool` (worker threads) or `main` (main thread). */
  readonly runner: RunnerKind;
  /** `file:` URL of the module defining the class (workers import it). */
  readonly moduleUrl: string | undefined;
  /** Export name of the class in that module. */
  readonly exportName: string;
  /** JSON Schema of the arguments (`type: "object"`, closed). */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the return value, or `null` when the tool returns nothing. */
  readonly outputSchema: JsonSchema | null;
  /** Arguments marked `@format workspace-path`. */
  readonly pathArguments: readonly PathArgument[];
  /** Names of the top-level string arguments marked `@format shell-command` (the command a shell runs). */
  readonly commandArguments: readonly string[];
  /**
   * Names of the top-level string arguments marked `@format shell-input` (text typed into a
   * running program, judged like a command line of what reads it: `src/policy/shell-input.ts`).
   * A tool with one runs on the `main` runner and says what reads the input with a static
   * `shellInputTarget` (`ShellInputTool`).
   */
  readonly inputArguments: readonly string[];
  /** Source file of the definition, from the schema file. */
  readonly source: string;
  /**
   * Long string output may be cut inside the worker (keeping the main thread's memory
   * bounded): true when the output schema says no more than "a string" (or there is none),
   * so that cutting cannot change the output schema's verdict.
   */
  readonly cutInWorker: boolean;
  /** A bridged tool's title and annotations from its server, if any ({@link RegisterOptions.upstream}). */
  readonly upstream: UpstreamToolMetadata | undefined;
  private readonly compileSchema: (schema: JsonSchema, subject: 'argument' | 'output') => Validator;
  private inputValidator: Validator | undefined;
  private outputValidator: Validator | undefined;
  private loadedClass: ToolClass | undefined;
  private loading: Promise<ToolClass> | undefined;
  private revisionHash: string | undefined;
  private readonly declared: ToolDescriptor;
  private readonly revisionSalt: string | undefined;

  /**
   * @throws ToolDefinitionError when the descriptor has no action kind or one that does not
   *   fit its `readOnly`, the schema entry does not belong to the descriptor, the
   *   input schema is not an object schema, a schema does not compile, or `scopedWrite` is
   *   declared without required path arguments.
   */
  constructor(declared: ToolDescriptor, entry: SchemaFileEntry, options: RegisterOptions = {}) {
    // Overrides change what the registry holds; the declared descriptor stays what the module must export.
    const descriptor: ToolDescriptor = options.overrides === undefined ? declared : { ...declared, ...options.overrides };
    const key = `${descriptor.name}@${descriptor.version}`;
    if (entry.name !== descriptor.name || entry.version !== descriptor.version) {
      throw ToolDefinitionError.fromBadSchema(key, `the schema entry is for ${entry.name}@${entry.version}`);
    }
    if (!entry.inputSchema || entry.inputSchema.type !== 'object') {
      throw ToolDefinitionError.fromBadSchema(key, 'the input schema must have type "object" (run(args) takes an object)');
    }
    // A descriptor made by hand (not by @tool) must say what its calls do, too.
    if (!isActionKind(descriptor.kind)) throw ToolDefinitionError.fromBadOption(descriptor.name, 'kind', `is required, one of the action kinds; got ${JSON.stringify(descriptor.kind)}`);
    if (!kindFitsReadOnly(descriptor.kind, descriptor.readOnly)) {
      throw ToolDefinitionError.fromBadOption(descriptor.name, 'kind', `${JSON.stringify(descriptor.kind)} does not fit readOnly: ${descriptor.readOnly}`);
    }
    const description = descriptor.description ?? entry.description;
    if (!description) throw ToolDefinitionError.fromBadSchema(key, 'no description: add a TSDoc summary to the class or a description option');
    this.key = key;
    this.name = descriptor.name;
    this.version = descriptor.version;
    this.description = description;
    this.tags = descriptor.tags;
    this.domain = descriptor.domain;
    this.kind = descriptor.kind;
    this.readOnly = descriptor.readOnly;
    this.requiresConfirmation = descriptor.requiresConfirmation;
    this.scopedWrite = descriptor.scopedWrite ?? false;
    if (descriptor.forModel !== undefined && !isModelClass(descriptor.forModel)) throw ToolDefinitionError.fromBadOption(descriptor.name, 'forModel', `must be "vision" or "text-only"; got ${JSON.stringify(descriptor.forModel)}`);
    this.forModel = descriptor.forModel;
    this.timeoutMs = descriptor.timeoutMs;
    this.rateLimitRpm = descriptor.rateLimitRpm;
    this.memoryMb = descriptor.memoryMb;
    this.maxOutputLength = descriptor.maxOutputLength;
    this.truncation = descriptor.truncation;
    this.output = descriptor.output ?? {};
    this.runner = descriptor.runner;
    this.moduleUrl = descriptor.moduleUrl;
    this.exportName = descriptor.exportName;
    this.loadedClass = descriptor.target;
    this.declared = declared;
    this.revisionSalt = options.revisionSalt;
    this.inputSchema = entry.inputSchema;
    this.outputSchema = entry.outputSchema ?? null;
    this.source = entry.source;
    this.upstream = options.upstream;
    const { description: _d, ...outputShape } = this.outputSchema ?? {};
    // A summary function (output projection) needs the whole output on the main thread.
    this.cutInWorker = (this.outputSchema === null || (outputShape.type === 'string' && Object.keys(outputShape).length === 1)) && typeof descriptor.output?.model !== 'function';
    this.pathArguments = Object.freeze(findPathArguments(this.inputSchema));
    this.commandArguments = Object.freeze(findCommandArguments(this.inputSchema));
    this.inputArguments = Object.freeze(findInputArguments(this.inputSchema));
    if (this.inputArguments.length !== 0 && this.runner !== 'main') {
      // What reads the input (a session) is state of the host process: only there can the tool say what it is.
      throw ToolDefinitionError.fromBadSchema(key, `its argument ${this.inputArguments[0]} is marked @format shell-input, which needs runner: 'main' (the decision asks the tool's class, in the host process, what reads the input)`);
    }
    if (RUNNER_KINDS[this.runner].loadsModule && this.moduleUrl === undefined) throw ToolDefinitionError.fromUnknownLocation(key);
    if (this.scopedWrite && this.pathArguments.length === 0) {
      throw ToolDefinitionError.fromBadSchema(key, 'it declares scopedWrite but has no argument marked @format workspace-path, so its writes cannot be checked');
    }
    const required = new Set((this.inputSchema.required as string[] | undefined) ?? []);
    const optionalPath = this.pathArguments.find((p) => !required.has(p.name));
    if (this.scopedWrite && optionalPath !== undefined) {
      // A default the tool picks itself would escape the scoped-folder check.
      throw ToolDefinitionError.fromBadSchema(key, `it declares scopedWrite, so its path argument ${optionalPath.name} must be required`);
    }
    this.compileSchema = options.foreignSchemas === true ? compileForeignValidator : compileValidator;
    if (options.compile !== 'first-use') {
      // Compile both schemas now: a schema ajv rejects is a definition error at load time,
      // never a surprise at call time.
      try {
        this.inputValidator = this.compileSchema(this.inputSchema, 'argument');
        if (this.outputSchema !== null) this.outputValidator = this.compileSchema(this.outputSchema, 'output');
      } catch (error) {
        throw ToolDefinitionError.fromBadSchema(key, (error as Error).message);
      }
    }
  }

  /** See {@link registrationRevision}; computed on first read. */
  get revision(): string {
    if (this.revisionHash !== undefined) return this.revisionHash;
    const revision = registrationRevision(this.name, this.version, this.inputSchema, this.outputSchema, this);
    return (this.revisionHash = this.revisionSalt === undefined ? revision : crypto.createHash('sha256').update(`${revision}\u0000${this.revisionSalt}`).digest('hex'));
  }

  /**
   * The decorated class, or `undefined` while it is not loaded: a tool registered from a
   * manifest (see `loadTools`) imports its module only when {@link load} is first called
   * (the main runner does it on the tool's first call; other runners import the module in
   * their worker or child process).
   */
  get target(): ToolClass | undefined {
    return this.loadedClass;
  }

  /**
   * The decorated class, importing the tool's module on the first call (once, however many
   * calls wait for it).
   * @throws ToolDefinitionError when the module cannot be imported, does not export
   *   {@link exportName}, or exports a class whose `@tool` descriptor is not this tool's (the
   *   manifest it was registered from is stale: rebuild with `npm run build`).
   */
  load(): Promise<ToolClass> {
    if (this.loadedClass !== undefined) return Promise.resolve(this.loadedClass);
    return (this.loading ??= this.importClass().then(
      (loaded) => (this.loadedClass = loaded),
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    ));
  }

  private async importClass(): Promise<ToolClass> {
    if (this.moduleUrl === undefined) throw ToolDefinitionError.fromUnknownLocation(this.key);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(this.moduleUrl)) as Record<string, unknown>;
    } catch (error) {
      throw ToolDefinitionError.other(this.name, `Cannot import tool module ${this.moduleUrl} of ${this.key}: ${(error as Error)?.message ?? String(error)}`, error);
    }
    const value = mod[this.exportName];
    const meta = getToolMetadata(value);
    // Everything the decisions and runners used came from the manifest: the class must be what it said.
    if (meta === undefined || stringify(manifestDescriptor(meta)) !== stringify(manifestDescriptor(this.declared))) {
      throw ToolDefinitionError.other(this.name, `${this.moduleUrl} no longer exports ${this.key} as ${this.exportName} with the flags it was registered with; its tool manifest is stale: rebuild (npm run build) or regenerate it.`);
    }
    return value as ToolClass;
  }

  /**
   * Validate arguments against the input schema (compiled once, at registration or on first
   * use; see {@link RegisterOptions.compile}).
   * @returns `undefined` when valid, else a message naming the first problem. Never throws: a
   *   schema compiled on first use that ajv rejects is reported as the problem.
   */
  validateInput(args: unknown): string | undefined {
    return (this.inputValidator ??= this.lateValidator(this.inputSchema, 'argument'))(args);
  }

  /**
   * Validate a return value against the output schema (none: anything passes).
   * @returns `undefined` when valid, else a message naming the first problem. Never throws.
   */
  validateOutput(value: unknown): string | undefined {
    if (this.outputSchema === null) return undefined;
    return (this.outputValidator ??= this.lateValidator(this.outputSchema, 'output'))(value);
  }

  /** A validator compiled now; a schema ajv rejects gives one that always answers why. */
  private lateValidator(schema: JsonSchema, subject: 'argument' | 'output'): Validator {
    try {
      return this.compileSchema(schema, subject);
    } catch (error) {
      const problem = `the ${subject} schema of ${this.key} does not compile (${(error as Error)?.message ?? String(error)}); regenerate the schema file`;
      return () => problem;
    }
  }
}
