/**
 * The toolset (`tools.builtin` of `toolgate.config.json`, the `toolset` option of ToolSystem;
 * issue 19 item 5, seed 000_ba529e068cefa394.txt): the list replaces the default set
 * wholesale, each entry may override description, flags, timeout and output length, and a
 * mistake names the entry. Through ToolSystem, `toolgate list`, `toolgate call`, `toolgate
 * agent` (a scripted model) and `toolgate mcp` (spawned, driven by the SDK client).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadBuiltinTools, ToolgateOptionError, ToolSystem, type ToolsetEntryConfig } from 'toolgate';
import { checkToolset } from '../../src/registry/toolset.js';
import { cliInProcess } from '../cli/in-process.js';
import { BIN, REPO_ROOT, tempWorkspace } from '../helpers.js';
import { startOpenAIFixture, turn } from '../openai-fixture.js';

const FIXTURE = path.join(REPO_ROOT, 'dist/test/fixtures/mcp-fixture-server.js');
const tmp = tempWorkspace();
const LONG_TEXT = `${'line of the file\n'.repeat(40)}`;
fs.writeFileSync(path.join(tmp.ws, 'long.txt'), LONG_TEXT);
after(() => tmp.cleanup());

function optionError(fn: () => unknown): ToolgateOptionError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolgateOptionError, `expected a ToolgateOptionError, got ${String(error)}`);
    return error;
  }
  assert.fail('no error');
}

async function startError(toolset: ToolsetEntryConfig[]): Promise<ToolgateOptionError> {
  const system = new ToolSystem({ workspace: tmp.ws, toolset });
  try {
    await system.start();
  } catch (error) {
    assert.ok(error instanceof ToolgateOptionError, `expected a ToolgateOptionError, got ${String(error)}`);
    return error;
  } finally {
    await system.close();
  }
  assert.fail('start() did not throw');
}

describe('checking a toolset: a mistake names the entry (index and name)', () => {
  test('shape errors', () => {
    assert.match(optionError(() => checkToolset('read_file', 'tools.builtin')).message, /tools\.builtin must be a list/);
    assert.match(optionError(() => checkToolset(['read_file', { name: 'list_files', colour: 'red' }], 'tools.builtin')).message, /tools\.builtin\[1\] \(list_files\) has an unknown key "colour"/);
    assert.match(optionError(() => checkToolset([{ name: 'read_file', timeoutMs: '5s' }], 'tools.builtin')).message, /tools\.builtin\[0\] \(read_file\) timeoutMs must be a whole number/);
    assert.match(optionError(() => checkToolset([{ name: 'read_file', readOnly: 'yes' }], 'tools.builtin')).message, /\[0\] \(read_file\) readOnly must be true or false/);
    assert.match(optionError(() => checkToolset(['read_file', 'read_file'], 'tools.builtin')).message, /\[1\] \(read_file\) names read_file again \(first at \[0\]\)/);
    assert.match(optionError(() => checkToolset([42], 'tools.builtin')).message, /tools\.builtin\[0\] must be a tool name or an object/);
    assert.match(optionError(() => checkToolset([{ description: 'x' }], 'tools.builtin')).message, /tools\.builtin\[0\] needs a tool name/);
  });

  test('through ToolSystem: a name of no default tool (with close names), and readOnly against the kind', async () => {
    const unknown = await startError(['list_files', 'read_fil']);
    assert.match(unknown.message, /toolset\[1\] \(read_fil\) names no tool of the default set; did you mean .*read_file/);
    const lying = await startError([{ name: 'write_file', readOnly: true }]);
    assert.match(lying.message, /toolset\[0\] \(write_file\) readOnly: true does not fit write_file/);
  });
});

describe('a toolset in ToolSystem replaces the default set and applies its overrides', () => {
  let system: ToolSystem;
  before(async () => {
    system = new ToolSystem({
      workspace: tmp.ws, executor: { outputStore: false },
      toolset: [
        { name: 'list_files', timeoutMs: 1 },
        { name: 'read_file', description: 'Read a workspace file (configured).', requiresConfirmation: true, maxOutputLength: 40 },
      ],
    });
    await system.start();
  });
  after(async () => {
    await system.close();
  });

  test('only the listed tools are registered, with their overrides (the revision follows the flags)', async () => {
    assert.deepEqual(system.registry.list().map((t) => t.name), ['list_files', 'read_file']);
    assert.equal(system.registry.has('write_file'), false);
    const read = system.registry.get('read_file')!;
    const { registry: defaults } = await loadBuiltinTools();
    const declared = defaults.get('read_file')!;
    assert.equal(read.description, 'Read a workspace file (configured).');
    assert.equal(read.requiresConfirmation, true);
    assert.equal(declared.requiresConfirmation, false);
    assert.equal(read.maxOutputLength, 40);
    assert.notEqual(read.revision, declared.revision);
    assert.equal(system.registry.get('list_files')!.timeoutMs, 1);
    assert.equal(system.registry.get('list_files')!.revision, defaults.get('list_files')!.revision, 'a timeout is no safety flag');
  });

  test('calls: a tool left out is unknown, the confirmation override asks, the output cap cuts, the timeout override times out', async () => {
    assert.equal((await system.execute({ name: 'write_file', arguments: { filepath: 'x.txt', content: 'x' } })).errorCode, 'UNKNOWN_TOOL');
    assert.equal((await system.execute({ name: 'read_file', arguments: { filepath: 'long.txt' } })).errorCode, 'CONFIRMATION_REQUIRED');
    const read = await system.execute({ name: 'read_file', arguments: { filepath: 'long.txt' } }, { confirm: true });
    assert.equal(read.success, true, read.error);
    assert.match(read.output, /^line of the file\nline of the file/);
    assert.match(read.output, /\[output truncated: .* limit 40 characters\]/);
    const listed = await system.execute({ name: 'list_files', arguments: {} });
    assert.equal(listed.errorCode, 'TIMEOUT', listed.output);
  });
});

describe('toolgate list, call and mcp with --config naming a toolset', () => {
  let config: string;
  let bad: string;
  before(() => {
    config = path.join(tmp.root, 'toolgate.config.json');
    fs.writeFileSync(config, JSON.stringify({
      tools: { builtin: ['list_files', { name: 'read_file', description: 'Read a file, configured.', requiresConfirmation: true, maxOutputLength: 40, timeoutMs: 1 }] },
      mcpServers: { basic: { command: process.execPath, args: [FIXTURE, 'basic'], trusted: true, requiresConfirmation: false } },
    }));
    bad = path.join(tmp.root, 'bad.config.json');
    fs.writeFileSync(bad, JSON.stringify({ tools: { builtin: ['read_file', { name: 'list_file' }] } }));
  });

  test('toolgate list shows the effective set with the overrides; errors name the entry', async () => {
    const text = await cliInProcess(['list', '--config', config, '--tag', 'fs'], { cwd: tmp.ws });
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, 3, text.stdout);
    assert.match(lines.find((l) => l.startsWith('read_file'))!, /file_read\s+read\s+yes\s+-\s+fs,builtin\s+Read a file, configured\./);
    const json = await cliInProcess(['list', '--config', config, '--json'], { cwd: tmp.ws });
    const rows = JSON.parse(json.stdout) as Array<{ name: string; timeoutMs: number; maxOutputLength: number; requiresConfirmation: boolean }>;
    const names = rows.map((r) => r.name);
    assert.deepEqual(names.filter((n) => !n.startsWith('basic__')), ['list_files', 'read_file']);
    assert.ok(names.includes('basic__ping'), 'the MCP servers of the config are bridged beside the toolset');
    const read = rows.find((r) => r.name === 'read_file')!;
    assert.deepEqual([read.timeoutMs, read.maxOutputLength, read.requiresConfirmation], [1, 40, true]);

    const wrong = await cliInProcess(['list', '--config', bad], { cwd: tmp.ws });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /bad\.config\.json: tools\.builtin\[1\] \(list_file\) names no tool of the default set; did you mean list_files/);
    fs.writeFileSync(path.join(tmp.root, 'key.config.json'), JSON.stringify({ tools: { builtin: [{ name: 'read_file', timeout: 5 }] } }));
    const key = await cliInProcess(['list', '--config', path.join(tmp.root, 'key.config.json')], { cwd: tmp.ws });
    assert.equal(key.code, 2);
    assert.match(key.stderr, /key\.config\.json: tools\.builtin\[0\] \(read_file\) has an unknown key "timeout"/);
  });

  test('toolgate call applies the toolset: a tool left out is unknown, the timeout override times the call out', async () => {
    const left = await cliInProcess(['call', 'write_file', '{"filepath":"w.txt","content":"x"}', '--config', config, '--workspace', tmp.ws, '--json', '--no-ledger'], { cwd: tmp.ws });
    assert.equal(JSON.parse(left.stdout).errorCode, 'UNKNOWN_TOOL', left.stdout + left.stderr);
    const timed = await cliInProcess(['call', 'read_file', '{"filepath":"long.txt"}', '--config', config, '--workspace', tmp.ws, '--json', '--yes', '--no-ledger'], { cwd: tmp.ws });
    assert.equal(JSON.parse(timed.stdout).errorCode, 'TIMEOUT', timed.stdout + timed.stderr);
  });

  test('toolgate agent offers the scripted model the toolset and answers a left-out tool UNKNOWN_TOOL', async () => {
    const fixture = await startOpenAIFixture([
      turn('Writing.', [{ id: 'call_w', name: 'write_file', arguments: '{"filepath":"agent.txt","content":"hi"}' }]),
      turn('Cannot write here.'),
    ]);
    try {
      const run = await cliInProcess(['agent', 'Write hi', '--workspace', tmp.ws, '--config', config, '--base-url', fixture.baseUrl, '--model', 'm', '--yes', '--no-ledger'], { cwd: tmp.ws });
      assert.equal(run.code, 0, run.stderr);
      const offered = fixture.requests[0]!.tools!.map((t) => t.function.name);
      assert.deepEqual(offered.filter((n) => !n.startsWith('basic__')).sort(), ['list_files', 'read_file']);
      assert.equal(fixture.requests[0]!.tools!.find((t) => t.function.name === 'read_file')!.function.description, 'Read a file, configured.');
      assert.match(run.stderr, /UNKNOWN_TOOL/);
      assert.equal(fs.existsSync(path.join(tmp.ws, 'agent.txt')), false);
    } finally {
      await fixture.close();
    }
  });

  test('toolgate mcp serves the toolset and the bridged tools (registered through registry.register) to an SDK client', async () => {
    const client = new Client({ name: 'toolset-test', version: '1.0.0' });
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--config', config, '--yes'], stderr: 'pipe', env }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.deepEqual(names.filter((n) => !n.startsWith('basic__')).sort(), ['list_files', 'read_file']);
      assert.equal(tools.find((t) => t.name === 'read_file')!.description, 'Read a file, configured.');
      const timed = (await client.callTool({ name: 'read_file', arguments: { filepath: 'long.txt' } })) as CallToolResult;
      assert.equal(timed.isError, true);
      assert.equal(timed._meta?.['toolgate/errorCode'], 'TIMEOUT');
      const pong = (await client.callTool({ name: 'basic__ping', arguments: {} })) as CallToolResult;
      assert.notEqual(pong.isError, true, JSON.stringify(pong));
      assert.match(JSON.stringify(pong.content), /pong/);
    } finally {
      await client.close();
    }
  });
});
