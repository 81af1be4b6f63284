/** Raw 2026-07-28 `tools/call` requests to an in-process `createMcpHandler`, for the input-required tests. */
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import { pino } from 'pino';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

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

/** Two `toolgate mcp` instances (in-process handlers, as behind one load balancer) over one SQLite state folder. */
export interface TwoInstances {
  a: McpHttpHandler;
  b: McpHttpHandler;
  tmp: TempWorkspace;
  /** The state folder both ledgers open. */
  state: string;
  /** Their tool systems, `a`'s first. */
  systems: ToolSystem[];
  /** With `{ logs: true }`: what each system's logger wrote (pino lines, parsed), `a`'s first; else empty. */
  logs: Record<string, unknown>[][];
}

/**
 * Set up {@link TwoInstances} before the enclosing `describe`'s tests and close them after
 * (call it inside the `describe`); `get()` hands them over once `before` has run.
 * @param options - `logs`: give each system a logger (level info) whose lines land in `logs`.
 */
export function twoInstancesOnOneLedger(options: { logs?: boolean } = {}): { get(): TwoInstances } {
  let instances: TwoInstances | undefined;
  before(async () => {
    const tmp = tempWorkspace();
    const state = path.join(tmp.root, 'state');
    const systems: ToolSystem[] = [];
    const logs: Record<string, unknown>[][] = [];
    const handler = async (): Promise<McpHttpHandler> => {
      const lines: Record<string, unknown>[] = [];
      logs.push(lines);
      const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>); done(); } });
      const logger = options.logs === true ? pino({ level: 'info' }, sink) : undefined;
      const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, logger, executor: { ledger: { dir: state }, outputStore: false, sweepLeftovers: false } });
      systems.push(system);
      return createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
    };
    instances = { tmp, state, systems, logs, a: await handler(), b: await handler() };
  });
  after(async () => {
    for (const system of instances?.systems ?? []) await system.close();
    instances?.tmp.cleanup();
  });
  return { get: () => instances! };
}
