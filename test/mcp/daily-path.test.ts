/**
 * The MCP server's defects found by issue 34's conformance and soak trials, each over a real
 * `toolgate mcp` (stdio) on a temporary state folder, driven by the SDK v1 `Client`:
 * - item 12: after a `kill -9` of one server, another server already running on the same
 *   state folder reads the dead server's running task `failed` (interrupted), and its
 *   `tasks/result` answers instead of hanging;
 * - item 13: an invalid `tools/list` cursor and an invalid `logging/setLevel` level are
 *   `-32602`; an unknown task id's error carries the "MCP error -32602:" prefix once.
 * Every process started here is killed and awaited; the folders are removed.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema, CreateTaskResultSchema, EmptyResultSchema, ListToolsResultSchema, McpError, type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR } from '../helpers.js';
import { cleanUpMcp, mcpFolders } from './http-command.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  ({ root, ws, state } = mcpFolders('toolgate-mcp-daily-'));
});
afterEach(() => cleanUpMcp(clients, children, root));

/** A client of a new `toolgate mcp` over stdio (with `extra` flags); returns the client and the server's pid. */
async function stdioClient(extra: string[] = []): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'toolgate-daily-test', version: '1.0.0' });
  const args = [BIN, 'mcp', '--workspace', ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy', ...extra];
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid! };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Asserts `promise` rejects with a JSON-RPC `-32602` whose message has the SDK's prefix once and matches `pattern`. */
async function rejectsInvalidParams(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32602, error.message);
    assert.match(error.message, /^MCP error -32602: /);
    assert.doesNotMatch(error.message, /MCP error -32602: MCP error/);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('toolgate mcp: issue 34 items 12 and 13', () => {
  it('a task of a server killed with kill -9 reads failed on a server already running on the same state folder, and tasks/result answers', { timeout: 60_000 }, async () => {
    const first = await stdioClient();
    const second = await stdioClient(); // running before the kill: its ledger was opened while the task ran
    const ticks = path.join(ws, 'ticks.txt');
    const created = await first.client.request(
      { method: 'tools/call', params: { name: 'tick_until_aborted', arguments: { filepath: 'ticks.txt' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    await waitFor(() => fs.existsSync(ticks), 'the tool to start');
    assert.equal((await second.client.experimental.tasks.getTask(taskId)).status, 'working');
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => processGone(first.pid), 'the killed server to go');
    clients.splice(clients.indexOf(first.client), 1);
    await first.client.close().catch(() => undefined);

    const after = await second.client.experimental.tasks.getTask(taskId);
    assert.equal(after.status, 'failed', after.statusMessage);
    assert.match(after.statusMessage ?? '', /interrupted: toolgate stopped while this call ran/);
    const result = await second.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.match((result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join(''), /check before repeating/);
  });

  it('an invalid tools/list cursor and logging/setLevel level are -32602; an unknown task id has the prefix once', async () => {
    const { client } = await stdioClient();
    await rejectsInvalidParams(client.request({ method: 'tools/list', params: { cursor: 'no-such-page' } }, ListToolsResultSchema), /Invalid cursor/);
    assert.ok((await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools.length > 0);
    await rejectsInvalidParams(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema), /level/);
    await rejectsInvalidParams(client.request({ method: 'logging/setLevel', params: {} }, EmptyResultSchema), /level/);
    await client.setLoggingLevel('warning');
    await rejectsInvalidParams(client.experimental.tasks.getTask('task_nope'), /Task not found/);
    await rejectsInvalidParams(client.experimental.tasks.getTaskResult('task_nope', CallToolResultSchema), /Task not found: task_nope/);
    await rejectsInvalidParams(client.experimental.tasks.cancelTask('task_nope'), /Task not found: task_nope/);
  });
});
