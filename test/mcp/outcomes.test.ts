/**
 * Outcomes through the MCP server (issue 19 item 2), driven by the SDK client over the
 * in-memory transport and through a spawned `toolgate mcp` over stdio: every result carries `toolgate/outcome`, `toolgate/sideEffects`, and
 * on failures `toolgate/errorClass` and `toolgate/retryAfterMs`, in `_meta`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMcpServer, ToolExecutionError, ToolRegistry, ToolSystem, type ToolOptions } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { BIN, inMemoryTransport, tempWorkspace } from '../helpers.js';

const INPUT = { type: 'object', properties: {}, additionalProperties: false };

describe('MCP results carry outcomes in _meta', () => {
  const tmp = tempWorkspace();
  let system: ToolSystem;
  let client: Client;
  before(async () => {
    const registry = new ToolRegistry();
    const add = (options: Omit<ToolOptions, 'version' | 'runner'>, run: () => string) => {
      const target = class { run() { return run(); } };
      registry.register(buildToolDescriptor({ ...options, version: '1.0.0', runner: 'main' }, target), { name: options.name, version: '1.0.0', description: options.name, className: 'T', source: 'test', inputSchema: INPUT, outputSchema: null }, { foreignSchemas: true });
    };
    add({ name: 'slow_source', kind: 'internal', readOnly: true, rateLimitRpm: 1 }, () => 'read');
    add({ name: 'busy_sink', kind: 'mcp_write_or_unknown' }, () => {
      throw new ToolExecutionError('the sink is busy', 'TRANSIENT');
    });
    system = new ToolSystem({ registry, workspace: tmp.ws, executor: { outputStore: false, sweepLeftovers: false, rateLimitMaxWaitMs: 0 } });
    const server = createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false });
    client = new Client({ name: 'outcomes', version: '1.0.0' }, { capabilities: {} });
    await client.connect(await inMemoryTransport(server));
  });
  after(async () => {
    await client.close();
    await system.close();
    tmp.cleanup();
  });

  test('a success, then a rate-limit refusal with retryAfterMs', async () => {
    const ok = await client.callTool({ name: 'slow_source', arguments: {} });
    assert.equal(ok.isError, undefined);
    assert.deepEqual(ok._meta, { 'toolgate/outcome': 'success', 'toolgate/sideEffects': 'none' });
    const refused = await client.callTool({ name: 'slow_source', arguments: {} });
    assert.equal(refused.isError, true);
    const meta = refused._meta as Record<string, unknown>;
    assert.equal(meta['toolgate/errorCode'], 'RATE_LIMITED');
    assert.equal(meta['toolgate/outcome'], 'recoverable');
    assert.equal(meta['toolgate/errorClass'], 'rate_limited');
    assert.equal(meta['toolgate/sideEffects'], 'none');
    const after = meta['toolgate/retryAfterMs'] as number;
    assert.ok(Number.isInteger(after) && after > 50_000 && after <= 60_000, `retryAfterMs ${after}: one call a minute`);
  });

  test('a transient failure of a tool that writes: recoverable, side effects possible', async () => {
    const failed = await client.callTool({ name: 'busy_sink', arguments: {} });
    assert.deepEqual(failed._meta, { 'toolgate/errorCode': 'TRANSIENT', 'toolgate/outcome': 'recoverable', 'toolgate/sideEffects': 'possible', 'toolgate/errorClass': 'transient' });
  });
});

describe('toolgate mcp over stdio: outcomes in _meta', () => {
  test('a read, a missing file, invalid arguments and a denied write each carry their outcome', async () => {
    const tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'here.txt'), 'present\n');
    const client = new Client({ name: 'outcomes-stdio', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--no-ledger', '--mode', 'explore'], stderr: 'pipe', env: process.env as Record<string, string> }));
    try {
      const meta = async (name: string, args: Record<string, unknown>) => ((await client.callTool({ name, arguments: args })) as { _meta?: Record<string, unknown> })._meta ?? {};
      const read = await meta('read_file', { filepath: 'here.txt' });
      assert.equal(read['toolgate/outcome'], 'success');
      assert.equal(read['toolgate/sideEffects'], 'none');
      const missing = await meta('read_file', { filepath: 'absent.txt' });
      assert.equal(missing['toolgate/outcome'], 'fatal');
      assert.equal(typeof missing['toolgate/errorClass'], 'string');
      const invalid = await meta('read_file', { filepath: 42 });
      assert.equal(invalid['toolgate/outcome'], 'fatal');
      assert.equal(invalid['toolgate/errorClass'], 'invalid_arguments');
      // Explore mode: a write is denied by the mode, fatal for the turn, nothing happened.
      const denied = await meta('write_file', { filepath: 'new.txt', content: 'x' });
      assert.equal(denied['toolgate/errorCode'], 'MODE_DENIED');
      assert.equal(denied['toolgate/outcome'], 'fatal');
      assert.equal(denied['toolgate/errorClass'], 'denied');
      assert.equal(denied['toolgate/sideEffects'], 'none');
      assert.equal(fs.existsSync(path.join(tmp.ws, 'new.txt')), false);
    } finally {
      await client.close();
      tmp.cleanup();
    }
  });
});

describe('toolgate mcp over stdio: every error result carries its outcome (s21)', () => {
  test('a workspace escape, a bad path, a policy denial, a missing file and a question nobody can answer', async () => {
    const tmp = tempWorkspace();
    fs.mkdirSync(path.join(tmp.ws, '.toolgate'));
    fs.writeFileSync(path.join(tmp.ws, '.toolgate', 'policy.toml'), '[[rules]]\npaths = ["secret.txt"]\naction = "deny"\n');
    fs.writeFileSync(path.join(tmp.ws, 'secret.txt'), 'hush\n');
    const env = { ...process.env, XDG_CONFIG_HOME: path.join(tmp.root, 'config') } as Record<string, string>;
    const client = new Client({ name: 'outcomes-errors', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--no-ledger'], stderr: 'pipe', env }));
    try {
      const meta = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; _meta?: Record<string, unknown> };
        assert.equal(result.isError, true, JSON.stringify(result));
        const m = result._meta ?? {};
        for (const key of ['toolgate/errorCode', 'toolgate/outcome', 'toolgate/sideEffects', 'toolgate/errorClass']) assert.equal(typeof m[key], 'string', `${name} ${JSON.stringify(args)}: ${key} in ${JSON.stringify(m)}`);
        return m;
      };
      // PATH_TRAVERSAL was built apart from every other result (the executor throws it) and carried only its code.
      assert.deepEqual(await meta('read_file', { filepath: '../outside.txt' }), { 'toolgate/errorCode': 'PATH_TRAVERSAL', 'toolgate/outcome': 'fatal', 'toolgate/sideEffects': 'none', 'toolgate/errorClass': 'denied' });
      assert.equal((await meta('write_file', { filepath: '/etc/passwd-not', content: 'x' }))['toolgate/errorCode'], 'PATH_TRAVERSAL');
      assert.equal((await meta('read_file', { filepath: '' }))['toolgate/sideEffects'], 'none');
      assert.equal((await meta('read_file', { filepath: 'secret.txt' }))['toolgate/errorCode'], 'POLICY_DENIED');
      assert.equal((await meta('read_file', { filepath: 'absent.txt' }))['toolgate/outcome'], 'fatal');
      // Worded by the server (no elicitation, no ledger: nobody can be asked).
      const asked = await meta('write_file', { filepath: 'new.txt', content: 'x' });
      assert.deepEqual(asked, { 'toolgate/errorCode': 'CONFIRMATION_REQUIRED', 'toolgate/outcome': 'fatal', 'toolgate/sideEffects': 'none', 'toolgate/errorClass': 'denied' });
      assert.equal(fs.existsSync(path.join(tmp.ws, 'new.txt')), false);
    } finally {
      await client.close();
      tmp.cleanup();
    }
  });
});
