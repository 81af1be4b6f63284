/**
 * Confirmation decider: a tool that declares `requiresConfirmation` makes its calls `ask`.
 * How an `ask` is answered (the caller's `confirm`, a confirmation handler) is `approval.ts`.
 *
 * @module
 */
import type { Decider, Decision, PreparedCall } from './decision.js';

/** The confirmation step of the pipeline. */
export class ConfirmationDecider implements Decider {
  readonly name = 'confirmation';

  decide(call: PreparedCall): Decision | undefined {
    if (!call.tool.requiresConfirmation) return undefined;
    return { verdict: 'ask', decider: this.name, reason: `${call.tool.name} declares that it needs the user's approval before it runs.` };
  }
}
