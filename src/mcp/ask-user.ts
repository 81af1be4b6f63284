/**
 * `ask_user` over MCP: the builtin through which the model asks the person a question
 * (`src/builtin/ask-user.ts`), served by `toolgate mcp` to every client, and answered the way
 * the client can (issue 33, item 4):
 *
 * - **2025-11-25 client with form elicitation:** the question is put through
 *   `elicitation/create` while the call runs ({@link elicitQuestion}), as approvals are.
 * - **2026-07-28 client with form elicitation, ledger on:** that revision has no
 *   server-initiated requests, so the question is asked in rounds, each an ordinary executor
 *   call of `ask_user` (recorded, decided, claimed, run, logged, traced, closed out). In the
 *   first, the run's question handler ({@link askInNextRound}) stores the question in the call
 *   store (a question of kind `question`, the one the cockpit shows) and suspends: the executor
 *   puts the call back to `pending` (its lease lapsed), and the server answers
 *   `input_required` with the question as a form elicitation (`inputRequests.toolgate_question`:
 *   a free text, one of the choices, or several) and a `requestState` naming it
 *   ({@link questionInputRequired}). The retry ({@link checkQuestionRetry}) must name that
 *   stored question of the same `ask_user` call (same revision, same arguments, same
 *   requestor) and, while it is unanswered, carry an answer that fits its form (else it is
 *   refused and nothing is recorded); the same call then runs again under its stored call id,
 *   on any instance sharing the store: the gates decide again, and the run's question handler
 *   stores the answer with a conditional write (the first answer given counts: a concurrent
 *   retry's or the person's given elsewhere, in the cockpit) and the call ends `done` with it
 *   as its output (`failed` when the person declined). A retry of a call that has ended gets
 *   its recorded end (the executor's replay by call id). No suspended run waits anywhere in
 *   between.
 *   When a gate asks about the call first (the approval mode `always-ask`, a policy rule), the
 *   first round is the approval's (input-required.ts); its retry runs the approved call, whose
 *   question is then asked as above: a second question of the call, of another kind (the
 *   call store keeps a call's approval and its `ask_user` question apart: `questionKind`). The
 *   answer round's gates take the answer that call's approval got (the executor reads a call's
 *   answered approval before asking anyone), so nobody is asked again: the approval counts for
 *   its call only, whose answer round runs once (a replay gets the recorded end), and a new
 *   call is asked again. Without one (a gate that asks only now), the answer round refuses the
 *   call: nobody is asked then.
 * - **Client without elicitation:** with `--cockpit` (`waitForAnswers`) and a ledger, the
 *   question waits in the ledger for an answer given in the cockpit (`ledgerQuestionHandler`);
 *   else the call fails at once with {@link cannotAskUserMessage}, which says how to answer.
 *
 * @module
 */
import { inputRequired, inputResponse, type InputRequiredResult, type Server } from '@modelcontextprotocol/server';
import { ASK_USER_TOOL, type AskUserInput, type QuestionHandler } from '../builtin/ask-user.js';
import type { CallStore } from '../ledger/call-store.js';
import { replyOf } from '../ledger/user-questions.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isCallerTool } from '../registry/visibility.js';
import { isSuspension, SUSPENDS } from '../util/suspension.js';
import { encodeState, findAsked, type QuestionState } from './input-required.js';

/** The key of the question's form in `inputRequests` and the retry's `inputResponses`. */
const QUESTION_INPUT = 'toolgate_question';

/** Who a retry's answer is recorded as given by (an answer by anyone else is the person's, given elsewhere). */
const RETRY_BY = 'mcp retry';

/** Longest free-text answer taken (characters). */
const MAX_ANSWER = 100_000;

/** Is `tool` toolgate's own `ask_user` (not a tool of that name the registry's owner defined)? */
export function isAskUser(tool: RegisteredTool): boolean {
  return tool.name === ASK_USER_TOOL.name && isCallerTool(tool);
}

/**
 * The form of a question (MCP form mode): one property `answer`, a string for a free answer,
 * a string enum for one of the choices, an array of that enum (at least one) with `multi`.
 */
function questionForm(question: AskUserInput): { message: string; requestedSchema: Record<string, unknown> } {
  const choices = Array.isArray(question.choices) ? question.choices : undefined;
  const answer = choices === undefined
    ? { type: 'string', title: 'Your answer', maxLength: MAX_ANSWER }
    : question.multi === true
      ? { type: 'array', title: 'Your choices', items: { type: 'string', enum: choices }, minItems: 1, maxItems: choices.length }
      : { type: 'string', title: 'Your choice', enum: choices };
  return { message: question.question, requestedSchema: { type: 'object', properties: { answer }, required: ['answer'] } };
}

/** The reply a filled question form gives, checked against the question, or the problem with it. */
function replyOfForm(content: Record<string, unknown> | undefined, question: AskUserInput): { reply: string | string[] } | { problem: string } {
  const answer = content?.answer;
  const choices = Array.isArray(question.choices) ? question.choices : undefined;
  if (choices === undefined) {
    if (typeof answer !== 'string' || answer.length > MAX_ANSWER) return { problem: `the answer must be a string of at most ${MAX_ANSWER} characters (content.answer)` };
    return { reply: answer };
  }
  if (question.multi === true) {
    if (!Array.isArray(answer) || answer.length === 0 || !answer.every((a) => typeof a === 'string' && choices.includes(a)) || new Set(answer).size !== answer.length) {
      return { problem: `the answer must be a list of one or more of the choices ${JSON.stringify(choices)}, each once (content.answer)` };
    }
    return { reply: answer as string[] };
  }
  if (typeof answer !== 'string' || !choices.includes(answer)) return { problem: `the answer must be one of the choices ${JSON.stringify(choices)} (content.answer)` };
  return { reply: answer };
}

/** `ask_user`'s question handler for a 2025 client that fills forms: an `elicitation/create` while the call runs. */
export function elicitQuestion(server: Server): QuestionHandler {
  return async (question, signal) => {
    const form = questionForm(question);
    const answer = await server.elicitInput({ mode: 'form', message: form.message, requestedSchema: form.requestedSchema as never }, signal === undefined ? undefined : { signal });
    if (answer.action !== 'accept') throw new Error(`the user ${answer.action === 'decline' ? 'declined to answer' : 'dismissed the question'}; decide with what you have`);
    const checked = replyOfForm(answer.content as Record<string, unknown> | undefined, question);
    if ('problem' in checked) throw new Error(`the client's answer did not fit the question: ${checked.problem}`);
    return checked.reply;
  };
}

/**
 * What a call of `ask_user` fails with when the client cannot be asked: how the person can
 * answer instead. `noLedger`: the server runs with `--no-ledger` (no question can wait).
 */
export function cannotAskUserMessage(noLedger: boolean): string {
  const where = noLedger
    ? 'restart `toolgate mcp` with the ledger (without --no-ledger) and --cockpit: the question then waits for an answer in the cockpit'
    : 'restart `toolgate mcp` with --cockpit: a question then waits for the person to answer it in the cockpit (its address is printed on stderr; `toolgate approvals deny ID` refuses a waiting question)';
  return `ask_user: this MCP client cannot be asked (it declares no form elicitation). For the person to answer questions, ${where}; or connect with a client that supports form elicitation. `
    + 'Meanwhile, decide with what you have and say in your answer what you would need from the user.';
}

/** A question handler that fails with `message` (the client cannot be asked this way). */
export function cannotAsk(message: string): QuestionHandler {
  return () => {
    throw new Error(message);
  };
}

/** The suspension of an `ask_user` run whose question goes to a 2026-07-28 client in an "input required" result ({@link askInNextRound}). */
export interface QuestionSuspension extends Error {
  /** The stored question's id. */
  questionId: number;
  /** What is asked (the call's `ask_user` arguments). */
  question: AskUserInput;
}

/** Whether `error` is {@link askInNextRound}'s suspension. */
export function isQuestionSuspension(error: unknown): error is QuestionSuspension {
  return isSuspension(error) && (error as Partial<QuestionSuspension>).questionId !== undefined && (error as Partial<QuestionSuspension>).question !== undefined;
}

/**
 * `ask_user`'s question handler for the first round of a 2026-07-28 client (which gets no
 * server-initiated requests): asked while the executor runs the `ask_user` call, it stores the
 * question in the call store (kind `question`, the one the cockpit shows) and throws a
 * {@link QuestionSuspension}; the executor then leaves the call `pending` with its question
 * (`CallStore.suspend`), and the server answers {@link questionInputRequired}.
 * @param call - the call id and ledger session the executor runs the call under.
 */
export function askInNextRound(ledger: CallStore, tool: RegisteredTool, call: { callId: string; session: string }): QuestionHandler {
  return async (asked) => {
    const question: AskUserInput = { question: asked.question };
    if (asked.choices !== undefined) question.choices = asked.choices;
    if (asked.multi === true) question.multi = true;
    const id = await ledger.ask(call, {
      kind: 'question', tool: tool.name, version: tool.version, callId: call.callId, arguments: question, description: 'The agent asks you a question.', paths: [],
      ask: { decider: 'ask_user', reason: 'the agent asks the user' }, offers: [],
    });
    throw Object.assign(new Error('ask_user: the question is asked in an input-required result'), { [SUSPENDS]: true, questionId: id, question });
  };
}

/** The "input required" result of a suspended `ask_user` call: the question as a form elicitation, and the state naming it. */
export function questionInputRequired(suspension: QuestionSuspension, callId: string, session: string): InputRequiredResult {
  const form = questionForm(suspension.question);
  return inputRequired({
    inputRequests: { [QUESTION_INPUT]: inputRequired.elicit({ message: form.message, requestedSchema: form.requestedSchema as never }) },
    requestState: encodeState({ question: suspension.questionId, callId, session }),
  });
}

/** A retry of an `ask_user` question that may go on: the stored call to run, and what answers its question then. */
export interface QuestionRetry {
  state: QuestionState;
  /** `ask_user`'s question handler for the run: the answer that counts. */
  handler: QuestionHandler;
}

/**
 * Check the retry of an `ask_user` question (see the module's text) before its call runs again.
 * @returns the stored call to run and its question handler, or a message saying why the retry
 *   is refused (nothing recorded then).
 */
export async function checkQuestionRetry(
  ledger: CallStore, rawState: unknown, responses: Record<string, unknown> | undefined, tool: RegisteredTool, args: Record<string, unknown>, requestor: string,
): Promise<QuestionRetry | string> {
  const found = await findAsked(ledger, rawState, tool, args, 'question', requestor, RETRY_BY);
  if (typeof found === 'string') return found;
  const { state, question } = found;
  // The client's own answer, unless the question has one already (the person's, given
  // elsewhere: it counts whatever the form holds; or the call ended: the executor replays its end).
  let mine: string | undefined;
  let declined = 'declined to answer';
  if (question.answer === undefined) {
    const view = inputResponse(responses, QUESTION_INPUT);
    if (view.kind !== 'elicit') return `the retry carries no answer to question ${question.id} (inputResponses.${QUESTION_INPUT}); nothing was recorded.`;
    if (view.action === 'accept') {
      const checked = replyOfForm(view.content, args as unknown as AskUserInput);
      if ('problem' in checked) return `the answer to question ${question.id} does not fit it: ${checked.problem}; nothing was recorded. Retry with the same requestState and an answer that fits.`;
      mine = JSON.stringify({ reply: checked.reply });
    } else {
      mine = 'deny';
      if (view.action !== 'decline') declined = 'dismissed the question';
    }
  }
  // Asked while the executor runs the call (claimed: one run at a time): the answer is stored
  // with a conditional write, and the first one given counts.
  const handler: QuestionHandler = async () => {
    const counted = mine === undefined ? question.answer : (await ledger.answer(question.id, mine, RETRY_BY))?.answer;
    const reply = counted === undefined ? undefined : replyOf(counted);
    if (reply === undefined) throw new Error(`the user ${counted === mine ? declined : 'declined to answer'}; decide with what you have`);
    return reply;
  };
  return { state, handler };
}
