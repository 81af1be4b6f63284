/**
 * The error codes of results and errors, and the one table that says what each means: its
 * class, its retryability (and so its outcome), where in a call it arises, whether a tool may
 * throw it, how MCP carries it, and a one-line summary. Data only, so that the result type,
 * the error classes, close-out, the executor, the runners and the surfaces all read it without
 * importing each other. Every other set of codes (the ledger's denials, the outcomes table,
 * the codes a tool may report, the MCP protocol errors, the adapters' denials, what `--explain`
 * calls "stopped before the decisions") is derived from {@link ERROR_CODES};
 * `test/errors/error-codes.test.ts` fails when a code is missing from it.
 *
 * @module
 */

/**
 * Every `errorCode` a {@link ToolExecutionResult} or a {@link ToolgateError} can carry; what
 * each means is its `summary` in {@link ERROR_CODES}.
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
  | 'TRANSIENT'
  | 'INVALID_OUTPUT'
  | 'INVALID_OPTIONS'
  | 'OVERLOADED'
  | 'SERVER_UNAVAILABLE'
  | 'QUEUE_UNAVAILABLE'
  | 'SANDBOX_UNAVAILABLE'
  | 'PACKAGE_UNAVAILABLE'
  | 'INTERRUPTED'
  | 'CALL_IN_PROGRESS'
  | 'RESULT_PRUNED'
  | 'INTERNAL'
  | 'DEFINITION'
  | 'INVALID_POLICY_FILE'
  | 'CLIENT_UNAVAILABLE'
  | 'TOOL_REPLACED'
  | 'TOOL_HIDDEN';

/** Why a call failed, as a small closed set derived from its `errorCode` (never from its message); see {@link ERROR_CODES}. */
export type ToolErrorClass =
  | 'invalid_arguments' | 'denied' | 'not_found' | 'rate_limited' | 'overloaded' | 'timeout' | 'transient' | 'unavailable'
  | 'tool_error' | 'crashed' | 'resource_limit' | 'interrupted' | 'in_progress' | 'internal';

/**
 * Whether making the same call again may help:
 * - `auto`: it may succeed when made again after a wait (`retryAfterMs`, else a backoff), so a
 *   retry loop may make it again by itself when it had no side effects;
 * - `manual`: it may succeed later, but making it again is a decision for the model or the
 *   user (it would likely take as long again, or something else has to happen first);
 * - `never`: made again unchanged, it fails again (for the rest of the turn at least).
 */
type Retryability = 'auto' | 'manual' | 'never';

/**
 * Where in a call a code arises:
 * - `request`: the call itself is wrong or names nothing callable (before any decider);
 * - `ledger`: a durable ledger's exactly-once check answered instead of running (before any decider);
 * - `gate`: a gate refused the call (a decider, admission, or the last checks before it runs);
 *   a refused call that did not run is stored `denied` in the ledger;
 * - `run`: the call was dispatched (or was about to be) and its run ended this way;
 * - `load`: a tool definition is wrong (thrown at load time, never a call's result).
 */
type ErrorStage = 'request' | 'ledger' | 'gate' | 'run' | 'load';

/**
 * How `toolgate mcp` answers a `tools/call` that ends with the code: `result`, a tool result
 * with `isError` and `_meta['toolgate/errorCode']` (the model reads it); `invalid_params`, a
 * JSON-RPC protocol error -32602 (the MCP specification's answer to an unknown tool).
 */
type McpMapping = 'result' | 'invalid_params';

/** One row of {@link ERROR_CODES}. */
export interface ErrorCodeEntry {
  /** The result's `errorClass`. */
  readonly errorClass: ToolErrorClass;
  /** Whether making the same call again may help; the result's `outcome` is `fatal` for `never`, else `recoverable`. */
  readonly retry: Retryability;
  /** Where in a call the code arises. */
  readonly stage: ErrorStage;
  /** Whether a tool may end its call with the code by throwing a `ToolgateError` that carries it (any other code a tool throws becomes `TOOL_ERROR`). */
  readonly reportable: boolean;
  /** How MCP carries it. */
  readonly mcp: McpMapping;
  /** What the code means, in one or two sentences (docs/outcomes.md shows it). */
  readonly summary: string;
}

type Row = Omit<ErrorCodeEntry, 'summary' | 'mcp' | 'reportable'> & { reportable?: true; mcp?: McpMapping };

/** A row, with the usual defaults: not reportable by a tool, carried by MCP as a tool result. */
function row(entry: Row, summary: string): ErrorCodeEntry {
  return Object.freeze({ errorClass: entry.errorClass, retry: entry.retry, stage: entry.stage, reportable: entry.reportable ?? false, mcp: entry.mcp ?? 'result', summary });
}

/**
 * Every error code, once. A `Record` over {@link ToolErrorCode}: a code without a row does not
 * compile, and the test of this table fails when the union and the table differ.
 *
 * Two choices that the parallel tables of before disagreed on:
 * - `RATE_LIMITED` is a `gate` code (the rate-limit admission refused the call; the ledger
 *   stores it `denied`) with its own class `rate_limited` and retryability `auto` (it may run
 *   once its turn comes, `retryAfterMs` says when): who refused and what a retry can do are
 *   two columns, not one set.
 * - `TOOL_REPLACED` is a `gate` code too (the registry's last check before the run refused
 *   it; it never ran), so the ledger stores it `denied`, as its class `denied` always said; it
 *   stays `never`: the approval it had was for the replaced definition, and a call of the new
 *   one must be decided (and perhaps asked) again, not retried by a loop.
 */
export const ERROR_CODES: Readonly<Record<ToolErrorCode, ErrorCodeEntry>> = Object.freeze({
  UNKNOWN_TOOL: row({ errorClass: 'not_found', retry: 'never', stage: 'request', mcp: 'invalid_params' }, 'No tool of that name is registered (or offered).'),
  VERSION_NOT_FOUND: row({ errorClass: 'not_found', retry: 'never', stage: 'request' }, 'The tool exists but no version satisfies the requested semver range.'),
  INVALID_ARGUMENTS: row({ errorClass: 'invalid_arguments', retry: 'never', stage: 'request', reportable: true }, 'The arguments are not a JSON object, are too large, or fail the input schema.'),
  INVALID_PATH: row({ errorClass: 'invalid_arguments', retry: 'never', stage: 'request', reportable: true }, 'A path argument is empty, holds a NUL byte, or cannot be resolved.'),
  INVALID_OPTIONS: row({ errorClass: 'internal', retry: 'never', stage: 'request' }, "The caller's per-call options are wrong (a programming error of the caller, not the model's: a `timeoutMs` that is not a number, say)."),
  TOOL_HIDDEN: row({ errorClass: 'not_found', retry: 'manual', stage: 'gate' }, 'Lazy visibility is on and the tool belongs to a domain not made visible yet; the message names `request_tools` and the domain to request. The call did not run.'),
  CALL_IN_PROGRESS: row({ errorClass: 'in_progress', retry: 'manual', stage: 'ledger' }, "A call with the same call id and session is already being handled (a durable ledger's exactly-once check); its result is stored when it ends."),
  RESULT_PRUNED: row({ errorClass: 'not_found', retry: 'never', stage: 'ledger' }, "The call id and session ran before, and a durable ledger's retention has since deleted its result; the message says how it ended. It was not run again."),
  PATH_TRAVERSAL: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, 'A path leaves the workspace (thrown as `PathTraversalError`; a ledger records the call `denied`).'),
  MODE_DENIED: row({ errorClass: 'denied', retry: 'never', stage: 'gate', reportable: true }, 'The agent mode does not allow this tool or this target path.'),
  POLICY_DENIED: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, 'A policy rule or the policy hook refused the call.'),
  CONFIRMATION_REQUIRED: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, 'The call needs a confirmation that was not given (nobody could be asked).'),
  CONFIRMATION_DENIED: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, 'The person asked answered no (or an answer given before refused the same request).'),
  INVALID_POLICY_FILE: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, 'A policy file cannot be read or is invalid (`PolicyFileError`, naming file and line); every call is refused until it is fixed.'),
  TOOL_REPLACED: row({ errorClass: 'denied', retry: 'never', stage: 'gate' }, "The tool's `name@version` was registered again while the call waited (for an approval, its rate-limit turn); the call was approved for the old definition, so it was not run. Call again to run the new one."),
  RATE_LIMITED: row({ errorClass: 'rate_limited', retry: 'auto', stage: 'gate' }, "The tool's `rateLimitRpm` would make the call wait longer than allowed; `retryAfterMs` says when its turn comes."),
  TIMEOUT: row({ errorClass: 'timeout', retry: 'manual', stage: 'run', reportable: true }, 'The call ran past its timeout and was stopped (or its time was up before it started).'),
  MEMORY_LIMIT: row({ errorClass: 'resource_limit', retry: 'never', stage: 'run', reportable: true }, "The tool ran past its memory cap and its worker or process was ended."),
  WORKER_CRASHED: row({ errorClass: 'crashed', retry: 'manual', stage: 'run' }, 'The worker or process running the call exited unexpectedly.'),
  ABORTED: row({ errorClass: 'interrupted', retry: 'never', stage: 'run', reportable: true }, "The caller's abort signal fired, or the executor was closed."),
  TOOL_ERROR: row({ errorClass: 'tool_error', retry: 'never', stage: 'run', reportable: true }, 'The tool itself threw, or reported a failure.'),
  TRANSIENT: row({ errorClass: 'transient', retry: 'auto', stage: 'run', reportable: true }, "The tool failed for a reason that may pass (a network blip, a busy resource: it threw `new ToolExecutionError(message, 'TRANSIENT')`); the same call may succeed when made again."),
  INVALID_OUTPUT: row({ errorClass: 'tool_error', retry: 'never', stage: 'run' }, 'The tool returned a value that fails its output schema, or one that cannot leave its worker.'),
  OVERLOADED: row({ errorClass: 'overloaded', retry: 'auto', stage: 'run', reportable: true }, 'Too many calls are in flight (or a capacity of the tool\'s own is full: `run_subagent` with every kept child running); retry later.'),
  SERVER_UNAVAILABLE: row({ errorClass: 'unavailable', retry: 'auto', stage: 'run', reportable: true }, 'The MCP server behind a bridged tool did not start or has stopped.'),
  QUEUE_UNAVAILABLE: row({ errorClass: 'unavailable', retry: 'auto', stage: 'run', reportable: true }, 'A call sent to workers (`--queue`) could not be handed to the queue\'s server within the caller\'s wait (`queueWaitMs`, 30 s): the server is down or unreachable. The call was recorded and ended without running; no worker runs it later. A retry with a new call id may work once the server answers.'),
  SANDBOX_UNAVAILABLE: row({ errorClass: 'unavailable', retry: 'never', stage: 'run', reportable: true }, 'The tool runs processes in a sandbox and none can be made here (bubblewrap missing); the user did not choose to run without one.'),
  PACKAGE_UNAVAILABLE: row({ errorClass: 'unavailable', retry: 'never', stage: 'run', reportable: true }, 'The tool needs an optional package that is not installed (`PackageUnavailableError`); the message names it and the `npm install` command.'),
  CLIENT_UNAVAILABLE: row({ errorClass: 'unavailable', retry: 'never', stage: 'run', reportable: true }, 'The tool asked its caller for something the caller cannot give (`ctx.elicit` or `ctx.sample` with no MCP client or SDK handler that supports it).'),
  INTERRUPTED: row({ errorClass: 'interrupted', retry: 'never', stage: 'run' }, 'toolgate stopped (killed, crashed) while the call ran; the tool may have run, and the call is never run again by itself (a durable ledger records this on restart).'),
  INTERNAL: row({ errorClass: 'internal', retry: 'never', stage: 'run' }, "An unexpected failure inside toolgate or a caller's hook; the message says what."),
  DEFINITION: row({ errorClass: 'internal', retry: 'never', stage: 'load' }, 'A tool definition or schema file is wrong (thrown at load time).'),
});

/** Every code of {@link ERROR_CODES} whose row matches `test`. */
export function codesWhere(test: (entry: ErrorCodeEntry, code: ToolErrorCode) => boolean): ReadonlySet<ToolErrorCode> {
  return new Set((Object.keys(ERROR_CODES) as ToolErrorCode[]).filter((code) => test(ERROR_CODES[code], code)));
}

/** The row of a code, or `undefined` for a string that is no code (an old ledger row, a foreign error). */
export function errorCodeEntry(code: string): ErrorCodeEntry | undefined {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ToolErrorCode] : undefined;
}
