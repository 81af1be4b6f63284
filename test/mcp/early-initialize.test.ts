/**
 * `toolgate mcp` over stdio answers `initialize` before the MCP SDK loads: the answer must be
 * the one the SDK's server gives, exactly once, and nothing the client sent may be lost.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
// The server side is SDK v2's (what toolgate mcp runs); the client above is a 2025 one (SDK v1).
import { InMemoryTransport, LATEST_PROTOCOL_VERSION as SDK_LATEST, Server, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED, type JSONRPCMessage } from '@modelcontextprotocol/server';
import {
  LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, initializeResult, readFirstMessage, replayInitialize, serverIdentity, type InitializeRequest,
} from '../../src/mcp/early-initialize.js';
import { SERVED_PROTOCOL_VERSIONS } from '../../src/mcp/protocol-server.js';
import { BIN, FIXTURES_DIR, tempWorkspace } from '../helpers.js';

const initialize = (id: number | string, protocolVersion: string): InitializeRequest => ({
  jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'early-test', version: '1.0.0' } },
});

/** Every JSON line the process wrote, until `until` says enough or 20 s pass. */
function linesOf(child: ChildProcessWithoutNullStreams, until: (lines: Record<string, unknown>[]) => boolean): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no complete answer; got ${JSON.stringify(lines).slice(0, 800)}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>);
        buffer = buffer.slice(newline + 1);
      }
      if (until(lines)) {
        clearTimeout(timer);
        resolve(lines);
      }
    });
  });
}

describe('the early answer to initialize', () => {
  const tmp = tempWorkspace();
  const children: ChildProcessWithoutNullStreams[] = [];
  after(() => {
    for (const child of children) child.kill('SIGKILL');
    tmp.cleanup();
  });

  function start(args: string[] = []): { child: ChildProcessWithoutNullStreams; stderr: () => string } {
    const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', tmp.ws, ...args], { stdio: 'pipe', env: process.env });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return { child, stderr: () => stderr };
  }

  test('names the same protocol revisions as the MCP SDK', () => {
    assert.equal(LATEST_PROTOCOL_VERSION, SDK_LATEST);
    assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_SUPPORTED]);
  });

  test('is what the SDK server answers, for a known, an older and an unknown revision', async () => {
    for (const tasks of [true, false]) {
      const identity = serverIdentity(tasks);
      for (const version of [SDK_LATEST, '2024-11-05', '1999-01-01']) {
        const server = new Server(identity.serverInfo, { capabilities: identity.capabilities, instructions: identity.instructions, supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS] });
        const [ours, theirs] = InMemoryTransport.createLinkedPair();
        await server.connect(theirs);
        const answer = new Promise<JSONRPCMessage>((resolve) => (ours.onmessage = resolve));
        await ours.start();
        await ours.send(initialize(7, version) as unknown as JSONRPCMessage);
        const got = (await answer) as { result: unknown };
        assert.deepEqual(got.result, initializeResult(initialize(7, version), identity), `tasks ${tasks}, revision ${version}`);
        await server.close();
      }
    }
  });

  test('a replayed initialize whose SDK answer differs is reported, and never sent twice', async () => {
    const sent: JSONRPCMessage[] = [];
    const inner = { start: async () => undefined, close: async () => undefined, send: async (m: JSONRPCMessage) => void sent.push(m) };
    const mismatches: string[] = [];
    const transport = replayInitialize(inner, initialize(1, SDK_LATEST), serverIdentity(false), (detail) => mismatches.push(detail));
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => void received.push(m);
    await transport.start();
    assert.equal((received[0] as { method?: string }).method, 'initialize', 'the server is handed the request first');
    await transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05' } } as JSONRPCMessage);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);
    assert.equal(mismatches.length, 1);
    assert.match(mismatches[0]!, /2024-11-05/);
    assert.equal(sent.length, 1, 'only a later message with the same id goes out');
  });

  test('reading the first line keeps every byte after it, however the input is split', async () => {
    const stdin = new PassThrough();
    const reading = readFirstMessage(stdin);
    const text = `${JSON.stringify(initialize(1, SDK_LATEST))}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;
    for (let i = 0; i < text.length; i += 7) stdin.write(text.slice(i, i + 7));
    const first = await reading;
    assert.equal(first.initialize?.id, 1);
    stdin.end('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    let rest = '';
    for await (const chunk of first.rest) rest += String(chunk);
    assert.equal(rest, '{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');

    const other = new PassThrough();
    const notInitialize = readFirstMessage(other);
    other.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const read = await notInitialize;
    assert.equal(read.initialize, undefined, 'another first message is left to the SDK');
    let all = '';
    for await (const chunk of read.rest) all += String(chunk);
    assert.equal(all, '{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  });

  test('toolgate mcp answers initialize once, then the rest of one write: initialized, tools/list, ping', async () => {
    const { child, stderr } = start();
    // JSON-RPC answers may come in any order (ping is answered before the longer tools/list).
    const lines = linesOf(child, (got) => got.some((l) => l.id === 3) && got.some((l) => l.id === 2));
    child.stdin.write([
      JSON.stringify(initialize(1, '2025-06-18')),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    ].join('\n') + '\n');
    const got = await lines;
    assert.equal(got.filter((l) => l.id === 1).length, 1, 'one answer to initialize');
    const init = got.find((l) => l.id === 1) as { result: { protocolVersion: string; capabilities: { tasks?: unknown } } };
    assert.equal(init.result.protocolVersion, '2025-06-18');
    assert.ok(init.result.capabilities.tasks, 'with the ledger (the default), the server keeps tasks');
    const list = got.find((l) => l.id === 2) as { result: { tools: { name: string }[] } };
    assert.ok(list.result.tools.some((t) => t.name === 'read_file'));
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    assert.doesNotMatch(stderr(), /mcp_early_initialize_mismatch|differs from the MCP SDK/);
  });

  test('a first line that is not an initialize is left to the SDK (garbage is dropped), and the server goes on', async () => {
    const { child } = start(['--no-ledger']);
    const lines = linesOf(child, (got) => got.some((l) => l.id === 5));
    child.stdin.write('this is not json\n');
    child.stdin.write(`${JSON.stringify(initialize(4, SDK_LATEST))}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' })}\n`);
    const got = await lines;
    const init = got.find((l) => l.id === 4) as { result: { capabilities: { tasks?: unknown } } };
    assert.equal(init.result.capabilities.tasks, undefined, 'without a ledger there are no tasks');
    assert.equal(got.filter((l) => l.id === 4).length, 1);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  });

  test('after the early answer, SIGTERM stops an idle server whose client keeps stdin open', async () => {
    const { child } = start(['--no-ledger']);
    const lines = linesOf(child, (got) => got.some((l) => l.id === 2));
    child.stdin.write(`${JSON.stringify(initialize(1, SDK_LATEST))}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await lines;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    // stdin stays open: before the fix the piped stdin kept the server alive until it closed.
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000))]);
    assert.equal(code, 0);
  });

  test('a server that fails to start after the early answer exits with code 2 while its client keeps stdin open', async () => {
    const { child, stderr } = start(['--tools', FIXTURES_DIR, '--schemas', path.join(tmp.root, 'no-such-schemas.json')]);
    const lines = linesOf(child, (got) => got.length >= 1);
    child.stdin.write(`${JSON.stringify(initialize(1, SDK_LATEST))}\n`);
    assert.equal((await lines)[0]!.id, 1, 'initialize was answered early');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Before the fix it stayed alive on the open stdin, and the client waited for ever.
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000))]);
    assert.equal(code, 2, stderr());
    assert.match(stderr(), /no-such-schemas\.json/);
  });

  test('the SDK client connects and calls a tool through the early answer', async () => {
    fs.writeFileSync(path.join(tmp.ws, 'early.txt'), 'answered early\n');
    const client = new Client({ name: 'early-client', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws], stderr: 'pipe', env: process.env as Record<string, string> });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'toolgate');
      const read = (await client.callTool({ name: 'read_file', arguments: { filepath: 'early.txt' } })) as CallToolResult;
      assert.equal((read.content[0] as { text: string }).text, 'answered early\n');
    } finally {
      await client.close();
    }
    assert.doesNotMatch(stderr, /mcp_early_initialize_mismatch|differs from the MCP SDK/);
  });
});
