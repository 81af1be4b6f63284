/**
 * Answering an `ask`: the caller's `confirm: true` approves at once; otherwise a confirmation
 * handler (a terminal prompt, MCP elicitation, an agent's callback) is asked; with neither,
 * the call is refused with `CONFIRMATION_REQUIRED`. Whatever answers, the result is a
 * {@link Decision} of the `confirmation` step. Also here: the answers a handler may give (the
 * approval modes are in `decision.ts`).
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import { deny, type Decision } from './decision.js';
import { becauseText, type AskedQuestion } from './asked-questions.js';
import { isSuspension, SUSPENDS } from '../util/suspension.js';

/** What a confirmation handler is asked about. */
export interface ConfirmationRequest {
  /** Tool name. */
  tool: string;
  /** Tool version that would run. */
  version: string;
  /** Validated arguments, as they will be passed to the tool (a deep-frozen copy). */
  arguments: Readonly<Record<string, unknown>>;
  /** Call id of the tool call. */
  callId: string;
  /** The tool's description, to show the person deciding. */
  description: string;
  /**
   * Every path the call names (its `@format workspace-path` arguments), resolved and shown
   * relative to the workspace root: show these first and whole, whatever the other
   * arguments hold.
   */
  paths: string[];
  /**
   * Why the call asks: the question shown first (one only a person answers, when there is one),
   * with the decider that asked, its reason, and its rule when it has named rules.
   */
  ask: AskedQuestion;
  /**
   * The call's other questions, when it raised more than one (a protected path and a policy
   * rule, say): each distinct one (by its reason; `ask`'s left out), in the order the deciders
   * asked them, at most one per decider. One answer answers every question of the call, so a
   * handler that asks a person shows these too: the CLI prompt, the MCP form, `toolgate approvals`
   * and the cockpit do (a prompt shows at most five questions in all, and says how many more
   * there are). Absent when `ask` is the only question.
   */
  also?: readonly AskedQuestion[];
  /**
   * The answers that may be given: always `allow_once` and `deny`; `allow_for_turn` and
   * `always` unless the question must be answered afresh every time (`always_ask`, the
   * `always-ask` approval mode); `always` not for broad grants (a shell, an interpreter,
   * `env`, `sudo`: see `remembered-approvals.ts`). A handler that gives another answer gets
   * the closest narrower one (`always` becomes `allow_for_turn`, that becomes `allow_once`).
   */
  offers: readonly ApprovalAnswer[];
  /**
   * The arguments that hold a command (the tool's `commandArguments`): a prompt shows these
   * whole unless really enormous, and warns when it cannot (`shown-arguments.ts`). When
   * absent, arguments named like one (`command`, `script`, ...) count.
   */
  commandArguments?: readonly string[];
}

/**
 * A person's answer to a question (seed `004_1a9ea3106da7ef2e.txt`):
 * - `allow_once`: this call runs; the same request asks again;
 * - `allow_for_turn`: this call runs, and the same request (same tool registration, same
 *   canonical input, same workspace; for shell, each command) runs without asking for the
 *   rest of the turn (the call option `turnId`; calls that name none share one turn that lasts
 *   as long as the executor);
 * - `always`: as `allow_for_turn`, and saved in the user's policy file for later sessions;
 * - `deny`: refused; the same request is refused without asking for the rest of the turn.
 */
export type ApprovalAnswer = 'allow_once' | 'allow_for_turn' | 'always' | 'deny';

/** Every {@link ApprovalAnswer}, widest grant last but one. */
export const APPROVAL_ANSWERS: readonly ApprovalAnswer[] = Object.freeze(['allow_once', 'allow_for_turn', 'always', 'deny']);

/** Who a stored question's answer is recorded as given by when the call's own confirmation handler gave it (the person answering elsewhere is recorded as themselves: `cli:<pid>`, `cockpit:<pid>`). */
export const BY_HANDLER = 'handler';

/**
 * Asks a person (or a policy) whether a call may run. Resolves `true` (the same as
 * `allow_once`), `false` (the same as `deny`) or an {@link ApprovalAnswer}; a throw, a
 * rejection or any other value counts as `deny`, except a suspension (see
 * {@link isSuspension}: LangGraph's `interrupt()`), which the executor throws on.
 */
export type ConfirmationHandler = (request: ConfirmationRequest, context?: ConfirmationContext) => boolean | ApprovalAnswer | Promise<boolean | ApprovalAnswer>;

export { isSuspension, SUSPENDS };
export type { AskedQuestion } from './asked-questions.js';

/**
 * What a confirmation handler may use beside the request: given when the question is stored
 * in a durable ledger (it can then be answered elsewhere too).
 */
export interface ConfirmationContext {
  /** The stored question's id (`toolgate approvals allow|deny ID`, the cockpit's question number). */
  questionId?: number;
  /**
   * Aborted once the handler's answer no longer counts: the question was answered elsewhere,
   * or the call's wait ended. A handler that asks a person stops asking then (its answer is ignored).
   */
  signal?: AbortSignal;
}


/**
 * Questions that outlive the process that asks them (a durable ledger, `src/ledger/`): a
 * question is stored before the handler is asked, and may be answered there by another process
 * (`toolgate approvals allow ID`) as well as by the handler; the first answer counts.
 */
export interface DurableQuestions {
  /** How often a waiting question checks for an answer given elsewhere, in milliseconds. */
  readonly pollMs: number;
  /** The answer already recorded for the question of this call (a call taken over after a restart), if any. */
  answered(call: DurableCallKey): Promise<string | undefined>;
  /** Store the question about a call (or find the call's unanswered one); resolves to its id. */
  open(request: ConfirmationRequest, call: DurableCallKey): Promise<number>;
  /** The answer of a question so far; `undefined` while unanswered. */
  current(id: number): Promise<string | undefined>;
  /** Record an answer; resolves to the answer that counts (the first one given). */
  settle(id: number, answer: ApprovalAnswer, by: string): Promise<string | undefined>;
  /**
   * Optional: run `check` every `pollMs` on a timer shared by every waiting question, until the
   * returned function is called. Without it, each waiting question has a timer of its own.
   */
  every?(check: () => void): () => void;
}

/**
 * What names a call in a durable store: its call id and session. The executor passes its
 * ledger entry (which carries more: the store records a call it has not seen with it).
 */
export interface DurableCallKey {
  readonly callId: string;
  readonly session: string;
}

/** A durable store of questions, for one call: the store, the call, and what ends the wait. */
export interface DurableAsk {
  readonly questions: DurableQuestions;
  readonly call: DurableCallKey;
  /** Aborting either stops checking for an answer (the call was aborted, or the executor closed). */
  readonly signals: readonly (AbortSignal | undefined)[];
}

/**
 * The step that answers an `ask`: every decision this module makes carries it, and its `deny`
 * is the one that leaves a result `confirmed: false`.
 */
export const ANSWER_STEP = 'confirmation';
const NAME = ANSWER_STEP;

/** Reason text of the `CONFIRMATION_REQUIRED` result; starts with "Confirmation required". */
function confirmationRequiredReason(request: ConfirmationRequest): string {
  // Said to the model: `confirm` is the caller's option, not a tool argument, so the way on is
  // the user's approval, never a retry. When a decider other than the tool's own need asked,
  // its reason says why (a protected path, say).
  // Every question the call raised is named: the user's approval answers them all.
  const why = request.ask.decider === NAME && request.also === undefined ? '' : ` ${becauseText(request)}`;
  return `Confirmation required: ${request.tool} needs the user's approval before it runs, and none was given.${why} Repeating the call will not help: tell the user what you want to do and why, so they can approve it.`;
}

/** What the refusal of a question only a person answers says when the caller approved in advance (starts as {@link confirmationRequiredReason}'s). */
export const ADVANCE_NOT_ENOUGH = 'An approval given in advance (--yes, confirm: true, autoConfirmTools) does not answer this question';

/**
 * Reason text of the `CONFIRMATION_REQUIRED` result of a question only a person answers
 * (`Decision.person`, `fresh`) when the caller approved in advance and nobody could be asked:
 * names why it asked (the protected path, and every other question of the call) and who can answer.
 */
export function personOnlyReason(request: ConfirmationRequest): string {
  return `Confirmation required: ${request.tool} needs a person's answer before it runs, and nobody could be asked. ${becauseText(request)} `
    + `${ADVANCE_NOT_ENOUGH}: a person answers it (on a terminal, through the MCP client, with toolgate approvals allow ID, in the cockpit). `
    + 'Repeating the call will not help: tell the user what you want to do and why, or take another approach.';
}

/** Shared `allow` of a call the caller approved in advance (never written to). */
const APPROVED_IN_ADVANCE: Decision = Object.freeze({ verdict: 'allow', decider: NAME, reason: 'approved in advance by the caller (confirm: true)', rule: 'allow_once' });

/** The narrowest answer the request offers that is at least as narrow as `given`. */
function offered(given: ApprovalAnswer, offers: readonly ApprovalAnswer[]): ApprovalAnswer {
  if (given === 'deny' || offers.includes(given)) return given;
  if (given === 'always' && offers.includes('allow_for_turn')) return 'allow_for_turn';
  return 'allow_once';
}

/**
 * Answer an `ask`.
 * @param confirm - the caller's `confirm` flag: `true` approves without asking (as `allow_once`).
 * @param handler - asked when `confirm` is not true; a handler that throws or rejects counts as
 *   no, except with a suspension ({@link isSuspension}), with which this rejects.
 * @returns `allow` whose `rule` is the answer (`allow_once`, `allow_for_turn`, `always`), or
 *   `deny` with `CONFIRMATION_REQUIRED` (nobody to ask) or `CONFIRMATION_DENIED` (rule `deny`
 *   when the handler said no: `false` or `'deny'`; no rule when it threw or said anything else).
 */
export async function answerAsk(
  request: ConfirmationRequest,
  confirm: boolean | undefined,
  handler: ConfirmationHandler | undefined,
  logger: Logger,
  durable?: DurableAsk,
): Promise<Decision> {
  if (confirm === true) return APPROVED_IN_ADVANCE;
  if (durable !== undefined) {
    // A question answered before (elsewhere, while the asking process was gone) counts.
    const given = await durable.questions.answered(durable.call);
    if (given !== undefined) return decisionOf(given, request, 'an answer recorded in the ledger');
  }
  if (handler === undefined) return deny(NAME, 'CONFIRMATION_REQUIRED', confirmationRequiredReason(request));
  if (durable !== undefined) return askDurably(request, handler, logger, durable);
  return decisionOf(await handlerAnswer(request, handler, logger), request, 'the confirmation handler');
}

/**
 * The handler's answer, narrowed to what the request offers: `deny` for a no it gave (`false`,
 * `'deny'`), a {@link Failed} for a throw or anything unexpected (a refusal of this call that is
 * not a person's no, so nothing remembers it).
 */
async function handlerAnswer(request: ConfirmationRequest, handler: ConfirmationHandler, logger: Logger, context?: ConfirmationContext): Promise<ApprovalAnswer | Failed> {
  try {
    const said = await (context === undefined ? handler(request) : handler(request, context));
    if (said === true) return 'allow_once';
    if (said === false) return 'deny';
    if (typeof said === 'string' && (APPROVAL_ANSWERS as readonly string[]).includes(said)) return offered(said as ApprovalAnswer, request.offers);
    return { failed: `it answered ${JSON.stringify(said)?.slice(0, 50) ?? String(said)}, not an answer` };
  } catch (error) {
    if (isSuspension(error)) throw error; // the caller's framework pauses: not an answer
    if (error instanceof NoAnswerError) return { failed: error.message.slice(0, 500), unanswered: true };
    logger.warn({ event: 'confirmation_handler_failed', tool: request.tool, callId: request.callId, err: (error as Error)?.message }, 'confirmation handler threw; treating as no');
    return { failed: String((error as Error)?.message ?? error).slice(0, 500) };
  }
}

/**
 * What {@link handlerAnswer} gives for a handler that failed (what went wrong): a refusal nobody
 * remembers, and no person's no. `unanswered`: it gave up waiting ({@link NoAnswerError}).
 */
interface Failed { readonly failed: string; readonly unanswered?: boolean }

/**
 * What a confirmation handler throws (or rejects with) when its wait for a person ran out
 * (the MCP server's wait for an answer given elsewhere): nobody answered, so the call is
 * refused with `CONFIRMATION_REQUIRED`, as when nobody can be asked, not `CONFIRMATION_DENIED`:
 * nobody said no, and nothing remembers it.
 */
export class NoAnswerError extends Error {}

/**
 * Store the question, then take whichever answer comes first: the handler's (recorded with a
 * conditional update, so an earlier answer given elsewhere still wins) or one given elsewhere
 * (found by checking the store every `pollMs`).
 */
async function askDurably(request: ConfirmationRequest, handler: ConfirmationHandler, logger: Logger, durable: DurableAsk): Promise<Decision> {
  const { questions } = durable;
  const id = await questions.open(request, durable.call);
  // Tells the handler when its answer no longer counts (a terminal prompt then stops asking).
  const handlerDone = new AbortController();
  return new Promise<Decision>((resolve, reject) => {
    let over = false;
    const end = (answer: string | Failed, by: string) => {
      if (over) return;
      over = true;
      stopPolling();
      handlerDone.abort();
      for (const signal of durable.signals) signal?.removeEventListener('abort', stop);
      resolve(decisionOf(answer, request, by));
    };
    // The call's wait is ended by the pipeline (ABORTED); the question stays stored.
    const stop = () => {
      over = true;
      stopPolling();
      handlerDone.abort();
    };
    // One look at a time: a slow store's answer is awaited, not asked for again meanwhile.
    let looking = false;
    const poll = () => {
      if (looking || over) return;
      looking = true;
      questions.current(id).then((given) => {
        looking = false;
        if (given !== undefined) end(given, 'an answer given elsewhere (toolgate approvals)');
      }, (error: unknown) => {
        looking = false;
        // A busy or failing store must not take the process down: look again next time.
        logger.warn({ event: 'question_poll_failed', tool: request.tool, callId: request.callId, err: (error as Error)?.message }, 'could not read a stored question; trying again');
      });
    };
    const stopPolling = questions.every?.(poll) ?? ((timer) => () => clearInterval(timer))(setInterval(poll, questions.pollMs));
    for (const signal of durable.signals) signal?.addEventListener('abort', stop, { once: true });
    void handlerAnswer(request, handler, logger, { questionId: id, signal: handlerDone.signal }).then(async (answer) => {
      if (over) return;
      // A handler that failed closes the question as a refusal, but not as a person's no.
      const failed = typeof answer === 'object';
      const recorded = failed ? 'deny' : answer;
      let counted: string = recorded;
      looking = true; // no look while the handler's answer is stored: the store then says which counts
      try {
        counted = (await questions.settle(id, recorded, failed ? `${BY_HANDLER} (${answer.unanswered === true ? 'no answer' : 'failed'})` : BY_HANDLER)) ?? recorded;
      } catch (error) {
        // The answer could not be stored: it still decides this call (the question stays open
        // in the store, for a later look by a person).
        logger.warn({ event: 'question_settle_failed', tool: request.tool, callId: request.callId, err: (error as Error)?.message }, 'could not store the answer to a question');
      }
      if (counted === recorded) end(answer, 'the confirmation handler');
      else end(counted, 'an earlier answer given elsewhere (toolgate approvals)');
    }, (error: unknown) => {
      // A suspension (handlerAnswer throws nothing else): the question stays open, unanswered,
      // for the same call when its framework resumes it (or for a person elsewhere).
      if (over) return;
      stop();
      for (const signal of durable.signals) signal?.removeEventListener('abort', stop);
      reject(error);
    });
  });
}

/**
 * The decision an answer makes; `by` says who gave it. Only a no given as one carries the rule
 * `deny` (remembered for the turn); a handler that failed (or a wait that ran out) is said as
 * such, not as the user's no.
 */
function decisionOf(given: string | Failed, request: ConfirmationRequest, by: string): Decision {
  if (typeof given === 'object') {
    if (given.unanswered === true) {
      return deny(NAME, 'CONFIRMATION_REQUIRED', `Confirmation required: ${request.tool} needs the user's approval before it runs, and nobody answered (${given.failed}). Repeating the call will not help unless the user approves it: tell the user what you want to do and why.`);
    }
    return deny(NAME, 'CONFIRMATION_DENIED', `Confirmation denied: nobody approved this ${request.tool} call (the confirmation handler failed: ${given.failed}). Do not retry it unchanged; ask the user or take another approach.`);
  }
  const answer = (APPROVAL_ANSWERS as readonly string[]).includes(given) ? offered(given as ApprovalAnswer, request.offers) : 'deny';
  if (answer !== 'deny') return { verdict: 'allow', decider: NAME, reason: `approved by ${by} (${answer})`, rule: answer };
  return deny(NAME, 'CONFIRMATION_DENIED', `Confirmation denied: the user did not approve this ${request.tool} call. Do not retry it unchanged; ask the user or take another approach.`, given === 'deny' ? 'deny' : undefined);
}
