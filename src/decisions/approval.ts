/**
 * Answering an `ask`: the caller's `confirm: true` approves at once; otherwise a confirmation
 * handler (a terminal prompt, MCP elicitation, an agent's callback) is asked; with neither,
 * the call is refused with `CONFIRMATION_REQUIRED`. Whatever answers, the result is a
 * {@link Decision} of the `confirmation` step.
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import { deny, type Decision } from './decision.js';

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
  /** Why the call asks: the decider that asked, its reason, and its rule when it has named rules. */
  ask: { decider: string; reason: string; rule?: string };
}

/** Asks a person (or a policy) whether a call may run; resolves true for yes. */
export type ConfirmationHandler = (request: ConfirmationRequest) => boolean | Promise<boolean>;

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
  const why = request.ask.decider === NAME ? '' : ` It asks because ${request.ask.reason}`;
  return `Confirmation required: ${request.tool} needs the user's approval before it runs, and none was given.${why} Repeating the call will not help: tell the user what you want to do and why, so they can approve it.`;
}

/** Shared `allow` of a call the caller approved in advance (never written to). */
const APPROVED_IN_ADVANCE: Decision = Object.freeze({ verdict: 'allow', decider: NAME, reason: 'approved in advance by the caller (confirm: true)' });
/** Shared `allow` of a call the confirmation handler approved (never written to). */
const APPROVED_BY_HANDLER: Decision = Object.freeze({ verdict: 'allow', decider: NAME, reason: 'approved by the confirmation handler' });

/**
 * Answer an `ask`.
 * @param confirm - the caller's `confirm` flag: `true` approves without asking.
 * @param handler - asked when `confirm` is not true; a handler that throws or rejects counts as no.
 * @returns `allow`, or `deny` with `CONFIRMATION_REQUIRED` (nobody to ask) or `CONFIRMATION_DENIED`.
 */
export async function answerAsk(
  request: ConfirmationRequest,
  confirm: boolean | undefined,
  handler: ConfirmationHandler | undefined,
  logger: Logger,
): Promise<Decision> {
  if (confirm === true) return APPROVED_IN_ADVANCE;
  if (handler === undefined) return deny(NAME, 'CONFIRMATION_REQUIRED', confirmationRequiredReason(request));
  let yes = false;
  try {
    yes = (await handler(request)) === true;
  } catch (error) {
    logger.warn({ event: 'confirmation_handler_failed', tool: request.tool, callId: request.callId, err: (error as Error)?.message }, 'confirmation handler threw; treating as no');
  }
  if (yes) return APPROVED_BY_HANDLER;
  return deny(NAME, 'CONFIRMATION_DENIED', `Confirmation denied: the user did not approve this ${request.tool} call. Do not retry it unchanged; ask the user or take another approach.`);
}
