/**
 * The MCP client SDK (`@modelcontextprotocol/client`) is an optional peer dependency: only the
 * bridge (other MCP servers' tools) needs it. With it, the bridge works (in code and through
 * `toolgate call --config`); without it, bridging fails before anything starts with
 * `unavailable: ... npm install @modelcontextprotocol/client` (a `PackageUnavailableError` in
 * code), and everything else works: `import('toolgate')`, a `ToolSystem` with no servers,
 * `createMcpServer`, and `toolgate mcp` serving over stdio, none of which loads the package.
 *
 * Absence is simulated two ways: in this process with TOOLGATE_HIDE_PACKAGES (as the
 * OpenTelemetry test does), and in child processes with a module resolve hook that answers
 * every import of the package as Node answers a package that is not installed
 * (ERR_MODULE_NOT_FOUND, "Cannot find package"), and records any module of the package that
 * loads anyway. The packed-install test (TOOLGATE_PACK=1) checks the package is not installed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpBridge, PackageUnavailableError, ToolExecutor, ToolRegistry, ToolSystem } from 'toolgate';
import { HIDE_PACKAGES_ENV } from '../../src/util/optional-package.js';
import { BIN, FIXTURES_DIR, inMemoryTransport, REPO_ROOT, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';

const PACKAGE = '@modelcontextprotocol/client';
const UNAVAILABLE = /unavailable: the MCP bridge .* needs the package `@modelcontextprotocol\/client`, not installed here\. Install it: npm install @modelcontextprotocol\/client/;

/**
 * An `--import` for a child process: the package cannot be resolved (as when it is not
 * installed), and any module of it that loads all the same is printed as `CLIENT-LOADED url`.
 */
const hooks = `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === '${PACKAGE}' || specifier.startsWith('${PACKAGE}/')) {
    const error = new Error("Cannot find package '${PACKAGE}' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.includes('/node_modules/${PACKAGE}/')) process._rawDebug('CLIENT-LOADED ' + url);
  return next(url, context);
}`)}`;
const WITHOUT_CLIENT = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;

/** `node --import WITHOUT_CLIENT ...args` to its end (stdin: `input`, then closed); its exit code and output. */
function withoutClient(args: string[], options: { cwd?: string; input?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', WITHOUT_CLIENT, ...args], { cwd: options.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** An SDK v1 server with one tool, `echo`, for the in-memory transport. */
function echoServer(): Server {
  const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `echo: ${String((request.params.arguments as { text?: string }).text)}` }] }));
  return server;
}

describe('the MCP client SDK, an optional peer dependency', () => {
  let tmp: TempWorkspace;
  let config: string;
  before(() => {
    tmp = tempWorkspace();
    config = path.join(tmp.root, 'toolgate.config.json');
    const fixture = path.join(FIXTURES_DIR, 'mcp-v2-server.js');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { v2: { command: process.execPath, args: [fixture, 'stdio'], protocolVersion: '2025-11-25', trusted: true } } }));
  });
  after(() => tmp.cleanup());

  it('installed: the bridge registers a server\'s tools and runs them, in code and through toolgate call --config', async () => {
    const registry = new ToolRegistry();
    const transport = await inMemoryTransport(echoServer());
    const bridge = await McpBridge.connect(registry, { site: { command: 'unused', trusted: true } }, { transportFor: () => transport });
    const executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws, outputStore: false });
    try {
      assert.deepEqual(bridge.status().map((s) => s.state), ['connected']);
      const result = await executor.call('site__echo', { text: 'hi' });
      assert.equal(result.output, 'echo: hi', result.error);
    } finally {
      await executor.close();
      await bridge.close();
    }
    const run = await runCli(['call', 'v2__echo', '{"text":"from the CLI"}', '--config', config, '--workspace', tmp.ws, '--no-ledger']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /echo: from the CLI/);
  });

  it('hidden: McpBridge.connect and ToolSystem.start throw PackageUnavailableError naming it; no server, no servers at all, still connect', async () => {
    process.env[HIDE_PACKAGES_ENV] = PACKAGE;
    try {
      const registry = new ToolRegistry();
      let started = 0;
      const error = await McpBridge.connect(registry, { site: { command: 'unused' } }, { transportFor: () => { started++; return undefined; } }).then(() => assert.fail('connected'), (e: unknown) => e);
      assert.ok(error instanceof PackageUnavailableError, String(error));
      assert.equal(error.code, 'PACKAGE_UNAVAILABLE');
      assert.deepEqual(error.packages, [PACKAGE]);
      assert.match(error.message, UNAVAILABLE);
      assert.equal(started, 0, 'no server was started');
      assert.deepEqual(registry.list().map((t) => t.name), []);
      // Nothing to start: no SDK needed.
      const none = await McpBridge.connect(registry, { off: { command: 'unused', disabled: true } });
      assert.deepEqual(none.status(), []);
      await none.close();

      const system = new ToolSystem({ registry: new ToolRegistry(), workspace: tmp.ws, builtins: false, mcpServers: { site: { command: 'unused' } }, executor: { ledger: false, outputStore: false, sweepLeftovers: false } });
      try {
        await assert.rejects(system.start(), (e: unknown) => e instanceof PackageUnavailableError && UNAVAILABLE.test(e.message));
      } finally {
        await system.close();
      }
    } finally {
      delete process.env[HIDE_PACKAGES_ENV];
    }
  });

  it('not installed: toolgate call --config, toolgate mcp --config and toolgate mcp login say what to install, with no stack trace', async () => {
    for (const args of [
      ['call', 'v2__echo', '{"text":"x"}', '--config', config, '--workspace', tmp.ws, '--no-ledger'],
      ['mcp', '--config', config, '--workspace', tmp.ws, '--no-ledger'],
    ]) {
      const run = await withoutClient([BIN, ...args], { cwd: tmp.root });
      assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^toolgate: ${UNAVAILABLE.source}`, 'm'), run.stderr);
      assert.doesNotMatch(run.stderr, /\bat .*\.js:\d+/, 'no stack trace');
      assert.doesNotMatch(run.stderr, /CLIENT-LOADED/);
    }
    const oauth = path.join(tmp.root, 'oauth.config.json');
    fs.writeFileSync(oauth, JSON.stringify({ mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp', oauth: true } } }));
    const login = await withoutClient([BIN, 'mcp', 'login', 'remote', '--config', oauth, '--state-dir', path.join(tmp.root, 'state')], { cwd: tmp.root });
    assert.equal(login.code, 1, login.stderr);
    assert.match(login.stderr, UNAVAILABLE);
  });

  it('not installed: import(\'toolgate\') and its other entries, a ToolSystem and createMcpServer work and load none of it; bridging throws the error', async () => {
    // (Not toolgate/openai-agents: @openai/agents-core itself imports the client SDK, its optional dependency, which npm installs with it.)
    const code = `
      for (const entry of ['toolgate/tool', 'toolgate/internal', 'toolgate/ai-sdk', 'toolgate/langchain']) await import(entry);
      const toolgate = await import('toolgate');
      const os = await import('node:os');
      const system = new toolgate.ToolSystem({ registry: new toolgate.ToolRegistry(), workspace: os.tmpdir(), builtins: false, executor: { ledger: false, outputStore: false, sweepLeftovers: false } });
      await system.start();
      toolgate.createMcpServer({ system });
      const bridged = await toolgate.McpBridge.connect(new toolgate.ToolRegistry(), { site: { command: 'unused' } }).then(() => 'connected', (e) => ({ name: e.constructor.name, code: e.code, message: e.message }));
      await system.close();
      console.log(JSON.stringify(bridged));`;
    const run = await withoutClient(['--input-type=module', '-e', code]);
    assert.equal(run.code, 0, run.stderr);
    const bridged = JSON.parse(run.stdout) as { name: string; code: string; message: string };
    assert.equal(bridged.name, 'PackageUnavailableError');
    assert.equal(bridged.code, 'PACKAGE_UNAVAILABLE');
    assert.match(bridged.message, UNAVAILABLE);
    assert.doesNotMatch(run.stderr, /CLIENT-LOADED/);
  });

  it('not installed: toolgate mcp --cockpit (no servers to bridge) serves tools/list and tools/call over stdio, and loads none of it', async () => {
    fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'one\ntwo\n');
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const lines = [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_file', arguments: { filepath: 'notes.txt' } } }];
    const child = spawn(process.execPath, ['--import', WITHOUT_CLIENT, BIN, 'mcp', '--workspace', tmp.ws, '--state-dir', path.join(tmp.root, 'state'), '--cockpit', '--cockpit-port', '0'], { cwd: tmp.root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const answered = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/"id":3\b/.test(stdout)) resolve();
      });
      child.on('close', () => reject(new Error(`toolgate mcp exited: ${stderr}`)));
    });
    try {
      for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
      await answered;
      const answers = stdout.trim().split('\n').map((l) => JSON.parse(l) as { id?: number; result?: { tools?: Array<{ name: string }>; content?: Array<{ text: string }> } });
      assert.ok(answers.find((a) => a.id === 2)?.result?.tools?.some((t) => t.name === 'read_file'), stdout);
      assert.match(answers.find((a) => a.id === 3)?.result?.content?.[0]?.text ?? '', /one/, stdout);
    } finally {
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.stdin.end();
      if (child.exitCode === null) await closed;
    }
    assert.match(stderr, /cockpit/i, 'the cockpit ran alongside');
    assert.doesNotMatch(stderr, /CLIENT-LOADED/);
  });
});
