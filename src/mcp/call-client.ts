/**
 * The {@link ToolClient} of one MCP `tools/call`: what a tool's `ctx.progress`, `ctx.log`,
 * `ctx.elicit` and `ctx.sample` become on the wire (specification 2025-11-25).
 *
 * - progress: `notifications/progress` with the request's `_meta.progressToken`, only when the
 *   client sent one; values that do not increase are dropped (the specification requires
 *   progress to increase).
 * - log: `notifications/message` (`logger` = the tool's name) when the level is at or above the
 *   session's `logging/setLevel` (every level until the client sets one).
 * - elicit: `elicitation/create` (form mode), only when the client declared `elicitation`
 *   with form support.
 * - sample: `sampling/createMessage`, only when the client declared `sampling`.
 *
 * Notifications and requests go out as related to the `tools/call` (so over streamable HTTP
 * they travel on that request's stream). The client's answers are checked against the
 * specification's result shapes by the SDK and bounded by the call itself (its timeout and abort
 * signal), not by the SDK's default request timeout.
 *
 * @module
 */
import type { ClientCapabilities, LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import { TOOL_LOG_LEVELS, type ElicitAnswer, type SampleAnswer, type ToolClient, type ToolLogLevel } from '../types/tool.js';

/** Longest wait for a client's answer to an elicitation or sampling request, in ms (the call's own timeout usually ends it first). */
const ANSWER_TIMEOUT_MS = 2_147_483_647;

/** The logging level a session asked for (`logging/setLevel`), shared by its calls. */
export interface SessionLogLevel {
  /** The lowest level sent; `undefined` until the client sets one (then every level is sent). */
  level: LoggingLevel | undefined;
}

/** Whether a message at `level` passes the session's `logging/setLevel`. */
function passesLogLevel(level: ToolLogLevel, session: SessionLogLevel): boolean {
  if (session.level === undefined) return true;
  return TOOL_LOG_LEVELS.indexOf(level) >= TOOL_LOG_LEVELS.indexOf(session.level);
}

/**
 * The client of one `tools/call`.
 * @param ctx - the request's context (its `_meta.progressToken`, signal, related sends).
 * @param caps - what the client declared it can do; `undefined` offers neither elicitation nor sampling.
 * @param logLevel - the level `notifications/message` must reach.
 */
export function callClient(ctx: ServerContext, caps: ClientCapabilities | undefined, logLevel: SessionLogLevel): ToolClient {
  const req = ctx.mcpReq;
  const progressToken = req._meta?.progressToken;
  const client: ToolClient = {
    log(level, data, tool) {
      if (!passesLogLevel(level, logLevel)) return;
      void req.notify({ method: 'notifications/message', params: { level, logger: tool, data } }).catch(() => undefined);
    },
  };
  if (progressToken !== undefined) {
    let last = -Infinity;
    client.progress = (done, total, message) => {
      if (!(done > last)) return;
      last = done;
      const params: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken, progress: done };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      void req.notify({ method: 'notifications/progress', params }).catch(() => undefined);
    };
  }
  if (caps?.elicitation !== undefined && (caps.elicitation.form !== undefined || caps.elicitation.url === undefined)) {
    client.elicit = async (message, requestedSchema, signal) => {
      const answer = await req.send(
        { method: 'elicitation/create', params: { message, requestedSchema } },
        { signal: AbortSignal.any([signal, req.signal]), timeout: ANSWER_TIMEOUT_MS },
      );
      const out: ElicitAnswer = { action: answer.action };
      if (answer.content !== undefined) out.content = answer.content as ElicitAnswer['content'];
      return out;
    };
  }
  if (caps?.sampling !== undefined) {
    client.sample = async (request, signal) => {
      const answer = await req.send(
        { method: 'sampling/createMessage', params: { ...request } },
        { signal: AbortSignal.any([signal, req.signal]), timeout: ANSWER_TIMEOUT_MS },
      );
      const out: SampleAnswer = { role: answer.role, content: answer.content as SampleAnswer['content'], model: answer.model };
      if (answer.stopReason !== undefined) out.stopReason = answer.stopReason;
      return out;
    };
  }
  return client;
}
