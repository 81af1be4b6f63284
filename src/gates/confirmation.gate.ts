/**
 * Confirmation gate: tools with `requiresConfirmation` need `confirm: true` on the call or a
 * confirmation handler's yes.
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import type { GateDenial } from './gate.js';

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
}

/** Asks a person (or a policy) whether a call may run; resolves true for yes. */
export type ConfirmationHandler = (request: ConfirmationRequest) => boolean | Promise<boolean>;

/** Reason text of the `CONFIRMATION_REQUIRED` result; starts with "Confirmation required". */
export function confirmationRequiredReason(tool: string): string {
  // Said to the model: `confirm` is the caller's option, not a tool argument, so the way on is
  // the user's approval, never a retry.
  return `Confirmation required: ${tool} needs the user's approval before it runs, and none was given. Repeating the call will not help: tell the user what you want to do and why, so they can approve it.`;
}

/**
 * Decide; `undefined` means pass.
 * @param confirm - the caller's `confirm` flag.
 * @param handler - asked when `confirm` is not true; a handler that throws counts as no.
 */
export async function confirmationGate(
  request: ConfirmationRequest,
  confirm: boolean | undefined,
  handler: ConfirmationHandler | undefined,
  logger: Logger,
): Promise<GateDenial | undefined> {
  if (confirm === true) return undefined;
  if (handler === undefined) {
    return { gate: 'confirmation', code: 'CONFIRMATION_REQUIRED', reason: confirmationRequiredReason(request.tool) };
  }
  let yes = false;
  try {
    yes = (await handler(request)) === true;
  } catch (error) {
    logger.warn({ event: 'confirmation_handler_failed', tool: request.tool, callId: request.callId, err: (error as Error)?.message }, 'confirmation handler threw; treating as no');
  }
  if (yes) return undefined;
  return { gate: 'confirmation', code: 'CONFIRMATION_DENIED', reason: `Confirmation denied: the user did not approve this ${request.tool} call. Do not retry it unchanged; ask the user or take another approach.` };
}
