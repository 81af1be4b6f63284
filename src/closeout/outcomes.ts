/**
 * Outcomes: what a result means for a retry. {@link outcomeOf} derives a result's `outcome`,
 * `errorClass` and `sideEffects` from its `errorCode`, `stopReason` and the tool's `readOnly`
 * flag through the one error-code table (`ERROR_CODES`, `src/errors/error-codes.ts`): never
 * from the words of a message. `results.ts` applies it to every result it builds.
 *
 * @module
 */
import { ERROR_CODES, type ToolErrorClass, type ToolErrorCode } from '../errors/error-codes.js';
import type { StopReason, ToolOutcome } from '../types/result.js';

/** The outcome and class of a failed call, by its error code. */
export interface ErrorClassEntry {
  /** `recoverable`: the same call may succeed when made again later; `fatal`: it will not. */
  readonly outcome: 'recoverable' | 'fatal';
  readonly errorClass: ToolErrorClass;
}

/**
 * Every error code's outcome and class, derived from `ERROR_CODES`: `fatal` for the codes a
 * retry does not help (`retry: 'never'`), else `recoverable`. Gate denials (mode, policy,
 * approval) are `fatal`: the same call is refused again for the rest of the turn. A
 * rate-limit refusal is `recoverable` with `retryAfterMs`: it may run once its turn comes.
 */
export const ERROR_CLASSES: Readonly<Record<ToolErrorCode, ErrorClassEntry>> = Object.freeze(Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, entry]) => [code, Object.freeze({ outcome: entry.retry === 'never' ? 'fatal' : 'recoverable', errorClass: entry.errorClass })]),
) as Record<ToolErrorCode, ErrorClassEntry>);

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
