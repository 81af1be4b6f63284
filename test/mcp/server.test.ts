/**
 * Our MCP server driven by the official SDK `Client`: listing, read-only and writing calls with
 * and without consent (elicitation), invalid arguments (`isError`), unknown tools and malformed
 * requests (protocol errors, SEP-1303). The server `toolgate mcp` builds (builtin and ported
 * tools, one executor) runs in process, reached over the SDK's in-memory transport and over
 * streamable HTTP on loopback (`serveHttp`, with its DNS-rebinding check); the command itself
 * is spawned over stdio for its flags.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, loadBuiltinTools, loadPortedTools, serveHttp, serveStdio, ToolSystem, type McpServerHandle } from 'toolgate';
import { startHttpCommand, transportTo } from './http-command.js';
import { BIN, inMemoryTransport, tempWorkspace } from '../helpers.js';

type Consent = 'none' | 'accept' | 'decline';

/** A client that supports form elicitation and answers with `consent` (or none at all). */
function newClient(consent: Consent, asked: string[] = []): Client {
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: consent === 'none' ? {} : { elicitation: { form: {} } } });
  if (consent !== 'none') {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return consent === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
  }
  return client;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The tool system `toolgate mcp` serves: builtin and ported tools, no output store (one for the file). */
let system: ToolSystem;

before(async () => {
  const { registry } = await loadBuiltinTools();
  await loadPortedTools(registry);
  // No ledger: a question nobody can answer is refused at once (with a ledger it would wait for
  // an answer from elsewhere, in the user's default state folder).
  system = new ToolSystem({ registry, ledger: false, executor: { outputStore: false } });
});

after(async () => {
  await system?.close();
});

for (const kind of ['in-memory', 'http'] as const) {
  describe(`the MCP server over ${kind === 'http' ? 'streamable HTTP' : 'the in-memory transport'}`, () => {
    let tmp: ReturnType<typeof tempWorkspace>;
    let httpServer: (McpServerHandle & { url: string; token: string | undefined }) | undefined;
    const clients: Client[] = [];

    async function connect(consent: Consent, asked?: string[]): Promise<Client> {
      const client = newClient(consent, asked);
      if (kind === 'in-memory') {
        // One server per client, as `toolgate mcp` over stdio has.
        await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws })));
      } else {
        // The token serveHttp made (every bind makes one): every request carries it.
        await client.connect(new StreamableHTTPClientTransport(new URL(httpServer!.url), { requestInit: { headers: { authorization: `Bearer ${httpServer!.token}` } } }));
      }
      clients.push(client);
      return client;
    }

    before(async () => {
      tmp = tempWorkspace();
      fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'served over MCP\n');
      if (kind === 'http') httpServer = await serveHttp({ system, workspaceRoot: tmp.ws });
    });

    after(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await httpServer?.close();
      tmp.cleanup();
    });

    test('lists tools with schemas and annotations from our flags', async () => {
      const client = await connect('none');
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      const read = byName.get('read_file')!;
      assert.equal(read.inputSchema.type, 'object');
      assert.ok(read.inputSchema.properties?.filepath);
      assert.deepEqual(read.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false });
      assert.equal(byName.get('write_file')!.annotations!.destructiveHint, true);
      assert.equal(byName.get('web_search')!.annotations!.openWorldHint, true);
      assert.equal(byName.get('file_info')!.outputSchema?.type, 'object');
      assert.deepEqual(read._meta, { 'toolgate/kind': 'file_read' }, 'the action kind rides in _meta');
      assert.deepEqual(byName.get('write_file')!._meta, { 'toolgate/kind': 'file_write' });
    });

    test('calls a read-only tool', async () => {
      const client = await connect('none');
      const result = (await client.callTool({ name: 'read_file', arguments: { filepath: 'notes.txt' } })) as CallToolResult;
      assert.notEqual(result.isError, true, text(result));
      assert.match(text(result), /served over MCP/);
    });

    test('a tool with an output schema answers with structuredContent', async () => {
      const client = await connect('none');
      const result = (await client.callTool({ name: 'file_info', arguments: { filepath: 'notes.txt' } })) as CallToolResult;
      assert.notEqual(result.isError, true, text(result));
      assert.equal((result.structuredContent as { filepath?: string }).filepath, 'notes.txt');
    });

    test('a write that needs confirmation is denied, naming --yes, when the client cannot be asked', async () => {
      const client = await connect('none');
      const result = (await client.callTool({ name: 'write_file', arguments: { filepath: 'denied.txt', content: 'x' } })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.match(text(result), /--yes/);
      assert.equal(result._meta?.['toolgate/errorCode'], 'CONFIRMATION_REQUIRED');
      assert.equal(fs.existsSync(path.join(tmp.ws, 'denied.txt')), false);
    });

    test('a write runs when the user accepts the elicitation', async () => {
      const asked: string[] = [];
      const client = await connect('accept', asked);
      const result = (await client.callTool({ name: 'write_file', arguments: { filepath: 'accepted.txt', content: 'yes' } })) as CallToolResult;
      assert.notEqual(result.isError, true, text(result));
      assert.equal(fs.readFileSync(path.join(tmp.ws, 'accepted.txt'), 'utf8'), 'yes');
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /write_file/);
      assert.match(asked[0]!, /accepted\.txt/);
    });

    test('a write is refused when the user declines the elicitation', async () => {
      const client = await connect('decline');
      const result = (await client.callTool({ name: 'write_file', arguments: { filepath: 'declined.txt', content: 'no' } })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.equal(result._meta?.['toolgate/errorCode'], 'CONFIRMATION_DENIED');
      assert.equal(fs.existsSync(path.join(tmp.ws, 'declined.txt')), false);
    });

    test('invalid arguments are an isError result the model can read', async () => {
      const client = await connect('none');
      const result = (await client.callTool({ name: 'read_file', arguments: { filepath: 7 } })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.equal(result._meta?.['toolgate/errorCode'], 'INVALID_ARGUMENTS');
      assert.match(text(result), /filepath/);
    });

    test('an unknown tool is a protocol error (-32602)', async () => {
      const client = await connect('none');
      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, ErrorCode.InvalidParams);
        assert.match(error.message, /Unknown tool/);
        return true;
      });
    });

    if (kind === 'http') {
      test('requests naming another host are refused (DNS rebinding), and the server listens on loopback', async () => {
        const url = new URL(httpServer!.url);
        assert.equal(url.hostname, '127.0.0.1');
        const status = await new Promise<number>((resolve, reject) => {
          const req = http.request(
            { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${httpServer!.token}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
        });
        assert.equal(status, 403);
      });

      test('a request from a web page of another origin is refused before it reaches the server (DNS rebinding, simple requests)', async () => {
        const url = new URL(httpServer!.url);
        const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
        const post = (headers: Record<string, string>) => rawPost(url, headers, init);
        // With the server's token: what is refused here is refused for its origin alone.
        const browser = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${httpServer!.token}` };
        // A page elsewhere, with the server's own Host (what a rebinding or a plain cross-site form sends).
        const evil = await post({ ...browser, origin: 'http://evil.example' });
        assert.equal(evil.status, 403);
        assert.match(evil.body, /Origin http:\/\/evil\.example may not call this server/);
        assert.equal(evil.session, undefined, 'no session was made');
        // A text/plain POST needs no preflight in a browser: refused all the same.
        assert.equal((await post({ 'content-type': 'text/plain', accept: 'application/json, text/event-stream', origin: 'https://evil.example' })).status, 403);
        // "null" is what sandboxed frames and local files send.
        assert.equal((await post({ ...browser, origin: 'null' })).status, 403);
        // The server's own address is its own origin; no Origin at all is a client that is not a browser.
        const own = await post({ ...browser, origin: `http://${url.host}` });
        assert.equal(own.status, 200, own.body);
        assert.ok(own.session, 'initialize from the own origin made a session');
        const noOrigin = await post(browser);
        assert.equal(noOrigin.status, 200, noOrigin.body);
        assert.equal('id' in JSON.parse(evil.body), false, 'an error body has no id (null is not a RequestId)');
        // The session's other methods are refused the same way.
        for (const method of ['GET', 'DELETE']) {
          const status = await new Promise<number>((resolve, reject) => {
            const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers: { origin: 'http://evil.example', 'mcp-session-id': own.session!, accept: 'text/event-stream' } }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
            req.on('error', reject);
            req.end();
          });
          assert.equal(status, 403, method);
        }
      });
    }

    test('a malformed request (arguments not an object) is a protocol error', async () => {
      const client = await connect('none');
      await assert.rejects(client.request({ method: 'tools/call', params: { name: 'read_file', arguments: 'filepath=notes.txt' } } as never, CallToolResultSchema), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, ErrorCode.InvalidParams);
        return true;
      });
    });
  });
}

/** POST `body` to `url` with exactly these headers; the status, the body and the session id given. */
function rawPost(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; body: string; session: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, session: res.headers['mcp-session-id'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the MCP server over stdio: lines that are not JSON-RPC', () => {
  test('a read error of stdin ends the server as its end does; the process survives it', async () => {
    const tmp = tempWorkspace();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const handle = await serveStdio({ system, workspaceRoot: tmp.ws }, { stdin, stdout });
    try {
      stdin.emit('error', Object.assign(new Error('read EIO'), { code: 'EIO' }));
      await handle.closed;
    } finally {
      await handle.close();
      tmp.cleanup();
    }
  });

  for (const early of [false, true]) {
    test(`are answered -32700 / -32600 (with the id when one can be read), and the server reads on${early ? ' (initialize answered early)' : ''}`, async () => {
      const tmp = tempWorkspace();
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const lines: Array<Record<string, unknown>> = [];
      let buffered = '';
      stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          lines.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
          buffered = buffered.slice(nl + 1);
        }
      });
      const init = { jsonrpc: '2.0' as const, id: 1, method: 'initialize' as const, params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stdio-test', version: '1' } } };
      const handle = await serveStdio({ system, workspaceRoot: tmp.ws, ...(early ? { answered: init } : {}) }, { stdin, stdout });
      try {
        if (!early) stdin.write(`${JSON.stringify(init)}\n`);
        stdin.write('{not json\n');
        stdin.write('\n'); // blank: skipped
        stdin.write('{"jsonrpc":"2.0","id":2}\n'); // no method: an invalid request whose id can be read
        stdin.write('[1,2]\n');
        stdin.write('{"jsonrpc":"2.0","id":6,"method":"ping","extra":1}\n'); // what the SDK's schema refuses
        stdin.write('{"jsonrpc":"2.0","id":"r1","result":"not an object"}\n'); // a malformed response: never answered
        // A character split between two chunks arrives whole (the answer echoes the id it is in).
        const split = Buffer.from('{"jsonrpc":"2.0","id":"né","method":7}\n');
        const at = split.indexOf(Buffer.from('é')) + 1;
        stdin.write(split.subarray(0, at));
        stdin.write(split.subarray(at));
        stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
        // A line over the SDK's 10 MiB limit is skipped to its end, answered once.
        const mib = 'x'.repeat(1024 * 1024);
        for (let i = 0; i < 11; i++) stdin.write(mib);
        stdin.write('\n');
        stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
        const deadline = Date.now() + 10_000;
        while (!lines.some((l) => l.id === 3) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        const errors = lines.filter((l) => l.error !== undefined);
        assert.deepEqual(errors.map((l) => [(l.error as { code: number }).code, l.id]), [[-32700, undefined], [-32600, 2], [-32600, undefined], [-32600, 6], [-32600, 'né'], [-32600, undefined]], JSON.stringify(lines).slice(0, 2000));
        assert.match((errors[5]!.error as { message: string }).message, /longer than 10485760 characters/);
        for (const l of errors) assert.equal(l.jsonrpc, '2.0');
        assert.equal('id' in errors[0]!, false, 'no id could be read: none is sent (not null)');
        assert.match((errors[0]!.error as { message: string }).message, /^Parse error: a line of input is not JSON/);
        assert.deepEqual(lines.find((l) => l.id === 8), { jsonrpc: '2.0', id: 8, result: {} });
        assert.deepEqual(lines.find((l) => l.id === 3), { jsonrpc: '2.0', id: 3, result: {} }, 'the server read on');
        assert.equal(lines.some((l) => l.id === 'r1'), false, 'a response is never answered');
        if (!early) assert.ok(lines.some((l) => l.id === 1 && l.result !== undefined), 'initialize was answered');
      } finally {
        await handle.close();
        tmp.cleanup();
      }
    });
  }
});

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('the toolgate mcp command: its flags, over stdio and over HTTP', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  const clients: Client[] = [];
  before(() => {
    tmp = tempWorkspace();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    tmp.cleanup();
  });

  async function connect(args: string[]): Promise<Client> {
    const client = newClient('none');
    // The SDK passes the child only a few variables: add the test's state folder, so that the
    // server's call ledger is not written in the user's.
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, ...args], stderr: 'pipe', env }));
    clients.push(client);
    return client;
  }

  test('--yes approves, --mode explore still denies writes, --tag narrows the list, a read answers', async () => {
    // Both servers start together (each is a `toolgate mcp` process).
    const [yes, explore] = await Promise.all([connect(['--yes', '--tag', 'fs']), connect(['--yes', '--mode', 'explore'])]);
    const { tools } = await yes.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['list_files', 'read_file', 'read_pdf', 'write_file']);
    const written = (await yes.callTool({ name: 'write_file', arguments: { filepath: 'yes.txt', content: 'ok' } })) as CallToolResult;
    assert.notEqual(written.isError, true, text(written));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'yes.txt'), 'utf8'), 'ok');
    const read = (await yes.callTool({ name: 'read_file', arguments: { filepath: 'yes.txt' } })) as CallToolResult;
    assert.equal(text(read), 'ok');
    // A tool outside the visible set is unknown to this server.
    await assert.rejects(yes.callTool({ name: 'delete_file', arguments: { filepath: 'yes.txt' } }), { code: ErrorCode.InvalidParams });

    const denied = (await explore.callTool({ name: 'write_file', arguments: { filepath: 'explore.txt', content: 'no' } })) as CallToolResult;
    assert.equal(denied.isError, true);
    assert.equal(denied._meta?.['toolgate/errorCode'], 'MODE_DENIED');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'explore.txt')), false);
  });

  test('toolgate mcp --http serves on loopback: a client lists the tools and calls one, SIGTERM stops it', async () => {
    fs.writeFileSync(path.join(tmp.ws, 'over-http.txt'), 'served by the command over HTTP\n');
    const served = await startHttpCommand(['--workspace', tmp.ws]);
    const { child, url } = served;
    try {
      assert.equal(new URL(url).hostname, '127.0.0.1');
      assert.match(served.token ?? '', /^[A-Za-z0-9_-]{32}$/, 'a token made at start, printed on stderr');
      const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      assert.equal(refused.status, 401, 'a request without the token');
      const client = newClient('none');
      await client.connect(transportTo(served));
      clients.push(client);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'read_file'));
      const read = (await client.callTool({ name: 'read_file', arguments: { filepath: 'over-http.txt' } })) as CallToolResult;
      assert.notEqual(read.isError, true, text(read));
      assert.match(text(read), /served by the command over HTTP/);
    } finally {
      await stopChild(child);
    }
    assert.equal(child.exitCode, 0);
  });
});
