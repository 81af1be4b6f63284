/**
 * The ledger's store on its own: migrations, the state machine, first answer wins, recovery
 * of a dead owner's running call, retention.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { INTERRUPTED_MESSAGE, Ledger, ledgerFile, ToolgateOptionError, type NewCall, type ToolExecutionResult } from 'toolgate';

let dir: string;
const opened: Ledger[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ledger-'));
});
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(options: Parameters<typeof Ledger.open>[0] = {}): Ledger {
  const ledger = Ledger.open({ dir, workspace: dir, ...options });
  opened.push(ledger);
  return ledger;
}

function call(callId: string, session = 's1'): NewCall {
  return { callId, session, tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt', content: 'x' }, workspace: dir, turn: '' };
}

function result(callId: string, output = 'ok', success = true): ToolExecutionResult {
  return { success, output, durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: success ? 'completed' : 'error' };
}

/** A pid that is not running (a child that has exited). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('ledger store', () => {
  it('creates the file per workspace key, in WAL mode, at the latest schema version; reopening runs no migration again', () => {
    const ledger = open();
    assert.equal(ledger.file, ledgerFile(dir, dir));
    assert.match(path.basename(ledger.file), /^ledger-[0-9a-f]{16}\.sqlite$/);
    assert.equal(ledger.schemaVersion(), 2);
    ledger.record(call('c1'));
    ledger.close();
    const again = open();
    assert.equal(again.schemaVersion(), 2);
    assert.equal(again.get('c1', 's1')?.state, 'pending');
    const raw = new Database(again.file, { readonly: true });
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    raw.close();
  });

  it('refuses a file of a newer schema, and options out of range', () => {
    const file = path.join(dir, 'newer.sqlite');
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
    assert.throws(() => open({ file }), /schema version 99 is newer/);
    assert.throws(() => open({ maxCalls: 0 }), (e: unknown) => e instanceof ToolgateOptionError && /ledger\.maxCalls/.test(e.message));
  });

  it('check reads only: an unknown call is written with its claim, in one commit', () => {
    const ledger = open();
    assert.deepEqual(ledger.check(call('n1')), { kind: 'unknown' });
    assert.equal(ledger.get('n1', 's1'), undefined, 'nothing written yet');
    assert.equal(ledger.claim(call('n1'), [{ decider: 'mode', verdict: 'allow', reason: 'r' }]), true);
    assert.equal(ledger.get('n1', 's1')?.state, 'running');
    assert.equal(ledger.check(call('n1')).kind, 'in_progress');
    assert.deepEqual(ledger.events('n1', 's1').map((e) => e.kind), ['recorded', 'decided', 'running']);
    // Recorded first (an MCP task), handled later in the same process: the first check adopts it.
    ledger.record(call('n3'));
    assert.equal(ledger.check(call('n3')).kind, 'recorded');
    assert.equal(ledger.check(call('n3')).kind, 'in_progress', 'held by the first');
    assert.equal(ledger.finish(call('n2'), { state: 'denied', decisions: [], result: result('n2', 'no', false) }), true, 'a denied call is recorded with its end');
    assert.equal(ledger.get('n2', 's1')?.state, 'denied');
  });

  it('walks pending -> running -> done once; a retried call id returns the stored result', () => {
    const ledger = open();
    assert.deepEqual(ledger.record(call('c1')), { kind: 'recorded' });
    const again = ledger.record(call('c1'));
    assert.equal(again.kind, 'in_progress', 'this live process owns it');
    assert.equal(ledger.claim({ callId: 'c1', session: 's1' }), true);
    assert.equal(ledger.claim({ callId: 'c1', session: 's1' }), false, 'claimed once');
    assert.equal(ledger.get('c1', 's1')?.state, 'running');
    const done = ledger.finish({ callId: 'c1', session: 's1' }, { state: 'done', decisions: [{ decider: 'mode', verdict: 'allow', reason: 'r' }], result: result('c1', 'short'), fullOutput: 'the whole output' });
    assert.equal(done, true);
    assert.equal(ledger.finish({ callId: 'c1', session: 's1' }, { state: 'failed', decisions: [], result: result('c1', 'x', false) }), false, 'an ended call stays ended');
    const retried = ledger.record(call('c1'));
    assert.equal(retried.kind, 'ended');
    assert.equal(retried.kind === 'ended' && retried.result.output, 'short');
    assert.equal(ledger.result('c1')?.fullOutput, 'the whole output');
    assert.equal(ledger.result('c1')?.size, Buffer.byteLength('the whole output'));
    assert.deepEqual(ledger.decisions('c1', 's1'), [{ decider: 'mode', verdict: 'allow', reason: 'r' }]);
    assert.deepEqual(ledger.events('c1', 's1').map((e) => e.kind), ['recorded', 'running', 'decided', 'done']);
    assert.equal(ledger.record(call('c1', 'other')).kind, 'recorded', 'the key is call id and session');
  });

  it('the first answer to a question wins (conditional update), and an answer outlives the asker', () => {
    const ledger = open();
    ledger.record(call('c2'));
    const id = ledger.ask({ callId: 'c2', session: 's1' }, { tool: 'write_file', arguments: { filepath: 'a.txt' }, ask: { decider: 'approval', reason: 'why' } });
    assert.equal(ledger.ask({ callId: 'c2', session: 's1' }, {}), id, 'the call keeps its question');
    assert.equal(ledger.pendingApprovals().length, 1);
    assert.equal(ledger.answerOf(id), undefined);
    assert.deepEqual(ledger.answer(id, 'deny', 'cli:1'), { answer: 'deny', first: true });
    assert.deepEqual(ledger.answer(id, 'allow_once', 'handler'), { answer: 'deny', first: false }, 'the second answer does not count');
    assert.equal(ledger.approval(id)?.answeredBy, 'cli:1');
    assert.equal(ledger.answeredQuestion('c2', 's1'), 'deny');
    assert.equal(ledger.pendingApprovals().length, 0);
    assert.equal(ledger.answer(12345, 'deny', 'x'), undefined, 'unknown question');
  });

  it('two connections race for one answer: exactly one wins', () => {
    const a = open();
    const b = open();
    a.record(call('c3'));
    const id = a.ask({ callId: 'c3', session: 's1' }, {});
    const first = b.answer(id, 'allow_once', 'b');
    const second = a.answer(id, 'deny', 'a');
    assert.deepEqual(first, { answer: 'allow_once', first: true });
    assert.deepEqual(second, { answer: 'allow_once', first: false });
    assert.equal(a.approval(id)?.answeredBy, 'b');
  });

  it('recovery: a running call of a dead process becomes interrupted with a readable result; pending questions stay', () => {
    const ledger = open();
    ledger.record(call('run1'));
    ledger.claim({ callId: 'run1', session: 's1' });
    ledger.record(call('run2'));
    ledger.claim({ callId: 'run2', session: 's1' });
    ledger.record(call('wait1'));
    const question = ledger.ask({ callId: 'wait1', session: 's1' }, {});
    ledger.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE calls SET owner_pid = ? WHERE call_id IN ('run1', 'wait1')`).run(deadPid());
    // alive pid, another start time: the pid was reused
    raw.prepare(`UPDATE calls SET owner_start = '1' WHERE call_id = 'run2'`).run();
    raw.close();
    const reopened = open();
    assert.deepEqual(reopened.recovered.map((c) => c.callId).sort(), ['run1', 'run2']);
    for (const id of ['run1', 'run2']) {
      assert.equal(reopened.get(id, 's1')?.state, 'interrupted');
      const stored = reopened.result(id)!.result;
      assert.equal(stored.errorCode, 'INTERRUPTED');
      assert.equal(stored.stopReason, 'interrupted');
      assert.equal(stored.error, INTERRUPTED_MESSAGE);
      const retried = reopened.record(call(id));
      assert.equal(retried.kind, 'ended', 'never replayed');
    }
    assert.equal(reopened.get('wait1', 's1')?.state, 'pending');
    assert.deepEqual(reopened.pendingApprovals().map((q) => [q.id, q.ownerAlive]), [[question, false]]);
    assert.equal(reopened.record(call('wait1')).kind, 'taken_over', 'a pending call of a dead process is taken over');
  });

  it('retention keeps at most maxCalls ended calls and maxBytes of results, oldest first, never pending or running ones', () => {
    const ledger = open({ maxCalls: 3 });
    ledger.record(call('keep-pending'));
    ledger.record(call('keep-running'));
    ledger.claim({ callId: 'keep-running', session: 's1' });
    for (let i = 0; i < 6; i++) {
      ledger.record(call(`e${i}`));
      ledger.finish({ callId: `e${i}`, session: 's1' }, { state: 'done', decisions: [], result: result(`e${i}`) });
    }
    assert.equal(ledger.prune(), 3);
    assert.deepEqual(ledger.list().map((c) => c.callId), ['e5', 'e4', 'e3', 'keep-running', 'keep-pending']);
    ledger.close();
    const small = open({ maxBytes: 5000 });
    for (let i = 6; i < 9; i++) {
      small.record(call(`e${i}`));
      small.finish({ callId: `e${i}`, session: 's1' }, { state: 'done', decisions: [], result: result(`e${i}`), fullOutput: 'x'.repeat(2000) });
    }
    small.prune();
    const left = small.list().map((c) => c.callId);
    assert.ok(left.includes('e8') && left.includes('e7') && !left.includes('e6'), left.join(' '));
    assert.ok(left.includes('keep-running') && left.includes('keep-pending'));
  });

  it('finishSoon: the end is seen at once in this process and committed with the next write (a group commit)', () => {
    const ledger = open();
    const other = open();
    ledger.claim(call('g1'));
    ledger.finishSoon(call('g1'), { state: 'done', decisions: undefined, result: result('g1', 'grouped') });
    const seen = ledger.check(call('g1'));
    assert.equal(seen.kind === 'ended' && seen.result.output, 'grouped', 'this process sees the end before the commit');
    assert.equal(other.get('g1', 's1')?.state, 'running', 'not committed yet');
    assert.equal(ledger.claim(call('g2')), true, 'the next claim carries it');
    assert.equal(other.get('g1', 's1')?.state, 'done');
    ledger.finishSoon(call('g2'), { state: 'failed', decisions: undefined, result: result('g2', 'no', false) });
    ledger.flush();
    assert.equal(other.result('g2', 's1')?.result.output, 'no');
  });

  it('a cancel request is a flag on a pending or running call only', () => {
    const ledger = open();
    ledger.record(call('c4'));
    assert.equal(ledger.cancelRequested('c4', 's1'), false);
    assert.equal(ledger.requestCancel('c4', 's1'), true);
    assert.equal(ledger.cancelRequested('c4', 's1'), true);
    ledger.finish({ callId: 'c4', session: 's1' }, { state: 'failed', decisions: [], result: result('c4', 'no', false) });
    assert.equal(ledger.requestCancel('c4', 's1'), false);
    assert.equal(ledger.requestCancel('nope', 's1'), false);
  });
});
