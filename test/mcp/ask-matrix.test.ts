/**
 * Issue 33, item 4, against the built `toolgate mcp`: the SDK v2 client pinned to 2026-07-28
 * and the same client in its 2025-11-25 mode, over stdio and over HTTP, each with a form
 * elicitation handler. In every cell `ask_user` is answered (2026: an input-required round
 * the client answers in its retry; 2025: `elicitation/create` while the call runs) and an
 * `ask` approval (`write_file`) is answered the same way; the file is written once, and
 * `toolgate trace` shows each ask_user call's question and answer. Two `toolgate mcp --http`
 * processes on one state folder: an ask_user question asked through one is answered by the
 * retry sent to the other. The folders are removed and the servers stopped.
 */
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, runCli } from '../helpers.js';
import { mcpFolders, startHttpCommand, type HttpCommand } from './http-command.js';

const MODERN = '2026-07-28';
type Era = 'modern' | 'legacy';

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** A client of `era` that fills toolgate's forms: approves a confirmation, picks `blue` for a question. */
function newClient(era: Era, asked: string[]): Client {
  const client = new Client(
    { name: `ask-matrix-${era}`, version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}) },
  );
  client.setRequestHandler('elicitation/create', async (request): Promise<{ action: 'accept' | 'decline'; content?: Record<string, string | boolean> }> => {
    const params = request.params as { message: string; requestedSchema?: { properties?: Record<string, unknown> } };
    asked.push(params.message);
    const properties = params.requestedSchema?.properties ?? {};
    if ('approve' in properties) return { action: 'accept', content: { approve: true } };
    if ('answer' in properties) return { action: 'accept', content: { answer: 'blue' } };
    return { action: 'decline' };
  });
  return client;
}

/** ask_user answered, and a write that asks approved, through `client`; `label` names the file. */
async function exercise(client: Client, era: Era, asked: string[], ws: string, label: string): Promise<void> {
  if (era === 'modern') assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  else assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'ask_user'), 'ask_user is listed');
  const answered = (await client.callTool({ name: 'ask_user', arguments: { question: `Which color for ${label}?`, choices: ['red', 'blue'] } })) as CallToolResult;
  assert.notEqual(answered.isError, true, text(answered));
  assert.equal(text(answered), 'blue');
  assert.deepEqual(asked, [`Which color for ${label}?`]);
  const written = (await client.callTool({ name: 'write_file', arguments: { filepath: `${label}.txt`, content: `${label}\n` } })) as CallToolResult;
  assert.notEqual(written.isError, true, text(written));
  assert.equal(asked.length, 2, JSON.stringify(asked));
  assert.match(asked[1]!, /write_file/);
  assert.equal(fs.readFileSync(path.join(ws, `${label}.txt`), 'utf8'), `${label}\n`);
}

/** `toolgate trace` of `state` shows the ask_user call of `label` with its question and answer. */
async function traced(ws: string, state: string, label: string, era: Era): Promise<void> {
  const run = await runCli(['trace', '--workspace', ws, '--state-dir', state]);
  assert.equal(run.code, 0, run.stderr);
  const line = run.stdout.split('\n').find((l) => l.includes(`Which color for ${label}?`));
  assert.ok(line, run.stdout);
  assert.match(line, /ask_user@1\.0\.0 {2}done /);
  assert.match(line, /answer "blue"/);
  if (era === 'modern') assert.match(line, /\(by mcp retry\)/);
}

describe('toolgate mcp: ask_user and approvals, 2026-07-28 by retry and 2025-11-25 by elicitation, over stdio and HTTP', () => {
  let folders: ReturnType<typeof mcpFolders>;
  const clients: Client[] = [];
  before(() => {
    folders = mcpFolders('toolgate-ask-matrix-');
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    fs.rmSync(folders.root, { recursive: true, force: true });
  });

  for (const era of ['modern', 'legacy'] as const) {
    test(`over stdio, a ${era === 'modern' ? '2026-07-28' : '2025-11-25'} client`, async () => {
      const asked: string[] = [];
      const client = newClient(era, asked);
      clients.push(client);
      const state = path.join(folders.root, `stdio-${era}`);
      const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', folders.ws, '--state-dir', state], stderr: 'pipe', env }));
      await exercise(client, era, asked, folders.ws, `stdio-${era}`);
      await client.close();
      await traced(folders.ws, state, `stdio-${era}`, era);
    });
  }

  describe('over HTTP', () => {
    const sharedToken = randomBytes(24).toString('base64url');
    let served: HttpCommand;
    let state: string;
    before(async () => {
      state = path.join(folders.root, 'http');
      served = await startHttpCommand(['--workspace', folders.ws, '--state-dir', state], { ...process.env, TOOLGATE_MCP_TOKEN: sharedToken });
    });
    after(async () => {
      if (served !== undefined && served.child.exitCode === null) {
        const exited = new Promise((resolve) => served.child.once('exit', resolve));
        served.child.kill('SIGTERM');
        await exited;
      }
    });

    test('two processes on one state folder: ask_user asked through one is answered by the retry sent to the other', async () => {
      // Both processes behind one token, as instances behind a load balancer are: a
      // requestState counts only for the requestor (the token) it was given to.
      const other = await startHttpCommand(['--workspace', folders.ws, '--state-dir', state], { ...process.env, TOOLGATE_MCP_TOKEN: sharedToken });
      try {
        const asked: string[] = [];
        const client = newClient('modern', asked);
        clients.push(client);
        const routes = [served, other];
        let turn = 0;
        // Every request to the next process in turn: the retry lands on the other one.
        const fetchVia = (_url: string | URL | Request, init?: RequestInit) => {
          const to = routes[turn++ % 2]!;
          return fetch(to.url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${sharedToken}` } });
        };
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { fetch: fetchVia as typeof fetch }));
        const answered = (await client.callTool({ name: 'ask_user', arguments: { question: 'Which color for two-processes?', choices: ['red', 'blue'] } })) as CallToolResult;
        assert.notEqual(answered.isError, true, text(answered));
        assert.equal(text(answered), 'blue');
        assert.equal(asked.length, 1);
        await traced(folders.ws, state, 'two-processes', 'modern');
      } finally {
        const exited = new Promise((resolve) => other.child.once('exit', resolve));
        other.child.kill('SIGTERM');
        await exited;
      }
    });

    for (const era of ['modern', 'legacy'] as const) {
      test(`a ${era === 'modern' ? '2026-07-28' : '2025-11-25'} client`, async () => {
        const asked: string[] = [];
        const client = newClient(era, asked);
        clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${sharedToken}` } } }));
        await exercise(client, era, asked, folders.ws, `http-${era}`);
        await traced(folders.ws, state, `http-${era}`, era);
      });
    }
  });
});
