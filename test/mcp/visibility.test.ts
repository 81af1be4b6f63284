/**
 * What the MCP server lists: the selected tools the mode would ever let run, the same rule the
 * agents' tool lists follow (src/registry/visibility.ts). A call still reaches the mode
 * decider, so a hidden tool called anyway is denied, not unknown.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, loadBuiltinTools, ToolExecutor, type McpServeOptions } from 'toolgate';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';

describe('MCP tools/list follows the mode', () => {
  const tmp = tempWorkspace();
  let executor: ToolExecutor;
  const clients: Client[] = [];
  before(async () => {
    const { registry } = await loadBuiltinTools();
    executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await executor.close();
    tmp.cleanup();
  });
  const connect = async (options: Omit<McpServeOptions, 'executor'>) => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(await inMemoryTransport(createMcpServer({ executor, workspaceRoot: tmp.ws, ...options })));
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

  test('an unknown mode lists nothing', async () => {
    assert.deepEqual(await names(await connect({ mode: 'yolo' })), []);
  });
});
