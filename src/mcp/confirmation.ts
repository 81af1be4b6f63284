/**
 * Asking the person behind an MCP client whether a call may run: a form elicitation
 * (MCP 2025-11-25), and the message of a call denied because the client cannot be asked.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalAnswer, ConfirmationRequest } from '../decisions/approval.js';

/** The message of a denied confirmation when the client cannot be asked. */
export function cannotAskMessage(tool: string): string {
  return `${tool} requires confirmation, and this MCP client cannot be asked (it does not support elicitation). `
    + 'To allow it, restart `toolgate mcp` with --yes (approves every call that needs confirmation), or allow the call with a policy.';
}

/**
 * Ask the client, through form elicitation, whether a call may run, and for how long the
 * answer counts (the request's `offers`; MCP 2025-11-25 form mode: a boolean and a string enum).
 */
export async function elicitConfirmation(server: Server, request: ConfirmationRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const args = JSON.stringify(request.arguments);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}... (${args.length} characters)` : args;
  const targets = request.paths.length ? `\nTargets: ${request.paths.join(', ')}` : '';
  const remembered: readonly ApprovalAnswer[] = request.offers.filter((o) => o !== 'deny');
  const properties: Record<string, unknown> = { approve: { type: 'boolean', title: 'Allow this call', description: `Run ${request.tool} with these arguments.`, default: false } };
  if (remembered.length > 1) {
    properties.remember = { type: 'string', title: 'Remember the answer', enum: remembered, description: 'allow_once: this call only; allow_for_turn: this exact request for the rest of this session; always: saved in the user policy file.', default: 'allow_once' };
  }
  const answer = await server.request(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `toolgate: allow ${request.tool} ${request.version} to run? It asks because ${request.ask.reason}${targets}\nArguments: ${shown}`,
        requestedSchema: { type: 'object', properties, required: ['approve'] } as never,
      },
    },
    ElicitResultSchema,
    { signal },
  );
  const content = answer.content as { approve?: unknown; remember?: unknown } | undefined;
  if (answer.action !== 'accept' || content?.approve !== true) return 'deny';
  return remembered.includes(content.remember as ApprovalAnswer) ? content.remember as ApprovalAnswer : 'allow_once';
}
