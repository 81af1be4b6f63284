/**
 * The MCP bridge registers its proxies through the registry's public `register(definition)`
 * (issue 19 item 6): every proxy is a programmatic definition, and a server that changes a
 * tool while a call to it waits for approval gets that call answered `TOOL_REPLACED`, not run
 * under the approval asked for the old definition. Also: a programmatic tool served by our MCP
 * server (what `toolgate mcp` builds) to the SDK client over the in-memory transport.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, McpBridge, ToolExecutor, ToolRegistry, ToolSystem, type ConfirmationRequest } from 'toolgate';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const tmp = tempWorkspace();
after(() => tmp.cleanup());

/** A server with one tool, `deploy`, whose description the test changes (with `tools/list_changed`). */
async function changingServer(): Promise<{ server: Server; describe: (text: string) => Promise<void>; calls: string[] }> {
  const server = new Server({ name: 'site', version: '2.0.0' }, { capabilities: { tools: { listChanged: true } } });
  let description = 'Deploy the site.';
  const calls: string[] = [];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'deploy', description, inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(`${description}|${String((request.params.arguments as { target?: string }).target)}`);
    return { content: [{ type: 'text', text: `deployed (${description})` }] };
  });
  return {
    server, calls,
    describe: async (text) => {
      description = text;
      await server.sendToolListChanged();
    },
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, { what, intervalMs: 10 });
}

describe('the MCP bridge registers through registry.register(definition)', () => {
  test('every proxy is a definition; a tool changed while a call waits for approval answers that call TOOL_REPLACED', async () => {
    const registry = new ToolRegistry();
    const definitions: unknown[] = [];
    const register = registry.register.bind(registry) as (...args: unknown[]) => ReturnType<ToolRegistry['register']>;
    registry.register = ((...args: unknown[]) => {
      definitions.push(args[0]);
      return register(...args);
    }) as ToolRegistry['register'];
    const site = await changingServer();
    const transport = await inMemoryTransport(site.server);
    const bridge = await McpBridge.connect(registry, { site: { command: 'unused' } }, { transportFor: () => transport });
    let asked!: (request: ConfirmationRequest) => void;
    const question = new Promise<ConfirmationRequest>((resolve) => (asked = resolve));
    let answer!: (yes: boolean) => void;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    const executor = new ToolExecutor(registry, {
      workspaceRoot: tmp.ws, outputStore: false,
      confirmationHandler: (request) => {
        asked(request);
        return answered;
      },
    });
    try {
      assert.deepEqual(bridge.proxyNames(), ['site__deploy']);
      assert.equal(definitions.length, 1);
      const given = definitions[0] as { name: string; run: unknown; inputSchema: unknown; source: string };
      assert.equal(given.name, 'site__deploy');
      assert.equal(typeof given.run, 'function');
      assert.equal(given.source, 'mcp:site');
      const first = registry.get('site__deploy')!;
      assert.equal(first.runner, 'main');
      assert.equal(first.requiresConfirmation, true, 'an untrusted server\'s tool asks');

      const pending = executor.call('site__deploy', { target: 'prod' });
      assert.equal((await question).description, 'Deploy the site.');
      await site.describe('Deploy the site to the new cluster.');
      await until(() => registry.get('site__deploy') !== first, 'the bridge to register the changed tool');
      assert.equal(definitions.length, 2, 'the change was registered through register(definition)');
      assert.equal(registry.get('site__deploy')!.description, 'Deploy the site to the new cluster.');
      const changed = registry.get('site__deploy')!;
      assert.notEqual(changed.revision, first.revision, 'a changed tool has a new revision');
      // The same tool listed again (as after a reconnect) keeps its revision, so its remembered approvals.
      assert.equal(register(definitions[1], { bridged: true, foreignSchemas: true }).revision, changed.revision);
      answer(true);
      const result = await pending;
      assert.equal(result.errorCode, 'TOOL_REPLACED', result.output);
      assert.deepEqual(site.calls, [], 'the server was not called');

      const again = await executor.call('site__deploy', { target: 'prod' });
      assert.equal(again.success, true, again.error);
      assert.equal(again.output, 'deployed (Deploy the site to the new cluster.)');
    } finally {
      await executor.close();
      await bridge.close();
    }
  });
});

describe('a programmatic tool served over MCP', () => {
  test('the SDK client lists and calls it; invalid arguments are an isError result', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'shout', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Say a word loudly.',
      inputSchema: { type: 'object', properties: { word: { type: 'string', minLength: 1 } }, required: ['word'], additionalProperties: false },
      outputSchema: { type: 'string' },
      run: ({ word }) => `${String(word).toUpperCase()}!`,
    });
    const system = new ToolSystem({ registry, workspace: tmp.ws, executor: { outputStore: false } });
    const client = new Client({ name: 'programmatic-test', version: '1.0.0' });
    try {
      await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws })));
      const { tools } = await client.listTools();
      const shout = tools.find((t) => t.name === 'shout');
      assert.equal(shout?.description, 'Say a word loudly.');
      assert.equal(shout?.annotations?.readOnlyHint, true);
      const result = (await client.callTool({ name: 'shout', arguments: { word: 'hello' } })) as CallToolResult;
      assert.notEqual(result.isError, true);
      assert.deepEqual(result.content, [{ type: 'text', text: 'HELLO!' }]);
      const invalid = (await client.callTool({ name: 'shout', arguments: { word: '' } })) as CallToolResult;
      assert.equal(invalid.isError, true);
      assert.equal(invalid._meta?.['toolgate/errorCode'], 'INVALID_ARGUMENTS');
    } finally {
      await client.close();
      await system.close();
    }
  });
});
