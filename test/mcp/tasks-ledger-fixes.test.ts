/**
 * Review findings of issue 16 on MCP tasks, each with the test that failed before its fix:
 * - a task is recorded in the ledger before its id is answered (a kill right after the client
 *   got the id leaves a task the ledger knows; after a restart it reads `failed`, not run);
 * - live tasks per server are bounded (`maxLiveTasks`): one more is refused with JSON-RPC
 *   `-32600`, and accepted again once one has ended;
 * - waiting tasks share one poller: more tasks waiting for an answer add no timer;
 * - `tasks/cancel` received by another `toolgate mcp` on the same state folder stops the tool
 *   in the process that runs it (its signal is aborted), and the task reads `cancelled`.
 * - a requested ttl is clamped to the server's own, a negative one refused (`-32602`).
 * In-process servers over the SDK's in-memory transport, real `toolgate mcp` processes where the
 * test is about processes (closing a stdio client ends its server). Folders are removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateTaskResultSchema, ErrorCode, McpError, type GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, Ledger, LedgerTaskStore, ToolSystem, type CallStore } from 'toolgate';
import { TASK_SESSION } from '../../src/mcp/tasks.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, fixtureRegistry, inMemoryTransport } from '../helpers.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const closers: Array<() => Promise<void> | void> = [];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-task-fixes-'));
  ws = path.join(root, 'ws');
  state = path.join(root, 'state');
  fs.mkdirSync(ws);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const close of closers.splice(0).reverse()) await close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** An in-process server (fixture tools, a ledger in `state`) and a client that cannot be asked. */
async function inProcess(options: { maxLiveTasks?: number; mode?: string } = {}): Promise<{ client: Client; ledger: CallStore; tasks: LedgerTaskStore }> {
  const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: ws, executor: { ledger: { dir: state, workspace: ws }, outputStore: false } });
  closers.push(() => system.close());
  const ledger = system.executor.ledger!;
  const tasks = new LedgerTaskStore(ledger, (name) => system.registry.get(name), { maxLiveTasks: options.maxLiveTasks });
  const server = createMcpServer({ system, workspaceRoot: ws, tasks, mode: options.mode });
  const client = new Client({ name: 'toolgate-task-fixes', version: '1.0.0' });
  await client.connect(await inMemoryTransport(server));
  clients.push(client);
  return { client, ledger, tasks };
}

/** A client of a new `toolgate mcp` over stdio on `state`; returns it and the server's pid. */
async function stdioClient(): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'toolgate-task-fixes', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath, args: [BIN, 'mcp', '--workspace', ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'], stderr: 'pipe',
  });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid! };
}

async function createTask(client: Client, name: string, args: Record<string, unknown>): Promise<GetTaskResult> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return created.task;
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function pollUntil(client: Client, taskId: string, done: (task: GetTaskResult) => boolean): Promise<GetTaskResult> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${task.status}: ${task.statusMessage ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('MCP tasks: review findings of the ledger (issue 16)', () => {
  it('the task is in the ledger when its id is answered, with the arguments the executor checked', async () => {
    const { client, ledger } = await inProcess({ mode: 'default' });
    // Its question waits (the client cannot be asked): the call stays pending.
    const task = await createTask(client, 'confirm_action', { value: 'recorded-first' });
    const record = await ledger.get(task.taskId, TASK_SESSION);
    assert.ok(record, 'the ledger knows the task id the client holds');
    assert.equal(record.tool, 'confirm_action');
    assert.deepEqual(record.arguments, { value: 'recorded-first' });
    await pollUntil(client, task.taskId, (t) => t.status === 'input_required');
    // What a later process needs to run it the same way (`toolgate approvals allow`): the executor's options.
    assert.deepEqual((await ledger.get(task.taskId, TASK_SESSION))?.options, { mode: 'default' });
  });

  it('a requested ttl is clamped to the server\'s (1e308) or refused with -32602 when negative (2025-11-25: a duration in ms the receiver may override)', async () => {
    const { client, tasks } = await inProcess();
    const call = (ttl: unknown) => client.request({ method: 'tools/call', params: { name: 'sleep_then_answer', arguments: { ms: 1 }, task: { ttl } } } as never, CreateTaskResultSchema);
    const huge = await call(1e308);
    assert.equal(huge.task.ttl, tasks.ttlMs, 'the server\'s own ttl');
    for (const bad of [-5, -0.5]) {
      await assert.rejects(call(bad), (error: unknown) => error instanceof McpError && error.code === ErrorCode.InvalidParams && /task\.ttl must be a number of milliseconds, 0 or more/.test(error.message), String(bad));
    }
    await assert.rejects(tasks.createTask({ ttl: Number.POSITIVE_INFINITY }, 1, { method: 'tools/call' }), /task\.ttl must be/);
    await assert.rejects(tasks.createTask({ ttl: Number.NaN }, 1, { method: 'tools/call' }), /task\.ttl must be/);
    assert.equal((await tasks.createTask({ ttl: 0 }, 1, { method: 'tools/call' })).ttl, tasks.ttlMs);
  });

  it('a task recorded by a server that died before its call ran reads failed (it did not run) after a restart', async () => {
    const ledger = Ledger.open({ dir: state, workspace: ws });
    const tasks = new LedgerTaskStore(ledger, () => undefined);
    const task = await tasks.createTask({ ttl: 60_000 }, 1, { method: 'tools/call' });
    // start() records before it runs anything: the run here never returns, as if the process died in the deciders.
    let release!: () => void;
    const never = new Promise<never>((_resolve, reject) => (release = () => reject(new Error('released'))));
    closers.push(() => release());
    await tasks.start(task.taskId, { tool: 'sleep_then_answer', version: '1.0.0', arguments: { ms: 1 }, workspace: ws, turn: '' }, () => never);
    assert.equal((await ledger.get(task.taskId, TASK_SESSION))?.state, 'pending', 'recorded before start() returned');
    await ledger.close();
    // The recording process "dies": its rows get a pid that is gone.
    const db = new Database(ledger.file);
    db.prepare('UPDATE calls SET owner_pid = ?, owner_start = NULL').run(2 ** 22 + 1);
    db.close();

    const after = new LedgerTaskStore(Ledger.open({ dir: state, workspace: ws }), () => undefined);
    closers.push(async () => (await after.ledger.close()));
    const read = await after.getTask(task.taskId);
    assert.equal(read?.status, 'failed');
    assert.equal((await after.ledger.get(task.taskId, TASK_SESSION))?.state, 'failed');
    assert.match((await after.ledger.result(task.taskId, TASK_SESSION))?.result.error ?? '', /did not run/);
  });

  it('live tasks are bounded: one more than maxLiveTasks is refused with -32600, and accepted once one ended', async () => {
    const { client, ledger } = await inProcess({ maxLiveTasks: 2 });
    const first = await createTask(client, 'confirm_action', { value: 'a' });
    await createTask(client, 'confirm_action', { value: 'b' });
    await assert.rejects(createTask(client, 'confirm_action', { value: 'c' }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, ErrorCode.InvalidRequest);
      assert.match(error.message, /too many tasks: this server runs or keeps waiting at most 2 tasks/);
      return true;
    });
    // End one (deny its question, as `toolgate approvals deny` would): a new task is accepted.
    const question = (await ledger.pendingApprovals()).find((q) => q.callId === first.taskId)!;
    await ledger.answer(question.id, 'deny', 'test');
    await pollUntil(client, first.taskId, (t) => t.status === 'failed');
    const again = await createTask(client, 'sleep_then_answer', { ms: 1 });
    assert.equal(again.status, 'working');
  });

  it('tasks waiting for an answer share one poller: more of them add no timer', async () => {
    const { client, ledger } = await inProcess();
    const first = await createTask(client, 'confirm_action', { value: 'w0' });
    await pollUntil(client, first.taskId, (t) => t.status === 'input_required');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = timers();
    const more: string[] = [];
    for (let i = 1; i <= 5; i++) more.push((await createTask(client, 'confirm_action', { value: `w${i}` })).taskId);
    for (const id of more) await pollUntil(client, id, (t) => t.status === 'input_required');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Other timers of the process come and go (a ledger flush, a socket); five more waiting
    // tasks must not add any: one poller each would add five.
    const after = timers();
    assert.ok(after <= before, `five more waiting tasks, no more timers (${before} before, ${after} after)`);
    // And the shared poller still finds an answer given elsewhere.
    const question = (await ledger.pendingApprovals()).find((q) => q.callId === more[4])!;
    await ledger.answer(question.id, 'allow_once', 'test');
    const done = await pollUntil(client, more[4]!, (t) => t.status === 'completed' || t.status === 'failed');
    assert.equal(done.status, 'completed', done.statusMessage);
  });

  it('tasks/cancel received by another toolgate mcp stops the tool in the process that runs it', async () => {
    const runner = await stdioClient();
    const ticks = path.join(ws, 'ticks.txt');
    const task = await createTask(runner.client, 'tick_until_aborted', { filepath: 'ticks.txt' });
    await waitFor(() => fs.existsSync(ticks) && fs.readFileSync(ticks, 'utf8').split('\n').length > 3, 'a few ticks');
    const other = await stdioClient();
    const cancelled = await other.client.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    // The running process sees the ledger's flag and aborts the call's signal: the tool writes `stopped`.
    await waitFor(() => fs.readFileSync(ticks, 'utf8').endsWith('stopped\n'), 'the tool in the other process to see its abort');
    const size = fs.statSync(ticks).size;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(fs.statSync(ticks).size, size, 'no tick after the abort');
    assert.equal((await runner.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
    assert.equal((await other.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
  });
});
