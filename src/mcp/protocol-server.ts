/**
 * The SDK's low-level `Server`, with JSON-RPC error messages sent once without the SDK's
 * "MCP error <code>: " prefix. The SDK's `McpError` puts that prefix in its message, and the
 * SDK sends a handler's error message as it is; a client's `McpError` then adds the prefix
 * again ("MCP error -32602: MCP error -32602: Task not found: ..."). The SDK's own handlers
 * (tasks/get, tasks/result, tasks/cancel, the check of a tools/call request) throw such errors,
 * so the prefix is taken off where every response leaves: the transport's `send`.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The prefix `McpError` gives its message: `MCP error -32602: `. */
const MCP_ERROR_PREFIX = /^MCP error -?\d+: /;

/** `message` with an error response's message taken out of the SDK's prefix (any other message as it is). */
function withoutErrorPrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || typeof message.error?.message !== 'string' || !MCP_ERROR_PREFIX.test(message.error.message)) return message;
  return { ...message, error: { ...message.error, message: message.error.message.replace(MCP_ERROR_PREFIX, '') } };
}

/** {@link Server} whose error responses carry their message once (see the module's text). */
export class ProtocolServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(withoutErrorPrefix(message), options);
    return super.connect(transport);
  }
}
