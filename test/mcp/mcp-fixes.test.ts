/**
 * The MCP server fixes and additions of issue 18, driven by the official SDK `Client` over the
 * in-memory transport: 2020-12 schemas in `tools/list`, error codes in `_meta` (a workspace
 * escape too), one "MCP error -32602" prefix for unknown tools, read-only modes hiding the
 * tools they always deny, `logging/setLevel`, and `ctx.progress` / `ctx.log` / `ctx.elicit` /
 * `ctx.sample` reaching the client (from worker threads: the fixtures run in the pool).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, McpError, type CallToolResult, type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, ToolSystem } from 'toolgate';
import { JSON_SCHEMA_2020_12 } from '../../src/formats/json-schema-2020.js';
import { fixtureRegistry, inMemoryTransport, tempWorkspace } from '../helpers.js';

type Options = { mode?: string; capabilities?: ConstructorParameters<typeof Client>[1] };

describe('MCP server (issue 18)', () => {
  let system: ToolSystem;
  let tmp: ReturnType<typeof tempWorkspace>;
  const clients: Client[] = [];

  /** A connected client of a new server over the tool system (and what it was sent). */
  async function connect(options: Options = {}): Promise<{ client: Client; logs: LoggingMessageNotification['params'][] }> {
    const server = createMcpServer({ system, workspaceRoot: tmp.ws, mode: options.mode, tasks: false });
    const client = new Client({ name: 'issue-18', version: '1.0.0' }, options.capabilities ?? { capabilities: {} });
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.connect(await inMemoryTransport(server));
    clients.push(client);
    return { client, logs };
  }

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'inside.txt'), 'inside\n');
    system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { outputStore: false } });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await system.close();
    tmp.cleanup();
  });

  test('tools/list: every schema says JSON Schema 2020-12; definitions are $defs', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    assert.ok(tools.length > 10);
    for (const t of tools) {
      assert.equal(t.inputSchema.$schema, JSON_SCHEMA_2020_12, t.name);
      if (t.outputSchema) assert.equal(t.outputSchema.$schema, JSON_SCHEMA_2020_12, t.name);
      assert.doesNotMatch(JSON.stringify(t.inputSchema), /"definitions"|#\/definitions\/|"additionalItems"/, t.name);
    }
    const defs = tools.find((t) => t.name === 'json_schema_2020_12_tool')!.inputSchema as Record<string, any>;
    assert.equal(defs.properties.address.$ref, '#/$defs/address');
    assert.equal(defs.$defs.address.properties.forwardTo.$ref, '#/$defs/address');
    assert.equal(defs.additionalProperties, false);
  });

  test('an unknown tool is -32602 with the prefix once', async () => {
    const { client } = await connect();
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /^MCP error -32602: Unknown tool: "no_such_tool"/);
      assert.doesNotMatch(error.message, /MCP error -32602: MCP error/);
      return true;
    });
  });

  test('error results carry their code in _meta: a workspace escape, a tool error, a mode denial', async () => {
    const { client } = await connect();
    const escape = (await client.callTool({ name: 'read_file', arguments: { filepath: '../outside.txt' } })) as CallToolResult;
    assert.equal(escape.isError, true);
    assert.equal(escape._meta?.['toolgate/errorCode'], 'PATH_TRAVERSAL');
    const failed = (await client.callTool({ name: 'test_error_handling', arguments: {} })) as CallToolResult;
    assert.equal(failed.isError, true);
    assert.equal(failed._meta?.['toolgate/errorCode'], 'TOOL_ERROR');
    assert.match(JSON.stringify(failed.content), /This tool intentionally returns an error for testing/);
    const { client: explore } = await connect({ mode: 'explore' });
    const denied = (await explore.callTool({ name: 'write_file', arguments: { filepath: 'x.txt', content: 'x' } })) as CallToolResult;
    assert.equal(denied.isError, true);
    assert.equal(denied._meta?.['toolgate/errorCode'], 'MODE_DENIED');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'x.txt')), false);
  });

  test('a read-only mode lists only the tools it could ever let run', async () => {
    const { client: all } = await connect();
    const everything = (await all.listTools()).tools.map((t) => t.name);
    assert.ok(everything.includes('write_file'));
    const { client: explore } = await connect({ mode: 'explore' });
    const listed = (await explore.listTools()).tools;
    const names = listed.map((t) => t.name);
    assert.ok(names.includes('read_file'));
    assert.ok(!names.includes('write_file'), 'write_file is always denied in explore mode');
    for (const t of listed) assert.equal(t.annotations?.readOnlyHint, true, t.name);
  });

  test('logging/setLevel filters the log messages tools send; without it every level is sent', async () => {
    const { client, logs } = await connect();
    const first = (await client.callTool({ name: 'talk_to_caller_pool', arguments: {} })) as CallToolResult;
    assert.equal(first.isError, undefined, JSON.stringify(first.content));
    assert.deepEqual(logs.map((l) => l.level), ['debug', 'info', 'warning']);
    assert.deepEqual(logs[1], { level: 'info', logger: 'talk_to_caller_pool', data: { step: 'middle', values: [1, 2] } });
    logs.length = 0;
    assert.deepEqual(await client.setLoggingLevel('warning'), {});
    await client.callTool({ name: 'talk_to_caller_pool', arguments: {} });
    assert.deepEqual(logs, [{ level: 'warning', logger: 'talk_to_caller_pool', data: 'the last line' }]);
  });

  test('ctx.progress becomes notifications/progress when the client sent a progress token', async () => {
    const { client } = await connect();
    const seen: unknown[] = [];
    const r = await client.callTool({ name: 'talk_to_caller_process', arguments: {} }, CallToolResultSchema, {
      onprogress: (p) => seen.push([p.progress, p.total, p.message]),
    });
    assert.equal(r.isError, undefined);
    assert.deepEqual(seen, [[1, 3, 'started'], [2, 3, undefined], [3, 3, 'done']]);
  });

  test('ctx.elicit and ctx.sample are answered by a client that declared elicitation and sampling', async () => {
    const { client } = await connect({ capabilities: { capabilities: { elicitation: { form: {} }, sampling: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      assert.equal(request.params.message, 'Your name?');
      return { action: 'accept', content: { name: 'Grace' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      assert.equal(request.params.maxTokens, 10);
      return { role: 'assistant', content: { type: 'text', text: 'hello there' }, model: 'scripted' };
    });
    const r = (await client.callTool({ name: 'talk_to_caller_pool', arguments: { ask: true } })) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    assert.deepEqual(r.structuredContent, { elicited: JSON.stringify({ action: 'accept', content: { name: 'Grace' } }), sampled: 'hello there' });
  });

  test('a client without sampling: ctx.sample fails the call with CLIENT_UNAVAILABLE, a clear result', async () => {
    const { client } = await connect();
    const r = (await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.equal(r._meta?.['toolgate/errorCode'], 'CLIENT_UNAVAILABLE');
    assert.match(JSON.stringify(r.content), /ctx\.sample\(\) needs a caller that can ask a model/);
  });
});
