/**
 * The ledger as the decision pipeline's store of questions ({@link DurableQuestions}): a
 * question is stored before a handler is asked, `toolgate approvals allow|deny ID` answers it
 * from another process, and the first answer counts.
 *
 * @module
 */
import type { ApprovalAnswer, ConfirmationRequest, DurableCallKey, DurableQuestions } from '../decisions/approval.js';
import { pollerOf } from './poller.js';
import type { CallStore, NewCall } from './call-store.js';

/** The questions of `ledger` (any call store), for an executor's decision pipeline. */
export function ledgerQuestions(ledger: CallStore): DurableQuestions {
  return {
    pollMs: ledger.pollMs,
    answered: (call: DurableCallKey) => ledger.answeredQuestion(call.callId, call.session),
    // The executor's key is its ledger entry (a NewCall): a call not yet recorded is recorded with its question.
    open: (request: ConfirmationRequest, call: DurableCallKey) => ledger.ask(call as NewCall, request),
    current: (id: number) => ledger.answerOf(id),
    settle: async (id: number, answer: ApprovalAnswer, by: string) => (await ledger.answer(id, answer, by))?.answer,
    // One timer for every question waiting on this ledger (and every MCP task watching its cancel flag).
    every: (check: () => void) => pollerOf(ledger).add(check),
  };
}
