/**
 * Remembered-approvals decider: a request a person already answered is not asked again.
 * - an `allow_for_turn` or `always` answer to this exact request (same tool registration and
 *   code, canonical input, workspace, resolved targets, and the same questions (decider, rule
 *   and reason: every one the person was shown) asked by the deciders before this one; for
 *   shell, every command of it) is an `allow` with
 *   `answersAsk`: it settles the call's questions, unless one must be answered afresh
 *   (`always_ask`, the `always-ask` approval mode). It sits after the policy rules, whose
 *   `deny` ends the pipeline first: a deny beats a saved approval;
 * - a request a person refused in this turn (a call option `turnId`) is denied again without a
 *   question (`CONFIRMATION_DENIED`); a handler that failed is not a refusal to remember.
 * It learns from the pipeline's `answered` hook. The keys and the memory are
 * `src/policy/remembered-approvals.ts`.
 *
 * @module
 */
import type { ApprovalAnswer } from './approval.js';
import { commandBeyondView } from './shown-arguments.js';
import type { RememberedApprovals } from '../policy/remembered-approvals.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

const NAME = 'remembered';

/** The remembered-approvals step of the pipeline. */
export class RememberedDecider implements Decider {
  readonly name = NAME;

  constructor(private readonly memory: RememberedApprovals) {}

  decide(call: PreparedCall, earlier: readonly Decision[]): Decision | undefined {
    // The questions asked so far (protected paths, policy rules, judged against the paths as
    // they resolve now) are part of what an answer is remembered by: it settles only those.
    this.memory.noteQuestions(call, questionsOf(earlier));
    // The common case costs a lookup: nothing remembered for this turn.
    if (this.memory.nothingFor(call.turnId)) return undefined;
    const recalled = this.memory.recall(call);
    if (recalled === undefined) return undefined;
    // a command too long to show whole: the person who answered may not have seen all of it
    if (recalled.verdict !== 'deny' && commandBeyondView(call.args, call.tool.commandArguments) !== undefined) return undefined;
    if (recalled.verdict === 'deny') {
      return deny(NAME, 'CONFIRMATION_DENIED', `Confirmation denied: the user already refused this exact ${call.tool.name} request in this turn, so it is not asked again. Do not retry it; take another approach or ask the user.`, 'deny');
    }
    return {
      verdict: 'allow', decider: NAME, answersAsk: true, rule: recalled.scope === 'always' ? 'always' : 'allow_for_turn',
      reason: recalled.scope === 'always' ? 'the user approved this exact request for good (saved in the user policy file)' : 'the user approved this exact request for this turn',
    };
  }

  answered(call: PreparedCall, answer: Decision): void {
    if (answer.verdict === 'deny') {
      // A no is remembered only when a person said it, for a turn the caller named: with no
      // turn, "this turn" would last as long as the executor.
      if (answer.rule === 'deny' && call.turnId !== '') this.memory.remember(call, 'deny');
      return;
    }
    this.memory.remember(call, (answer.rule as ApprovalAnswer | undefined) ?? 'allow_once');
  }
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Each `ask` among `earlier` (each once), as `decider:rule:reason`: the reason too, since one
 * rule may put different questions (the protected paths' `unseen-path` asks about a word
 * computed when the line runs, or, with no sandbox, about a program that may write `.git`),
 * and an answer settles only the questions the person was shown.
 */
function questionsOf(earlier: readonly Decision[]): readonly string[] {
  let found: string[] | undefined;
  for (const d of earlier) {
    if (d.verdict !== 'ask') continue;
    const question = `${d.decider}:${d.rule ?? ''}:${d.reason}`;
    if (!(found ??= []).includes(question)) found.push(question);
  }
  return found ?? NONE;
}
