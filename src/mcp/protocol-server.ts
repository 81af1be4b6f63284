/**
 * The SDK v2 low-level `Server`, with one addition: a `tools/call` answered with a task
 * (MCP 2025-11-25 `CreateTaskResult`, `{ task }`, or the 2026-07-28 tasks extension's,
 * `{ resultType: 'task', taskId, ... }`) leaves as it is.
 *
 * Why this layer exists under SDK v2: v2 keeps the 2025-11-25 task vocabulary as types only
 * and checks every `tools/call` result against the `CallToolResult` schema of the served
 * revision; a task-augmented call's `{ task }` is not a `CallToolResult`, and v2 2.4.0 refuses
 * it (measured: `-32602` "Invalid tools/call result: content is required when the body carries
 * 'task'"). Every other `tools/call` result is still checked by the SDK. (SDK v1's error-prefix stripping that this module did before is gone: v2's
 * `ProtocolError` messages carry no "MCP error -32602: " prefix.)
 *
 * @module
 */
import { Server, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

/** The 2026-07-28 revision (the modern era's first). */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Every revision `toolgate mcp` serves: the SDK's 2025-era ones (`initialize` picks one) and
 * 2026-07-28 (`server/discover` lists it; each request names it in `_meta`).
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION];

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** {@link Server} that sends a `tools/call`'s task answer as it is (see the module's text). */
export class ProtocolServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const tasks = new WeakMap<JSONRPCRequest, Result>();
    // The SDK's wrapper validates the request, then our handler runs; a task answer is kept
    // aside (the wrapper sees an empty result, which passes) and sent instead.
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if (result !== null && typeof result === 'object' && ('task' in result || result.resultType === 'task') && !('content' in result)) {
        tasks.set(request, result);
        return { content: [] };
      }
      return result;
    });
    return async (request, ctx) => {
      const result = await wrapped(request, ctx);
      return tasks.get(request) ?? result;
    };
  }
}
