/**
 * `ask_user` over MCP: the builtin through which the model asks the person a question
 * (`src/builtin/ask-user.ts`), served by `toolgate mcp` to every client, and answered the way
 * the client can (issue 33, item 4):
 *
 * - **2025-11-25 client with form elicitation:** the question is put through
 *   `elicitation/create` while the call runs ({@link elicitQuestion}), as approvals are.
 * - **2026-07-28 client with form elicitation, ledger on:** that revision has no
 *   server-initiated requests, so the question is decided before the tool runs: `ask_user`
 *   has no side effect, its run is only the answer, so the first round
 *   ({@link askUserFirstRound}) stores the question in the call store (the `ask_user` call
 *   `pending`, a question of kind `question`, the one the cockpit shows) and answers
 *   `input_required` with the question as a form elicitation (`inputRequests.toolgate_question`:
 *   a free text, one of the choices, or several) and a `requestState` naming it. The retry
 *   ({@link askUserRetry}) must name that stored, unanswered question of the same `ask_user`
 *   call (same revision, same arguments) and carry an answer that fits its form; the answer is
 *   then stored with a conditional write (it counts once: a replayed or concurrent retry is
 *   refused), the gates decide again, and the stored call ends `done` with the answer as its
 *   output (or `failed` when the person declined). A question the person answered elsewhere
 *   before the retry (the cockpit's reply, `toolgate approvals deny`) is not refused: the retry
 *   receives that answer, whatever its form holds, and ends the call with it (one retry does:
 *   the call's end is conditional). One ledger row shows the question
 *   (arguments) and the answer (result), with the gates' decisions; any instance sharing the
 *   store can take the retry. No suspended run waits anywhere in between.
 * - **Client without elicitation:** with `--cockpit` (`waitForAnswers`) and a ledger, the
 *   question waits in the ledger for an answer given in the cockpit (`ledgerQuestionHandler`);
 *   else the call fails at once with {@link cannotAskUserMessage}, which says how to answer.
 *
 * @module
 */
import { inputRequired, inputResponse, type CallToolResult, type InputRequiredResult, type Server } from '@modelcontextprotocol/server';
import { ASK_USER_TOOL, askUserOutput, checkAskUserArguments, type AskUserInput, type QuestionHandler } from '../builtin/ask-user.js';
import { completedResult, failedResult } from '../closeout/results.js';
import type { ExecuteOptions } from '../executor/executor-options.js';
import { toCallToolResult } from '../formats/mcp.js';
import type { CallStore } from '../ledger/call-store.js';
import { replyOf } from '../ledger/user-questions.js';
import type { Logger } from '../logging/logger.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isCallerTool } from '../registry/visibility.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import { bindAsker, encodeState, findAsked } from './input-required.js';

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

/** One `ask_user` call of a 2026-07-28 client, as {@link askUserFirstRound} and {@link askUserRetry} take it. */
export interface AskUserCall {
  system: ToolSystem;
  ledger: CallStore;
  /** The registered `ask_user`. */
  tool: RegisteredTool;
  args: Record<string, unknown>;
  /** The first round's call id and ledger session (a retry uses the state's). */
  callId: string;
  session: string;
  /** Who asks (the requestor of the request, as for MCP tasks): the state is bound to it. */
  requestor: string;
  /** The workspace recorded with the call (absolute). */
  workspace: string;
  /** What the gates decide with: mode, scoped folders, workspace root, and a client lending `askUser`. */
  options: Pick<ExecuteOptions, 'mode' | 'scopedWriteDirs' | 'workspaceRoot' | 'client'>;
  logger: Logger;
}

/**
 * The first round: the question stored (the call `pending`), answered `input_required`.
 * @returns `undefined` when the call should run the ordinary way instead: invalid arguments
 *   (the executor refuses them), or gates that would not simply allow it (a policy's deny is
 *   recorded by the executor without asking anyone; an `ask` goes through the approval round).
 */
export async function askUserFirstRound(c: AskUserCall): Promise<InputRequiredResult | undefined> {
  if (checkAskUserArguments(c.args) !== undefined) return undefined;
  const preview = await c.system.preview({ name: c.tool.name, arguments: c.args, callId: c.callId }, c.options);
  if (preview.verdict !== 'allow') return undefined;
  const { tool } = c;
  const id = await c.ledger.ask(
    { callId: c.callId, session: c.session, tool: tool.name, version: tool.version, arguments: c.args, workspace: c.workspace, turn: c.session },
    {
      kind: 'question', tool: tool.name, version: tool.version, callId: c.callId, arguments: c.args, description: 'The agent asks you a question.', paths: [],
      ask: { decider: 'ask_user', reason: 'the agent asks the user' }, offers: [],
    },
  );
  await bindAsker(c.ledger, c.callId, c.session, c.requestor);
  const form = questionForm(c.args as unknown as AskUserInput);
  return inputRequired({
    inputRequests: { [QUESTION_INPUT]: inputRequired.elicit({ message: form.message, requestedSchema: form.requestedSchema as never }) },
    requestState: encodeState({ question: id, callId: c.callId, session: c.session }),
  });
}

/**
 * The retry: checked against the stored question (see the module's text), the answer stored
 * once, the stored call ended with it.
 * @returns the call's result, or a message saying why the retry is refused (nothing recorded).
 */
export async function askUserRetry(c: AskUserCall, rawState: unknown, responses: Record<string, unknown> | undefined): Promise<CallToolResult | string> {
  const found = await findAsked(c.ledger, rawState, c.tool, c.args, 'question', c.requestor, RETRY_BY);
  if (typeof found === 'string') return found;
  const { state, question } = found;
  // Answered by the person elsewhere (the cockpit, `toolgate approvals deny`) before this retry:
  // that answer is the person's, and the retry receives it (whatever the client's form holds).
  const elsewhere = question.answer;
  const view = inputResponse(responses, QUESTION_INPUT);
  let reply: string | string[] | undefined;
  let declined = 'declined to answer';
  if (elsewhere !== undefined) {
    reply = replyOf(elsewhere);
  } else {
    if (view.kind !== 'elicit') return `the retry carries no answer to question ${question.id} (inputResponses.${QUESTION_INPUT}); nothing was recorded.`;
    if (view.action === 'accept') {
      const checked = replyOfForm(view.content, c.args as unknown as AskUserInput);
      if ('problem' in checked) return `the answer to question ${question.id} does not fit it: ${checked.problem}; nothing was recorded. Retry with the same requestState and an answer that fits.`;
      reply = checked.reply;
    } else if (view.action !== 'decline') {
      declined = 'dismissed the question';
    }
  }
  // The gates decide again at answer time (a policy may have changed since the question).
  const preview = await c.system.preview({ name: c.tool.name, arguments: c.args, callId: state.callId }, c.options);
  if (elsewhere === undefined) {
    const counted = await c.ledger.answer(question.id, reply === undefined ? 'deny' : JSON.stringify({ reply }), RETRY_BY);
    if (counted === undefined || !counted.first) return `question ${question.id} was answered already: a requestState counts once, and this retry recorded nothing.`;
  }
  const fields = { tool: c.tool.name, version: c.tool.version, callId: state.callId, readOnly: true };
  let result: ToolExecutionResult;
  let status: 'done' | 'failed' | 'denied';
  if (preview.verdict !== 'allow') {
    result = failedResult(preview.code ?? 'CONFIRMATION_REQUIRED', preview.reason ?? 'the gates no longer allow this ask_user call', fields);
    status = 'denied';
  } else if (reply === undefined) {
    result = failedResult('CONFIRMATION_DENIED', `the user ${declined}; decide with what you have`, { ...fields, stopReason: 'error' });
    status = 'failed';
  } else {
    result = completedResult(askUserOutput(reply), fields);
    status = 'done';
  }
  let ended = false;
  try {
    ended = await c.ledger.finish({ callId: state.callId, session: state.session }, { state: status, decisions: preview.decisions, result });
  } catch (error) {
    c.logger.error({ event: 'ledger_write_failed', tool: c.tool.name, callId: state.callId, err: (error as Error)?.message }, 'the ledger could not record the answer of an ask_user call');
  }
  if (!ended && elsewhere !== undefined && (await c.ledger.get(state.callId, state.session))?.state !== 'pending') {
    // Another retry with this state (or `toolgate approvals`) ended the call first: the answer went to it, once.
    return `question ${question.id} was answered already (${elsewhere}) and its call has ended: a requestState counts once, and this retry recorded nothing.`;
  }
  if (!ended) c.logger.warn({ event: 'ask_user_not_ended', tool: c.tool.name, callId: state.callId }, 'the answer of an ask_user call is stored, but its call could not be ended here (held by another instance\'s lease)');
  return toCallToolResult(c.tool, result);
}
