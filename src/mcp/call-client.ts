/**
 * The {@link ToolClient} of one MCP `tools/call`: what a tool's `ctx.progress`, `ctx.log`,
 * `ctx.elicit` and `ctx.sample` become on the wire (specification 2025-11-25).
 *
 * - progress: `notifications/progress` with the request's `_meta.progressToken`, only when the
 *   client sent one; values that do not increase are dropped (the specification requires
 *   progress to increase).
 * - heartbeat: while such a call runs and has sent no progress for {@link HEARTBEAT_MS}
 *   (its `heartbeatMs`), a progress notification says it still runs ("still running, 40 s, no
 *   new output or progress for 10 s"), so a client that resets its request timeout on progress
 *   (most do; many wait 60 s otherwise) keeps waiting for a silent command. Its `progress` is
 *   the last value sent plus {@link HEARTBEAT_STEP} per heartbeat, so it increases without
 *   reaching the tool's next value (a count of characters, items, bytes); a tool's value that
 *   would not be above it is sent just above it, with its message. One timer a call, ended by
 *   {@link CallClient.end} before the result goes out (never a heartbeat after it).
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

/** Milliseconds without progress after which a call with a progress token gets a heartbeat (10 s; below the 60 s most clients wait). */
const HEARTBEAT_MS = 10_000;
/** What a heartbeat adds to the last progress value sent (2^-20: small beside any whole count a tool reports). */
const HEARTBEAT_STEP = 2 ** -20;

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

/** The client of one `tools/call`, with the start and end of its heartbeat. */
export interface CallClient extends ToolClient {
  /** Start the call's heartbeat (when the client sent a progress token and heartbeats are on): call it as the call's run begins. */
  start(): void;
  /** Stop the call's heartbeat and drop any progress sent later: call it before the result goes out (idempotent). */
  end(): void;
}

/**
 * The client of one `tools/call`.
 * @param ctx - the request's context (its `_meta.progressToken`, signal, related sends).
 * @param caps - what the client declared it can do; `undefined` offers neither elicitation nor sampling.
 * @param logLevel - the level `notifications/message` must reach.
 * @param heartbeatMs - milliseconds without progress before a heartbeat (default {@link HEARTBEAT_MS}; 0: none).
 */
export function callClient(ctx: ServerContext, caps: ClientCapabilities | undefined, logLevel: SessionLogLevel, heartbeatMs = HEARTBEAT_MS): CallClient {
  const req = ctx.mcpReq;
  const progressToken = req._meta?.progressToken;
  let ended = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let startHeartbeat = () => undefined as void;
  const client: CallClient = {
    start() {
      if (!ended) startHeartbeat();
    },
    end() {
      ended = true;
      clearTimeout(heartbeat);
      heartbeat = undefined;
    },
    log(level, data, tool) {
      if (!passesLogLevel(level, logLevel)) return;
      void req.notify({ method: 'notifications/message', params: { level, logger: tool, data } }).catch(() => undefined);
    },
  };
  if (progressToken !== undefined) {
    /** The tool's last value (its own must increase) and the last value sent (heartbeats included). */
    let toolLast = -Infinity;
    let sent = -Infinity;
    let started = Date.now();
    let toolAt = started;
    const send = (progress: number, total: number | undefined, message: string | undefined) => {
      sent = progress;
      const params: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      void req.notify({ method: 'notifications/progress', params }).catch(() => undefined);
      heartbeat?.refresh();
    };
    client.progress = (done, total, message) => {
      if (ended || !(done > toolLast)) return;
      toolLast = done;
      toolAt = Date.now();
      send(done > sent ? done : sent + HEARTBEAT_STEP, total, message);
    };
    if (heartbeatMs > 0) startHeartbeat = () => {
      if (heartbeat !== undefined) return;
      started = Date.now();
      if (toolLast === -Infinity) toolAt = started;
      heartbeat = setTimeout(function beat() {
        if (ended) return;
        const now = Date.now();
        const at = Math.round((now - started) / 1000);
        const quiet = Math.round((now - toolAt) / 1000);
        send(sent === -Infinity ? 0 : sent + HEARTBEAT_STEP, undefined, `still running, ${at} s, no new output or progress for ${quiet} s`);
      }, heartbeatMs);
      heartbeat.unref();
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
