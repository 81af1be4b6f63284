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
 * they travel on that request's stream). The client's answers are bounded by the call itself
 * (its timeout and abort signal), not by the SDK's default request timeout.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateMessageResultSchema, ElicitResultSchema, type LoggingLevel, type ServerNotification, type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
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
 * @param progressToken - the request's `_meta.progressToken`, if it sent one.
 */
export function callClient(
  server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>, progressToken: string | number | undefined, logLevel: SessionLogLevel,
): ToolClient {
  const client: ToolClient = {
    log(level, data, tool) {
      if (!passesLogLevel(level, logLevel)) return;
      void extra.sendNotification({ method: 'notifications/message', params: { level, logger: tool, data } }).catch(() => undefined);
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
      void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
    };
  }
  const caps = server.getClientCapabilities();
  if (caps?.elicitation !== undefined && (caps.elicitation.form !== undefined || caps.elicitation.url === undefined)) {
    client.elicit = async (message, requestedSchema, signal) => {
      const answer = await extra.sendRequest(
        { method: 'elicitation/create', params: { message, requestedSchema: requestedSchema as never } },
        ElicitResultSchema,
        { signal: AbortSignal.any([signal, extra.signal]), timeout: ANSWER_TIMEOUT_MS },
      );
      const out: ElicitAnswer = { action: answer.action };
      if (answer.content !== undefined) out.content = answer.content as ElicitAnswer['content'];
      return out;
    };
  }
  if (caps?.sampling !== undefined) {
    client.sample = async (request, signal) => {
      const answer = await extra.sendRequest(
        { method: 'sampling/createMessage', params: request as never },
        CreateMessageResultSchema,
        { signal: AbortSignal.any([signal, extra.signal]), timeout: ANSWER_TIMEOUT_MS },
      );
      const out: SampleAnswer = { role: answer.role, content: answer.content as SampleAnswer['content'], model: answer.model };
      if (answer.stopReason !== undefined) out.stopReason = answer.stopReason;
      return out;
    };
  }
  return client;
}
