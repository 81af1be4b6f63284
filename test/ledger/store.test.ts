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
import { argumentsSha256, INTERRUPTED_MESSAGE, Ledger, ledgerFile, ToolgateOptionError, type NewCall, type ToolExecutionResult } from 'toolgate';

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
  return { success, output, durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: success ? 'completed' : 'error', outcome: success ? 'success' : 'fatal', sideEffects: 'possible' };
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
    assert.equal(ledger.schemaVersion(), 4);
    ledger.record(call('c1'));
    ledger.close();
    const again = open();
    assert.equal(again.schemaVersion(), 4);
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

  it('retention leaves a tombstone per deleted call: a retry is ended RESULT_PRUNED with the original state, never recorded again', () => {
    const ledger = open({ maxCalls: 1 });
    ledger.claim(call('t1'));
    ledger.finish(call('t1'), { state: 'failed', decisions: undefined, result: { ...result('t1', 'boom', false), errorCode: 'TOOL_ERROR' } });
    ledger.claim(call('t2'));
    ledger.finish(call('t2'), { state: 'done', decisions: undefined, result: result('t2') });
    assert.equal(ledger.prune(), 1);
    assert.equal(ledger.get('t1', 's1'), undefined);
    const grave = ledger.tombstone('t1', 's1')!;
    assert.equal(grave.state, 'failed');
    assert.equal(grave.errorCode, 'TOOL_ERROR');
    assert.equal(grave.tool, 'write_file');
    assert.equal(grave.argumentsSha256, argumentsSha256({ content: 'x', filepath: 'a.txt' }), 'canonical: key order does not matter');
    for (const outcome of [ledger.check(call('t1')), ledger.record(call('t1'))]) {
      assert.equal(outcome.kind, 'ended');
      const r = outcome.kind === 'ended' ? outcome.result : undefined;
      assert.equal(r?.errorCode, 'RESULT_PRUNED');
      assert.equal(r?.stopReason, 'not_run');
      assert.match(r!.output, /already ran \(failed .*it failed \(TOOL_ERROR\)\); its output is no longer kept/);
    }
    assert.equal(ledger.get('t1', 's1'), undefined, 'the retry recorded nothing');
    assert.equal(ledger.record(call('t1', 's2')).kind, 'recorded', 'another session is another call');
    ledger.close();
    // Tombstones survive a reopen, and are bounded by age and count.
    const again = open({ maxCalls: 1, maxTombstones: 2 });
    assert.equal(again.check(call('t1')).kind, 'ended');
    for (const id of ['t3', 't4', 't5']) {
      again.claim(call(id));
      again.finish(call(id), { state: 'done', decisions: undefined, result: result(id) });
      again.prune();
    }
    // t1, t2, t3, t4 were buried in that order; the two newest stay.
    assert.deepEqual(['t1', 't2', 't3', 't4'].map((id) => again.tombstone(id, 's1') !== undefined), [false, false, true, true]);
    again.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE tombstones SET pruned_at = 0 WHERE call_id = 't3'`).run();
    raw.close();
    const aged = open({ maxCalls: 1, tombstoneMaxAgeMs: 86_400_000 });
    assert.equal(aged.tombstone('t3', 's1'), undefined, 'older than tombstoneMaxAgeMs: gone on open');
    assert.equal(aged.tombstone('t4', 's1')?.state, 'done');
  });

  it('a batched end that cannot be written stays queued and lands once the store can be written again', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const ledger = open({ busyTimeoutMs: 20 });
    const other = open();
    const blocker = new Database(ledger.file, { timeout: 20 });
    try {
      ledger.claim(call('f1'));
      blocker.exec('BEGIN IMMEDIATE'); // another process holds the write lock
      ledger.finishSoon(call('f1'), { state: 'done', decisions: undefined, result: result('f1', 'kept') });
      assert.throws(() => ledger.flush(), /database is locked/, 'flush reports the store error to its caller');
      await new Promise((resolve) => setTimeout(resolve, 120)); // the timer flush and a retry fail too
      const seen = ledger.check(call('f1'));
      assert.equal(seen.kind === 'ended' && seen.result.output, 'kept', 'still queued, still seen here');
      assert.equal(other.get('f1', 's1')?.state, 'running', 'not written yet');
      assert.ok(warnings.some((w) => /1 call ends cannot be written yet .*retried/.test(w)), warnings.join('\n'));
      blocker.exec('ROLLBACK');
      // Nothing else writes: the scheduled retry lands it.
      const deadline = Date.now() + 10_000;
      while (other.get('f1', 's1')?.state !== 'done' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(other.get('f1', 's1')?.state, 'done');
      assert.equal(other.result('f1', 's1')?.result.output, 'kept');
    } finally {
      if (blocker.inTransaction) blocker.exec('ROLLBACK');
      blocker.close();
      process.off('warning', onWarning);
    }
  });

  it('a queued end that cannot be stored on its own is dropped with a warning; the ends and writes after it land', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const ledger = open();
      ledger.claim(call('bad'));
      ledger.claim(call('good'));
      // A result JSON cannot hold: its row can never be written.
      ledger.finishSoon(call('bad'), { state: 'done', decisions: undefined, result: { ...result('bad'), structured: 1n } });
      ledger.finishSoon(call('good'), { state: 'done', decisions: undefined, result: result('good', 'landed') });
      assert.equal(ledger.claim(call('next')), true, 'the next claim is not blocked by the bad end');
      assert.equal(ledger.get('good', 's1')?.state, 'done');
      assert.equal(ledger.result('good', 's1')?.result.output, 'landed');
      assert.equal(ledger.get('bad', 's1')?.state, 'running', 'left for recovery, and said so');
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      assert.ok(warnings.some((w) => /the end of call bad \(session s1\) cannot be stored/.test(w)), warnings.join('\n'));
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a question answered while its asker lived, never acted on before it died, stays listed until settled', () => {
    const ledger = open();
    ledger.record(call('q1'));
    const id = ledger.ask(call('q1'), { tool: 'write_file', arguments: {} });
    ledger.answer(id, 'allow_once', 'cli:1');
    assert.deepEqual(ledger.pendingApprovals(), [], 'its asker (this process) lives: it acts on the answer');
    ledger.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE calls SET owner_pid = ? WHERE call_id = 'q1'`).run(deadPid());
    raw.close();
    const reopened = open();
    assert.deepEqual(reopened.pendingApprovals().map((q) => [q.id, q.callId, q.answer, q.ownerAlive, q.callState]), [[id, 'q1', 'allow_once', false, 'pending']]);
    // Settled: taken over and run on the answer that counts, it leaves the list.
    assert.equal(reopened.check(call('q1')).kind, 'taken_over');
    assert.equal(reopened.answeredQuestion('q1', 's1'), 'allow_once');
    reopened.claim(call('q1'));
    reopened.finish(call('q1'), { state: 'done', decisions: undefined, result: result('q1') });
    assert.deepEqual(reopened.pendingApprovals(), []);
  });

  it('read-only: no migration, recovery or retention, the file is not written, writes throw; a missing file throws', () => {
    const writer = open({ maxCalls: 1 });
    for (const id of ['r1', 'r2', 'r3']) writer.finish(call(id), { state: 'done', decisions: undefined, result: result(id) });
    writer.claim(call('r-running'));
    writer.close();
    const file = ledgerFile(dir, dir);
    const raw = new Database(file);
    raw.prepare(`UPDATE calls SET owner_pid = ? WHERE call_id = 'r-running'`).run(deadPid());
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const before = { bytes: fs.readFileSync(file), mtime: fs.statSync(file).mtimeMs };
    const reader = Ledger.open({ file, readonly: true, maxCalls: 1 });
    try {
      assert.equal(reader.readonly, true);
      assert.deepEqual(reader.recovered, []);
      assert.equal(reader.get('r-running', 's1')?.state, 'running', 'not recovered');
      assert.equal(reader.list().length, 4, 'not pruned (maxCalls 1)');
      assert.throws(() => reader.record(call('w1')), /read-only/);
      assert.throws(() => reader.prune(), /read-only/);
    } finally {
      reader.close();
    }
    assert.deepEqual(fs.readFileSync(file), before.bytes);
    assert.equal(fs.statSync(file).mtimeMs, before.mtime);
    assert.throws(() => Ledger.open({ file: path.join(dir, 'missing.sqlite'), readonly: true }), /unable to open/);
    assert.equal(fs.existsSync(path.join(dir, 'missing.sqlite')), false, 'nothing created');
  });

  it('read-only works on a ledger whose folder cannot be written', { skip: process.getuid?.() === 0 ? 'root writes any folder' : false }, () => {
    const writer = open();
    writer.finish(call('d1'), { state: 'done', decisions: undefined, result: result('d1', 'readable') });
    const file = writer.file;
    const readerWhileOpen = Ledger.open({ file, readonly: true });
    readerWhileOpen.close();
    fs.chmodSync(dir, 0o500);
    try {
      const reader = Ledger.open({ file, readonly: true });
      assert.equal(reader.result('d1', 's1')?.result.output, 'readable');
      reader.close();
    } finally {
      fs.chmodSync(dir, 0o700);
    }
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
