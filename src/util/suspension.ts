/**
 * A caller's suspension, as toolgate recognises it without importing the caller's framework:
 * the marker an error carries when it pauses the caller's run (to be resumed later) rather than
 * failing. Base layer, so that the executor, the runners and the caller-side builtins
 * (`ask_user`) all tell one apart the same way.
 *
 * @module
 */

/**
 * The marker a framework's suspension error carries, as toolgate recognises it without
 * importing the framework: `is_bubble_up: true` (LangGraph's `GraphInterrupt`, which
 * `interrupt()` throws, and `ParentCommand`), or this symbol's property set to `true` (for
 * any other framework: `Object.assign(error, { [SUSPENDS]: true })`).
 */
export const SUSPENDS: unique symbol = Symbol.for('toolgate.suspends');

/**
 * Whether a confirmation handler's throw suspends the caller (its framework pauses the run and
 * resumes it later) rather than refusing the call: an error with `is_bubble_up === true`
 * (LangGraph) or with `[SUSPENDS] === true`. The executor then leaves the call waiting (in a
 * ledger: `pending`, its question open, an event `suspended`; nothing refused, nothing run)
 * and rejects with the error, so that the framework sees it. When the framework resumes, the
 * same call (same call id and session) is made again: it goes on with the same question, and
 * the handler's answer then (`interrupt()`'s resume value) decides it, once.
 *
 * A tool on the `main` runner whose run throws one (the question handler a caller lent
 * `ask_user`, when the answer comes in a later request) leaves its call waiting the same way:
 * back to `pending`, to be claimed and run again, from the start, when the caller resumes.
 */
export function isSuspension(error: unknown): boolean {
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return false;
  const marked = error as { is_bubble_up?: unknown; [SUSPENDS]?: unknown };
  return marked.is_bubble_up === true || marked[SUSPENDS] === true;
}
