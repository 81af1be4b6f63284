/**
 * Outcomes: what a result means for a retry. Every error code has one entry in
 * {@link ERROR_CLASSES} (the compiler refuses a code without one), and {@link outcomeOf}
 * derives a result's `outcome`, `errorClass` and `sideEffects` from its `errorCode`,
 * `stopReason` and the tool's `readOnly` flag: never from the words of a message.
 * `results.ts` applies it to every result it builds.
 *
 * @module
 */
import type { ToolErrorCode } from '../errors/error-codes.js';
import type { StopReason, ToolErrorClass, ToolOutcome } from '../types/result.js';

/** The outcome and class of a failed call, by its error code. */
export interface ErrorClassEntry {
  /** `recoverable`: the same call may succeed when made again later; `fatal`: it will not. */
  readonly outcome: 'recoverable' | 'fatal';
  readonly errorClass: ToolErrorClass;
}

const fatal = (errorClass: ToolErrorClass): ErrorClassEntry => ({ outcome: 'fatal', errorClass });
const recoverable = (errorClass: ToolErrorClass): ErrorClassEntry => ({ outcome: 'recoverable', errorClass });

/**
 * Every error code's outcome and class. Gate denials (mode, policy, approval) are `fatal`:
 * the same call is refused again for the rest of the turn. A rate-limit refusal is
 * `recoverable` with `retryAfterMs`: it may run once its turn comes, not at once.
 */
export const ERROR_CLASSES: Readonly<Record<ToolErrorCode, ErrorClassEntry>> = Object.freeze({
  UNKNOWN_TOOL: fatal('not_found'),
  VERSION_NOT_FOUND: fatal('not_found'),
  RESULT_PRUNED: fatal('not_found'),
  INVALID_ARGUMENTS: fatal('invalid_arguments'),
  INVALID_PATH: fatal('invalid_arguments'),
  PATH_TRAVERSAL: fatal('denied'),
  MODE_DENIED: fatal('denied'),
  POLICY_DENIED: fatal('denied'),
  CONFIRMATION_REQUIRED: fatal('denied'),
  CONFIRMATION_DENIED: fatal('denied'),
  // The definition was replaced after it was approved: that approval does not hold (ask again).
  TOOL_REPLACED: fatal('denied'),
  // A domain not made visible yet: the same call runs once `request_tools` has shown it (never retried by itself).
  TOOL_HIDDEN: recoverable('not_found'),
  INVALID_POLICY_FILE: fatal('denied'),
  RATE_LIMITED: recoverable('rate_limited'),
  OVERLOADED: recoverable('overloaded'),
  TIMEOUT: recoverable('timeout'),
  TRANSIENT: recoverable('transient'),
  SERVER_UNAVAILABLE: recoverable('unavailable'),
  CALL_IN_PROGRESS: recoverable('in_progress'),
  WORKER_CRASHED: recoverable('crashed'),
  SANDBOX_UNAVAILABLE: fatal('unavailable'),
  CLIENT_UNAVAILABLE: fatal('unavailable'),
  MEMORY_LIMIT: fatal('resource_limit'),
  ABORTED: fatal('interrupted'),
  INTERRUPTED: fatal('interrupted'),
  TOOL_ERROR: fatal('tool_error'),
  INVALID_OUTPUT: fatal('tool_error'),
  INVALID_OPTIONS: fatal('internal'),
  INTERNAL: fatal('internal'),
  DEFINITION: fatal('internal'),
});

/** The outcome fields of a result. */
export interface OutcomeFields {
  outcome: ToolOutcome;
  errorClass?: ToolErrorClass;
  sideEffects: 'none' | 'possible';
}

/**
 * The outcome fields of a result.
 * @param errorCode - the result's code; `undefined` on success.
 * @param stopReason - how the call ended: `not_run` means no side effects, `reported_error`
 *   (the tool returned output and reported a failure) is `partial`.
 * @param readOnly - whether the tool is read-only; `undefined` when unknown (counts as not).
 */
export function outcomeOf(errorCode: ToolErrorCode | undefined, stopReason: StopReason, readOnly: boolean | undefined): OutcomeFields {
  const sideEffects = stopReason === 'not_run' || readOnly === true ? 'none' : 'possible';
  if (errorCode === undefined) return { outcome: 'success', sideEffects };
  const entry = ERROR_CLASSES[errorCode] ?? ERROR_CLASSES.INTERNAL;
  if (stopReason === 'reported_error') return { outcome: 'partial', errorClass: entry.errorClass, sideEffects };
  return { outcome: entry.outcome, errorClass: entry.errorClass, sideEffects };
}
