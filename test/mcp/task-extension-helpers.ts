/**
 * Raw 2026-07-28 requests (the `_meta` envelope and the HTTP headers) for the tasks-extension
 * tests: to an in-process `createMcpHandler` (optionally with an `authInfo`, as an
 * OAuth-checking front passes one) or to a `toolgate mcp --http` process chosen by URL (the
 * SDK v2 client cannot aim a request at one instance of several, and refuses a
 * `resultType: "task"` answer).
 */
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';

export const MODERN = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Client capabilities declaring form elicitation and the tasks extension. */
export const TASK_CLIENT = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };

/** Where a request goes: an in-process handler, or a running server's URL and token. */
export type Target = { handler: McpHttpHandler; authInfo?: AuthInfo } | { url: string; token: string | undefined };

/** A JSON-RPC answer. */
export interface Answer {
  result?: Record<string, unknown> & { resultType?: string; taskId?: string; status?: string };
  error?: { code: number; message: string };
}

let lastId = 1000;

/** Methods whose `Mcp-Name` header mirrors a param. */
const NAME_OF: Record<string, string> = { 'tools/call': 'name', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

/** One 2026-07-28 request to `to`; its JSON-RPC answer. */
export async function modern(to: Target, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = TASK_CLIENT): Promise<Answer> {
  const id = ++lastId;
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities } } };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const nameField = NAME_OF[method];
  if (nameField !== undefined) headers['mcp-name'] = String(params[nameField]);
  let response: Response;
  if ('handler' in to) {
    response = await to.handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }), { authInfo: to.authInfo });
  } else {
    if (to.token !== undefined) headers.authorization = `Bearer ${to.token}`;
    response = await fetch(to.url, { method: 'POST', headers, body: JSON.stringify(body) });
  }
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Answer & { id?: number });
    return data.find((m) => m.id === id) ?? { error: { code: 0, message: `no response in ${text}` } };
  }
  return JSON.parse(text) as Answer;
}

/** `tasks/get` through `to` until `done` holds for the task (every 50 ms, at most 60 s); the last answer. */
export async function pollTask(to: Target, taskId: string, done: (task: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const end = Date.now() + 60_000;
  for (;;) {
    const answer = await modern(to, 'tasks/get', { taskId });
    if (answer.result === undefined) throw new Error(`tasks/get failed: ${JSON.stringify(answer)}`);
    if (done(answer.result)) return answer.result;
    if (Date.now() > end) throw new Error(`the task never reached the awaited state: ${JSON.stringify(answer.result)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The `inputRequests` key of a task's confirmation question, from a `tasks/get` answer. */
export function questionKey(task: Record<string, unknown>): string {
  const keys = Object.keys((task.inputRequests ?? {}) as Record<string, unknown>);
  if (keys.length !== 1) throw new Error(`expected one input request: ${JSON.stringify(task)}`);
  return keys[0]!;
}
