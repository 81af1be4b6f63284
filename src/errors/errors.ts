/**
 * Designed errors of toolgate.
 *
 * Two tiers, as in the MCP TypeScript SDK: definition errors are thrown when a module or
 * registry is loaded (a programming mistake to fix before shipping); request, gate and
 * execution errors become {@link ToolExecutionResult}s that a model can read. The one
 * deliberate exception is {@link PathTraversalError}, which always propagates to the caller.
 *
 * @module
 */
import type { ToolErrorCode } from './error-codes.js';
import type { ToolExecutionResult } from '../types/result.js';

export type { ToolErrorCode };

/**
 * Base class of every error toolgate raises. `code` is stable and machine-readable; the
 * message says what went wrong, where, and how to fix it.
 */
export class ToolgateError extends Error {
  /** Stable error code; see {@link ToolErrorCode}. */
  readonly code: ToolErrorCode;

  /**
   * @param code - stable error code.
   * @param message - what went wrong, where, and how to fix it.
   * @param options - `cause`: the underlying error, if any.
   */
  constructor(code: ToolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The tool name of a `name@version` key. */
function nameOf(key: string): string {
  const at = key.lastIndexOf('@');
  return at > 0 ? key.slice(0, at) : key;
}

/**
 * A tool definition, decorator option, or generated schema file is wrong. Thrown when the
 * module that defines the tool loads, or when a registry is built; never at call time.
 */
export class ToolDefinitionError extends ToolgateError {
  /** Name of the tool concerned (`"?"` when the name itself is missing). */
  readonly toolName: string;

  private constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super('DEFINITION', message, options);
    this.toolName = toolName;
  }

  /** A decorator option is missing or has a wrong value. */
  static fromBadOption(toolName: string, option: string, problem: string): ToolDefinitionError {
    return new ToolDefinitionError(toolName, `@tool ${toolName}: options.${option} ${problem}`);
  }

  /** The tool has no entry in the generated schema file. */
  static fromMissingSchema(key: string, schemaSource: string): ToolDefinitionError {
    return new ToolDefinitionError(
      nameOf(key),
      `No generated schema for ${key} in ${schemaSource}. Run \`npm run schemas\` in toolgate, ` +
        `or \`toolgate schemas 'src/tools/**/*.ts' --out tool-schemas.json\` in your project, and load that file.`,
    );
  }

  /** `name@version` is already registered. */
  static fromDuplicate(key: string): ToolDefinitionError {
    return new ToolDefinitionError(
      nameOf(key),
      `Tool ${key} is already registered; bump the version (semver) of one of the two definitions.`,
    );
  }

  /** The generated schema of a tool is unusable. */
  static fromBadSchema(key: string, problem: string): ToolDefinitionError {
    return new ToolDefinitionError(nameOf(key), `Schema of ${key} is invalid: ${problem}`);
  }

  /** A pool-runner tool whose module location is unknown cannot be loaded by a worker. */
  static fromUnknownLocation(key: string): ToolDefinitionError {
    return new ToolDefinitionError(
      nameOf(key),
      `Tool ${key} runs in the worker pool but its module URL is unknown; load it with loadTools() ` +
        `or pass \`module: import.meta.url\` to @tool.`,
    );
  }

  /** Anything else about a definition (a generic constructor for generators and loaders). */
  static other(toolName: string, message: string, cause?: unknown): ToolDefinitionError {
    return new ToolDefinitionError(toolName, message, cause === undefined ? undefined : { cause });
  }
}

/**
 * An option given to a toolgate constructor or command is wrong (a programming error of the
 * caller). Thrown at construction; the message names the option path
 * (`options.poolSize must be ...`).
 */
export class ToolgateOptionError extends ToolgateError {
  private constructor(message: string) {
    super('INVALID_OPTIONS', message);
  }

  /** `options.<option> <problem>`. */
  static fromBadOption(option: string, problem: string): ToolgateOptionError {
    return new ToolgateOptionError(`options.${option} ${problem}`);
  }
}

/**
 * A path argument resolves outside the workspace (after `..`, absolute paths, `~`, and
 * symbolic links are resolved). This is a security error: the executor re-throws it instead
 * of turning it into a result, so callers must catch it (the CLI exits 3).
 */
export class PathTraversalError extends ToolgateError {
  /** The path as the caller gave it (cut to 300 characters). */
  readonly path: string;
  /** The workspace root it was checked against (real path). */
  readonly workspaceRoot: string;
  /**
   * Set by `ToolExecutor.executeMany`: the results of the whole batch, in call order (the
   * escaping call's as `PATH_TRAVERSAL`, calls after it as `ABORTED` without running).
   */
  results?: ToolExecutionResult[];

  /**
   * @param path - the offending path as given.
   * @param workspaceRoot - the real path of the workspace root.
   * @param detail - why it is outside (for the message).
   */
  constructor(path: string, workspaceRoot: string, detail = 'resolves outside the workspace') {
    super('PATH_TRAVERSAL', `Path ${JSON.stringify(path)} ${detail} (${workspaceRoot}); use a path inside the workspace.`);
    this.path = path;
    this.workspaceRoot = workspaceRoot;
  }
}

/** Workspace escapes refused before their call ran (see {@link refusedBeforeRun}). */
const NOT_RUN = new WeakSet<PathTraversalError>();

/**
 * Marks `error` as thrown by the executor's check of a call's arguments, before the tool ran
 * (returns it). Internal: the MCP server reads it to say the call had no side effects.
 */
export function markRefusedBeforeRun(error: PathTraversalError): PathTraversalError {
  NOT_RUN.add(error);
  return error;
}

/** Whether `error` was marked by {@link markRefusedBeforeRun}; otherwise the tool may have acted before finding the escape. */
export function refusedBeforeRun(error: PathTraversalError): boolean {
  return NOT_RUN.has(error);
}

/**
 * A path argument is malformed (empty, NUL byte, not a string). Reported as an
 * `INVALID_PATH` result, not thrown to the caller.
 */
export class InvalidPathError extends ToolgateError {
  /**
   * @param path - the path as given (NUL bytes shown escaped in the message).
   * @param problem - what is wrong with it.
   */
  constructor(path: unknown, problem: string) {
    super('INVALID_PATH', `Invalid path ${JSON.stringify(path)}: ${problem}.`);
  }
}

/**
 * A tool that runs processes in a sandbox found no way to make one (bubblewrap missing or
 * not working) and the user did not choose the `none` profile. Reported as a
 * `SANDBOX_UNAVAILABLE` result; the process goes on.
 */
export class SandboxUnavailableError extends ToolgateError {
  private constructor(message: string) {
    super('SANDBOX_UNAVAILABLE', message);
  }

  /** Bubblewrap is missing or cannot make a sandbox here (`problem` says which). */
  static fromMissingBubblewrap(who: string, problem: string, debianPackage: string): SandboxUnavailableError {
    return new SandboxUnavailableError(
      `sandbox unavailable: ${who} runs its processes in a bubblewrap sandbox, and ${problem}. ` +
        `Install bubblewrap (the Debian package \`${debianPackage}\`: apt-get install ${debianPackage}). ` +
        `To run without any sandbox, the user must choose the profile none explicitly ` +
        `(option sandbox: 'none', or the CLI flag --dangerously-disable-sandbox).`,
    );
  }
}

/**
 * A feature needs a package that is not installed: an optional peer dependency of toolgate
 * (sharp for the image tools, pdfjs-dist for read_pdf, typescript-json-schema for schema
 * generation...; README's table lists them). `packages` are the npm names to install; the
 * message names them and the command. A tool that throws it ends its call with a
 * `PACKAGE_UNAVAILABLE` result; the process goes on.
 */
export class PackageUnavailableError extends ToolgateError {
  /** The npm packages to install, e.g. `['typescript', 'typescript-json-schema']`. */
  readonly packages: readonly string[];

  /**
   * @param packages - the npm names of the missing packages (at least one).
   * @param feature - what needs them, e.g. `'resize_image'` or `'schema generation'`.
   */
  constructor(packages: readonly string[], feature: string, options?: { cause?: unknown }) {
    const names = packages.map((name) => `\`${name}\``).join(' and ');
    super('PACKAGE_UNAVAILABLE', `unavailable: ${feature} needs the package${packages.length === 1 ? '' : 's'} ${names}, not installed here. Install ${packages.length === 1 ? 'it' : 'them'}: npm install ${packages.join(' ')}`, options);
    this.packages = Object.freeze([...packages]);
  }
}

/**
 * A tool's own failure: throw it (or any `Error`) from `run` to report a failure the model
 * can act on. `code` defaults to `TOOL_ERROR`.
 */
export class ToolExecutionError extends ToolgateError {
  /**
   * @param message - what failed and how the model could fix its call.
   * @param code - the error code reported in the result (default `TOOL_ERROR`).
   */
  constructor(message: string, code: ToolErrorCode = 'TOOL_ERROR', options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
