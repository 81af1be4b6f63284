/**
 * How a `ToolSystem` call that asks reaches a person when the caller gave no confirmation
 * handler: waiting in the ledger for an answer given elsewhere (`waitForAnswers`), and what a
 * `CONFIRMATION_REQUIRED` result tells the developer otherwise.
 *
 * @module
 */
import type { ConfirmationHandler, ConfirmationRequest } from '../decisions/approval.js';

/**
 * A confirmation handler that never answers itself: the question waits in the ledger for an
 * answer given elsewhere (`toolgate approvals`, the cockpit), which the executor's durable
 * question takes; after `boundOf(request)` ms (not a positive finite number: never) it gives
 * up, and the call is refused.
 */
export function waitForAnswerElsewhere(boundOf: (request: ConfirmationRequest) => number): ConfirmationHandler {
  return (request) => new Promise((_resolve, reject) => {
    const ms = boundOf(request);
    if (ms > 0 && Number.isFinite(ms)) {
      setTimeout(() => reject(new Error(`nobody answered the question about ${request.tool} call ${request.callId} within ${ms} ms (toolgate approvals allow, or the cockpit)`)), Math.min(ms, 2 ** 31 - 1)).unref();
    }
  });
}

/**
 * What a `CONFIRMATION_REQUIRED` result's `error` adds for the developer (the model reads the
 * output): the ways a question reaches a person from the SDK.
 * @param ledger - whether the system keeps a ledger (a wait needs one).
 */
export function howToAsk(ledger: boolean): string {
  const waiting = ledger
    ? 'or set waitForAnswers: true to wait for `toolgate approvals allow ID` or the cockpit (`toolgate cockpit`)'
    : 'or keep a ledger (the default) with waitForAnswers: true to wait for `toolgate approvals allow ID` or the cockpit';
  return `[toolgate: nobody could be asked here. Give a confirmationHandler (per call, or in executor), ${waiting}, or pass confirm: true for a call the user approved already.]`;
}
