/**
 * Issue 33, item 3: the tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`) on
 * the call store. Two in-process servers (the SDK's `createMcpHandler`) over one SQLite state
 * folder: a client declaring the extension gets a task; its question is read (input_required,
 * `inputRequests`) and answered (`tasks/update`) through the other instance; a running task is
 * cancelled through the other instance; another requestor (another authenticated principal)
 * finds none of it; a client without the extension gets no task.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMcpHandler, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, serveHttp, ToolSystem } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';
import { modern, pollTask, questionKey, TASKS_EXTENSION, type Target } from './task-extension-helpers.js';

const alice: AuthInfo = { token: 'alice-token-1', clientId: 'alice', scopes: [] };
const mallory: AuthInfo = { token: 'mallory-token', clientId: 'mallory', scopes: [] };

describe('MCP 2026-07-28 tasks extension on the call store (issue 33, item 3)', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  const systems: ToolSystem[] = [];
  let a: McpHttpHandler;
  let b: McpHttpHandler;

  async function handler(state: string): Promise<McpHttpHandler> {
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: { dir: state }, outputStore: false, sweepLeftovers: false } });
    systems.push(system);
    return createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws }, { era: ctx.era }));
  }

  before(async () => {
    tmp = tempWorkspace();
    const state = path.join(tmp.root, 'state');
    a = await handler(state);
    b = await handler(state);
  });
  after(async () => {
    for (const system of systems) await system.close();
    tmp.cleanup();
  });

  const as = (handler: McpHttpHandler, authInfo: AuthInfo): Target => ({ handler, authInfo });

  it('server/discover names the extension', async () => {
    const answer = await modern(as(a, alice), 'server/discover', {});
    const capabilities = answer.result?.capabilities as { extensions?: Record<string, unknown>; tasks?: unknown } | undefined;
    assert.deepEqual(capabilities?.extensions?.[TASKS_EXTENSION], {}, JSON.stringify(answer));
    assert.equal(capabilities?.tasks, undefined, 'no 2025-11-25 tasks capability on 2026-07-28');
  });

  it('a question asked in a task is read and answered through the other instance; the tool runs once', async () => {
    const args = { filepath: 'task.txt', content: 'from a task\n' };
    const created = await modern(as(a, alice), 'tools/call', { name: 'write_file', arguments: args });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result!.taskId!;
    assert.equal(typeof created.result!.ttlMs, 'number');
    const waiting = await pollTask(as(b, alice), taskId, (t) => t.status === 'input_required');
    const key = questionKey(waiting);
    assert.match(key, /^toolgate_confirmation_\d+$/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'task.txt')), false);

    // Another principal: not found, and its answer and cancel change nothing.
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await modern(as(b, mallory), method, { taskId });
      assert.equal(refused.error?.code, -32602, `${method}: ${JSON.stringify(refused)}`);
      assert.match(refused.error!.message, /Task not found/);
    }
    const forged = await modern(as(b, mallory), 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } });
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));
    assert.equal((await modern(as(a, alice), 'tasks/get', { taskId })).result?.status, 'input_required');

    const ack = await modern(as(b, alice), 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { approve: true } }, unknown_key: { action: 'accept' } } });
    assert.equal(ack.result?.resultType, 'complete', JSON.stringify(ack));
    const done = await pollTask(as(b, alice), taskId, (t) => t.status === 'completed');
    assert.equal((done.result as { isError?: boolean }).isError, undefined, JSON.stringify(done));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'task.txt'), 'utf8'), 'from a task\n');
    // A second answer is ignored (no question is outstanding).
    const again = await modern(as(a, alice), 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } });
    assert.equal(again.result?.resultType, 'complete', JSON.stringify(again));
  });

  it('a declined question completes the task with a tool error (not failed)', async () => {
    const created = await modern(as(a, alice), 'tools/call', { name: 'write_file', arguments: { filepath: 'no.txt', content: 'x' } });
    const taskId = created.result!.taskId!;
    const key = questionKey(await pollTask(as(a, alice), taskId, (t) => t.status === 'input_required'));
    await modern(as(b, alice), 'tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } });
    const done = await pollTask(as(a, alice), taskId, (t) => t.status === 'completed' || t.status === 'failed');
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((done.result as { isError?: boolean }).isError, true);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'no.txt')), false);
  });

  it('a running task is cancelled through the other instance; the tool stops', async () => {
    const created = await modern(as(a, alice), 'tools/call', { name: 'wait_for_abort', arguments: {} });
    const taskId = created.result!.taskId!;
    assert.equal((await modern(as(b, alice), 'tasks/get', { taskId })).result?.status, 'working');
    const refused = await modern(as(a, mallory), 'tasks/cancel', { taskId });
    assert.equal(refused.error?.code, -32602);
    assert.equal((await modern(as(a, alice), 'tasks/get', { taskId })).result?.status, 'working');
    const ack = await modern(as(b, alice), 'tasks/cancel', { taskId });
    assert.equal(ack.result?.resultType, 'complete', JSON.stringify(ack));
    await pollTask(as(a, alice), taskId, (t) => t.status === 'cancelled');
    // Instance a ran the call: it saw the cancel flag and aborted it, so the call ended.
    const ledger = systems[0]!.executor.ledger!;
    const end = Date.now() + 30_000;
    while ((await ledger.get(taskId, 'mcp-tasks'))?.endedAt === undefined && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.notEqual((await ledger.get(taskId, 'mcp-tasks'))?.endedAt, undefined, 'the cancelled call ended');
  });

  it('toolgate mcp --http binds a 2026-07-28 task to its bearer token: a server with another token on the same store finds nothing', async () => {
    const [system] = systems;
    const mine = await serveHttp({ system: system!, workspaceRoot: tmp.ws, token: 'first-token-0123456789' });
    const theirs = await serveHttp({ system: system!, workspaceRoot: tmp.ws, token: 'other-token-0123456789' });
    const same = await serveHttp({ system: system!, workspaceRoot: tmp.ws, token: 'first-token-0123456789' });
    try {
      const created = await modern({ url: mine.url, token: mine.token }, 'tools/call', { name: 'wait_for_abort', arguments: {} });
      const taskId = created.result!.taskId!;
      assert.equal((await modern({ url: same.url, token: same.token }, 'tasks/get', { taskId })).result?.status, 'working', 'the same token on another server');
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const refused = await modern({ url: theirs.url, token: theirs.token }, method, { taskId });
        assert.equal(refused.error?.code, -32602, `${method}: ${JSON.stringify(refused)}`);
      }
      assert.equal((await modern({ url: same.url, token: same.token }, 'tasks/cancel', { taskId })).result?.resultType, 'complete');
      await pollTask({ url: mine.url, token: mine.token }, taskId, (t) => t.status === 'cancelled');
    } finally {
      await Promise.all([mine.close(), theirs.close(), same.close()]);
    }
  });

  it('a client without the extension gets no task; an unknown task id is not found', async () => {
    const plain = await modern(as(a, alice), 'tools/call', { name: 'count_calls', arguments: {} }, { elicitation: { form: {} } });
    assert.equal(plain.result?.resultType, 'complete', JSON.stringify(plain));
    assert.equal(plain.result?.taskId, undefined);
    const unknown = await modern(as(a, alice), 'tasks/get', { taskId: 'task_nothing' });
    assert.equal(unknown.error?.code, -32602);
  });
});
