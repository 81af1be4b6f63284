/**
 * Issue 33, item 3 over stdio: `toolgate mcp` (the built CLI) pinned to 2026-07-28 by its first
 * message answers a `tools/call` of a client declaring the tasks extension with a task, which
 * `tasks/get` reads and `tasks/cancel` cancels (the tool stops: the task reads `cancelled`).
 * Raw JSON-RPC lines (the SDK v2 client refuses a `resultType: "task"` answer). The process
 * and the folders are removed on every path.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR } from '../helpers.js';
import { cleanUpMcp, mcpFolders } from './http-command.js';
import { MODERN, TASK_CLIENT } from './task-extension-helpers.js';

describe('MCP 2026-07-28 tasks extension over stdio (issue 33, item 3)', () => {
  const folders = mcpFolders('toolgate-task-stdio-');
  const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', folders.ws, '--state-dir', folders.state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  after(() => cleanUpMcp([], [child], folders.root));

  let lastId = 0;
  function request(method: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    const id = ++lastId;
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': TASK_CLIENT };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 30 s`)), 30_000);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`);
    });
  }

  it('a task is created, read and cancelled on one stdio connection', async () => {
    const created = await request('tools/call', { name: 'wait_for_abort', arguments: {} });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result!.taskId as string;
    const read = await request('tasks/get', { taskId });
    assert.equal(read.result?.status, 'working', JSON.stringify(read));
    const cancelled = await request('tasks/cancel', { taskId });
    assert.equal(cancelled.result?.resultType, 'complete', JSON.stringify(cancelled));
    assert.equal((await request('tasks/get', { taskId })).result?.status, 'cancelled');
    const unknown = await request('tasks/get', { taskId: 'task_unknown' });
    assert.equal(unknown.error?.code, -32602);
  });
});
