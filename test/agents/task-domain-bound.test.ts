/**
 * Tasks stay within their creator's rights (security cases: privilege escalation via
 * scheduling): a task's call runs later with the options stored when it was created (session,
 * mode, approval mode, scoped write folders), so
 * - another caller who sees a detached task may not put its own arguments into it (they would
 *   run under the creator's approval mode, wider than the caller's own), nor resume or
 *   reschedule it (making the creator's call run when the creator did not choose);
 * - a caller confined to another workspace root (a per-call `workspaceRoot`) may not create a
 *   task: it would run in the tool system's workspace instead;
 * - the creator is the task's scope (its turn, else its session), so an agent's later model
 *   round (a session of its own, in the same turn) may still pause, resume, move and change it;
 * - detaching shares a task with the workspace by design (docs/tasks.md): another session
 *   reads, waits for and cancels a detached task, and does not see an attached one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem } from 'toolgate';
import { idOf, taskSystem } from './task-system.js';


describe('a task stays within its creator\'s rights', () => {
  const system = taskSystem();
  const t = system.t;
  let tools: ToolSystem;
  before(async () => {
    tools = await system.start();
  });
  after(() => system.stop());

  it('refuses new arguments for a detached task from a caller other than its creator', async () => {
    const creator = { session: 'wide', approvalMode: 'allow-all' as const };
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id_asking', arguments: { file: 'a.txt' }, delaySeconds: 3600, detach: true }, callId: 'wide-create' }, creator);
    assert.equal(made.success, true, made.output);
    const id = idOf(made.output);
    // Another session, without allow-all (its call of append_call_id_asking would ask a person): it sees the detached task...
    const narrow = { session: 'narrow', confirmationHandler: null };
    assert.match((await tools.execute({ name: 'task_get', arguments: { id }, callId: 'narrow-get' }, narrow)).output, new RegExp(id));
    // ...but may not make it run its arguments under the creator's allow-all.
    const update = await tools.execute({ name: 'task_update', arguments: { id, arguments: { file: 'b.txt' } }, callId: 'narrow-update' }, narrow);
    assert.equal(update.success, false, update.output);
    assert.match(update.output, /Nothing was changed/);
    assert.deepEqual((await tools.executor.ledger!.task(id))!.arguments, { file: 'a.txt' });
    // The creator itself still may.
    const own = await tools.execute({ name: 'task_update', arguments: { id, arguments: { file: 'c.txt' } }, callId: 'wide-update' }, creator);
    assert.equal(own.success, true, own.output);
    await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'wide-cancel' }, creator);
  });

  it('refuses resuming or rescheduling a detached task from another session (it would run under its creator\'s rights)', async () => {
    const creator = { session: 'wide', approvalMode: 'allow-all' as const };
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id_asking', arguments: { file: 'p.txt' }, delaySeconds: 3600, detach: true }, callId: 'wide-paused' }, creator);
    const id = idOf(made.output);
    assert.equal((await tools.execute({ name: 'task_pause', arguments: { id }, callId: 'wide-pause' }, creator)).success, true);
    const other = { session: 'other', confirmationHandler: null };
    for (const [name, args] of [['task_resume', {}], ['task_reschedule', { delaySeconds: 0 }]] as const) {
      const result = await tools.execute({ name, arguments: { id, ...args }, callId: `other-${name}` }, other);
      assert.equal(result.success, false, `${name}: ${result.output}`);
    }
    const stored = (await tools.executor.ledger!.task(id))!;
    assert.equal(stored.state, 'paused');
    assert.ok(stored.runAt > Date.now() + 3000_000, 'not brought forward');
    assert.equal((await tools.execute({ name: 'task_resume', arguments: { id }, callId: 'wide-resume' }, creator)).success, true);
    await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'wide-cancel-2' }, creator);
  });

  it('refuses a task from a caller confined to another workspace root', async () => {
    const sub = path.join(t.ws, 'sub');
    fs.mkdirSync(sub, { recursive: true });
    const before = (await tools.executor.ledger!.tasks({ limit: 1000 })).length;
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'x.txt' }, delaySeconds: 3600 }, callId: 'sub-create' }, { workspaceRoot: sub });
    if (made.success) await tools.execute({ name: 'task_cancel', arguments: { id: idOf(made.output) }, callId: 'sub-cancel' }, { workspaceRoot: sub });
    assert.equal(made.success, false, made.output);
    assert.match(made.output, /Nothing was stored/);
    assert.equal((await tools.executor.ledger!.tasks({ limit: 1000 })).length, before);
  });

  it('lets the creating turn change its task in a later model round (each round is a session of its own)', async () => {
    const round0 = { session: 'turn-9:0', turnId: 'turn-9' };
    const round1 = { session: 'turn-9:1', turnId: 'turn-9' };
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'r.txt' }, delaySeconds: 3600 }, callId: 'r0-create' }, round0);
    const id = idOf(made.output);
    assert.equal((await tools.execute({ name: 'task_pause', arguments: { id }, callId: 'r0-pause' }, round0)).success, true);
    for (const [name, args] of [['task_resume', {}], ['task_reschedule', { delaySeconds: 7200 }], ['task_update', { arguments: { file: 's.txt' } }]] as const) {
      const result = await tools.execute({ name, arguments: { id, ...args }, callId: `r1-${name}` }, round1);
      assert.equal(result.success, true, `${name}: ${result.output}`);
    }
    assert.deepEqual((await tools.executor.ledger!.task(id))!.arguments, { file: 's.txt' });
    // Another turn is not its creator.
    const other = await tools.execute({ name: 'task_reschedule', arguments: { id, delaySeconds: 0 }, callId: 'o-move' }, { session: 'turn-8:0', turnId: 'turn-8' });
    assert.equal(other.success, false, other.output);
    await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'r1-cancel' }, round1);
  });

  it('shares a detached task with the workspace (read, wait, cancel), never an attached one', async () => {
    const creator = { session: 'owner' };
    const attached = idOf((await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'att.txt' }, delaySeconds: 3600 }, callId: 'att' }, creator)).output);
    const detached = idOf((await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'det.txt' }, delaySeconds: 3600, detach: true }, callId: 'det' }, creator)).output);
    const stranger = { session: 'stranger' };
    for (const name of ['task_get', 'task_wait', 'task_cancel'] as const) {
      const result = await tools.execute({ name, arguments: { id: attached, ...(name === 'task_wait' ? { timeoutSeconds: 0 } : {}) }, callId: `s-att-${name}` }, stranger);
      assert.equal(result.success, false, `${name}: ${result.output}`);
      assert.match(result.output, /no task/);
    }
    const listed = await tools.execute({ name: 'task_list', arguments: {}, callId: 's-list' }, stranger);
    assert.ok(!listed.output.includes(attached) && listed.output.includes(detached), listed.output);
    assert.match((await tools.execute({ name: 'task_get', arguments: { id: detached }, callId: 's-det-get' }, stranger)).output, /"status": "scheduled"/);
    const cancelled = await tools.execute({ name: 'task_cancel', arguments: { id: detached }, callId: 's-det-cancel' }, stranger);
    assert.equal(cancelled.success, true, cancelled.output);
    assert.equal((await tools.executor.ledger!.task(detached))!.state, 'cancelled');
    assert.equal((await tools.executor.ledger!.task(attached))!.state, 'scheduled');
    await tools.execute({ name: 'task_cancel', arguments: { id: attached }, callId: 'att-cancel' }, creator);
  });
});
