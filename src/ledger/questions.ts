/**
 * The ledger as the decision pipeline's store of questions ({@link DurableQuestions}): a
 * question is stored before a handler is asked, `toolgate approvals allow|deny ID` answers it
 * from another process, and the first answer counts.
 *
 * @module
 */
import type { ApprovalAnswer, ConfirmationRequest, DurableQuestions } from '../decisions/approval.js';
import type { Ledger } from './store.js';

/** The questions of `ledger`, for an executor's decision pipeline. */
export function ledgerQuestions(ledger: Ledger): DurableQuestions {
  return {
    pollMs: ledger.pollMs,
    answered: (callId: string, session: string) => ledger.answeredQuestion(callId, session),
    open: (request: ConfirmationRequest, session: string) => ledger.ask(request.callId, session, request),
    current: (id: number) => ledger.answerOf(id),
    settle: (id: number, answer: ApprovalAnswer, by: string) => ledger.answer(id, answer, by)?.answer,
  };
}
