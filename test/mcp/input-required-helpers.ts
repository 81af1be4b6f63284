/** Raw 2026-07-28 `tools/call` requests to an in-process `createMcpHandler`, for the input-required tests. */
import type { McpHttpHandler } from '@modelcontextprotocol/server';

export const MODERN = '2026-07-28';
/** The URL requests are addressed to (nothing listens: the handler is called directly). */
export const MODERN_URL = 'http://127.0.0.1/mcp';
/** The key of toolgate's confirmation form in `inputRequests` / `inputResponses`. */
export const CONFIRM_KEY = 'toolgate_confirmation';

/** A JSON-RPC answer to a `tools/call`. */
export interface Rpc {
  result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, { method: string; params: { message: string } }>; content?: { type: string; text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

let lastId = 0;

/** One 2026-07-28 `tools/call` (raw JSON-RPC, the `_meta` envelope and the HTTP headers), with the client capabilities given (default: form elicitation). */
export async function callModern(to: McpHttpHandler, params: Record<string, unknown>, capabilities: Record<string, unknown> = { elicitation: { form: {} } }): Promise<Rpc> {
  const id = ++lastId;
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities } } };
  const response = await to.fetch(new Request(MODERN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': String(params.name) },
    body: JSON.stringify(body),
  }));
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Rpc & { id?: number });
    return data.find((m) => m.id === id) ?? { error: { code: 0, message: `no response in ${text}` } };
  }
  return JSON.parse(text) as Rpc;
}
