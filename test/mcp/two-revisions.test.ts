/**
 * `toolgate mcp` serves MCP 2026-07-28 and 2025-11-25 on one endpoint, over stdio and over
 * HTTP (issue 33, items 1 and 2): the SDK v2 client pinned to 2026-07-28 (`server/discover`,
 * `_meta` on every request, the HTTP headers) and the same client in its default 2025 mode
 * (`initialize`, a session) see the same tools, pages and results. The served list is longer
 * than one page: a bridged fixture server adds 152 tools to the built-in ones.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, FIXTURES_DIR } from '../helpers.js';
import { mcpFolders, startHttpCommand, type HttpCommand } from './http-command.js';

const MODERN = '2026-07-28';
type Era = 'modern' | 'legacy';

function newClient(era: Era): Client {
  return new Client({ name: `two-revisions-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The same checks for either era and transport: discover, every page of tools/list, a bad cursor, calls. */
async function exercise(client: Client, era: Era): Promise<void> {
  if (era === 'modern') {
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const discovered = await client.discover();
    assert.ok(discovered.supportedVersions.includes(MODERN), JSON.stringify(discovered));
    assert.ok(discovered.capabilities.tools !== undefined, JSON.stringify(discovered.capabilities));
    // 2025-11-25 tasks are not offered to a 2026-07-28 client (the tasks extension is later work).
    assert.equal((discovered.capabilities as Record<string, unknown>).tasks, undefined);
    assert.match(discovered.instructions ?? '', /gates/);
  } else {
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  }
  // Every page: 100 tools each, linked by an opaque cursor, no tool twice.
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    // The first page by hand: the client's listTools() without a cursor walks every page itself.
    const page = cursor === undefined ? await client.request({ method: 'tools/list', params: {} }) : await client.listTools({ cursor });
    pages++;
    if (page.nextCursor !== undefined) assert.equal(page.tools.length, 100);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages < 10);
  assert.ok(pages >= 2, `${names.length} tools in ${pages} page(s)`);
  assert.equal(new Set(names).size, names.length, 'a tool listed twice');
  for (const name of ['read_file', 'many__echo', 'many__fail', 'many__tool_000', 'many__tool_149']) assert.ok(names.includes(name), name);
  // The client's own walk over the pages finds the same tools.
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), names);
  // A cursor this server did not give is a JSON-RPC -32602 that says so.
  await assert.rejects(client.listTools({ cursor: 'not-a-cursor' }), (error: Error & { code?: number }) => {
    assert.equal(error.code, -32602);
    assert.match(error.message, /Invalid cursor/);
    return true;
  });
  // A call through the gates and the bridge, and two failures the model can read.
  const echoed = (await client.callTool({ name: 'many__echo', arguments: { text: `hello ${era}` } })) as CallToolResult;
  assert.notEqual(echoed.isError, true, text(echoed));
  assert.match(text(echoed), new RegExp(`hello ${era}`));
  const failed = (await client.callTool({ name: 'many__fail', arguments: {} })) as CallToolResult;
  assert.equal(failed.isError, true);
  assert.match(text(failed), /failed on purpose/);
  const missing = (await client.callTool({ name: 'read_file', arguments: { filepath: 'no-such-file.txt' } })) as CallToolResult;
  assert.equal(missing.isError, true);
  assert.equal(typeof missing._meta?.['toolgate/errorCode'], 'string');
  // An unknown tool is a protocol error on both revisions.
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
}

describe('toolgate mcp: 2026-07-28 and 2025-11-25 on one endpoint', () => {
  let folders: ReturnType<typeof mcpFolders>;
  let config: string;
  const clients: Client[] = [];
  before(() => {
    folders = mcpFolders('toolgate-two-revisions-');
    config = path.join(folders.root, 'toolgate.config.json');
    const many = { command: process.execPath, args: [path.join(FIXTURES_DIR, 'many-tools-server.js'), '150'], trusted: true, requiresConfirmation: false };
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { many } }));
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    fs.rmSync(folders.root, { recursive: true, force: true });
  });

  for (const era of ['modern', 'legacy'] as const) {
    test(`over stdio, a ${era === 'modern' ? '2026-07-28' : '2025-11-25'} client: discover, pages, calls`, async () => {
      const client = newClient(era);
      clients.push(client);
      const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', folders.ws, '--config', config], stderr: 'pipe', env }));
      await exercise(client, era);
    });
  }

  describe('over HTTP', () => {
    let served: HttpCommand;
    before(async () => {
      served = await startHttpCommand(['--workspace', folders.ws, '--config', config]);
    });
    after(() => {
      served?.child.kill('SIGTERM');
    });
    const transport = () => new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });

    for (const era of ['modern', 'legacy'] as const) {
      test(`a ${era === 'modern' ? '2026-07-28' : '2025-11-25'} client: discover, pages, calls`, async () => {
        const client = newClient(era);
        clients.push(client);
        await client.connect(transport());
        await exercise(client, era);
      });
    }

    test('a 2026-07-28 request: resultType and cache fields, no session, and headers checked against the body', async () => {
      const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) => fetch(served.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${served.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN, 'mcp-method': String(body.method), ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
      });
      const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
      const listed = await post({ method: 'tools/list', params: { _meta: envelope } });
      assert.equal(listed.status, 200);
      assert.equal(listed.headers.get('mcp-session-id'), null);
      const page = (await listed.json()) as { result: { resultType?: string; ttlMs?: number; cacheScope?: string; tools: unknown[]; nextCursor?: string } };
      assert.equal(page.result.resultType, 'complete');
      assert.equal(page.result.cacheScope, 'private');
      assert.equal(typeof page.result.ttlMs, 'number');
      assert.equal(page.result.tools.length, 100);
      assert.equal(typeof page.result.nextCursor, 'string');
      // The Mcp-Method header must name the body's method.
      const mismatch = await post({ method: 'tools/list', params: { _meta: envelope } }, { 'mcp-method': 'tools/call' });
      assert.notEqual(mismatch.status, 200);
      // Without the envelope, a request that names 2026-07-28 in its header is refused.
      const bare = await post({ method: 'tools/list', params: {} });
      assert.notEqual(bare.status, 200);
    });
  });
});
