/**
 * The question of an MCP 2026-07-28 task (tasks extension) answered by the person in the
 * cockpit while the task reads input_required: that answer wins, the task completes with the
 * call's real outcome (allowed: it ran once; denied: a denied tool result), and a late
 * `tasks/update` from the client (with the opposite answer) changes nothing. Two in-process
 * servers over one SQLite state folder; the folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMcpHandler, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';
import { modern, pollTask, questionKey, type Target } from './task-extension-helpers.js';

const alice: AuthInfo = { token: 'alice-token-1', clientId: 'alice', scopes: [] };

describe('MCP 2026-07-28 tasks: a task\'s question answered in the cockpit', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  const systems: ToolSystem[] = [];
  let a: Target;
  let b: Target;

  async function handler(state: string): Promise<McpHttpHandler> {
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: { dir: state }, outputStore: false, sweepLeftovers: false } });
    systems.push(system);
    return createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws }, { era: ctx.era }));
  }
  before(async () => {
    tmp = tempWorkspace();
    const state = path.join(tmp.root, 'state');
    a = { handler: await handler(state), authInfo: alice };
    b = { handler: await handler(state), authInfo: alice };
  });
  after(async () => {
    for (const system of systems) await system.close();
    tmp.cleanup();
  });

  async function exercise(filepath: string, elsewhere: 'allow_once' | 'deny', late: Record<string, unknown>) {
    const ledger = systems[0]!.executor.ledger!;
    const created = await modern(a, 'tools/call', { name: 'write_file', arguments: { filepath, content: 'from a task\n' } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result!.taskId!;
    const key = questionKey(await pollTask(b, taskId, (t) => t.status === 'input_required'));
    const id = Number(key.slice(key.lastIndexOf('_') + 1));
    // The cockpit records an answer this way (src/cockpit/server.ts, recordOnly).
    assert.equal((await ledger.answer(id, elsewhere, 'cockpit:test'))?.first, true);
    const done = await pollTask(b, taskId, (t) => t.status === 'completed' || t.status === 'failed');
    assert.equal(done.status, 'completed', JSON.stringify(done));
    // The client's answer arrives late: ignored (no question is outstanding).
    const ack = await modern(a, 'tasks/update', { taskId, inputResponses: { [key]: late } });
    assert.equal(ack.error, undefined, JSON.stringify(ack));
    assert.equal((await modern(b, 'tasks/get', { taskId })).result?.status, 'completed');
    assert.ok(!(await ledger.pendingApprovals()).some((q) => q.id === id), 'the question is no longer waiting');
    return { done, ledger, taskId };
  }

  it('allowed in the cockpit: the task completes with the call\'s result; a late decline changes nothing', async () => {
    const { done } = await exercise('task-allow.txt', 'allow_once', { action: 'decline' });
    assert.equal((done.result as { isError?: boolean }).isError, undefined, JSON.stringify(done));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'task-allow.txt'), 'utf8'), 'from a task\n');
  });

  it('denied in the cockpit: the task completes with a denied result; a late accept runs nothing', async () => {
    const { done } = await exercise('task-deny.txt', 'deny', { action: 'accept', content: { approve: true } });
    assert.equal((done.result as { isError?: boolean }).isError, true, JSON.stringify(done));
    assert.equal(fs.existsSync(path.join(tmp.ws, 'task-deny.txt')), false);
  });
});
