/**
 * `ask_user` questions through the ledger: a question the model puts to the person is stored
 * as a pending call of the tool `ask_user` with a question of kind `question`, so that the
 * cockpit (any process with the workspace's ledger) shows it and answers it; the asking
 * process polls for the answer. The call ends `done` with the answer as its output, or
 * `failed` when the person refuses (an answer `deny`, given by `toolgate approvals deny`) or
 * the run is aborted. The reply is stored as JSON `{"reply": text | [choices]}`.
 *
 * @module
 */
import crypto from 'node:crypto';
import { completedResult, failedResult } from '../closeout/results.js';
import type { CallStore, NewCall } from './call-store.js';

/** An `ask_user` question (the shape of the agents' `UserQuestion`). */
export interface LedgerUserQuestion {
  /** Call id of the `ask_user` call. */
  callId: string;
  question: string;
  choices?: string[];
  multi?: boolean;
}

/** Options of {@link ledgerQuestionHandler}. */
export interface LedgerQuestionOptions {
  /** The workspace the questions are about (absolute). */
  workspace: string;
  /** The turn they belong to (an agent run): the cockpit groups them with its calls. Default `''`. */
  turn?: string;
}

/** The version recorded for `ask_user` questions (the version the caller tool `ask_user` is registered with). */
const ASK_USER_VERSION = '1.0.0';

/**
 * A question handler that waits for the answer in the ledger.
 * @returns a handler resolving to the reply (text, or the chosen choices), rejecting when the
 *   person refused (`deny`) or the signal aborted (the call then ends `failed` in the ledger).
 */
export function ledgerQuestionHandler(ledger: CallStore, options: LedgerQuestionOptions): (question: LedgerUserQuestion, signal?: AbortSignal) => Promise<string | string[]> {
  return async (question, signal) => {
    const args: Record<string, unknown> = { question: question.question };
    if (question.choices !== undefined) args.choices = question.choices;
    if (question.multi === true) args.multi = true;
    // Models reuse call ids across rounds: each question is a session of its own.
    const call: NewCall = { callId: question.callId, session: `ask_user_${crypto.randomUUID()}`, tool: 'ask_user', version: ASK_USER_VERSION, arguments: args, workspace: options.workspace, turn: options.turn ?? '' };
    const fields = { tool: 'ask_user', version: ASK_USER_VERSION, callId: question.callId };
    const id = await ledger.ask(call, {
      kind: 'question', tool: 'ask_user', version: ASK_USER_VERSION, callId: question.callId, arguments: args, description: 'The agent asks you a question.', paths: [],
      ask: { decider: 'ask_user', reason: 'the agent asks the user' }, offers: [],
    });
    return new Promise<string | string[]>((resolve, reject) => {
      let over = false;
      const stop = (error: Error, code: 'ABORTED' | 'CONFIRMATION_DENIED') => {
        if (over) return;
        over = true;
        clearInterval(timer);
        signal?.removeEventListener('abort', aborted);
        // Ended in the ledger before the caller hears of it; a write that fails leaves the
        // question open in the ledger, and the run goes on without it.
        ledger.finish(call, { state: 'failed', decisions: undefined, result: failedResult(code, error.message, { ...fields, stopReason: code === 'ABORTED' ? 'interrupted' : 'error' }) })
          .then(() => reject(error), () => reject(error));
      };
      const aborted = () => stop(new Error('the run was aborted before the user answered'), 'ABORTED');
      let looking = false;
      const look = async () => {
        let given: string | undefined;
        try {
          given = await ledger.answerOf(id);
        } catch {
          return; // a busy ledger: look again next time
        }
        if (given === undefined || over) return;
        const reply = replyOf(given);
        if (reply === undefined) return stop(new Error('the user declined to answer'), 'CONFIRMATION_DENIED');
        over = true;
        clearInterval(timer);
        signal?.removeEventListener('abort', aborted);
        try {
          await ledger.finish(call, { state: 'done', decisions: undefined, result: completedResult(typeof reply === 'string' ? reply : reply.join(', '), fields) });
        } catch {
          // the answer counts even when its record cannot be written
        }
        resolve(reply);
      };
      // One look at a time: a slow store is awaited, not asked again meanwhile.
      const timer = setInterval(() => {
        if (looking || over) return;
        looking = true;
        void look().finally(() => { looking = false; });
      }, ledger.pollMs);
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  };
}

/** The reply of a stored answer, or `undefined` for a refusal (`deny`, `cancelled`, anything else). */
export function replyOf(answer: string): string | string[] | undefined {
  try {
    const { reply } = JSON.parse(answer) as { reply?: unknown };
    if (typeof reply === 'string') return reply;
    if (Array.isArray(reply) && reply.every((r) => typeof r === 'string')) return reply as string[];
  } catch {
    // not a reply
  }
  return undefined;
}
