/**
 * Chaining: toolgate bridges another toolgate's MCP server: from code, in process over the SDK's
 * in-memory transport (the servers `toolgate mcp --tag fs` and `toolgate mcp --tool write_file
 * --yes` serve), and from the CLI through a `toolgate.config.json` naming a real
 * `toolgate mcp` (stdio).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMcpServer, loadBuiltinTools, loadPortedTools, McpBridge, ToolExecutor, ToolRegistry, ToolSystem } from 'toolgate';
import { BIN, inMemoryTransport, runCli, tempWorkspace } from '../helpers.js';

describe('toolgate bridging toolgate', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  let registry: ToolRegistry;
  let bridge: McpBridge;
  let executor: ToolExecutor;
  let inner: ToolSystem;

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'inner.txt'), 'read through two toolgates\n');
    // The inner toolgate: the registry and tool system `toolgate mcp` builds, and one server per
    // config entry with the options its flags give.
    const { registry: innerRegistry } = await loadBuiltinTools();
    await loadPortedTools(innerRegistry);
    inner = new ToolSystem({ registry: innerRegistry, workspace: tmp.ws, executor: { outputStore: false } });
    const inProcess = new Map([
      ['inner', await inMemoryTransport(createMcpServer({ system: inner, workspaceRoot: tmp.ws, tags: ['fs'] }))],
      ['inner_yes', await inMemoryTransport(createMcpServer({ system: inner, workspaceRoot: tmp.ws, tools: ['write_file'], yes: true }))],
    ]);
    registry = new ToolRegistry();
    bridge = await McpBridge.connect(
      registry,
      {
        inner: { command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--tag', 'fs'], trusted: true },
        inner_yes: { command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--tool', 'write_file', '--yes'], requiresConfirmation: false },
      },
      { transportFor: (name) => inProcess.get(name) },
    );
    executor = new ToolExecutor(registry, { outputStore: false, workspaceRoot: tmp.ws });
  });

  after(async () => {
    await executor?.close();
    await bridge?.close();
    await inner?.close();
    tmp.cleanup();
  });

  test('the inner tools appear with their schemas and, from a trusted server, their read-only flag', () => {
    for (const s of bridge.status()) assert.equal(s.state, 'connected', `${s.name}: ${s.error}`);
    assert.deepEqual(bridge.proxyNames('inner'), ['inner__list_files', 'inner__read_file', 'inner__read_pdf', 'inner__write_file']);
    assert.deepEqual(bridge.proxyNames('inner_yes'), ['inner_yes__write_file']);
    assert.equal(registry.get('inner__read_file')!.readOnly, true);
    assert.equal(registry.get('inner__write_file')!.readOnly, false);
    assert.equal(registry.get('inner__read_file')!.kind, 'mcp_read');
    assert.equal(registry.get('inner__write_file')!.kind, 'mcp_write_or_unknown');
    assert.ok((registry.get('inner__read_file')!.inputSchema.properties as Record<string, unknown>).filepath);
  });

  test('a read passes both toolgates', async () => {
    const r = await executor.call('inner__read_file', { filepath: 'inner.txt' }, { mode: 'explore' });
    assert.equal(r.success, true, r.output);
    assert.match(r.output, /read through two toolgates/);
  });

  test('the outer gates apply: a write is denied in explore mode before it reaches the inner server', async () => {
    const r = await executor.call('inner_yes__write_file', { filepath: 'outer-denied.txt', content: 'x' }, { mode: 'explore' });
    assert.equal(r.errorCode, 'MODE_DENIED');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'outer-denied.txt')), false);
  });

  test('the inner gates apply too: without --yes the inner server denies the write and says how to allow it', async () => {
    // The outer toolgate asks first (a bridged writing tool needs confirmation by default);
    // confirmed there, the call reaches the inner toolgate, which asks again and cannot.
    const outer = await executor.call('inner__write_file', { filepath: 'inner-denied.txt', content: 'x' });
    assert.equal(outer.errorCode, 'CONFIRMATION_REQUIRED');
    const r = await executor.call('inner__write_file', { filepath: 'inner-denied.txt', content: 'x' }, { confirm: true });
    assert.equal(r.errorCode, 'TOOL_ERROR');
    assert.match(r.output, /--yes/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'inner-denied.txt')), false);
    const ok = await executor.call('inner_yes__write_file', { filepath: 'chained.txt', content: 'written by the inner toolgate' });
    assert.equal(ok.success, true, ok.output);
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'chained.txt'), 'utf8'), 'written by the inner toolgate');
  });
});

describe('the CLI bridges the servers of toolgate.config.json', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  before(() => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'inner.txt'), 'seen by the CLI\n');
    fs.writeFileSync(
      path.join(tmp.ws, 'toolgate.config.json'),
      JSON.stringify({ mcpServers: { inner: { command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--tool', 'read_file'], trusted: true } } }),
    );
  });
  after(() => tmp.cleanup());

  test('toolgate call and toolgate list see the bridged tools', async () => {
    const called = await runCli(['call', 'inner__read_file', '{"filepath":"inner.txt"}', '--workspace', tmp.ws, '--config', path.join(tmp.ws, 'toolgate.config.json'), '--mode', 'explore']);
    assert.equal(called.code, 0, called.stderr);
    assert.match(called.stdout, /seen by the CLI/);
    const listed = await runCli(['list', '--config', path.join(tmp.ws, 'toolgate.config.json'), '--tag', 'mcp']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /inner__read_file\s+0\.1\.0\s+mcp_read\s+read/);
  });

  test("a workspace's own config file starts nothing unless named with --config (it would run a cloned repository's commands)", async () => {
    const dir = fs.mkdtempSync(path.join(tmp.root, 'cloned-'));
    const marker = path.join(tmp.root, 'config-ran-a-command');
    fs.writeFileSync(path.join(dir, 'toolgate.config.json'), JSON.stringify({ mcpServers: { x: { command: 'sh', args: ['-c', `echo pwned > ${marker}`] } } }));
    const listed = await runCli(['list', '--tag', 'fs'], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stderr, /toolgate\.config\.json was not read; to bridge its MCP servers, name it: --config /);
    const called = await runCli(['call', 'list_files', '{}', '--workspace', dir], { cwd: dir });
    assert.equal(called.code, 0, called.stderr);
    assert.equal(fs.existsSync(marker), false, 'no server of the unnamed config was started');
  });

  test('a malformed config file is a usage error naming the field', async () => {
    const bad = path.join(tmp.root, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ mcpServers: { inner: { command: 'x', bogus: 1 } } }));
    const r = await runCli(['list', '--config', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /mcpServers\.inner has an unknown field "bogus"/);
  });
});
