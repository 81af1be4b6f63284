/**
 * The part of the call store contract (`call-store-contract.ts`) for scheduled tasks
 * (`ScheduledTasks`, `src/ledger/scheduled-tasks.ts`): stored and read back, listed by
 * workspace, scope and due time, changed only from the states given, and started by exactly
 * one of two handles racing for it (what two schedulers in two processes do); ended tasks
 * pruned by retention (a started task with its call, cancelled ones beyond the count), open
 * ones never.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CallStore } from '../../src/ledger/call-store.js';
import type { NewTask } from '../../src/ledger/scheduled-tasks.js';

/** What the task tests need of the contract's `describe`. */
export interface TaskContext {
  /** A new handle on the test's store (closed after the test), with retention `limits`. */
  open(limits?: { maxCalls?: number; retentionDelayMs?: number }): Promise<CallStore>;
}

function task(id: string, runAt: number, extra: Partial<NewTask> = {}): NewTask {
  return {
    id, workspace: '/w', session: 's1', scope: 'turn-1', detached: false, tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt', content: 'x' },
    options: { mode: 'default', approvalMode: 'always-ask' }, title: 'a title', state: 'scheduled', runAt, callId: `task:${id}`, ...extra,
  };
}

/** The scheduled-task tests, registered with `it` in the caller's `describe`. */
export function taskContract(ctx: TaskContext): void {
  it('tasks: stored, read back, listed by workspace, scope and due time', async () => {
    const store = await ctx.open();
    const now = Date.now();
    const created = await store.createTask(task('task_0000000000000001', now - 10));
    assert.equal(created.state, 'scheduled');
    assert.deepEqual(created.arguments, { filepath: 'a.txt', content: 'x' });
    assert.deepEqual(created.options, { mode: 'default', approvalMode: 'always-ask' });
    assert.equal(created.detached, false);
    assert.equal(created.startedBy, undefined);
    await store.createTask(task('task_0000000000000002', now + 60_000, { scope: 'turn-2' }));
    await store.createTask(task('task_0000000000000003', now + 120_000, { scope: 'turn-2', detached: true }));
    await store.createTask(task('task_0000000000000004', now - 5, { workspace: '/other' }));
    await assert.rejects(store.createTask(task('task_0000000000000001', now)), 'an id is never stored twice');
    assert.deepEqual((await store.tasks({ workspace: '/w', dueBy: now, states: ['scheduled'] })).map((t) => t.id), ['task_0000000000000001']);
    assert.deepEqual((await store.tasks({ workspace: '/w', scopeOrDetached: 'turn-1' })).map((t) => t.id), ['task_0000000000000001', 'task_0000000000000003']);
    assert.deepEqual((await store.tasks({ workspace: '/w', states: [] })), []);
    assert.equal((await store.task('task_0000000000000004'))?.workspace, '/other');
    assert.equal(await store.task('task_ffffffffffffffff'), undefined);
  });

  it('tasks: changed only from the states given; the rest stays as it was', async () => {
    const store = await ctx.open();
    await store.createTask(task('task_00000000000000a1', Date.now() + 60_000));
    const paused = await store.updateTask('task_00000000000000a1', ['scheduled'], { state: 'paused' });
    assert.equal(paused?.state, 'paused');
    assert.equal(await store.updateTask('task_00000000000000a1', ['scheduled'], { state: 'started' }), undefined, 'not from paused');
    const moved = await store.updateTask('task_00000000000000a1', ['paused'], { state: 'scheduled', runAt: 42, title: 'new', arguments: { filepath: 'b.txt' }, detached: true });
    assert.equal(moved?.runAt, 42);
    assert.equal(moved?.title, 'new');
    assert.equal(moved?.detached, true);
    assert.deepEqual(moved?.arguments, { filepath: 'b.txt' });
    assert.equal(await store.updateTask('task_ffffffffffffffff', ['scheduled'], { state: 'cancelled' }), undefined);
    assert.equal(await store.updateTask('task_00000000000000a1', [], { state: 'cancelled' }), undefined);
    assert.equal((await store.task('task_00000000000000a1'))?.state, 'scheduled');
  });

  it('tasks: of two handles racing to start a task, exactly one wins', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    for (let i = 0; i < 5; i++) {
      const id = `task_00000000000000b${i}`;
      await a.createTask(task(id, Date.now()));
      const won = await Promise.all([
        a.updateTask(id, ['scheduled'], { state: 'started', startedBy: 'a' }),
        b.updateTask(id, ['scheduled'], { state: 'started', startedBy: 'b' }),
      ]);
      assert.equal(won.filter((w) => w !== undefined).length, 1, `one start of ${id}`);
      const winner = won.find((w) => w !== undefined)!;
      assert.equal((await b.task(id))?.startedBy, winner.startedBy);
    }
  });

  it('tasks: retention deletes ended ones (a started task with its call, cancelled ones beyond the count), never open ones', async () => {
    // Steps only when asked (prune): nothing is deleted behind the test's back.
    const store = await ctx.open({ maxCalls: 1, retentionDelayMs: 600_000 });
    const now = Date.now();
    const ids = ['task_00000000000000c1', 'task_00000000000000c2', 'task_00000000000000c3', 'task_00000000000000c4', 'task_00000000000000c5', 'task_00000000000000c6'];
    for (const id of ids) await store.createTask(task(id, now + 60_000, { callId: id, session: 'ret' }));
    const [ran, running, cancelledOld, cancelledNew, open, paused] = ids as [string, string, string, string, string, string];
    for (const id of [ran, running]) assert.ok(await store.updateTask(id, ['scheduled'], { state: 'started', startedBy: 'me' }));
    const end = (id: string) => ({ state: 'done' as const, decisions: undefined, result: {
      success: true, output: 'ok', durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId: id, stopReason: 'completed' as const, outcome: 'success' as const, sideEffects: 'possible' as const,
    } });
    const callOf = (callId: string) => ({ callId, session: 'ret', tool: 'write_file', version: '1.0.0', arguments: {}, workspace: '/w', turn: '' });
    await store.finish(callOf(ran), end(ran));
    await store.claim(callOf(running));
    await store.finish(callOf('newer'), end('newer'));
    for (const id of [cancelledOld, cancelledNew]) assert.ok(await store.updateTask(id, ['scheduled'], { state: 'cancelled' }));
    assert.ok(await store.updateTask(paused, ['scheduled'], { state: 'paused' }));
    await store.prune();
    assert.equal(await store.get(ran, 'ret'), undefined, 'the call went');
    assert.equal(await store.task(ran), undefined, 'and its task with it');
    assert.equal((await store.task(running))?.state, 'started', 'a task whose call runs stays');
    assert.equal(await store.task(cancelledOld), undefined, 'the oldest cancelled task beyond the count went');
    assert.equal((await store.task(cancelledNew))?.state, 'cancelled');
    assert.equal((await store.task(open))?.state, 'scheduled');
    assert.equal((await store.task(paused))?.state, 'paused');
  });
}
