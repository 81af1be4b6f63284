/**
 * Approval-mode decider: the question a call gets when no rule settled it. With no approval
 * mode, a tool that declares `requiresConfirmation` asks, and so does a call that types into a
 * running program through a `@format shell-input` argument (not a poll or a lone Ctrl-C);
 * `allow-all`, `deny-all`, `read-only` and `always-ask` are described at `APPROVAL_MODES` in `decision.ts`. How an `ask` is answered (the
 * caller's `confirm`, a confirmation handler, a remembered answer) is the pipeline's and
 * `approval.ts`'s business.
 *
 * A session's approval mode set while it runs (the cockpit, through the ledger: see
 * `src/ledger/session-approval-modes.ts`) is read on every decision and beats the call's and
 * the executor's; changing it answers no question already asked.
 *
 * An explicit `allow` before it (a policy rule's, or a remembered answer) lifts the default
 * question of the tool and of the `read-only` mode: a person who wrote "allow write_file in
 * docs/**" does not want to be asked about it. It never lifts `always-ask`.
 *
 * `allow-all` answers only the calls no rule decided: its `allow` is a grant, not an answer,
 * so a `deny` before it still refuses and an `ask` (a rule's, a protected path's, a line
 * beyond the analyser's limits, `always_ask`) still goes to a person (`pipeline.ts`).
 *
 * @module
 */
import { onlyReads } from '../policy/action-kinds.js';
import { carriesInput } from '../policy/typed-input.js';
import { isThenable } from '../util/values.js';
import { deny, type ApprovalMode, type Decider, type Decision, type PreparedCall } from './decision.js';

/**
 * Approval modes set per session while it runs (a ledger's, `src/ledger/session-approval-modes.ts`).
 * `modeOf` must not throw or reject (a store that cannot be read answers `undefined`) and is
 * called once per decision. It may answer synchronously (a store kept in memory) or with a
 * promise (a call store, whose reads are asynchronous): then the decision waits for it, so a
 * mode a person just set counts for the next decision in every process, with no cache to go
 * stale.
 */
export interface SessionApprovalModes {
  /** The mode set for the session of a call (its ledger session and turn), `undefined` for none. */
  modeOf(session: string, turnId: string): ApprovalMode | undefined | PromiseLike<ApprovalMode | undefined>;
}

const NAME = 'approval';

/** Shared decisions (never written to). */
const GRANTED_ALL: Decision = Object.freeze({ verdict: 'allow', decider: NAME, reason: 'the approval mode is allow-all', rule: 'allow-all', grants: true });
const GRANTED_READ: Decision = Object.freeze({ verdict: 'allow', decider: NAME, reason: 'the approval mode is read-only, and this tool only reads', rule: 'read-only', grants: true });

/** The approval step of the pipeline. */
export class ApprovalModeDecider implements Decider {
  readonly name = NAME;

  /** @param sessions - approval modes set per session, read on every decision (default: none). */
  constructor(private readonly sessions?: SessionApprovalModes) {}

  decide(call: PreparedCall, earlier: readonly Decision[]): Decision | undefined | PromiseLike<Decision | undefined> {
    const set = this.sessions?.modeOf(call.session, call.turnId);
    if (isThenable(set)) return (set as PromiseLike<ApprovalMode | undefined>).then((mode) => decideIn(mode ?? call.approvalMode, call, earlier));
    return decideIn(set ?? call.approvalMode, call, earlier);
  }
}

/** The decision of approval mode `mode` (`undefined`: none) about `call`. */
function decideIn(mode: ApprovalMode | undefined, call: PreparedCall, earlier: readonly Decision[]): Decision | undefined {
  const { tool } = call;
  switch (mode) {
    case undefined:
      if (granted(earlier)) return undefined;
      if (tool.requiresConfirmation) return { verdict: 'ask', decider: NAME, reason: `${tool.name} declares that it needs the user's approval before it runs.` };
      // Typing into a session is running a command there (a poll or a lone Ctrl-C is not).
      if (tool.inputArguments?.length && carriesInput(tool.inputArguments, call.args)) {
        return { verdict: 'ask', decider: NAME, reason: `${tool.name} types into a running program, which may run it as commands: it needs the user's approval as a command would.` };
      }
      return undefined;
    case 'allow-all':
      return GRANTED_ALL;
    case 'deny-all':
      return deny(NAME, 'CONFIRMATION_DENIED', `Denied: the approval mode is deny-all, so no tool call runs. Do not retry; tell the user what you wanted to do.`, 'deny-all');
    case 'read-only':
      if (onlyReads(tool.kind)) return GRANTED_READ;
      if (granted(earlier)) return undefined;
      return { verdict: 'ask', decider: NAME, reason: `the approval mode is read-only, and ${tool.name} does more than read (its action kind is ${tool.kind}).`, rule: 'read-only' };
    case 'always-ask':
      return { verdict: 'ask', decider: NAME, reason: 'the approval mode is always-ask: every call is put to the user.', rule: 'always-ask', fresh: true };
  }
}

/** Whether an earlier decider allowed the call explicitly (a rule, a remembered answer). */
function granted(earlier: readonly Decision[]): boolean {
  for (const d of earlier) if (d.verdict === 'allow' && (d.grants === true || d.answersAsk === true)) return true;
  return false;
}
