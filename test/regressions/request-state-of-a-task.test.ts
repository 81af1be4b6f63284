/**
 * Security regression (binding): a 2026-07-28 retry's `requestState` naming the question of an
 * MCP task (session `mcp-tasks`, the task id as call id) answered that question and ran the
 * task's call in the forger's request, for another requestor than the task's: a task's
 * question is answered by `tasks/update` of its requestor only. Such a state is refused now,
 * nothing runs, and the task still waits for its own requestor. (While the instance running the task lives, the
 * call is refused as in progress; once it is gone, the forger's request took the call over.)
 */
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ledgerHandler, type LedgerHandler } from '../mcp/ledger-handler.js';
import { modern, pollTask, questionKey, type Target } from '../mcp/task-extension-helpers.js';

/** A pid that is not running (a child that has exited). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

const alice: AuthInfo = { token: 'alice-token-1', clientId: 'alice', scopes: [] };
const mallory: AuthInfo = { token: 'mallory-token', clientId: 'mallory', scopes: [] };

/** A request state as the server mints them (`tgq1.` and base64url JSON). */
function forgedState(question: number, callId: string, session: string): string {
  return `tgq1.${Buffer.from(JSON.stringify({ q: question, c: callId, s: session }), 'utf8').toString('base64url')}`;
}

describe('a requestState naming a task\'s question (security regression)', () => {
  let served: LedgerHandler;
  before(async () => {
    served = await ledgerHandler();
  });
  after(() => served.close());
  const as = (authInfo: AuthInfo): Target => served.as(authInfo);

  it('another requestor cannot answer a task\'s question (nor run its call) through a retry', async () => {
    const args = { filepath: 'task.txt', content: 'alice\n' };
    const created = await modern(as(alice), 'tools/call', { name: 'write_file', arguments: args });
    const taskId = created.result!.taskId!;
    const key = questionKey(await pollTask(as(alice), taskId, (t) => t.status === 'input_required'));
    const question = Number(key.slice('toolgate_confirmation_'.length));
    // The instance running the task is gone (its call pending, the question open), and
    // Mallory knows the task id (leaked; binding is what protects a task); question ids are sequential.
    const raw = new Database(served.system.executor.ledger!.file);
    raw.prepare('UPDATE calls SET owner_pid = ? WHERE call_id = ?').run(deadPid(), taskId);
    raw.close();
    const forged = await modern(as(mallory), 'tools/call', {
      name: 'write_file', arguments: args, requestState: forgedState(question, taskId, 'mcp-tasks'),
      inputResponses: { toolgate_confirmation: { action: 'accept', content: { approve: true } } },
    }, { elicitation: { form: {} } });
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));
    assert.equal(fs.existsSync(path.join(served.tmp.ws, 'task.txt')), false, 'nothing ran');
    assert.equal((await served.system.executor.ledger!.approval(question))?.answer, undefined, 'the question is still open');
    assert.equal((await modern(as(alice), 'tasks/get', { taskId })).result?.status, 'input_required');
    await modern(as(alice), 'tasks/cancel', { taskId });
  });
});
