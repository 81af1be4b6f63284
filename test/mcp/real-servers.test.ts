/**
 * Bridging the reference MCP servers installed from npm (dev dependencies):
 * `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem`,
 * called through the executor, with gates applying to their tools.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { McpBridge, ToolExecutor, ToolRegistry } from 'toolgate';
import { REPO_ROOT, tempWorkspace } from '../helpers.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

describe('bridging the reference servers', () => {
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  let bridge: McpBridge;
  let tmp: ReturnType<typeof tempWorkspace>;

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'hello.txt'), 'hello from the workspace\n');
    registry = new ToolRegistry();
    bridge = await McpBridge.connect(registry, {
      // Its tools run without asking here (these cases are about running a real server); the
      // filesystem server keeps the default: its writing tools ask.
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], requiresConfirmation: false },
      files: { command: process.execPath, args: [FILESYSTEM, tmp.ws], trusted: true },
    });
    executor = new ToolExecutor(registry, { outputStore: false, workspaceRoot: tmp.ws });
  });

  after(async () => {
    await executor.close();
    await bridge.close();
    tmp.cleanup();
  });

  test('both servers are bridged', () => {
    for (const s of bridge.status()) assert.equal(s.state, 'connected', `${s.name}: ${s.error}`);
    assert.ok(registry.has('everything__echo'));
    assert.ok(registry.has('files__read_text_file'));
    assert.ok(registry.has('files__write_file'));
  });

  test('everything: echo and get-sum (a hyphenated name) run through the executor', async () => {
    const echo = await executor.call('everything__echo', { message: 'hi there' });
    assert.equal(echo.success, true, echo.output);
    assert.match(echo.output, /hi there/);
    const sumName = 'everything__get-sum';
    assert.ok(registry.has(sumName), 'get-sum keeps its kebab-case name');
    const sum = await executor.call(sumName, { a: 2, b: 40 });
    assert.equal(sum.success, true, sum.output);
    assert.match(sum.output, /42/);
    const bad = await executor.call('everything__echo', { message: 5 });
    assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
  });

  test('everything: an image result is attached for the model', async () => {
    const name = 'everything__get-tiny-image';
    const r = await executor.call(name, {});
    assert.equal(r.success, true, r.output);
    assert.equal(r.images?.length, 1);
    assert.match(r.images![0]!, /^data:image\/png;base64,/);
  });

  test('filesystem: a trusted read-only tool runs in explore mode', async () => {
    const r = await executor.call('files__read_text_file', { path: path.join(tmp.ws, 'hello.txt') }, { mode: 'explore' });
    assert.equal(r.success, true, r.output);
    assert.match(r.output, /hello from the workspace/);
    assert.equal(registry.get('files__read_text_file')!.readOnly, true);
  });

  test('filesystem: a bridged write is denied in explore mode, and nothing is written', async () => {
    const target = path.join(tmp.ws, 'new.txt');
    const denied = await executor.call('files__write_file', { path: target, content: 'x' }, { mode: 'explore' });
    assert.equal(denied.success, false);
    assert.equal(denied.errorCode, 'MODE_DENIED');
    assert.equal(fs.existsSync(target), false);
    // A writing tool of a bridged server asks by default (issue 18), as our own write_file does.
    const asked = await executor.call('files__write_file', { path: target, content: 'written through the bridge' });
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(fs.existsSync(target), false);
    const allowed = await executor.call('files__write_file', { path: target, content: 'written through the bridge' }, { confirm: true });
    assert.equal(allowed.success, true, allowed.output);
    assert.equal(fs.readFileSync(target, 'utf8'), 'written through the bridge');
  });

  test('filesystem: the server\'s own refusal (a path outside its folders) is a tool error', async () => {
    const r = await executor.call('files__read_text_file', { path: tmp.sentinel });
    assert.equal(r.success, false);
    assert.equal(r.errorCode, 'TOOL_ERROR');
    assert.match(r.output, /denied|outside|not allowed/i);
    assert.doesNotMatch(r.output, /SENTINEL CONTENT/);
  });
});
