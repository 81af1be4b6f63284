/**
 * MCP tasks (2025-11-25) served from the call ledger, driven by the SDK `Client`:
 * - `toolgate mcp` advertises the `tasks` capability and `execution.taskSupport` per tool;
 * - a task outlives its client: created over stdio, the client disconnects (the server finishes
 *   the task, then exits), a restarted server on the same state folder reads it `completed` and
 *   returns its result; over streamable HTTP the session that created it polls it to
 *   `completed`, and a new session (another client) does not find it;
 * - a task running when its server is killed (`kill -9`) reads `failed` with the interrupted
 *   result after a restart;
 * - `tasks/cancel` aborts the call: the tool stops (its marker file stops growing);
 * - a task whose tool needs confirmation, with a client that cannot be asked, reads
 *   `input_required` and runs once `toolgate approvals allow` answers it.
 * Every process started here is killed and awaited; the folders are removed.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, runCli } from '../helpers.js';
import { cleanUpMcp, mcpFolders, startHttpCommand, transportTo, type HttpCommand } from './http-command.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  ({ root, ws, state } = mcpFolders('toolgate-mcp-tasks-'));
});
afterEach(() => cleanUpMcp(clients, children, root));

const serverArgs = () => ['--workspace', ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'];

/** A client of a new `toolgate mcp` over stdio; returns the client and the server's pid. */
async function stdioClient(): Promise<{ client: Client; pid: number; transport: StdioClientTransport }> {
  const client = new Client({ name: 'toolgate-tasks-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...serverArgs()], stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid!, transport };
}

/** Start `toolgate mcp --http` (its URL and the token it made). */
async function httpServer(): Promise<HttpCommand> {
  const served = await startHttpCommand(serverArgs());
  children.push(served.child);
  return served;
}

async function httpClient(served: HttpCommand): Promise<Client> {
  const client = new Client({ name: 'toolgate-tasks-test', version: '1.0.0' });
  await client.connect(transportTo(served));
  clients.push(client);
  return client;
}

/** `tools/call` as a task: the CreateTaskResult's task. */
async function createTask(client: Client, name: string, args: Record<string, unknown>): Promise<GetTaskResult> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return created.task;
}

/** Poll `tasks/get` until `done` holds (every 50 ms, at most 20 s). */
async function pollUntil(client: Client, taskId: string, done: (task: GetTaskResult) => boolean): Promise<GetTaskResult> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${task.status}: ${task.statusMessage ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe('MCP tasks from the ledger', () => {
  it('toolgate mcp advertises the tasks capability and execution.taskSupport for each tool', async () => {
    const { client } = await stdioClient();
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    // Every page (the fixture tools make the list longer than one page of 100).
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const slow = tools.find((t) => t.name === 'sleep_then_answer');
    assert.deepEqual(slow?.execution, { taskSupport: 'optional' });
  });

  it('a task outlives its client and its server: a restarted server on the same state folder reads it completed and returns its result', async () => {
    const first = await stdioClient();
    const task = await createTask(first.client, 'sleep_then_answer', { ms: 700 });
    assert.equal(task.status, 'working');
    assert.match(task.taskId, /^task_/);
    assert.equal(task.ttl, 3_600_000, 'the server\'s ttl (a receiver may override the one asked for)');
    assert.equal(task.pollInterval, 500);
    assert.ok(!Number.isNaN(Date.parse(task.createdAt)));
    // Disconnect: the server finishes the started task, then exits.
    await first.client.close();
    await waitFor(() => processGone(first.pid), 'the first server to exit');

    const second = await stdioClient();
    const done = await pollUntil(second.client, task.taskId, (t) => t.status !== 'working');
    assert.equal(done.status, 'completed', done.statusMessage);
    assert.equal(done.createdAt, task.createdAt);
    const result = await second.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(result.isError, undefined);
    assert.match(text(result as CallToolResult), /700/);
    const listed = await second.client.experimental.tasks.listTasks();
    assert.deepEqual(listed.tasks.map((t) => [t.taskId, t.status]), [[task.taskId, 'completed']]);
    // A task id this server never made: a protocol error.
    await assert.rejects(second.client.experimental.tasks.getTask('task_nope'), /not found/i);
  });

  it('over streamable HTTP, the session that created a task polls it to completed (tasks/result blocks until it is done); a new session does not find it', async () => {
    const served = await httpServer();
    const first = await httpClient(served);
    // The tool runs until release.txt appears: the task is working for as long as this test needs.
    const task = await createTask(first, 'answer_when_released', { filepath: 'release.txt' });
    const now = await first.experimental.tasks.getTask(task.taskId);
    assert.equal(now.status, 'working');
    const second = await httpClient(served);
    await assert.rejects(second.experimental.tasks.getTask(task.taskId), /not found/i);
    // tasks/result waits for the end (the SDK checks every pollInterval): asked before the release.
    let answered = false;
    const waiting = first.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(answered, false, 'tasks/result has not answered while the task works');
    fs.writeFileSync(path.join(ws, 'release.txt'), '');
    const result = await waiting;
    assert.match(text(result as CallToolResult), /released release\.txt/);
    assert.equal((await first.experimental.tasks.getTask(task.taskId)).status, 'completed');
  });

  it('a task running when its server is killed (kill -9) reads failed, with the interrupted result, after a restart', async () => {
    const first = await stdioClient();
    const ticks = path.join(ws, 'ticks.txt');
    const task = await createTask(first.client, 'tick_until_aborted', { filepath: 'ticks.txt' });
    await waitFor(() => fs.existsSync(ticks), 'the tool to start');
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => processGone(first.pid), 'the killed server to go');
    clients.splice(clients.indexOf(first.client), 1);
    await first.client.close().catch(() => undefined);

    const second = await stdioClient();
    const after = await second.client.experimental.tasks.getTask(task.taskId);
    assert.equal(after.status, 'failed');
    assert.match(after.statusMessage ?? '', /interrupted: toolgate stopped while this call ran; the tool may have run/);
    const result = await second.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.match(text(result as CallToolResult), /check before repeating/);
    const trace = await runCli(['trace', '--workspace', ws, '--state-dir', state]);
    assert.match(trace.stdout, new RegExp(`${task.taskId}\\s+tick_until_aborted@1\\.0\\.0\\s+interrupted`));
  });

  it('tasks/cancel stops a running task\'s tool; the task reads cancelled, also after a restart', async () => {
    const first = await stdioClient();
    const ticks = path.join(ws, 'ticks.txt');
    const task = await createTask(first.client, 'tick_until_aborted', { filepath: 'ticks.txt' });
    await waitFor(() => fs.existsSync(ticks) && fs.readFileSync(ticks, 'utf8').split('\n').length > 3, 'a few ticks');
    const cancelled = await first.client.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    await waitFor(() => fs.readFileSync(ticks, 'utf8').endsWith('stopped\n'), 'the tool to see its abort');
    const size = fs.statSync(ticks).size;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(fs.statSync(ticks).size, size, 'the tool stopped: no tick after the abort');
    assert.equal((await first.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
    const result = await first.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    await assert.rejects(first.client.experimental.tasks.cancelTask(task.taskId), /terminal/);
    await first.client.close();

    const second = await stdioClient();
    assert.equal((await second.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
  });

  it('a task that needs confirmation, with a client that cannot be asked, reads input_required until toolgate approvals allow answers it', async () => {
    const { client } = await stdioClient();
    const task = await createTask(client, 'confirm_action', { value: 'from-task' });
    const waiting = await pollUntil(client, task.taskId, (t) => t.status !== 'working');
    assert.equal(waiting.status, 'input_required');
    const id = /toolgate approvals allow (\d+)/.exec(waiting.statusMessage ?? '')?.[1];
    assert.ok(id, waiting.statusMessage);
    const allowed = await runCli(['approvals', 'allow', id, '--workspace', ws, '--state-dir', state]);
    assert.equal(allowed.code, 0, allowed.stderr);
    const done = await pollUntil(client, task.taskId, (t) => t.status !== 'input_required' && t.status !== 'working');
    assert.equal(done.status, 'completed', done.statusMessage);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(text(result as CallToolResult), 'confirmed from-task');
  });
});
