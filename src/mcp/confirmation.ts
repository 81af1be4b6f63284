/**
 * Asking the person behind an MCP client whether a call may run: a form elicitation
 * (MCP 2025-11-25); for a client that cannot be asked, a wait (bounded) for an answer given
 * elsewhere (`toolgate approvals allow ID`, the cockpit), and the messages that tell the model
 * and the person how to answer.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/server';
import { ADVANCE_NOT_ENOUGH, NoAnswerError, type ApprovalAnswer, type ConfirmationContext, type ConfirmationHandler, type ConfirmationRequest } from '../decisions/approval.js';
import type { CallStore } from '../ledger/call-store.js';
import { moreQuestions, questionLabel, shownOthers } from '../decisions/asked-questions.js';
import { indentLines, shownArguments, visibleText } from '../decisions/shown-arguments.js';

/**
 * Who answers the questions of a call the MCP server runs: a handler the server chose for its
 * client (elicitation, an input-required round, a wait in the ledger), or `null` for nobody (a
 * call that asks is refused, `CONFIRMATION_REQUIRED`). Never left out: a call's
 * `confirmationHandler` left `undefined` falls back to the executor's own
 * (`ToolExecutorOptions.confirmationHandler`), which an embedder that serves its `ToolSystem`
 * over MCP may have set (a terminal prompt, a handler that allows everything), and which the
 * MCP client never chose.
 */
export type ClientAsker = ConfirmationHandler | null;

/**
 * The {@link ClientAsker} of a request that is not a `tools/call` of its own (a skill read, a
 * `request_tools` call): form elicitation when the client (2025-11-25) declared it
 * (`canElicit`), withdrawn when `signal` aborts; else nobody. An elicitation that fails counts
 * as a no (the executor takes a handler that throws as one).
 */
export function elicitOrNobody(server: Server, canElicit: boolean, signal: AbortSignal): ClientAsker {
  return canElicit ? (request, context) => elicitConfirmation(server, request, signal, context) : null;
}

/** The message of a denied confirmation when the client cannot be asked and no ledger keeps questions (`--no-ledger`). */
export function cannotAskMessage(tool: string): string {
  return `${tool} requires confirmation, and this MCP client cannot be asked (it does not support elicitation), and without a ledger (--no-ledger) nobody can answer elsewhere. `
    + 'To allow it, restart `toolgate mcp` with the ledger (without --no-ledger: a question then waits for `toolgate approvals allow ID` or the cockpit, --cockpit), '
    + 'with --yes (approves every call that needs confirmation), or allow the call with a policy.';
}

/** Where a person answers question `id` (a number, or `ID` in general advice): the command, and the cockpit when one runs. */
function whereToAnswer(id: number | 'ID', cockpitUrl: string | undefined, workspace: string): string {
  const cockpit = cockpitUrl === undefined
    ? ' (or restart `toolgate mcp` with --cockpit to answer such questions in the browser)'
    : `, or in the cockpit at ${cockpitUrl} (its login address, with a code, is on toolgate's stderr)`;
  const at = `--workspace ${shellWord(workspace)}`;
  return `run \`toolgate approvals allow ${id} ${at}\` (or \`toolgate approvals deny ${id} ${at}\`) in a terminal (with this server's --state-dir too, if it was given one)${cockpit}`;
}

/** `word` as one shell word: bare when it holds only safe characters, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Milliseconds as text: `300 ms`, `45 s`. */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** What the model and the person are told while question `id` waits for an answer given elsewhere. */
function waitingMessage(tool: string, id: number, waitMs: number | undefined, cockpitUrl: string | undefined, workspace: string): string {
  const bound = waitMs === undefined ? '' : ` for up to ${duration(waitMs)}`;
  return `toolgate: ${tool} requires confirmation, and this MCP client cannot ask the person (no elicitation); question ${id} waits${bound}. To answer it, ${whereToAnswer(id, cockpitUrl, workspace)}.`;
}

/**
 * The result text of a call whose question nobody answered in time: the call did not run.
 * @param advance - the server approves in advance (`--yes`): the question was one only a person answers, so --yes is not offered as the way on.
 */
export function unansweredMessage(tool: string, id: number, waitMs: number, cockpitUrl: string | undefined, workspace: string, advance = false): string {
  return `${tool} requires confirmation, and nobody answered question ${id} within ${duration(waitMs)}, so the call did not run (this MCP client cannot ask the person: no elicitation). `
    + `Tell the person: while such a call waits, ${whereToAnswer('ID', cockpitUrl, workspace)} (\`toolgate approvals\` lists the waiting questions and their ids); then call again. `
    + (advance
      ? `${ADVANCE_NOT_ENOUGH} (a protected path's, an always-ask one): only a person answers it.`
      : 'Or restart `toolgate mcp` with --yes (approves every call that needs confirmation), or allow the call with a policy.');
}

/** What {@link answerElsewhere} reports: the question it waits on, and whether the wait ran out. */
export interface ElsewhereWait {
  /** The ledger's question id, once found. */
  questionId?: number;
  /** Set when `waitMs` passed without an answer. */
  timedOut?: boolean;
}

/**
 * A confirmation handler for a client that cannot be asked: it finds the call's question in
 * the ledger (the executor stores it before asking), tells the model and the person how to
 * answer it (`tell`), then waits: the executor takes an answer given elsewhere as soon as it
 * is stored. After `waitMs` (when given) the handler fails with {@link NoAnswerError}, which
 * refuses this call with `CONFIRMATION_REQUIRED` (nobody said no, nothing remembers it);
 * `wait.timedOut` says so. An aborted `signal` ends the wait.
 */
export function answerElsewhere(
  ledger: CallStore, session: string, signal: AbortSignal, wait: ElsewhereWait, tell: (text: string) => void, waitMs: number | undefined, cockpitUrl: string | undefined, workspace: string,
): ConfirmationHandler {
  return async (request) => {
    const question = (await ledger.pendingApprovals()).find((q) => q.callId === request.callId && q.session === session && q.answer === undefined);
    if (question !== undefined) {
      wait.questionId = question.id;
      tell(waitingMessage(request.tool, question.id, waitMs, cockpitUrl, workspace));
    }
    return new Promise<ApprovalAnswer>((_resolve, reject) => {
      if (waitMs === undefined) return; // answered elsewhere, or the call is cancelled
      const timer = setTimeout(() => {
        wait.timedOut = true;
        reject(new NoAnswerError(`nobody answered within ${waitMs} ms`));
      }, waitMs);
      signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    });
  };
}

/**
 * The confirmation form of `request` (MCP form mode: a boolean, and a string enum of the
 * answers that are remembered when more than one is offered). Its message shows why it asks
 * (every question of the call, as the CLI prompt does: at most `MAX_SHOWN_QUESTIONS`, then how
 * many more), the targets whole and each argument as the CLI prompt does ({@link shownArguments}:
 * escaped, a long value as head and tail with what is omitted counted, a command whole unless
 * enormous), and says
 * when something is cut and how to read it whole (`toolgate approvals show ID` when the
 * question is stored: `questionId`).
 */
export function confirmationForm(request: ConfirmationRequest, questionId?: number): { message: string; requestedSchema: Record<string, unknown> } {
  const shown = shownArguments(request.arguments, request.commandArguments);
  const lines = [`toolgate: allow ${visibleText(request.tool, false)} ${visibleText(request.version, false)} to run? It asks because ${visibleText(request.ask.reason, false)}`];
  // one answer answers every question of the call: each is shown (at most MAX_SHOWN_QUESTIONS, then how many more)
  const others = shownOthers(request.also);
  for (const q of others.shown) lines.push(`It also asks (${visibleText(questionLabel(q), false)}) because ${visibleText(q.reason, false)}`);
  if (others.more > 0) {
    lines.push(`It also asks ${moreQuestions(others.more)}, which your answer answers too: ${questionId === undefined ? 'they cannot be read here' : `\`toolgate approvals show ${questionId}\` (same --workspace) prints every one`}.`);
  }
  if (request.paths.length) lines.push(`Targets: ${request.paths.map((p) => visibleText(p, false)).join(', ')}`);
  lines.push('Arguments:', ...shown.entries.map(({ key, value }) => `  ${key}: ${indentLines(value.text)}`));
  const whole = questionId === undefined ? 'it cannot be read whole here' : `\`toolgate approvals show ${questionId}\` (same --workspace) prints it whole`;
  for (const { key, value, command } of shown.entries) {
    if (command && (value.omittedChars > 0 || value.omittedLines > 0)) lines.push(`WARNING: ${key} is ${value.length} characters long and is not shown whole: ${whole}. Do not allow what you have not read.`);
  }
  if (shown.cut.length > shown.cutCommands.length) {
    lines.push(`Cut above (the middle left out): ${shown.cut.filter((k) => !shown.cutCommands.includes(k)).join(', ')}; ${questionId === undefined ? 'they cannot be read whole here' : `\`toolgate approvals show ${questionId}\` (same --workspace) prints every argument whole`}.`);
  }
  const remembered: readonly ApprovalAnswer[] = request.offers.filter((o) => o !== 'deny');
  const properties: Record<string, unknown> = { approve: { type: 'boolean', title: 'Allow this call', description: `Run ${request.tool} with these arguments.`, default: false } };
  if (remembered.length > 1) {
    properties.remember = { type: 'string', title: 'Remember the answer', enum: remembered, description: 'allow_once: this call only; allow_for_turn: this exact request for the rest of this session; always: saved in the user policy file.', default: 'allow_once' };
  }
  return { message: lines.join('\n'), requestedSchema: { type: 'object', properties, required: ['approve'] } };
}

/** The answer a filled confirmation form gives: `deny` unless accepted with `approve: true`; `remember` when offered, else `allow_once`. */
export function answerOfForm(action: string, content: Record<string, unknown> | undefined, offers: readonly ApprovalAnswer[]): ApprovalAnswer {
  if (action !== 'accept' || content?.approve !== true) return 'deny';
  const remembered: readonly ApprovalAnswer[] = offers.filter((o) => o !== 'deny');
  return remembered.includes(content.remember as ApprovalAnswer) ? content.remember as ApprovalAnswer : 'allow_once';
}

/**
 * Ask the client, through form elicitation, whether a call may run, and for how long the
 * answer counts (the request's `offers`; MCP 2025-11-25 form mode: a boolean and a string enum).
 * The elicitation is withdrawn (the client gets `notifications/cancelled`) when `signal` aborts
 * or when the executor's `context.signal` does: the question was answered elsewhere (the
 * cockpit, `toolgate approvals`), so the client's form no longer counts.
 */
export async function elicitConfirmation(server: Server, request: ConfirmationRequest, signal: AbortSignal, context?: ConfirmationContext): Promise<ApprovalAnswer> {
  const form = confirmationForm(request, context?.questionId);
  const withdrawn = context?.signal === undefined ? signal : AbortSignal.any([signal, context.signal]);
  const answer = await server.elicitInput({ mode: 'form', message: form.message, requestedSchema: form.requestedSchema as never }, { signal: withdrawn });
  return answerOfForm(answer.action, answer.content as Record<string, unknown> | undefined, request.offers);
}
