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

/**
 * Every `errorCode` a {@link ToolExecutionResult} or a {@link ToolgateError} can carry.
 *
 * - `UNKNOWN_TOOL`: no tool of that name is registered.
 * - `VERSION_NOT_FOUND`: the tool exists but no version satisfies the requested semver range.
 * - `INVALID_ARGUMENTS`: the arguments are not a JSON object or fail the input schema.
 * - `INVALID_PATH`: a path argument is empty, holds a NUL byte, or cannot be resolved.
 * - `PATH_TRAVERSAL`: a path leaves the workspace (thrown, never a result).
 * - `MODE_DENIED`: the agent mode does not allow this tool or this target path.
 * - `POLICY_DENIED`: the policy hook vetoed the call.
 * - `CONFIRMATION_REQUIRED`: the tool needs a confirmation that was not given.
 * - `CONFIRMATION_DENIED`: a confirmation handler answered no.
 * - `RATE_LIMITED`: the tool's `rateLimitRpm` would make the call wait longer than allowed.
 * - `TIMEOUT`: the call ran past its timeout and was stopped.
 * - `MEMORY_LIMIT`: the worker ran past the tool's memory cap and was ended.
 * - `WORKER_CRASHED`: the worker running the call exited unexpectedly.
 * - `ABORTED`: the caller's abort signal fired.
 * - `TOOL_ERROR`: the tool itself threw.
 * - `INVALID_OUTPUT`: the tool returned a value that fails its output schema, or one that
 *   cannot leave its worker.
 * - `INVALID_OPTIONS`: the caller's per-call options are wrong (a programming error of the
 *   caller, not the model's: a `timeoutMs` that is not a number, say).
 * - `OVERLOADED`: too many calls are in flight; retry later.
 * - `SERVER_UNAVAILABLE`: the MCP server behind a bridged tool did not start or has stopped.
 * - `INTERNAL`: an unexpected failure inside toolgate or a caller's hook; the message says what.
 * - `DEFINITION`: a tool definition or schema file is wrong (thrown at load time).
 */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'VERSION_NOT_FOUND'
  | 'INVALID_ARGUMENTS'
  | 'INVALID_PATH'
  | 'PATH_TRAVERSAL'
  | 'MODE_DENIED'
  | 'POLICY_DENIED'
  | 'CONFIRMATION_REQUIRED'
  | 'CONFIRMATION_DENIED'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'MEMORY_LIMIT'
  | 'WORKER_CRASHED'
  | 'ABORTED'
  | 'TOOL_ERROR'
  | 'INVALID_OUTPUT'
  | 'INVALID_OPTIONS'
  | 'OVERLOADED'
  | 'SERVER_UNAVAILABLE'
  | 'INTERNAL'
  | 'DEFINITION';

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
  results?: import('./types.js').ToolExecutionResult[];

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
