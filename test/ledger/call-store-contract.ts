/**
 * The contract every {@link CallStore} keeps, as a suite any implementation runs with one
 * line (`call-store-sqlite.test.ts`):
 *
 * ```ts
 * callStoreContract('SQLite ledger', (place, limits) => Ledger.open({ file: path.join(place, 'ledger.sqlite'), ...limits }));
 * ```
 *
 * The factory gets a fresh, empty temporary folder per test (`place`: a file store keeps its
 * file there; a database store derives a database or schema name from it) and the limits a
 * test needs; called twice with the same `place`, it returns two handles on the same store
 * (two connections: what two processes see). Every store call is awaited, so that a store
 * whose methods return promises runs the same suite.
 *
 * A call whose owner died is made for real: the test file is run again as a child process
 * (`CALL_STORE_CONTRACT_CHILD` set), which opens the store through the same factory, records,
 * claims or asks, and exits without closing it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { CallStore, NewCall, OutputPage } from '../../src/ledger/call-store.js';
import { settleQuestion } from '../../src/ledger/resume.js';
import type { ToolExecutionResult } from '../../src/types/result.js';
import { eventContract } from './call-store-contract-events.js';
import { leaseContract } from './call-store-contract-leases.js';
import { taskContract } from './call-store-contract-tasks.js';

/** Limits a contract test sets (the {@link LedgerOptions} names; every store takes them). */
export interface ContractLimits {
  maxCalls?: number;
  maxBytes?: number;
  maxOutputBytes?: number;
  retentionStepCalls?: number;
  retentionDelayMs?: number;
  pollMs?: number;
}

/** Opens a store in `place` with `limits` (see the module). */
export type CallStoreFactory = (place: string, limits: ContractLimits) => CallStore | Promise<CallStore>;

/** What the child process does before it exits without closing the store. */
interface ChildOrder {
  place: string;
  limits: ContractLimits;
  action: 'pending' | 'running' | 'asked' | 'answered';
  callId: string;
}

const CHILD = 'CALL_STORE_CONTRACT_CHILD';

function call(callId: string, session = 's1', args: Record<string, unknown> = { filepath: 'a.txt', content: 'x' }): NewCall {
  return { callId, session, tool: 'write_file', version: '1.0.0', arguments: args, workspace: '/w', turn: 't1', options: { mode: 'code', timeoutMs: 5000 } };
}

function result(callId: string, output = 'ok', success = true): ToolExecutionResult {
  return {
    success, output, durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: success ? 'completed' : 'error',
    outcome: success ? 'success' : 'fatal', sideEffects: 'possible', ...(success ? {} : { errorCode: 'TOOL_ERROR', error: output }),
  };
}

/** Run the contract against the stores `factory` opens, as a `describe` named `name`. */
export function callStoreContract(name: string, factory: CallStoreFactory): void {
  const order = process.env[CHILD];
  if (order !== undefined) {
    void actAndDie(factory, JSON.parse(order) as ChildOrder);
    return;
  }

  describe(`call store contract: ${name}`, () => {
    let place: string;
    const opened: CallStore[] = [];
    const open = async (limits: ContractLimits = {}): Promise<CallStore> => {
      const store = await factory(place, { pollMs: 20, ...limits });
      opened.push(store);
      return store;
    };
    /** A call left by a process that is gone: `pending` (perhaps with a question, perhaps answered) or `running`. */
    const orphan = (action: ChildOrder['action'], callId: string, limits: ContractLimits = {}) => {
      const child = spawnSync(process.execPath, [process.argv[1]!], {
        env: { ...process.env, [CHILD]: JSON.stringify({ place, limits: { pollMs: 20, ...limits }, action, callId } satisfies ChildOrder) },
        encoding: 'utf8', timeout: 60_000,
      });
      assert.equal(child.status, 0, `the child failed: ${child.stderr}`);
      return Number(child.stdout.trim() || '0');
    };

    beforeEach(() => {
      place = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-store-contract-'));
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      fs.rmSync(place, { recursive: true, force: true });
    });

    it('record: a new key is recorded pending and owned here; the same key is in progress; another session is another call', async () => {
      const store = await open();
      const before = Date.now();
      assert.deepEqual(await store.record(call('r1')), { kind: 'recorded' });
      const again = await store.record(call('r1'));
      assert.equal(again.kind, 'in_progress');
      assert.equal(again.kind === 'in_progress' && again.record.callId, 'r1');
      assert.deepEqual(await store.record(call('r1', 's2')), { kind: 'recorded' });
      const record = (await store.get('r1', 's1'))!;
      assert.deepEqual(
        [record.tool, record.version, record.arguments, record.workspace, record.turn, record.options, record.state, record.ownerPid, record.cancelRequested],
        ['write_file', '1.0.0', { filepath: 'a.txt', content: 'x' }, '/w', 't1', { mode: 'code', timeoutMs: 5000 }, 'pending', process.pid, false],
      );
      assert.ok(record.createdAt >= before && record.createdAt <= Date.now(), 'createdAt is ms since the epoch');
      assert.equal((await store.get('r1'))?.session, 's2', 'without a session: the newest call with that id');
      assert.equal(await store.get('nope', 's1'), undefined);
      assert.match(record.owner, new RegExp(`:${process.pid}:`), 'owned by this process (host:pid:start)');
      assert.equal(record.pool, undefined);
    });

    it('check: an unknown call is not written; one recorded ahead is adopted once; amend updates a pending call of this process', async () => {
      const store = await open();
      assert.deepEqual(await store.check(call('k1')), { kind: 'unknown' });
      assert.equal(await store.get('k1', 's1'), undefined, 'check wrote nothing');
      await store.record(call('k2'));
      assert.equal((await store.check(call('k2'))).kind, 'recorded', 'adopted by its first check');
      assert.equal((await store.check(call('k2'))).kind, 'in_progress', 'held until it ends');
      assert.equal(await store.amend({ ...call('k2'), arguments: { filepath: 'b.txt' }, turn: 't2' }), true);
      assert.deepEqual([(await store.get('k2', 's1'))?.arguments, (await store.get('k2', 's1'))?.turn], [{ filepath: 'b.txt' }, 't2']);
      assert.equal(await store.amend(call('absent')), false);
    });

    it('claim: exactly one claim of a pending call wins, across handles; an unknown key is not claimed; a NewCall is recorded and claimed at once', async () => {
      const a = await open();
      const b = await open();
      await a.record(call('c1'));
      const wins = [await a.claim({ callId: 'c1', session: 's1' }), await b.claim({ callId: 'c1', session: 's1' }), await a.claim({ callId: 'c1', session: 's1' })];
      assert.deepEqual(wins, [true, false, false], 'a claim is never taken twice');
      assert.equal((await b.get('c1', 's1'))?.state, 'running');
      assert.ok((await b.get('c1', 's1'))!.startedAt! >= (await b.get('c1', 's1'))!.createdAt);
      assert.equal(await a.claim({ callId: 'unknown', session: 's1' }), false);
      assert.equal(await b.claim(call('c2'), [{ decider: 'mode', verdict: 'allow', reason: 'r', rule: 'x' }]), true);
      assert.equal(await a.claim(call('c2')), false, 'claimed by the other handle');
      assert.deepEqual(await a.decisions('c2', 's1'), [{ decider: 'mode', verdict: 'allow', reason: 'r', rule: 'x' }]);
      assert.deepEqual((await a.events('c2', 's1')).map((e) => e.kind), ['recorded', 'decided', 'running']);
      const ended = await a.finish(call('c3'), { state: 'done', decisions: undefined, result: result('c3') });
      assert.equal(ended, true);
      assert.equal(await a.claim(call('c3')), false, 'an ended call is not claimed');
    });

    it('finish: ends a call once with its result and output; a retry returns the stored result; an open question is cancelled', async () => {
      const store = await open();
      await store.claim(call('f1'));
      const question = await store.ask(call('f1'), { tool: 'write_file' });
      assert.equal(await store.finish(call('f1'), { state: 'done', decisions: [{ decider: 'd', verdict: 'allow', reason: 'r' }], result: result('f1', 'short'), fullOutput: 'the whole output ✓' }), true);
      assert.equal(await store.finish(call('f1'), { state: 'failed', decisions: undefined, result: result('f1', 'no', false) }), false, 'an ended call stays ended');
      const retried = await store.record(call('f1'));
      assert.equal(retried.kind === 'ended' && retried.result.output, 'short');
      const stored = (await store.result('f1', 's1'))!;
      assert.deepEqual([stored.fullOutput, stored.size, stored.result.success], ['the whole output ✓', Buffer.byteLength('the whole output ✓'), true]);
      const record = (await store.get('f1', 's1'))!;
      assert.deepEqual([record.state, record.resultSize, record.errorCode], ['done', Buffer.byteLength('the whole output ✓'), undefined]);
      assert.equal(await store.answerOf(question), 'cancelled');
      assert.equal(await store.finish({ callId: 'never', session: 's1' }, { state: 'done', decisions: undefined, result: result('never') }), false);
      assert.equal(await store.finish(call('f2'), { state: 'failed', decisions: undefined, result: result('f2', 'boom', false) }), true, 'a NewCall is recorded with its end');
      assert.deepEqual([(await store.get('f2', 's1'))?.state, (await store.get('f2', 's1'))?.errorCode], ['failed', 'TOOL_ERROR']);
      assert.equal((await store.result('f2'))?.fullOutput, 'boom', 'without fullOutput: the result output');
    });

    it('finishSoon: seen here at once, by another handle after flush', async () => {
      const store = await open();
      const other = await open();
      await store.claim(call('s1'));
      await store.finishSoon(call('s1'), { state: 'done', decisions: undefined, result: result('s1', 'soon') });
      const seen = await store.check(call('s1'));
      assert.equal(seen.kind === 'ended' && seen.result.output, 'soon');
      await store.flush();
      assert.equal((await other.get('s1', 's1'))?.state, 'done');
      assert.equal((await other.result('s1', 's1'))?.result.output, 'soon');
    });

    it('interrupted: a running call whose owner died is never run again; record and check answer INTERRUPTED; recover marks the rest', async () => {
      orphan('running', 'i1');
      orphan('running', 'i2');
      const store = await open();
      // Each opening for writing recovers: the second child recovered i1, this store i2.
      assert.deepEqual(store.recovered.map((c) => c.callId), ['i2'], 'recovered on open');
      for (const id of ['i1', 'i2']) {
        const outcome = await store.record(call(id));
        assert.equal(outcome.kind, 'ended');
        const r = outcome.kind === 'ended' ? outcome.result : undefined;
        assert.deepEqual([r?.errorCode, r?.stopReason, r?.success], ['INTERRUPTED', 'interrupted', false]);
        assert.equal((await store.get(id, 's1'))?.state, 'interrupted');
        assert.equal(await store.claim(call(id)), false);
      }
      // One that dies while this store is open: check repairs it, recover finds nothing left.
      orphan('running', 'i3');
      assert.equal((await store.check(call('i3'))).kind, 'ended');
      assert.deepEqual(await store.recover(), []);
      assert.equal((await store.result('i3', 's1'))?.result.errorCode, 'INTERRUPTED');
    });

    it('a pending call whose owner died is taken over once, its question kept', async () => {
      const question = orphan('asked', 'p1');
      const store = await open();
      const other = await open();
      assert.deepEqual((await store.pendingApprovals()).map((q) => [q.id, q.callId, q.ownerAlive, q.callState]), [[question, 'p1', false, 'pending']]);
      assert.deepEqual(await store.record(call('p1')), { kind: 'taken_over' });
      assert.equal((await other.record(call('p1'))).kind, 'in_progress', 'now owned by a live process');
      assert.equal(await store.ask(call('p1'), {}), question, 'the call keeps its question');
    });

    it('questions: asked once per call, answered once (the first answer counts, across handles), listed while they wait', async () => {
      const a = await open();
      const b = await open();
      await a.record(call('q1'));
      const id = await a.ask(call('q1'), { tool: 'write_file', ask: { decider: 'approval', reason: 'why' } });
      assert.ok(Number.isInteger(id) && id > 0);
      assert.equal(await a.ask(call('q1'), { other: true }), id, 'the call keeps its open question');
      const q = (await b.approval(id))!;
      assert.deepEqual([q.callId, q.session, q.tool, q.request, q.answer, q.callState, q.ownerAlive], ['q1', 's1', 'write_file', { tool: 'write_file', ask: { decider: 'approval', reason: 'why' } }, undefined, 'pending', true]);
      assert.deepEqual((await b.pendingApprovals()).map((p) => p.id), [id]);
      assert.equal(await a.answerOf(id), undefined);
      assert.equal(await a.answeredQuestion('q1', 's1'), undefined);
      assert.deepEqual(await b.answer(id, 'allow_once', 'cli:1'), { answer: 'allow_once', first: true });
      assert.deepEqual(await a.answer(id, 'deny', 'handler'), { answer: 'allow_once', first: false }, 'answered once');
      assert.deepEqual([(await a.approval(id))?.answer, (await a.approval(id))?.answeredBy], ['allow_once', 'cli:1']);
      assert.equal(await a.answerOf(id), 'allow_once');
      assert.equal(await a.answeredQuestion('q1', 's1'), 'allow_once');
      assert.deepEqual(await a.pendingApprovals(), [], 'answered, and its asker lives');
      assert.equal(await a.answer(987_654, 'deny', 'x'), undefined, 'an unknown question');
      assert.equal(await a.approval(987_654), undefined);
      await assert.rejects(async () => a.ask({ callId: 'absent', session: 's1' }, {}), /not recorded/);
      const asked = await a.ask(call('q2'), {});
      assert.equal((await a.get('q2', 's1'))?.state, 'pending', 'a NewCall is recorded with its question');
      assert.deepEqual((await a.pendingApprovals()).map((p) => p.id), [asked]);
    });

    it('a call\'s approval and its ask_user question are two threads: each kind asked once, the approval\'s answer read past the question', async () => {
      const store = await open();
      await store.record(call('k1'));
      const approval = await store.ask(call('k1'), { tool: 'ask_user', ask: { decider: 'approval_mode', reason: 'always-ask' } });
      await store.answer(approval, 'allow_once', 'handler');
      // The approved run asks the person its question: a new question, not the answered approval.
      await store.claim(call('k1'));
      const question = await store.ask(call('k1'), { kind: 'question', tool: 'ask_user', question: 'Which color?' });
      assert.notEqual(question, approval);
      assert.equal(await store.ask(call('k1'), { kind: 'question', tool: 'ask_user', question: 'Which color?' }), question, 'the call keeps its open question');
      assert.equal(await store.ask(call('k1'), { tool: 'ask_user' }), approval, 'and its approval');
      // The gates of the answer round read the approval's answer, not the open question's.
      assert.equal(await store.answeredQuestion('k1', 's1'), 'allow_once');
      assert.deepEqual(await store.answer(question, JSON.stringify({ reply: 'blue' }), 'mcp retry'), { answer: JSON.stringify({ reply: 'blue' }), first: true });
      assert.equal(await store.answeredQuestion('k1', 's1'), 'allow_once');
      assert.deepEqual((await store.approval(question))?.request, { kind: 'question', tool: 'ask_user', question: 'Which color?' });
      // A call with only an ask_user question has no approval answered.
      await store.record(call('k2'));
      const only = await store.ask(call('k2'), { kind: 'question', tool: 'ask_user', question: 'Anyone?' });
      await store.answer(only, JSON.stringify({ reply: 'yes' }), 'cockpit:1');
      assert.equal(await store.answeredQuestion('k2', 's1'), undefined);
    });

    it('a question answered while its asker lived, never acted on before it died, stays listed with its answer', async () => {
      const question = orphan('answered', 'a1');
      const store = await open();
      assert.deepEqual((await store.pendingApprovals()).map((q) => [q.id, q.answer, q.ownerAlive]), [[question, 'allow_once', false]]);
    });

    it('settling a question whose asker died: a deny ends the call denied; an allow runs it here once', async () => {
      const denied = orphan('asked', 'd1');
      const allowed = orphan('asked', 'd2');
      const store = await open();
      const lines: string[] = [];
      const report = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`! ${l}`) };
      const no = await settleQuestion(store, denied, 'deny', 'cli:1', report);
      assert.equal(no.next, 'denied_here');
      assert.equal((await store.get('d1', 's1'))?.state, 'denied');
      assert.equal((await store.result('d1', 's1'))?.result.errorCode, 'CONFIRMATION_DENIED');
      let runs = 0;
      const runHere = async (c: { callId: string; session: string }) => {
        if (!(await store.claim(c))) return 1;
        runs++;
        await store.finish(c, { state: 'done', decisions: undefined, result: result(c.callId, 'ran here') });
        return 0;
      };
      const yes = await settleQuestion(store, allowed, 'allow_once', 'cli:1', report, runHere);
      assert.equal(yes.next, 'ran_here');
      assert.equal(await yes.run, 0);
      const twice = await settleQuestion(store, allowed, 'allow_once', 'cli:2', report, runHere);
      assert.deepEqual([twice.first, twice.next, runs], [false, 'none', 1], 'settled once, run once');
      assert.equal((await store.result('d2', 's1'))?.result.output, 'ran here');
      assert.equal((await settleQuestion(store, 424_242, 'deny', 'cli:1', report)).found, false);
    });

    it('cancel: a flag on a pending or running call only', async () => {
      const store = await open();
      await store.record(call('x1'));
      assert.equal(await store.cancelRequested('x1', 's1'), false);
      assert.equal(await store.requestCancel('x1', 's1'), true);
      assert.equal(await store.cancelRequested('x1', 's1'), true);
      assert.equal((await store.get('x1', 's1'))?.cancelRequested, true);
      await store.finish(call('x1'), { state: 'failed', decisions: undefined, result: result('x1', 'no', false) });
      assert.equal(await store.requestCancel('x1', 's1'), false);
      assert.equal(await store.requestCancel('none', 's1'), false);
    });

    it('list: newest first, filtered by session, call id, state and turn, limited', async () => {
      const store = await open();
      for (const [id, session] of [['l1', 'a'], ['l2', 'b'], ['l3', 'a']] as const) await store.record(call(id, session));
      await store.claim({ callId: 'l3', session: 'a' });
      await store.record({ ...call('l4', 'a'), turn: 'other' });
      assert.deepEqual((await store.list()).map((c) => c.callId), ['l4', 'l3', 'l2', 'l1']);
      assert.deepEqual((await store.list({ session: 'a' })).map((c) => c.callId), ['l4', 'l3', 'l1']);
      assert.deepEqual((await store.list({ state: 'running' })).map((c) => c.callId), ['l3']);
      assert.deepEqual((await store.list({ turn: 'other' })).map((c) => c.callId), ['l4']);
      assert.deepEqual((await store.list({ callId: 'l2' })).map((c) => c.session), ['b']);
      assert.deepEqual((await store.list({ limit: 2 })).map((c) => c.callId), ['l4', 'l3']);
    });

    it('feed: every event once, in order, after a cursor; the newest id; outputs by pages without a cut character', async () => {
      const store = await open();
      const start = await store.lastEventId();
      await store.claim(call('e1'));
      await store.record(call('e2'));
      const output = `${'é'.repeat(3000)}end`;
      await store.finish(call('e1'), { state: 'done', decisions: undefined, result: result('e1', 'seen'), fullOutput: output });
      const all = await store.eventsAfter(start);
      assert.deepEqual(all.map((e) => `${e.callId}:${e.kind}`), ['e1:recorded', 'e1:running', 'e2:recorded', 'e1:done']);
      for (let i = 1; i < all.length; i++) assert.ok(all[i]!.id > all[i - 1]!.id, 'ids grow');
      assert.equal(await store.lastEventId(), all.at(-1)!.id);
      assert.deepEqual((await store.eventsAfter(all[1]!.id)).map((e) => e.id), all.slice(2).map((e) => e.id), 'after a cursor: the newer only');
      assert.deepEqual((await store.eventsAfter(start, 2)).map((e) => e.id), all.slice(0, 2).map((e) => e.id), 'limited');
      assert.ok(all.every((e) => e.session === 's1' && typeof e.at === 'number'));
      let text = '';
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const page: OutputPage = (await store.outputPage('e1', 's1', offset, 1001))!;
        assert.ok(Buffer.byteLength(page.text) <= 1001 + 3);
        assert.ok(!page.text.includes('\ufffd'), 'no character cut in two');
        assert.equal(page.size, Buffer.byteLength(output));
        text += page.text;
        offset = page.next;
      }
      assert.equal(text, output);
      assert.equal(await store.outputPage('e2', 's1', 0, 100), undefined, 'no result yet');
    });

    it('session settings: set, read with a fallback, list, clear', async () => {
      const store = await open();
      await store.setSessionSetting('*', 'approval_mode', 'always-ask', 'cockpit:1');
      await store.setSessionSetting('s1', 'approval_mode', 'auto', 'cockpit:2');
      assert.equal((await store.sessionSetting('s1', 'approval_mode', '*'))?.value, 'auto');
      assert.deepEqual([(await store.sessionSetting('s2', 'approval_mode', '*'))?.value, (await store.sessionSetting('s2', 'approval_mode', '*'))?.session], ['always-ask', '*']);
      assert.equal(await store.sessionSetting('s2', 'approval_mode'), undefined);
      assert.equal((await store.sessionSetting('s1', 'approval_mode'))?.setBy, 'cockpit:2');
      assert.deepEqual((await store.sessionSettings()).map((s) => s.session).sort(), ['*', 's1']);
      await store.setSessionSetting('s1', 'approval_mode', undefined, 'cockpit:2');
      assert.equal(await store.sessionSetting('s1', 'approval_mode'), undefined);
    });

    it('task bindings: one requestor per task, seen across handles; unbound on request; gone with the call retention deletes', async () => {
      const a = await open({ maxCalls: 1, retentionDelayMs: 5 });
      const b = await open({ maxCalls: 1, retentionDelayMs: 5 });
      await a.bindTask('t1', 'tasks', 'alice');
      await a.record(call('t1', 'tasks'));
      await b.bindTask('t2', 'tasks', 'bob');
      await b.record(call('t2', 'tasks'));
      await assert.rejects(async () => b.bindTask('t1', 'tasks', 'bob'), 'a task is bound once');
      assert.equal(await b.taskRequestor('t1', 'tasks'), 'alice');
      assert.equal(await a.taskRequestor('t1', 'other-session'), undefined);
      assert.equal(await a.taskRequestor('never', 'tasks'), undefined, 'a task bound to nobody is nobody\'s');
      assert.deepEqual([...(await a.tasksOf('tasks', 'alice'))], ['t1']);
      assert.deepEqual([...(await a.tasksOf('tasks', 'carol'))], []);
      await a.bindTask('t3', 'tasks', 'alice');
      await a.unbindTask('t3', 'tasks');
      await a.unbindTask('t3', 'tasks');
      assert.equal(await b.taskRequestor('t3', 'tasks'), undefined);
      for (const id of ['t1', 't2']) await a.finish(call(id, 'tasks'), { state: 'done', decisions: undefined, result: result(id) });
      await a.finish(call('later', 'tasks'), { state: 'done', decisions: undefined, result: result('later') });
      await a.prune();
      assert.deepEqual([await a.get('t1', 'tasks'), await a.get('t2', 'tasks')], [undefined, undefined], 'retention deleted them');
      assert.deepEqual([await b.taskRequestor('t1', 'tasks'), await b.taskRequestor('t2', 'tasks')], [undefined, undefined], 'their bindings went with them');
    });

    it('retention by count: never inside finish; later, in steps, the oldest ended calls go (never pending or running), leaving tombstones', async () => {
      // A step long after the ends (no timer fires meanwhile, however slow the store): finish itself prunes nothing.
      const first = await open({ maxCalls: 3, retentionStepCalls: 2, retentionDelayMs: 600_000 });
      await first.record(call('keep-pending'));
      await first.claim(call('keep-running'));
      for (let i = 0; i < 7; i++) await first.finish(call(`n${i}`, 's1', { i }), { state: i === 0 ? 'failed' : 'done', decisions: undefined, result: result(`n${i}`, 'out', i !== 0) });
      assert.equal((await first.list({ state: 'done' })).length, 6, 'finish pruned nothing');
      // A handle whose steps follow its ends closely: the backlog goes in steps of two.
      const store = await open({ maxCalls: 3, retentionStepCalls: 2, retentionDelayMs: 5 });
      await store.finish(call('n7', 's1', { i: 7 }), { state: 'done', decisions: undefined, result: result('n7', 'out') });
      await store.retentionSettled();
      assert.deepEqual((await store.list()).map((c) => c.callId), ['n7', 'n6', 'n5', 'keep-running', 'keep-pending']);
      const grave = (await store.tombstone('n0', 's1'))!;
      assert.deepEqual([grave.state, grave.errorCode, grave.tool, grave.version], ['failed', 'TOOL_ERROR', 'write_file', '1.0.0']);
      assert.match(grave.argumentsSha256, /^[0-9a-f]{64}$/);
      assert.notEqual((await store.tombstone('n1', 's1'))!.argumentsSha256, grave.argumentsSha256, 'a hash of the arguments');
      for (const outcome of [await store.record(call('n0')), await store.check(call('n0'))]) {
        assert.equal(outcome.kind, 'ended');
        assert.deepEqual(outcome.kind === 'ended' && [outcome.result.errorCode, outcome.result.stopReason], ['RESULT_PRUNED', 'not_run']);
      }
      assert.equal(await store.get('n0', 's1'), undefined, 'a retry of a pruned call records nothing');
    });

    it('retention steps are small: pruneStep deletes at most its count; prune deletes the rest', async () => {
      const store = await open({ maxCalls: 1, retentionDelayMs: 60_000 });
      for (let i = 0; i < 6; i++) await store.finish(call(`p${i}`), { state: 'done', decisions: undefined, result: result(`p${i}`) });
      assert.equal(await store.pruneStep(2), 2);
      assert.equal((await store.list()).length, 4);
      assert.equal(await store.prune(), 3);
      assert.equal(await store.pruneStep(), 0, 'within the limits');
      assert.deepEqual((await store.list()).map((c) => c.callId), ['p5']);
    });

    it('retention by bytes: stored results stay under maxBytes, oldest first; one output is cut to maxOutputBytes', async () => {
      const store = await open({ maxBytes: 40_000, maxOutputBytes: 12_000, retentionDelayMs: 5 });
      for (let i = 0; i < 8; i++) {
        await store.finish(call(`b${i}`), { state: 'done', decisions: undefined, result: result(`b${i}`, 'seen'), fullOutput: String(i).repeat(10_000) });
      }
      await store.retentionSettled();
      const kept = (await store.list()).map((c) => c.callId);
      assert.ok(kept.length >= 2 && kept.length <= 4, kept.join(' '));
      assert.deepEqual(kept, ['b7', 'b6', 'b5', 'b4'].slice(0, kept.length), 'the newest stay');
      const bytes = (await Promise.all(kept.map(async (id) => (await store.result(id, 's1'))!.size))).reduce((a, b) => a + b, 0);
      assert.ok(bytes <= 40_000, `${bytes} bytes kept`);
      assert.equal((await store.record(call('b0'))).kind, 'ended', 'a pruned call is answered from its tombstone');
      await store.finish(call('big'), { state: 'done', decisions: undefined, result: result('big', 'seen'), fullOutput: `${'z'.repeat(30_000)}` });
      const big = (await store.result('big', 's1'))!;
      assert.ok(big.size <= 12_000, `${big.size} bytes stored`);
      assert.ok(big.fullOutput.startsWith('z'.repeat(1000)), 'the start is kept');
      assert.equal(big.size, Buffer.byteLength(big.fullOutput));
      assert.equal(big.result.output, 'seen', 'the result the model saw is whole');
    });

    leaseContract({ open: () => open() });
    eventContract({ open: () => open() });
    taskContract({ open: (limits) => open(limits) });
  });
}

/** In the child: open the store, leave a call as ordered, and exit without closing it (its owner is then gone). */
async function actAndDie(factory: CallStoreFactory, order: ChildOrder): Promise<void> {
  try {
    const store = await factory(order.place, order.limits);
    const c = call(order.callId);
    let question = 0;
    if (order.action === 'running') await store.claim(c);
    else if (order.action === 'pending') await store.record(c);
    else {
      question = await store.ask(c, { tool: 'write_file', ask: { decider: 'approval', reason: 'contract' } });
      if (order.action === 'answered') await store.answer(question, 'allow_once', 'cli:contract');
    }
    await store.flush();
    process.stdout.write(`${question}\n`, () => process.exit(0));
  } catch (error) {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`, () => process.exit(1));
  }
}
