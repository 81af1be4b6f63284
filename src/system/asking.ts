/**
 * How a `ToolSystem` call that asks reaches a person when the caller gave no confirmation
 * handler: waiting in the ledger for an answer given elsewhere (`waitForAnswers`), and what a
 * `CONFIRMATION_REQUIRED` result tells the developer otherwise.
 *
 * @module
 */
import path from 'node:path';
import type { ConfirmationHandler, ConfirmationRequest } from '../decisions/approval.js';
import type { CallStore } from '../ledger/call-store.js';
import { defaultStateDir } from '../ledger/paths.js';

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
 * output): the ways a question reaches a person from the SDK, with the exact option and the
 * exact commands (their `--workspace`, and `--state-dir` or `--store` when the ledger is not
 * the default one).
 * @param ledger - the system's call store (a wait needs one), or `undefined` without one.
 * @param workspace - the system's workspace root (absolute).
 */
export function howToAsk(ledger: Pick<CallStore, 'file'> | undefined, workspace: string): string {
  if (ledger === undefined) {
    return '[toolgate: nobody could be asked here (no confirmation handler, and ledger: false). Give a confirmationHandler (per call, or executor.confirmationHandler), '
      + 'or keep a ledger (the default) and create the ToolSystem with waitForAnswers: true to wait for a person\'s answer from `toolgate approvals` or the cockpit, '
      + 'or pass confirm: true for a call the user approved already.]';
  }
  const flags = `--workspace ${quoted(workspace)}${whereFlags(ledger.file)}`;
  return '[toolgate: nobody could be asked here (no confirmation handler). Give a confirmationHandler (per call, or executor.confirmationHandler); '
    + 'or create the ToolSystem with waitForAnswers: true (or a bound in ms) so that such a call waits for an answer given elsewhere: '
    + `\`toolgate approvals list ${flags}\` shows the question, \`toolgate approvals allow <question id> ${flags}\` answers it, `
    + `or the cockpit does (\`toolgate cockpit ${flags}\`); or pass confirm: true for a call the user approved already.]`;
}

/** The CLI flags that name the same ledger: none for the default state folder, `--state-dir DIR` for another, `--store URL` for a shared store. */
function whereFlags(file: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) return ' --store URL'; // shared (PostgreSQL): its URL with credentials
  const dir = path.dirname(file);
  return dir === defaultStateDir() ? '' : ` --state-dir ${quoted(dir)}`;
}

/** A path as a shell word. */
function quoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
