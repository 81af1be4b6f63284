/**
 * The error codes of results and errors: data only, so that the result type and the error
 * classes can both name them without importing each other.
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
 * - `TRANSIENT`: the tool failed for a reason that may pass (a network blip, a busy resource:
 *   it threw `new ToolExecutionError(message, 'TRANSIENT')`); the same call may succeed when made again.
 * - `INVALID_OUTPUT`: the tool returned a value that fails its output schema, or one that
 *   cannot leave its worker.
 * - `INVALID_OPTIONS`: the caller's per-call options are wrong (a programming error of the
 *   caller, not the model's: a `timeoutMs` that is not a number, say).
 * - `OVERLOADED`: too many calls are in flight; retry later.
 * - `SERVER_UNAVAILABLE`: the MCP server behind a bridged tool did not start or has stopped.
 * - `SANDBOX_UNAVAILABLE`: the tool runs processes in a sandbox and none can be made here
 *   (bubblewrap missing); the user did not choose to run without one.
 * - `INTERRUPTED`: toolgate stopped (killed, crashed) while the call ran; the tool may have run,
 *   and the call is never run again by itself (a durable ledger records this on restart).
 * - `CALL_IN_PROGRESS`: a call with the same call id and session is already being handled (a
 *   durable ledger's exactly-once check); its result is stored when it ends.
 * - `RESULT_PRUNED`: the call id and session ran before, and a durable ledger's retention has
 *   since deleted its result; the message says how it ended. It was not run again.
 * - `INTERNAL`: an unexpected failure inside toolgate or a caller's hook; the message says what.
 * - `DEFINITION`: a tool definition or schema file is wrong (thrown at load time).
 * - `INVALID_POLICY_FILE`: a policy file cannot be read or is invalid (`PolicyFileError`, naming file and line).
 * - `CLIENT_UNAVAILABLE`: the tool asked its caller for something the caller cannot give
 *   (`ctx.elicit` or `ctx.sample` with no MCP client or SDK handler that supports it).
 * - `TOOL_REPLACED`: the tool's `name@version` was registered again (`registry.register`) while
 *   the call waited (for an approval, its rate-limit turn); the call was checked and approved
 *   for the old definition, so it was not run. Call again to run the new one.
 * - `TOOL_HIDDEN`: lazy visibility is on and the tool belongs to a domain not made visible yet;
 *   the message names `request_tools` and the domain to request. The call did not run.
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
  | 'SANDBOX_UNAVAILABLE'
  | 'INTERRUPTED'
  | 'CALL_IN_PROGRESS'
  | 'RESULT_PRUNED'
  | 'INTERNAL'
  | 'DEFINITION'
  | 'INVALID_POLICY_FILE'
  | 'CLIENT_UNAVAILABLE'
  | 'TOOL_REPLACED'
  | 'TOOL_HIDDEN';
