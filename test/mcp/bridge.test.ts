/**
 * The MCP bridge: fixture servers (test/fixtures/mcp-fixture-server.ts) bridged into a
 * registry and called through the executor (cases T11, T12, T13, A1). Servers the test is not
 * about as processes are reached over the SDK's in-memory transport; those that exit, fail to
 * start or must be stopped by close() are real stdio processes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { McpBridge, ToolExecutor, ToolRegistry, loadBuiltinTools, type McpServerConfig } from 'toolgate';
import { BRIDGED_TOOL_NAME_PATTERN } from '../../src/decorators/tool.decorator.js';
import { toMcpTool } from '../../src/formats/mcp.js';
import { bridgedKind, MAX_BRIDGED_DESCRIPTION } from '../../src/mcp/bridged-tool.js';
import { assignProxyNames, serverPrefix } from '../../src/mcp/proxy-names.js';
import { createFixtureServer } from '../fixtures/mcp-fixture-server.js';
import { inMemoryTransport, REPO_ROOT } from '../helpers.js';
import { waitFor } from '../wait.js';

const FIXTURE = path.join(REPO_ROOT, 'dist/test/fixtures/mcp-fixture-server.js');

function fixture(scenario: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [FIXTURE, scenario], ...extra } as McpServerConfig;
}

/** A pino logger that keeps its JSON lines. */
function memoryLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('proxy names (T11)', () => {
  test('T11: names are {server}__{tool}, within 64 characters, deterministic and distinct', () => {
    const long = 'x'.repeat(80);
    const requests = [
      { server: 'a', prefix: 'a', tool: 'search' },
      { server: 'b', prefix: 'b', tool: 'search' },
      { server: 'a', prefix: 'a', tool: `${long}_1` },
      { server: 'a', prefix: 'a', tool: `${long}_2` },
      { server: 'a', prefix: 'a', tool: 'Search' },
      { server: 'a', prefix: 'a', tool: 'search-tool' },
      { server: 'a', prefix: 'a', tool: 'search_tool' },
    ];
    const names = assignProxyNames(requests);
    const again = assignProxyNames([...requests].reverse());
    assert.deepEqual([...names.entries()].sort(), [...again.entries()].sort());
    assert.equal(names.get('a\u0000search'), 'a__search');
    assert.equal(names.get('b\u0000search'), 'b__search');
    assert.equal(names.get('a\u0000search_tool'), 'a__search_tool');
    const all = [...names.values()];
    assert.equal(new Set(all).size, requests.length);
    for (const n of all) assert.match(n, BRIDGED_TOOL_NAME_PATTERN);
    // Kebab-case is valid for every provider: kept as it is (issue 18).
    assert.equal(names.get('a\u0000search-tool'), 'a__search-tool');
    assert.match(names.get('a\u0000Search')!, /^a__search_[0-9a-f]{8}$/);
  });

  test('T11: a name a native tool already holds is not taken', () => {
    const names = assignProxyNames([{ server: 'a', prefix: 'a', tool: 'search' }], (n) => n === 'a__search');
    assert.notEqual(names.get('a\u0000search'), 'a__search');
    assert.match(names.get('a\u0000search')!, /^a__search_[0-9a-f]{8,}$/);
  });

  test('server prefixes: lower case, no double or trailing underscore, start with a letter', () => {
    assert.equal(serverPrefix('Brave-Search'), 'brave_search');
    assert.equal(serverPrefix('my__server_'), 'my_server');
    assert.equal(serverPrefix('1password'), 's1password');
    assert.equal(serverPrefix('---'), undefined);
  });
});

describe('bridging fixture servers', () => {
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  let bridge: McpBridge;
  const log = memoryLogger();

  before(async () => {
    ({ registry } = await loadBuiltinTools());
    // In process: the servers of the naming, gating and progress cases (their config below is
    // what a stdio server would have; transportFor reaches them over the in-memory transport).
    const inProcess = new Map([
      ['names_a', await inMemoryTransport(await createFixtureServer('names-a'))],
      ['names-b', await inMemoryTransport(await createFixtureServer('names-b'))],
      ['basic', await inMemoryTransport(await createFixtureServer('basic'))],
    ]);
    bridge = await McpBridge.connect(
      registry,
      {
        // requiresConfirmation: false: these cases are about naming, gates other than
        // confirmation, progress and availability (the confirmation default has its own test).
        names_a: fixture('names-a', { trusted: true, requiresConfirmation: false }),
        'names-b': fixture('names-b', { requiresConfirmation: false }),
        basic: fixture('basic', { trusted: true, timeoutMs: 400, maxTotalTimeoutMs: 3000, requiresConfirmation: false }),
        untrusted: fixture('basic', { requiresConfirmation: false }), // a real process: its `die` exits it mid-session
        broken: { command: process.execPath, args: ['-e', 'process.stderr.write("cannot start: no config\\n"); process.exit(3)'] },
        missing: { command: path.join(REPO_ROOT, 'no-such-server-binary') },
      },
      { logger: log.logger, transportFor: (name) => inProcess.get(name) },
    );
    executor = new ToolExecutor(registry, { outputStore: false });
  });

  after(async () => {
    await executor.close();
    await bridge.close();
  });

  test('T11: two servers exposing search are both reachable as {server}__search', async () => {
    const a = await executor.call('names_a__search', {});
    const b = await executor.call('names_b__search', {});
    assert.equal(a.success, true, a.output);
    assert.equal(b.success, true, b.output);
    assert.equal(a.output, 'search called');
    const names = bridge.proxyNames();
    for (const n of names) assert.match(n, BRIDGED_TOOL_NAME_PATTERN);
    assert.ok(names.includes('names_a__search-tool'), 'a kebab-case name is kept');
    assert.equal(new Set(names).size, names.length);
    // Every fixture tool of both servers got a proxy, the long and colliding ones included.
    assert.equal(bridge.proxyNames('names_a').length, 7);
    assert.equal(bridge.proxyNames('names-b').length, 7);
    const longOnes = names.filter((n) => n.startsWith('names_a__find_every'));
    assert.equal(longOnes.length, 2);
    const title = longOnes.find((n) => registry.get(n)!.description === 'Long one.')!;
    const r = await executor.call(title, {});
    assert.equal(r.output, `${'find_every_document_matching_the_query_in_the_whole_index_of_the_corpus'}_by_title called`);
  });

  test('T12: servers that fail to start are logged and skipped; the rest works', async () => {
    const status = Object.fromEntries(bridge.status().map((s) => [s.name, s]));
    assert.equal(status.broken!.state, 'failed');
    assert.match(status.broken!.error!, /cannot start: no config/);
    assert.equal(status.missing!.state, 'failed');
    assert.equal(status.basic!.state, 'connected');
    const warned = log.lines.filter((l) => l.event === 'mcp_server_failed').map((l) => l.server);
    assert.deepEqual(warned.sort(), ['broken', 'missing']);
    const r = await executor.call('basic__ping', {});
    assert.equal(r.output, 'pong');
    assert.equal((await executor.call('read_file', { filepath: 'package.json' }, { workspaceRoot: REPO_ROOT })).success, true);
    // Its tools were never listed, yet a call to one says the server is unavailable, not "unknown tool".
    const lost = await executor.call('broken__anything', {});
    assert.equal(lost.errorCode, 'SERVER_UNAVAILABLE');
    assert.match(lost.error!, /^server unavailable: the MCP server "broken" did not start: .*cannot start: no config.*other tools still work/s);
    assert.equal((await executor.call('nobody__anything', {})).errorCode, 'UNKNOWN_TOOL');
  });

  test("a server's over-long tool description is cut, with a note, before any model sees it", async () => {
    const description = registry.get('basic__verbose')!.description;
    assert.ok(description.startsWith('A description that goes on. And on.'));
    assert.ok(description.length <= MAX_BRIDGED_DESCRIPTION + 60, `${description.length} characters`);
    assert.match(description, /\.\.\. \[description cut at 4000 characters\]$/);
  });

  test('bridgedKind: mcp_read only for readOnlyHint true from a trusted server', () => {
    assert.equal(bridgedKind({ trusted: true }, { annotations: { readOnlyHint: true } }), 'mcp_read');
    assert.equal(bridgedKind({ trusted: true }, { annotations: { readOnlyHint: false } }), 'mcp_write_or_unknown');
    assert.equal(bridgedKind({ trusted: true }, { annotations: { destructiveHint: false } }), 'mcp_write_or_unknown');
    assert.equal(bridgedKind({ trusted: true }, {}), 'mcp_write_or_unknown');
    assert.equal(bridgedKind({ trusted: false }, { annotations: { readOnlyHint: true } }), 'mcp_write_or_unknown');
    assert.equal(bridgedKind({}, { annotations: { readOnlyHint: true } }), 'mcp_write_or_unknown', 'trusted defaults to false');
  });

  test('readOnly and kind come from readOnlyHint only for trusted servers; gates apply to proxies', async () => {
    assert.equal(registry.get('basic__read_only')!.readOnly, true);
    assert.equal(registry.get('untrusted__read_only')!.readOnly, false);
    assert.equal(registry.get('basic__echo_args')!.readOnly, false);
    assert.equal(registry.get('basic__ping')!.runner, 'main');
    // The action kind follows the same rule (issue 15, item 6).
    assert.equal(registry.get('basic__read_only')!.kind, 'mcp_read');
    assert.equal(registry.get('untrusted__read_only')!.kind, 'mcp_write_or_unknown', 'an untrusted server\'s hint is not believed');
    assert.equal(registry.get('basic__echo_args')!.kind, 'mcp_write_or_unknown', 'no hint: unknown');
    const trusted = await executor.call('basic__read_only', {}, { mode: 'explore' });
    assert.equal(trusted.success, true, trusted.output);
    const denied = await executor.call('untrusted__read_only', {}, { mode: 'explore' });
    assert.equal(denied.errorCode, 'MODE_DENIED');
    const write = await executor.call('basic__echo_args', {}, { mode: 'plan' });
    assert.equal(write.errorCode, 'MODE_DENIED');
  });

  test('invalid arguments are refused by the server schema before any call; isError results are failures', async () => {
    const bad = await executor.call('basic__strict_args', { path: 3 });
    assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
    const failed = await executor.call('basic__fail', {});
    assert.equal(failed.success, false);
    assert.equal(failed.errorCode, 'TOOL_ERROR');
    assert.match(failed.output, /the fixture failed on purpose/);
  });

  test('structuredContent comes back as the structured value, checked against the output schema', async () => {
    const r = await executor.call('basic__structured', { n: 21 });
    assert.equal(r.success, true, r.output);
    assert.deepEqual(r.structured, { double: 42 });
  });

  test('A1: __proto__ and constructor keys pass through as plain keys; nothing is polluted', async () => {
    // What the proxy is given (seen by a policy hook): __proto__ as an own, plain key.
    let seen: Readonly<Record<string, unknown>> | undefined;
    const spying = new ToolExecutor(registry, { outputStore: false, policyHook: (call) => void (seen = call.arguments) });
    let r;
    try {
      r = await spying.call('basic__echo_args', '{"path":"a","__proto__":{"allowed":true},"constructor":{"prototype":{"allowed":true}}}');
    } finally {
      await spying.close();
    }
    assert.equal(r.success, true, r.output);
    assert.deepEqual(Object.keys(seen!).sort(), ['__proto__', 'constructor', 'path']);
    assert.equal(Object.getPrototypeOf(seen), Object.prototype);
    // The server (the SDK's request parsing) drops __proto__ itself; the rest arrives as sent.
    const echoed = JSON.parse(r.output) as { ownKeys: string[]; json: string; polluted: boolean };
    assert.deepEqual(echoed.ownKeys.sort(), ['constructor', 'path']);
    assert.equal(echoed.polluted, false);
    assert.equal(({} as Record<string, unknown>).allowed, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).allowed, undefined);
    const closed = await executor.call('basic__strict_args', '{"path":"a","__proto__":{"allowed":true}}');
    assert.equal(closed.errorCode, 'INVALID_ARGUMENTS');
    assert.match(closed.error!, /__proto__/);
    assert.equal(({} as Record<string, unknown>).allowed, undefined);
  });

  test('T13: progress keeps a call alive past the request timeout (400 ms here)', async () => {
    const r = await executor.call('basic__slow', { steps: 8, intervalMs: 150 });
    assert.equal(r.success, true, r.output);
    assert.equal(r.output, 'done after 8 steps');
  });

  test('T13: without progress the request timeout ends the call', async () => {
    const r = await executor.call('basic__silent', { ms: 2000 });
    assert.equal(r.errorCode, 'TIMEOUT');
    assert.match(r.output, /no result or progress for 400 ms/);
  });

  test('T13: progress does not lift the total maximum (3000 ms here)', async () => {
    const r = await executor.call('basic__slow', { steps: 40, intervalMs: 150 });
    assert.equal(r.errorCode, 'TIMEOUT');
    assert.match(r.output, /total limit of 3000 ms/);
  });

  test('list_changed refreshes the proxies', async () => {
    assert.equal(registry.has('basic__late_tool'), false);
    const r = await executor.call('basic__add_tool', { name: 'late_tool' });
    assert.equal(r.success, true, r.output);
    await waitFor(() => registry.has('basic__late_tool'), { what: 'list_changed to register basic__late_tool' });
    assert.equal((await executor.call('basic__late_tool', {})).output, 'late_tool called');
    // The other proxies are still there.
    assert.equal((await executor.call('basic__ping', {})).output, 'pong');
  });

  test('issue 18: a bridged tool keeps its title and every annotation as hints; our readOnlyHint and decisions still come from trust and kind', () => {
    const tool = registry.get('basic__annotated')!;
    assert.equal(tool.kind, 'mcp_write_or_unknown', 'readOnlyHint false: writing, even from a trusted server');
    assert.equal(tool.readOnly, false);
    const listed = toMcpTool(tool);
    assert.equal(listed.title, 'An annotated tool');
    assert.equal(listed.annotations.title, 'Annotated (annotation title)');
    assert.equal(listed.annotations.idempotentHint, true);
    assert.equal(listed.annotations.destructiveHint, false, 'the server said it is not destructive');
    assert.equal(listed.annotations.openWorldHint, false);
    assert.equal(listed.annotations.readOnlyHint, false);
    // A tool whose server gave no hints gets ours.
    const plain = toMcpTool(registry.get('basic__echo_args')!);
    assert.equal(plain.title, undefined);
    assert.deepEqual(plain.annotations, { readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  test('issue 18: progress and log messages of a bridged call reach the caller\'s client', async () => {
    const progress: unknown[] = [];
    const logs: unknown[] = [];
    const r = await executor.call('basic__chatty', {}, {
      client: {
        progress: (done, total, message) => progress.push([done, total, message]),
        log: (level, data) => logs.push([level, data]),
      },
    });
    assert.equal(r.success, true, r.output);
    assert.equal(r.output, 'chatted');
    assert.deepEqual(progress, [[1, 2, 'half way']]);
    assert.deepEqual(logs, [['info', { logger: 'fixture', data: 'first message' }], ['warning', { second: true }]]);
  });

  test('issue 18: an elicitation from a bridged server goes to the caller (defaults of omitted fields applied); without a client it fails', async () => {
    const asked: unknown[] = [];
    const r = await executor.call('basic__ask_name', {}, {
      client: {
        elicit: async (message, schema) => {
          asked.push([message, schema]);
          return { action: 'accept', content: {} };
        },
      },
    });
    assert.equal(r.success, true, r.output);
    assert.equal(r.output, 'action=accept name=Ada', 'the default of the omitted field was applied (SEP-1034)');
    assert.equal((asked[0] as unknown[])[0], 'Your name?');
    const none = await executor.call('basic__ask_name', {});
    assert.equal(none.success, false);
    assert.match(none.output, /cannot|unavailable|none/i);
  });

  test('T12: a server that exits mid-session answers "server unavailable"; the rest keeps working', async () => {
    const died = await executor.call('untrusted__die', {});
    assert.equal(died.success, false);
    assert.equal(died.errorCode, 'SERVER_UNAVAILABLE');
    assert.match(died.output, /server unavailable/);
    const after = await executor.call('untrusted__ping', {});
    assert.equal(after.errorCode, 'SERVER_UNAVAILABLE');
    assert.match(after.output, /server unavailable/);
    assert.equal(bridge.status().find((s) => s.name === 'untrusted')!.state, 'closed');
    assert.ok(log.lines.some((l) => l.event === 'mcp_server_lost' && l.server === 'untrusted'));
    assert.equal((await executor.call('basic__ping', {})).output, 'pong');
    assert.equal((await executor.call('names_a__search', {})).success, true);
  });

  test('issue 18: bridged tools that are not read-only ask for confirmation by default; requiresConfirmation sets it per server', async () => {
    const reg = new ToolRegistry();
    const transports = new Map([
      ['plain', await inMemoryTransport(await createFixtureServer('basic'))],
      ['trusting', await inMemoryTransport(await createFixtureServer('basic'))],
      ['relaxed', await inMemoryTransport(await createFixtureServer('basic'))],
    ]);
    const own = await McpBridge.connect(
      reg,
      { plain: fixture('basic'), trusting: fixture('basic', { trusted: true }), relaxed: fixture('basic', { requiresConfirmation: false }) },
      { transportFor: (name) => transports.get(name) },
    );
    const exec = new ToolExecutor(reg, { outputStore: false });
    try {
      assert.equal(reg.get('plain__echo_args')!.requiresConfirmation, true);
      const asked = await exec.call('plain__echo_args', {});
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED');
      assert.equal(asked.confirmed, false);
      assert.equal((await exec.call('plain__echo_args', {}, { confirm: true })).success, true);
      // An untrusted server's read-only claim is not believed: its tool asks too.
      assert.equal((await exec.call('plain__ping', {})).errorCode, 'CONFIRMATION_REQUIRED');
      // A trusted server's read-only tool runs without asking; its writing tools still ask.
      assert.equal((await exec.call('trusting__ping', {})).output, 'pong');
      assert.equal((await exec.call('trusting__echo_args', {})).errorCode, 'CONFIRMATION_REQUIRED');
      // requiresConfirmation: false turns it off for that server.
      assert.equal((await exec.call('relaxed__echo_args', {})).success, true);
    } finally {
      await exec.close();
      await own.close();
    }
  });

  test('close() removes every proxy from the registry', async () => {
    const extra = await McpBridge.connect(new ToolRegistry(), { solo: fixture('basic') });
    const pid = (extra as unknown as { connections: Map<string, { transport: { pid: number | null } }> }).connections.get('solo')!.transport.pid!;
    assert.ok(extra.registry.has('solo__ping'));
    await extra.close();
    assert.equal(extra.registry.size, 0);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});

describe('config files', () => {
  test('a config file names servers; bad entries name the field', async () => {
    const { loadConfig } = await import('toolgate');
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, 'dist', 'cfg-'));
    try {
      fs.writeFileSync(path.join(dir, 'toolgate.config.json'), JSON.stringify({ mcpServers: { files: { command: 'x', args: ['a'], cwd: 'sub', trusted: true } } }));
      const unnamed = loadConfig(undefined, dir);
      assert.equal(unnamed.file, undefined, 'a workspace file is not read unless named');
      assert.deepEqual(unnamed.config.mcpServers, {});
      assert.equal(unnamed.unread, path.join(dir, 'toolgate.config.json'));
      const loaded = loadConfig(path.join(dir, 'toolgate.config.json'), dir);
      assert.equal(loaded.file, path.join(dir, 'toolgate.config.json'));
      assert.equal((loaded.config.mcpServers.files as { cwd: string }).cwd, path.join(dir, 'sub'));
      fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ mcpServers: { x: { command: 'a', url: 'http://b' } } }));
      assert.throws(() => loadConfig(path.join(dir, 'bad.json')), { code: 'INVALID_OPTIONS', message: /mcpServers\.x needs exactly one of "command"/ });
      fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ mcpServers: { 'a-b': { command: 'a' }, a_b: { command: 'b' } } }));
      assert.throws(() => loadConfig(path.join(dir, 'bad.json')), { code: 'INVALID_OPTIONS', message: /share the name prefix "a_b__"/ });
      assert.deepEqual(loadConfig(undefined, path.join(dir, 'nowhere')).config.mcpServers, {});
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
