/**
 * MCP tasks are bound to their requestor (issue 30 item 8, case X1): over `toolgate mcp --http`
 * on loopback, with the token it made, a second session (its own initialize) gets the same
 * "not found" for another session's task as for a task id that never existed, from
 * `tasks/list`, `tasks/get`, `tasks/result` and `tasks/cancel`; the session that created the
 * task reads its result. The binding is in the ledger: after a restart on the same state
 * folder, neither a new HTTP session nor a stdio client finds the task.
 * Every process started here is killed and awaited; the folders are removed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ledger, LedgerTaskStore } from 'toolgate';
import { TASK_SESSION } from '../../src/mcp/tasks.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { BIN } from '../helpers.js';
import { cleanUpMcp, mcpFolders, startHttpCommand, transportTo, type HttpCommand } from './http-command.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  ({ root, ws, state } = mcpFolders('toolgate-task-binding-'));
});
afterEach(() => cleanUpMcp(clients, children, root));

/** Where bubblewrap is missing (CI runs the suite so too), run_command runs without a sandbox, chosen explicitly. */
const NO_SANDBOX = bubblewrapAvailable() ? [] : ['--dangerously-disable-sandbox'];
const serverArgs = () => ['--workspace', ws, '--state-dir', state, '--no-policy', '--yes', '--tool', 'run_command', ...NO_SANDBOX];

async function serve(): Promise<HttpCommand> {
  const served = await startHttpCommand(serverArgs());
  children.push(served.child);
  return served;
}

/** A new session: its own client and its own initialize. */
async function session(served: HttpCommand): Promise<Client> {
  const client = new Client({ name: 'toolgate-x1', version: '1.0.0' });
  await client.connect(transportTo(served));
  clients.push(client);
  return client;
}

/** The error a request ends with (it must end with one). */
async function failure(request: Promise<unknown>): Promise<McpError> {
  try {
    await request;
  } catch (error) {
    assert.ok(error instanceof McpError, `an MCP error, got ${String(error)}`);
    return error;
  }
  assert.fail('the request succeeded');
}

/** Its message with the task id named in it replaced, to compare with another id's. */
const shape = (error: McpError, taskId: string) => ({ code: error.code, message: error.message.split(taskId).join('<id>') });

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

describe('MCP tasks bound to their requestor (X1)', () => {
  it('X1: session B gets "not found" for session A\'s task from tasks/list, get, result and cancel, as for an id that never existed; A reads its result', async () => {
    const secret = `x1-secret-${crypto.randomUUID()}`;
    fs.writeFileSync(path.join(ws, 'secret.txt'), `${secret}\n`);
    const served = await serve();
    assert.ok(served.token !== undefined, 'toolgate mcp --http made a token and printed it');
    // Without the token, nothing at all.
    const bare = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(bare.status, 401);

    const a = await session(served);
    const created = await a.request({ method: 'tools/call', params: { name: 'run_command', arguments: { command: 'sleep 1.5; cat secret.txt' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    assert.equal((await a.experimental.tasks.getTask(taskId)).status, 'working');

    const b = await session(served);
    const never = `task_${Date.now().toString(36)}_${crypto.randomUUID()}`;
    const listed = await b.experimental.tasks.listTasks();
    assert.deepEqual(listed.tasks, [], 'B lists none of A\'s tasks');
    for (const [what, ask] of [
      ['tasks/get', (id: string) => b.experimental.tasks.getTask(id)],
      ['tasks/result', (id: string) => b.experimental.tasks.getTaskResult(id, CallToolResultSchema)],
      ['tasks/cancel', (id: string) => b.experimental.tasks.cancelTask(id)],
      ['tasks/list with the task as cursor', (id: string) => b.experimental.tasks.listTasks(id)],
    ] as const) {
      const theirs = await failure(ask(taskId));
      const none = await failure(ask(never));
      assert.equal(theirs.code, ErrorCode.InvalidParams, what);
      assert.deepEqual(shape(theirs, taskId), shape(none, never), `${what}: A's task reads exactly as one that does not exist`);
      assert.doesNotMatch(theirs.message, new RegExp(secret), what);
    }

    // B's cancel did nothing: A's task runs to its end, and A reads the secret.
    const result = await a.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.notEqual(result.isError, true, text(result as CallToolResult));
    assert.match(text(result as CallToolResult), new RegExp(secret));
    assert.equal((await a.experimental.tasks.getTask(taskId)).status, 'completed');
    assert.deepEqual((await a.experimental.tasks.listTasks()).tasks.map((t) => t.taskId), [taskId]);
    assert.deepEqual((await b.experimental.tasks.listTasks()).tasks, []);

    // The binding is in the ledger: a restarted server (a new token) and its new session, and
    // a stdio client on the same state folder, find nothing.
    const first = served.child;
    const exited = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGTERM');
    await exited;
    const again = await serve();
    assert.notEqual(again.token, served.token, 'a new token on every bind');
    const c = await session(again);
    assert.deepEqual((await c.experimental.tasks.listTasks()).tasks, []);
    assert.deepEqual(shape(await failure(c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)), taskId), shape(await failure(c.experimental.tasks.getTaskResult(never, CallToolResultSchema)), never));
    const local = new Client({ name: 'toolgate-x1-stdio', version: '1.0.0' });
    await local.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...serverArgs()], stderr: 'pipe' }));
    clients.push(local);
    await failure(local.experimental.tasks.getTask(taskId));
    assert.deepEqual((await local.experimental.tasks.listTasks()).tasks, []);
  });

  it('a task in the ledger bound to nobody (recorded before the binding existed) is found by no requestor', async () => {
    const ledger = Ledger.open({ dir: state, workspace: ws });
    try {
      await ledger.record({ callId: 'task_legacy', session: TASK_SESSION, tool: 'run_command', version: '1.0.0', arguments: {}, workspace: ws, turn: '' });
      const tasks = new LedgerTaskStore(ledger, () => undefined);
      assert.equal(await tasks.getTask('task_legacy'), null);
      assert.deepEqual((await tasks.listTasks()).tasks, []);
      await assert.rejects(tasks.getTaskResult('task_legacy'), /not found/i);
      await assert.rejects(tasks.updateTaskStatus('task_legacy', 'cancelled'), /not found/i);
      assert.equal((await ledger.get('task_legacy', TASK_SESSION))?.cancelRequested, false, 'nothing was cancelled');
      // One of this store's own, for contrast: its creator finds it, another requestor does not.
      const own = await tasks.createTask({ ttl: 60_000 }, 1, { method: 'tools/call' });
      await tasks.start(own.taskId, { tool: 'run_command', version: '1.0.0', arguments: {}, workspace: ws, turn: '' }, () => Promise.reject(new Error('not run in this test')));
      await tasks.idle();
      assert.equal((await tasks.getTask(own.taskId))?.taskId, own.taskId);
      assert.equal(await tasks.getTask(own.taskId, 'someone-else'), null);
      assert.equal(await tasks.boundTo('someone-else').getTask(own.taskId, undefined), null);
      assert.deepEqual((await tasks.listTasks()).tasks.map((t) => t.taskId), [own.taskId]);
    } finally {
      await ledger.close();
    }
  });
});
