/**
 * What the MCP server lists: the selected tools the mode would ever let run, the same rule the
 * agents' tool lists follow (src/registry/visibility.ts). A call still reaches the mode
 * decider, so a hidden tool called anyway is denied, not unknown.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
import { createMcpServer, loadBuiltinTools, ToolSystem, type McpServeOptions } from 'toolgate';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';

describe('MCP tools/list follows the mode; escapes are marked', () => {
  const tmp = tempWorkspace();
  let served: ToolSystem;
  const clients: Client[] = [];
  before(async () => {
    const { registry } = await loadBuiltinTools();
    served = new ToolSystem({ registry, workspace: tmp.ws });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await served.close();
    tmp.cleanup();
  });
  const connect = async (options: Omit<McpServeOptions, 'system'>) => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(await inMemoryTransport(createMcpServer({ system: served, workspaceRoot: tmp.ws, ...options })));
    return client;
  };
  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

  test('default mode lists writing tools; explore hides them; plan with a scoped folder lists the scoped-write tools', async () => {
    const all = await names(await connect({}));
    assert.ok(all.includes('write_file') && all.includes('read_file'));
    const explore = await connect({ mode: 'explore' });
    const shown = await names(explore);
    assert.ok(shown.includes('read_file'));
    assert.ok(!shown.includes('write_file'), 'explore never lets write_file run');
    const denied = (await explore.callTool({ name: 'write_file', arguments: { filepath: 'x.txt', content: 'x' } })) as CallToolResult;
    assert.equal(denied.isError, true);
    assert.equal(denied._meta?.['toolgate/errorCode'], 'MODE_DENIED');
    const plan = await names(await connect({ mode: 'plan', scopedWriteDirs: ['plans'] }));
    assert.ok(plan.includes('write_file'), 'write_file declares scopedWrite');
  });

  test('a path outside the workspace is an error result carrying PATH_TRAVERSAL, and nothing of it', async () => {
    const client = await connect({});
    const escaped = (await client.callTool({ name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' } })) as CallToolResult;
    assert.equal(escaped.isError, true);
    assert.equal(escaped._meta?.['toolgate/errorCode'], 'PATH_TRAVERSAL');
    assert.doesNotMatch(JSON.stringify(escaped.content), /SENTINEL CONTENT/);
  });

  test('an unknown mode lists nothing', async () => {
    assert.deepEqual(await names(await connect({ mode: 'yolo' })), []);
  });

  test('ask_user (the visibility decider\'s caller-tool offer): listed and callable by default; askUser false (a config toolset) or a selection without it hides it and a call is unknown', async () => {
    const shown = await connect({ mode: 'explore' });
    assert.ok((await names(shown)).includes('ask_user'), 'read-only: offered in explore');
    for (const hidden of [await connect({ askUser: false }), await connect({ tags: ['fs'] }), await connect({ tools: ['read_file'] })]) {
      const listed = await names(hidden);
      assert.ok(!listed.includes('ask_user'), listed.join(','));
      await assert.rejects(hidden.callTool({ name: 'ask_user', arguments: { question: 'q?' } }), /Unknown tool/);
    }
    assert.ok((await names(await connect({ tools: ['read_file', 'ask_user'] }))).includes('ask_user'), 'a selection naming it');
    const subagents = await connect({});
    assert.ok(!(await names(subagents)).includes('run_subagent'), 'the MCP server drives no subagents');
    await assert.rejects(subagents.callTool({ name: 'run_subagent', arguments: { prompt: 'x' } }), /Unknown tool/);
    await assert.rejects(subagents.callTool({ name: 'request_tools', arguments: { domains: ['git'], reason: 'r' } }), /Unknown tool/, 'no lazy domains: no request_tools');
  });
});

describe('MCP through the ToolSystem facade', () => {
  const tmp = tempWorkspace();
  let system: ToolSystem;
  let client: Client;
  before(async () => {
    system = new ToolSystem({ workspace: tmp.ws, ported: false, tags: ['fs'] });
    await system.start();
    system.versions.deprecate('read_file', '1.0.0', 'use read_text instead');
    client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws })));
  });
  after(async () => {
    await client.close();
    await system.close();
    tmp.cleanup();
  });

  test("the system's tag selection and deprecation notes apply to the list and to calls", async () => {
    const tools = (await client.listTools()).tools;
    assert.ok(tools.length > 0);
    for (const t of tools) assert.ok(system.registry.get(t.name)!.tags.includes('fs'), t.name);
    assert.match(tools.find((t) => t.name === 'read_file')!.description ?? '', /^DEPRECATED: use read_text instead/);
    fs.writeFileSync(path.join(tmp.ws, 'a.txt'), 'hello\n');
    const read = (await client.callTool({ name: 'read_file', arguments: { filepath: 'a.txt' } })) as CallToolResult;
    assert.match(JSON.stringify(read.content), /deprecated: use read_text instead/);
    const outside = system.registry.list().find((t) => !t.tags.includes('fs'));
    assert.ok(outside, 'a builtin tool outside the fs tag');
    await assert.rejects(client.callTool({ name: outside.name, arguments: {} }), /Unknown tool/);
  });

  test('the MCP server takes a ToolSystem only: a bare executor, or none, is refused naming the option', () => {
    for (const options of [{ system: system.executor }, { executor: system.executor }, {}, { system: null }]) {
      assert.throws(() => createMcpServer(options as never), (error: Error & { code?: string }) => /createMcpServer needs options\.system, a ToolSystem/.test(error.message), JSON.stringify(Object.keys(options)));
    }
  });
});
