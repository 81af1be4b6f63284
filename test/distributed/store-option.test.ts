/**
 * A PostgreSQL store where callers take one: `toolgate mcp --store postgres://... --queue
 * redis://...` (an MCP call reaching a worker) and the `store` option of `ToolSystem` (a URL,
 * or a store opened by the caller), used by its ledger and its `queue`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolSystem } from 'toolgate';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR } from '../helpers.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const missing = redisMissing();
const pg = missing === undefined ? await postgresForTests(import.meta.url) : { skip: missing };

describe('a PostgreSQL store for toolgate mcp and ToolSystem({ store })', { skip: 'skip' in pg ? pg.skip : undefined, concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;
  let url: string;

  before(async () => {
    url = (pg as PgTestServer).url;
    cluster = await Cluster.start(url);
    await cluster.worker();
    store = await openCallStore(url);
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
    if (!('skip' in pg)) await pg.stop();
  });

  it('an MCP call through toolgate mcp --store postgres://... --queue redis://... runs on a worker', async () => {
    const client = new Client({ name: 'store-option-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath, stderr: 'pipe',
      args: [BIN, 'mcp', '--workspace', cluster.workspace, '--store', url, '--queue', cluster.redis.url, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS],
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    try {
      const result = await client.request({ method: 'tools/call', params: { name: 'append_call_id', arguments: { file: 'mcp.txt' } } }, CallToolResultSchema);
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const lines = cluster.marker('mcp.txt');
      assert.equal(lines.length, 1);
      const [callId, pid] = lines[0]!.split(' ');
      assert.ok(cluster.workers.some((w) => w.pid === Number(pid)), 'ran in a worker process, not in toolgate mcp');
      assert.notEqual(Number(pid), transport.pid);
      const recorded = (await store.list({ limit: 50 })).find((call) => call.callId === callId);
      assert.equal(recorded?.state, 'done', 'recorded in the PostgreSQL store');
      assert.ok(!stderr.includes((pg as PgTestServer).password), 'the password is never shown');
    } finally {
      await client.close();
    }
  });

  it('ToolSystem({ store: URL, queue }) records in that store and sends the call to a worker', async () => {
    const system = new ToolSystem({ workspace: cluster.workspace, builtins: false, store: url, queue: { url: cluster.redis.url } });
    try {
      await system.start();
      assert.equal(system.executor.ledger?.file.includes((pg as PgTestServer).password), false, 'the store is named without its password');
      const result = await system.execute({ name: 'append_call_id', arguments: '{"file":"sdk-url.txt"}', callId: 'sdk-url-1' }, { session: 'sdk' });
      assert.equal(result.success, true, result.output);
      assert.equal(cluster.marker('sdk-url.txt').length, 1);
      assert.equal((await store.get('sdk-url-1', 'sdk'))?.state, 'done');
    } finally {
      await system.close();
    }
  });

  it('ToolSystem({ store: CallStore }) uses the store it is given (and leaves it open)', async () => {
    const system = new ToolSystem({ workspace: cluster.workspace, builtins: false, store, queue: { url: cluster.redis.url } });
    try {
      const result = await system.execute({ name: 'append_call_id', arguments: '{"file":"sdk-store.txt"}', callId: 'sdk-store-1' }, { session: 'sdk' });
      assert.equal(result.success, true, result.output);
      assert.equal(system.executor.ledger, store);
    } finally {
      await system.close();
    }
    assert.equal((await store.get('sdk-store-1', 'sdk'))?.state, 'done', 'still open after the system closed');
  });

  it('refuses store with ledger, and start() rejects a store that cannot be opened', async () => {
    assert.throws(() => new ToolSystem({ workspace: cluster.workspace, builtins: false, store: url, ledger: false }), /store/);
    const bad = new URL(url);
    bad.password = 'wrong';
    const system = new ToolSystem({ workspace: cluster.workspace, builtins: false, store: bad.toString() });
    await assert.rejects(system.start(), (error: Error) => /store/.test(error.message) && !error.message.includes('wrong'));
    await system.close();
  });
});
