/**
 * Multi-round-trip confirmation for MCP 2026-07-28 clients (issue 33, item 4): that revision
 * has no server-initiated elicitation, so a call that requires confirmation is answered with
 * an "input required" result (a form elicitation, and an opaque `requestState`), and the
 * client's retry carries the answer and that state.
 *
 * - First round: the executor stores the call's question in the ledger (the call stays
 *   `pending`, nothing runs) and the confirmation handler suspends the call
 *   ({@link suspendForInput}); the server answers {@link inputRequiredFor}, whose state names
 *   the stored question (its id, the call id and the ledger session; the session holds a
 *   random UUID, so a state cannot be guessed).
 * - Retry ({@link checkRetry}): the state must not name a question of an MCP task (session
 *   `mcp-tasks`: answered by `tasks/update`, bound to the task's requestor), and must name a stored, unanswered question of a
 *   `pending` call, and the retry must be for the same tool, the same tool revision and the
 *   same arguments as that stored call, asked of the same requestor (the first round binds the
 *   call to its request's requestor, {@link bindAsker}: the bearer token's hash over HTTP, an
 *   authenticated principal, the local user over stdio), so an answer cannot approve another call or other
 *   arguments (compare vercel/ai#16068). The call then runs under its stored call id and
 *   session: the executor takes the client's answer for that question once (a conditional
 *   write). A second retry with the same state runs nothing again: refused while the call
 *   runs, and once the call has ended it receives the call's recorded end (the executor's
 *   replay by call id: a client whose answer was lost retries safely).
 *   A question the person answered elsewhere first (the cockpit, `toolgate approvals`) is not
 *   refused: its answer wins whatever the retry's form holds, and the retry receives the call's
 *   outcome (the executor takes the stored answer, or replays the end that answer made).
 *   Because everything checked is in the call store, any instance sharing the store accepts
 *   the retry.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { inputRequired, inputResponse, type InputRequiredResult } from '@modelcontextprotocol/server';
import { APPROVAL_ANSWERS, BY_HANDLER, SUSPENDS, type ApprovalAnswer, type ConfirmationHandler, type ConfirmationRequest } from '../decisions/approval.js';
import type { ApprovalRecord, CallStore } from '../ledger/call-store.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { answerOfForm, confirmationForm } from './confirmation.js';
import { TASK_SESSION } from './tasks.js';

/** The key of the confirmation form in `inputRequests` and the retry's `inputResponses`. */
const CONFIRM_INPUT = 'toolgate_confirmation';

/** Prefix of the request states this server mints (version 1). */
const STATE_PREFIX = 'tgq1.';

/** What a request state names: a stored question, and its call. */
export interface QuestionState {
  /** The ledger's question id. */
  question: number;
  /** The call id of the asking call. */
  callId: string;
  /** The ledger session of the asking call. */
  session: string;
}

/** The opaque `requestState` naming `state`. */
export function encodeState(state: QuestionState): string {
  return STATE_PREFIX + Buffer.from(JSON.stringify({ q: state.question, c: state.callId, s: state.session }), 'utf8').toString('base64url');
}

/** The question a `requestState` names, or `undefined` for a state this server did not mint (or a tampered one that no longer parses). */
function decodeState(raw: unknown): QuestionState | undefined {
  if (typeof raw !== 'string' || !raw.startsWith(STATE_PREFIX) || raw.length > 2000) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(raw.slice(STATE_PREFIX.length), 'base64url').toString('utf8')) as { q?: unknown; c?: unknown; s?: unknown };
    if (!Number.isSafeInteger(parsed.q) || (parsed.q as number) <= 0 || typeof parsed.c !== 'string' || typeof parsed.s !== 'string') return undefined;
    return { question: parsed.q as number, callId: parsed.c, session: parsed.s };
  } catch {
    return undefined;
  }
}

/** The suspension a first round's confirmation handler throws: the executor leaves the call pending with its question. */
export interface InputSuspension extends Error {
  questionId: number;
  request: ConfirmationRequest;
}

/** Whether `error` is the {@link suspendForInput} handler's suspension. */
export function isInputSuspension(error: unknown): error is InputSuspension {
  return error instanceof Error && (error as Partial<InputSuspension>).questionId !== undefined && (error as { [SUSPENDS]?: unknown })[SUSPENDS] === true;
}

/**
 * The first round's confirmation handler: suspends the call once its question is stored (the
 * executor then leaves it `pending`, its question open). Without a stored question (no durable
 * ledger) it fails, which refuses the call.
 */
export const suspendForInput: ConfirmationHandler = (request, context) => {
  if (context?.questionId === undefined) throw new Error('no ledger keeps the question, so it cannot be answered in a retry');
  throw Object.assign(new Error(`${request.tool} requires confirmation: input required`), { [SUSPENDS]: true, questionId: context.questionId, request });
};

/** The "input required" result of a suspended call: the confirmation form, and the state naming its question. */
export function inputRequiredFor(suspension: InputSuspension, callId: string, session: string): InputRequiredResult {
  const form = confirmationForm(suspension.request, suspension.questionId);
  return inputRequired({
    inputRequests: { [CONFIRM_INPUT]: inputRequired.elicit({ message: `${form.message}\n(question ${suspension.questionId})`, requestedSchema: form.requestedSchema as never }) },
    requestState: encodeState({ question: suspension.questionId, callId, session }),
  });
}

/**
 * Bind a first round's call (and so the request state naming its question) to the requestor of
 * its request (the MCP task binding, keyed by call id and session), so that only that requestor's
 * retry answers it ({@link findAsked}).
 * @throws the store's error when it cannot be written (the state would then count for no one).
 */
export async function bindAsker(ledger: CallStore, callId: string, session: string, requestor: string): Promise<void> {
  if (await ledger.taskRequestor(callId, session) === requestor) return;
  await ledger.bindTask(callId, session, requestor);
}

/** A retry that may go on: the stored call to run, and the client's answer to its question. */
export interface CheckedRetry {
  state: QuestionState;
  /** The client's answer (`deny` unless it accepted the form with `approve: true`). */
  answer: ApprovalAnswer;
  /** A confirmation handler that gives {@link answer} for the state's question only. */
  handler: ConfirmationHandler;
}

/** The kind of the stored question a `requestState` names (`approval` or `question`), or `undefined` when it names none. */
export async function stateKind(ledger: CallStore, rawState: unknown): Promise<'approval' | 'question' | undefined> {
  const state = decodeState(rawState);
  const question = state === undefined ? undefined : await ledger.approval(state.question);
  if (question === undefined) return undefined;
  return (question.request as { kind?: unknown }).kind === 'question' ? 'question' : 'approval';
}

/** A stored question a retry's `requestState` names, found and checked (see {@link findAsked}). */
export interface AskedQuestion {
  state: QuestionState;
  question: ApprovalRecord;
}

/**
 * Find the stored question a retry's `requestState` names and check the retry against it: a
 * state this server minted, naming a stored question of that call id and session, still
 * unanswered, of a `pending` call (or answered, of a call that has ended: the retry gets its
 * recorded end) of the same tool, tool revision and arguments as the retry, and of the expected kind (`approval` for a confirmation, `question` for `ask_user`).
 * @param answeredElsewhere - who a retry answers as (`mcp retry`): when given, a question
 *   answered by anyone else (the person, in the cockpit or with `toolgate approvals`) is found
 *   too while its call waits, its `answer` set; without it, an answered question of a waiting
 *   call is refused. A confirmation's retry answers as {@link BY_HANDLER}. A question whose call
 *   has ended is found whoever answered it (its retry gets the recorded end); one whose call
 *   runs is refused.
 * @returns the question, or a message saying why the retry is refused (nothing runs then).
 */
export async function findAsked(
  ledger: CallStore, rawState: unknown, tool: RegisteredTool, args: Record<string, unknown>, kind: 'approval' | 'question', requestor: string, answeredElsewhere?: string,
): Promise<AskedQuestion | string> {
  const state = decodeState(rawState);
  if (state === undefined) return 'the retry\'s requestState is not one this server issued (or it was altered); nothing ran. Call the tool again without requestState to be asked again.';
  // A task's question is answered by tasks/update, bound to the task's requestor; a retry is
  // bound to no one, so it must not answer it (nor run the task's call).
  if (state.session === TASK_SESSION) return 'the retry\'s requestState names the question of an MCP task, which is answered with tasks/update (by the task\'s requestor), not by a retry; nothing ran.';
  const question = await ledger.approval(state.question);
  if (question === undefined || question.callId !== state.callId || question.session !== state.session) {
    return 'the retry\'s requestState names no stored question of this server (altered, or pruned); nothing ran. Call the tool again without requestState to be asked again.';
  }
  // A question the person answered elsewhere (the cockpit, `toolgate approvals`) is found with
  // that answer, when the caller takes one (`answeredElsewhere`), while its call still waits.
  // A question whose call has ended is found whoever answered it (an earlier retry, the person,
  // `toolgate approvals` ending a call whose asker is gone): the retry is run again by call id,
  // and the executor answers it with the call's recorded end (nothing runs again). Never while
  // the call runs.
  const elsewhere = answeredElsewhere !== undefined && question.answer !== undefined && question.answeredBy !== answeredElsewhere;
  const ended = question.callState !== 'pending' && question.callState !== 'running';
  if (!ended && ((question.answer !== undefined && !elsewhere) || question.callState === 'running')) {
    return `question ${question.id} was answered already (${question.answer ?? question.callState}): a requestState counts once, and this retry ran nothing. Call the tool again without requestState for a new question.`;
  }
  // The state is bound to the requestor of its first round (bindAsker): another client (another
  // token or principal) holding it answers nothing. A state bound to no one counts for no one.
  if (await ledger.taskRequestor(state.callId, state.session) !== requestor) {
    return `question ${question.id} was asked of another client: a requestState counts only for the client it was given to; nothing ran.`;
  }
  const call = await ledger.get(state.callId, state.session);
  const asked = (question.request as { kind?: unknown }).kind === 'question' ? 'question' : 'approval';
  if (call === undefined || call.tool !== tool.name || call.version !== tool.version || !isDeepStrictEqual(call.arguments, args) || asked !== kind) {
    return `question ${question.id} was asked about another call (${call?.tool ?? 'unknown'} ${call?.version ?? ''} with other arguments): an answer counts only for the call it was asked about, with the same tool revision and arguments; nothing ran.`;
  }
  return { state, question };
}

/**
 * Check a retry against the question its `requestState` names (see the module's text).
 * @returns the retry to run, or a message saying why it was refused (nothing runs then).
 */
export async function checkRetry(
  ledger: CallStore, rawState: unknown, responses: Record<string, unknown> | undefined, tool: RegisteredTool, args: Record<string, unknown>, requestor: string,
): Promise<CheckedRetry | string> {
  const found = await findAsked(ledger, rawState, tool, args, 'approval', requestor, BY_HANDLER);
  if (typeof found === 'string') return found;
  const { state, question } = found;
  let answer: ApprovalAnswer;
  if (question.answer !== undefined) {
    // Answered by the person elsewhere (the cockpit, `toolgate approvals`) before this retry: that
    // answer wins whatever the client's form holds (the executor takes the stored answer, or
    // replays the end it made), and the retry receives the call's outcome.
    answer = (APPROVAL_ANSWERS as readonly string[]).includes(question.answer) ? question.answer as ApprovalAnswer : 'deny';
  } else {
    const view = inputResponse(responses, CONFIRM_INPUT);
    if (view.kind !== 'elicit') return `the retry carries no answer to question ${question.id} (inputResponses.${CONFIRM_INPUT}); nothing ran.`;
    const offers = (question.request as { offers?: unknown }).offers;
    answer = answerOfForm(view.action, view.content, Array.isArray(offers) ? offers as ApprovalAnswer[] : ['allow_once', 'deny']);
  }
  const handler: ConfirmationHandler = (_request, context) => (context?.questionId === state.question ? answer : 'deny');
  return { state, answer, handler };
}
