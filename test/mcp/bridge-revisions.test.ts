/**
 * The bridge speaks both protocol revisions (issue 33, item 5) through SDK v2's client: a
 * server built with SDK v2 (test/fixtures/mcp-v2-server.ts) is bridged in 2026-07-28 over stdio
 * and over Streamable HTTP on loopback; a 2025-11-25 server (the SDK v1 fixture,
 * test/fixtures/mcp-fixture-server.ts) in 2025-11-25. In each: the tools are listed (the v2
 * server pages them two at a time: the cursor is followed), keep their `{server}__{tool}`
 * names and their kinds from the hints, and are called; a question the server asks reaches the
 * caller (2026: an "input required" result answered by the SDK's retry; 2025: an elicitation
 * request); progress reaches the caller. Through the CLI, a bridged 2026 call is recorded in
 * the ledger under its proxy name, and a server's limits (its timeout) still apply.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpBridge, ToolExecutor, ToolRegistry, type McpServerConfig } from 'toolgate';
import { checkMcpServers } from '../../src/mcp/config.js';
import { startV2HttpServer, type V2HttpServer } from '../fixtures/mcp-v2-server.js';
import { REPO_ROOT, runCli } from '../helpers.js';

const V2_FIXTURE = path.join(REPO_ROOT, 'dist/test/fixtures/mcp-v2-server.js');
const V1_FIXTURE = path.join(REPO_ROOT, 'dist/test/fixtures/mcp-fixture-server.js');
const V2_TOOLS = ['v2__ask', 'v2__echo', 'v2__era', 'v2__slow', 'v2__write_note'];

/** Bridge one server, run `body` with an executor over it, close both. */
async function withBridge(config: McpServerConfig, body: (bridge: McpBridge, executor: ToolExecutor, registry: ToolRegistry) => Promise<void>): Promise<void> {
  const registry = new ToolRegistry();
  const bridge = await McpBridge.connect(registry, { v2: { requiresConfirmation: false, trusted: true, ...config } as McpServerConfig });
  const executor = new ToolExecutor(registry, { outputStore: false });
  try {
    await body(bridge, executor, registry);
  } finally {
    await executor.close();
    await bridge.close();
  }
}

/** What every 2026-07-28 connection to the v2 fixture must show, whatever the transport. */
async function checkModern(bridge: McpBridge, executor: ToolExecutor, registry: ToolRegistry): Promise<void> {
  const [status] = bridge.status();
  assert.equal(status?.state, 'connected', status?.error);
  assert.equal(status?.protocolVersion, '2026-07-28');
  assert.deepEqual(status?.tools, V2_TOOLS, 'all five tools, from three pages');
  assert.equal(registry.get('v2__echo')?.kind, 'mcp_read', 'readOnlyHint of a trusted server');
  assert.equal(registry.get('v2__write_note')?.kind, 'mcp_write_or_unknown');

  const echo = await executor.call('v2__echo', { text: 'hi' });
  assert.equal(echo.output, 'echo: hi');
  const era = await executor.call('v2__era', {});
  assert.equal(era.output, 'era: modern', 'the server saw a 2026-07-28 request');

  const questions: string[] = [];
  const ask = await executor.call('v2__ask', {}, {
    client: {
      elicit: async (message) => {
        questions.push(message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  assert.equal(ask.success, true, ask.output);
  assert.equal(ask.output, 'hello Ada (input required, retried)');
  assert.deepEqual(questions, ['Who is asking?']);

  const progress: number[] = [];
  const slow = await executor.call('v2__slow', {}, { client: { progress: (done) => progress.push(done) } });
  assert.equal(slow.output, 'slow done');
  assert.ok(progress.length > 0, 'progress reached the caller');
  assert.ok(progress.every((p, i) => [1, 2, 3].includes(p) && (i === 0 || p > progress[i - 1]!)), `progress in order: ${progress.join(',')}`);
}

describe('bridging a 2026-07-28 server (SDK v2)', () => {
  test('over stdio: discovered as 2026-07-28; tools paged, named, kinded and called; a question is answered by a retry', async () => {
    await withBridge({ command: process.execPath, args: [V2_FIXTURE, 'stdio'] }, checkModern);
  });

  test('over stdio, a server that refuses 2025 clients is bridged all the same', async () => {
    await withBridge({ command: process.execPath, args: [V2_FIXTURE, 'stdio', 'modern-only'] }, async (bridge, executor) => {
      assert.equal(bridge.status()[0]?.protocolVersion, '2026-07-28');
      assert.equal((await executor.call('v2__echo', { text: 'strict' })).output, 'echo: strict');
    });
  });

  describe('over Streamable HTTP on loopback', () => {
    let both: V2HttpServer;
    let strict: V2HttpServer;
    before(async () => {
      both = await startV2HttpServer();
      strict = await startV2HttpServer({ modernOnly: true });
    });
    after(async () => {
      await both.close();
      await strict.close();
    });

    test('a server serving both revisions is spoken to in 2026-07-28', async () => {
      await withBridge({ url: both.url }, checkModern);
    });

    test('a server that refuses 2025 clients', async () => {
      await withBridge({ url: strict.url }, checkModern);
    });
  });
});

describe('bridging a 2025-11-25 server (SDK v1)', () => {
  test('over stdio: falls back to initialize; tools listed, named, kinded and called; an elicitation request reaches the caller', async () => {
    await withBridge({ command: process.execPath, args: [V1_FIXTURE, 'basic'] }, async (bridge, executor, registry) => {
      const [status] = bridge.status();
      assert.equal(status?.state, 'connected', status?.error);
      assert.equal(status?.protocolVersion, '2025-11-25');
      assert.ok(status?.tools.includes('v2__ping'));
      assert.equal(registry.get('v2__read_only')?.kind, 'mcp_read');
      assert.equal(registry.get('v2__echo_args')?.kind, 'mcp_write_or_unknown');
      assert.equal((await executor.call('v2__ping', {})).output, 'pong');
      const ask = await executor.call('v2__ask_name', {}, { client: { elicit: async () => ({ action: 'accept', content: { name: 'Ada' } }) } });
      assert.equal(ask.success, true, ask.output);
      assert.match(String(ask.output), /Ada/);
    });
  });
});

describe('a server whose config names its revision', () => {
  test('protocolVersion 2025-11-25: initialize at once; an SDK v2 server then serves it as a 2025 client (the era tool says legacy), and its question is an elicitation request', async () => {
    await withBridge({ command: process.execPath, args: [V2_FIXTURE, 'stdio'], protocolVersion: '2025-11-25' }, async (bridge, executor) => {
      assert.equal(bridge.status()[0]?.protocolVersion, '2025-11-25');
      assert.deepEqual(bridge.status()[0]?.tools, V2_TOOLS, 'the cursor is followed in 2025-11-25 too');
      assert.equal((await executor.call('v2__era', {})).output, 'era: legacy');
      const ask = await executor.call('v2__ask', {}, { client: { elicit: async () => ({ action: 'accept', content: { name: 'Bob' } }) } });
      assert.equal(ask.output, 'hello Bob (elicitation request)');
    });
  });

  test('protocolVersion 2026-07-28: a 2025-11-25 server fails to start, saying why; 2025-11-25: a server that refuses 2025 clients fails to start', async () => {
    await withBridge({ command: process.execPath, args: [V1_FIXTURE, 'basic'], protocolVersion: '2026-07-28' }, async (bridge) => {
      const [status] = bridge.status();
      assert.equal(status?.state, 'failed');
      assert.match(status?.error ?? '', /did not start/);
    });
    await withBridge({ command: process.execPath, args: [V2_FIXTURE, 'stdio', 'modern-only'], protocolVersion: '2025-11-25' }, async (bridge) => {
      assert.equal(bridge.status()[0]?.state, 'failed');
    });
  });

  test('auto: a stdio server that never answers the probe (nor any unknown request) is taken for a 2025-11-25 server when the probe times out', async () => {
    // Answers initialize, tools/list and tools/call; ignores everything else, server/discover included.
    const silent = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'silent', version: '1.0.0' } } });
        else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'hush', inputSchema: { type: 'object' } }] } });
        else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'shh' }] } });
      });`;
    await withBridge({ command: process.execPath, args: ['-e', silent], startTimeoutMs: 3000 }, async (bridge, executor) => {
      const [status] = bridge.status();
      assert.equal(status?.state, 'connected', status?.error);
      assert.equal(status?.protocolVersion, '2025-11-25');
      assert.equal((await executor.call('v2__hush', {})).output, 'shh');
    });
  });

  test('a protocolVersion that is not a revision is refused, naming the field', () => {
    assert.throws(() => checkMcpServers({ s: { command: 'x', protocolVersion: '2024-11-05' } }), /mcpServers\.s.*protocolVersion must be one of auto, 2025-11-25, 2026-07-28/);
  });
});

describe('the CLI bridging a 2026-07-28 server', () => {
  let root: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-revisions-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('a call is recorded in the ledger under its proxy name; a writing tool still asks for confirmation', async () => {
    const config = path.join(root, 'toolgate.config.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { v2: { command: process.execPath, args: [V2_FIXTURE, 'stdio'], trusted: true } } }));
    const env = { ...process.env, XDG_STATE_HOME: path.join(root, 'state') };
    const call = await runCli(['call', 'v2__echo', '{"text":"ledger"}', '--config', config, '--workspace', root, '--json'], { env });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /echo: ledger/);
    const write = await runCli(['call', 'v2__write_note', '{"text":"x"}', '--config', config, '--workspace', root, '--json'], { env, input: '' });
    assert.notEqual(write.code, 0, 'a writing tool of a bridged server is not run without confirmation');
    assert.match(write.stdout + write.stderr, /Confirmation required: v2__write_note/);
    const trace = await runCli(['trace', '--workspace', root, '--json'], { env });
    assert.equal(trace.code, 0, trace.stderr);
    const calls = JSON.parse(trace.stdout) as Array<{ tool: string; status: string }>;
    const echo = calls.find((c) => c.tool === 'v2__echo');
    assert.equal(echo?.status, 'ok');
  });
});
