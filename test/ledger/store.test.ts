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
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { Ledger, ledgerFile, ToolgateOptionError, type ToolExecutionResult } from 'toolgate';
import { argumentsSha256, INTERRUPTED_MESSAGE, type NewCall } from '../../src/ledger/store.js';

let dir: string;
const opened: Ledger[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ledger-'));
});
afterEach(async () => {
  for (const l of opened.splice(0)) (await l.close());
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
  it('creates the file per workspace key, in WAL mode, at the latest schema version; reopening runs no migration again', async () => {
    const ledger = open();
    assert.equal(ledger.file, ledgerFile(dir, dir));
    assert.match(path.basename(ledger.file), /^ledger-[0-9a-f]{16}\.sqlite$/);
    assert.equal(ledger.schemaVersion(), MIGRATIONS.length);
    await ledger.record(call('c1'));
    await ledger.close();
    const again = open();
    assert.equal(again.schemaVersion(), MIGRATIONS.length);
    assert.equal((await again.get('c1', 's1'))?.state, 'pending');
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

  it('check reads only: an unknown call is written with its claim, in one commit', async () => {
    const ledger = open();
    assert.deepEqual((await ledger.check(call('n1'))), { kind: 'unknown' });
    assert.equal((await ledger.get('n1', 's1')), undefined, 'nothing written yet');
    assert.equal((await ledger.claim(call('n1'), [{ decider: 'mode', verdict: 'allow', reason: 'r' }])), true);
    assert.equal((await ledger.get('n1', 's1'))?.state, 'running');
    assert.equal((await ledger.check(call('n1'))).kind, 'in_progress');
    assert.deepEqual((await ledger.events('n1', 's1')).map((e) => e.kind), ['recorded', 'decided', 'running']);
    // Recorded first (an MCP task), handled later in the same process: the first check adopts it.
    await ledger.record(call('n3'));
    assert.equal((await ledger.check(call('n3'))).kind, 'recorded');
    assert.equal((await ledger.check(call('n3'))).kind, 'in_progress', 'held by the first');
    assert.equal((await ledger.finish(call('n2'), { state: 'denied', decisions: [], result: result('n2', 'no', false) })), true, 'a denied call is recorded with its end');
    assert.equal((await ledger.get('n2', 's1'))?.state, 'denied');
  });

  it('walks pending -> running -> done once; a retried call id returns the stored result', async () => {
    const ledger = open();
    assert.deepEqual((await ledger.record(call('c1'))), { kind: 'recorded' });
    const again = await ledger.record(call('c1'));
    assert.equal(again.kind, 'in_progress', 'this live process owns it');
    assert.equal((await ledger.claim({ callId: 'c1', session: 's1' })), true);
    assert.equal((await ledger.claim({ callId: 'c1', session: 's1' })), false, 'claimed once');
    assert.equal((await ledger.get('c1', 's1'))?.state, 'running');
    const done = await ledger.finish({ callId: 'c1', session: 's1' }, { state: 'done', decisions: [{ decider: 'mode', verdict: 'allow', reason: 'r' }], result: result('c1', 'short'), fullOutput: 'the whole output' });
    assert.equal(done, true);
    assert.equal((await ledger.finish({ callId: 'c1', session: 's1' }, { state: 'failed', decisions: [], result: result('c1', 'x', false) })), false, 'an ended call stays ended');
    const retried = await ledger.record(call('c1'));
    assert.equal(retried.kind, 'ended');
    assert.equal(retried.kind === 'ended' && retried.result.output, 'short');
    assert.equal((await ledger.result('c1'))?.fullOutput, 'the whole output');
    assert.equal((await ledger.result('c1'))?.size, Buffer.byteLength('the whole output'));
    assert.deepEqual((await ledger.decisions('c1', 's1')), [{ decider: 'mode', verdict: 'allow', reason: 'r' }]);
    assert.deepEqual((await ledger.events('c1', 's1')).map((e) => e.kind), ['recorded', 'running', 'decided', 'done']);
    assert.equal((await ledger.record(call('c1', 'other'))).kind, 'recorded', 'the key is call id and session');
  });

  it('the first answer to a question wins (conditional update), and an answer outlives the asker', async () => {
    const ledger = open();
    await ledger.record(call('c2'));
    const id = await ledger.ask({ callId: 'c2', session: 's1' }, { tool: 'write_file', arguments: { filepath: 'a.txt' }, ask: { decider: 'approval', reason: 'why' } });
    assert.equal((await ledger.ask({ callId: 'c2', session: 's1' }, {})), id, 'the call keeps its question');
    assert.equal((await ledger.pendingApprovals()).length, 1);
    assert.equal((await ledger.answerOf(id)), undefined);
    assert.deepEqual((await ledger.answer(id, 'deny', 'cli:1')), { answer: 'deny', first: true });
    assert.deepEqual((await ledger.answer(id, 'allow_once', 'handler')), { answer: 'deny', first: false }, 'the second answer does not count');
    assert.equal((await ledger.approval(id))?.answeredBy, 'cli:1');
    assert.equal((await ledger.answeredQuestion('c2', 's1')), 'deny');
    assert.equal((await ledger.pendingApprovals()).length, 0);
    assert.equal((await ledger.answer(12345, 'deny', 'x')), undefined, 'unknown question');
  });

  it('two connections race for one answer: exactly one wins', async () => {
    const a = open();
    const b = open();
    await a.record(call('c3'));
    const id = await a.ask({ callId: 'c3', session: 's1' }, {});
    const first = await b.answer(id, 'allow_once', 'b');
    const second = await a.answer(id, 'deny', 'a');
    assert.deepEqual(first, { answer: 'allow_once', first: true });
    assert.deepEqual(second, { answer: 'allow_once', first: false });
    assert.equal((await a.approval(id))?.answeredBy, 'b');
  });

  it('recovery: a running call of a dead process becomes interrupted with a readable result; pending questions stay', async () => {
    const ledger = open();
    await ledger.record(call('run1'));
    await ledger.claim({ callId: 'run1', session: 's1' });
    await ledger.record(call('run2'));
    await ledger.claim({ callId: 'run2', session: 's1' });
    await ledger.record(call('wait1'));
    const question = await ledger.ask({ callId: 'wait1', session: 's1' }, {});
    await ledger.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE calls SET owner_pid = ? WHERE call_id IN ('run1', 'wait1')`).run(deadPid());
    // alive pid, another start time: the pid was reused
    raw.prepare(`UPDATE calls SET owner_start = '1' WHERE call_id = 'run2'`).run();
    raw.close();
    const reopened = open();
    assert.deepEqual(reopened.recovered.map((c) => c.callId).sort(), ['run1', 'run2']);
    for (const id of ['run1', 'run2']) {
      assert.equal((await reopened.get(id, 's1'))?.state, 'interrupted');
      const stored = (await reopened.result(id))!.result;
      assert.equal(stored.errorCode, 'INTERRUPTED');
      assert.equal(stored.stopReason, 'interrupted');
      assert.equal(stored.error, INTERRUPTED_MESSAGE);
      const retried = await reopened.record(call(id));
      assert.equal(retried.kind, 'ended', 'never replayed');
    }
    assert.equal((await reopened.get('wait1', 's1'))?.state, 'pending');
    assert.deepEqual((await reopened.pendingApprovals()).map((q) => [q.id, q.ownerAlive]), [[question, false]]);
    assert.equal((await reopened.record(call('wait1'))).kind, 'taken_over', 'a pending call of a dead process is taken over');
  });

  it('retention keeps at most maxCalls ended calls and maxBytes of results, oldest first, never pending or running ones', async () => {
    const ledger = open({ maxCalls: 3 });
    await ledger.record(call('keep-pending'));
    await ledger.record(call('keep-running'));
    await ledger.claim({ callId: 'keep-running', session: 's1' });
    for (let i = 0; i < 6; i++) {
      await ledger.record(call(`e${i}`));
      await ledger.finish({ callId: `e${i}`, session: 's1' }, { state: 'done', decisions: [], result: result(`e${i}`) });
    }
    assert.equal((await ledger.prune()), 3);
    assert.deepEqual((await ledger.list()).map((c) => c.callId), ['e5', 'e4', 'e3', 'keep-running', 'keep-pending']);
    await ledger.close();
    const small = open({ maxBytes: 5000 });
    for (let i = 6; i < 9; i++) {
      await small.record(call(`e${i}`));
      await small.finish({ callId: `e${i}`, session: 's1' }, { state: 'done', decisions: [], result: result(`e${i}`), fullOutput: 'x'.repeat(2000) });
    }
    await small.prune();
    const left = (await small.list()).map((c) => c.callId);
    assert.ok(left.includes('e8') && left.includes('e7') && !left.includes('e6'), left.join(' '));
    assert.ok(left.includes('keep-running') && left.includes('keep-pending'));
  });

  it('finishSoon: the end is seen at once in this process and committed with the next write (a group commit)', async () => {
    const ledger = open();
    const other = open();
    await ledger.claim(call('g1'));
    ledger.finishSoon(call('g1'), { state: 'done', decisions: undefined, result: result('g1', 'grouped') });
    const seen = await ledger.check(call('g1'));
    assert.equal(seen.kind === 'ended' && seen.result.output, 'grouped', 'this process sees the end before the commit');
    assert.equal((await other.get('g1', 's1'))?.state, 'running', 'not committed yet');
    assert.equal((await ledger.claim(call('g2'))), true, 'the next claim carries it');
    assert.equal((await other.get('g1', 's1'))?.state, 'done');
    ledger.finishSoon(call('g2'), { state: 'failed', decisions: undefined, result: result('g2', 'no', false) });
    await ledger.flush();
    assert.equal((await other.result('g2', 's1'))?.result.output, 'no');
  });

  it('retention leaves a tombstone per deleted call: a retry is ended RESULT_PRUNED with the original state, never recorded again', async () => {
    const ledger = open({ maxCalls: 1 });
    await ledger.claim(call('t1'));
    await ledger.finish(call('t1'), { state: 'failed', decisions: undefined, result: { ...result('t1', 'boom', false), errorCode: 'TOOL_ERROR' } });
    await ledger.claim(call('t2'));
    await ledger.finish(call('t2'), { state: 'done', decisions: undefined, result: result('t2') });
    assert.equal((await ledger.prune()), 1);
    assert.equal((await ledger.get('t1', 's1')), undefined);
    const grave = (await ledger.tombstone('t1', 's1'))!;
    assert.equal(grave.state, 'failed');
    assert.equal(grave.errorCode, 'TOOL_ERROR');
    assert.equal(grave.tool, 'write_file');
    assert.equal(grave.argumentsSha256, argumentsSha256({ content: 'x', filepath: 'a.txt' }), 'canonical: key order does not matter');
    for (const outcome of [(await ledger.check(call('t1'))), (await ledger.record(call('t1')))]) {
      assert.equal(outcome.kind, 'ended');
      const r = outcome.kind === 'ended' ? outcome.result : undefined;
      assert.equal(r?.errorCode, 'RESULT_PRUNED');
      assert.equal(r?.stopReason, 'not_run');
      assert.match(r!.output, /already ran \(failed .*it failed \(TOOL_ERROR\)\); its output is no longer kept/);
    }
    assert.equal((await ledger.get('t1', 's1')), undefined, 'the retry recorded nothing');
    assert.equal((await ledger.record(call('t1', 's2'))).kind, 'recorded', 'another session is another call');
    await ledger.close();
    // Tombstones survive a reopen, and are bounded by age and count.
    const again = open({ maxCalls: 1, maxTombstones: 2 });
    assert.equal((await again.check(call('t1'))).kind, 'ended');
    for (const id of ['t3', 't4', 't5']) {
      await again.claim(call(id));
      await again.finish(call(id), { state: 'done', decisions: undefined, result: result(id) });
      await again.prune();
    }
    // t1, t2, t3, t4 were buried in that order; the two newest stay.
    assert.deepEqual(await Promise.all(['t1', 't2', 't3', 't4'].map(async (id) => (await again.tombstone(id, 's1')) !== undefined)), [false, false, true, true]);
    await again.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE tombstones SET pruned_at = 0 WHERE call_id = 't3'`).run();
    raw.close();
    const aged = open({ maxCalls: 1, tombstoneMaxAgeMs: 86_400_000 });
    assert.equal((await aged.tombstone('t3', 's1')), undefined, 'older than tombstoneMaxAgeMs: gone on open');
    assert.equal((await aged.tombstone('t4', 's1'))?.state, 'done');
  });

  it('a batched end that cannot be written stays queued and lands once the store can be written again', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const ledger = open({ busyTimeoutMs: 20 });
    const other = open();
    const blocker = new Database(ledger.file, { timeout: 20 });
    try {
      await ledger.claim(call('f1'));
      blocker.exec('BEGIN IMMEDIATE'); // another process holds the write lock
      ledger.finishSoon(call('f1'), { state: 'done', decisions: undefined, result: result('f1', 'kept') });
      await assert.rejects(async () => (await ledger.flush()), /database is locked/, 'flush reports the store error to its caller');
      await new Promise((resolve) => setTimeout(resolve, 120)); // the timer flush and a retry fail too
      const seen = await ledger.check(call('f1'));
      assert.equal(seen.kind === 'ended' && seen.result.output, 'kept', 'still queued, still seen here');
      assert.equal((await other.get('f1', 's1'))?.state, 'running', 'not written yet');
      assert.ok(warnings.some((w) => /1 call ends cannot be written yet .*retried/.test(w)), warnings.join('\n'));
      blocker.exec('ROLLBACK');
      // Nothing else writes: the scheduled retry lands it.
      const deadline = Date.now() + 10_000;
      while ((await other.get('f1', 's1'))?.state !== 'done' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await other.get('f1', 's1'))?.state, 'done');
      assert.equal((await other.result('f1', 's1'))?.result.output, 'kept');
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
      await ledger.claim(call('bad'));
      await ledger.claim(call('good'));
      // A result JSON cannot hold: its row can never be written.
      ledger.finishSoon(call('bad'), { state: 'done', decisions: undefined, result: { ...result('bad'), structured: 1n } });
      ledger.finishSoon(call('good'), { state: 'done', decisions: undefined, result: result('good', 'landed') });
      assert.equal((await ledger.claim(call('next'))), true, 'the next claim is not blocked by the bad end');
      assert.equal((await ledger.get('good', 's1'))?.state, 'done');
      assert.equal((await ledger.result('good', 's1'))?.result.output, 'landed');
      assert.equal((await ledger.get('bad', 's1'))?.state, 'running', 'left for recovery, and said so');
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      assert.ok(warnings.some((w) => /the end of call bad \(session s1\) cannot be stored/.test(w)), warnings.join('\n'));
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a question answered while its asker lived, never acted on before it died, stays listed until settled', async () => {
    const ledger = open();
    await ledger.record(call('q1'));
    const id = await ledger.ask(call('q1'), { tool: 'write_file', arguments: {} });
    await ledger.answer(id, 'allow_once', 'cli:1');
    assert.deepEqual((await ledger.pendingApprovals()), [], 'its asker (this process) lives: it acts on the answer');
    await ledger.close();
    const raw = new Database(ledgerFile(dir, dir));
    raw.prepare(`UPDATE calls SET owner_pid = ? WHERE call_id = 'q1'`).run(deadPid());
    raw.close();
    const reopened = open();
    assert.deepEqual((await reopened.pendingApprovals()).map((q) => [q.id, q.callId, q.answer, q.ownerAlive, q.callState]), [[id, 'q1', 'allow_once', false, 'pending']]);
    // Settled: taken over and run on the answer that counts, it leaves the list.
    assert.equal((await reopened.check(call('q1'))).kind, 'taken_over');
    assert.equal((await reopened.answeredQuestion('q1', 's1')), 'allow_once');
    await reopened.claim(call('q1'));
    await reopened.finish(call('q1'), { state: 'done', decisions: undefined, result: result('q1') });
    assert.deepEqual((await reopened.pendingApprovals()), []);
  });

  it('read-only: no migration, recovery or retention, the file is not written, writes throw; a missing file throws', async () => {
    const writer = open();
    for (const id of ['r1', 'r2', 'r3']) (await writer.finish(call(id), { state: 'done', decisions: undefined, result: result(id) }));
    await writer.claim(call('r-running'));
    await writer.close();
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
      assert.equal((await reader.get('r-running', 's1'))?.state, 'running', 'not recovered');
      assert.equal((await reader.list()).length, 4, 'not pruned (maxCalls 1)');
      await assert.rejects(async () => (await reader.record(call('w1'))), /read-only/);
      await assert.rejects(async () => (await reader.prune()), /read-only/);
    } finally {
      await reader.close();
    }
    assert.deepEqual(fs.readFileSync(file), before.bytes);
    assert.equal(fs.statSync(file).mtimeMs, before.mtime);
    assert.throws(() => Ledger.open({ file: path.join(dir, 'missing.sqlite'), readonly: true }), /unable to open/);
    assert.equal(fs.existsSync(path.join(dir, 'missing.sqlite')), false, 'nothing created');
  });

  it('read-only works on a ledger whose folder cannot be written', { skip: process.getuid?.() === 0 ? 'root writes any folder' : false }, async () => {
    const writer = open();
    await writer.finish(call('d1'), { state: 'done', decisions: undefined, result: result('d1', 'readable') });
    const file = writer.file;
    const readerWhileOpen = Ledger.open({ file, readonly: true });
    await readerWhileOpen.close();
    fs.chmodSync(dir, 0o500);
    try {
      const reader = Ledger.open({ file, readonly: true });
      assert.equal((await reader.result('d1', 's1'))?.result.output, 'readable');
      await reader.close();
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });

  it('a cancel request is a flag on a pending or running call only', async () => {
    const ledger = open();
    await ledger.record(call('c4'));
    assert.equal((await ledger.cancelRequested('c4', 's1')), false);
    assert.equal((await ledger.requestCancel('c4', 's1')), true);
    assert.equal((await ledger.cancelRequested('c4', 's1')), true);
    await ledger.finish({ callId: 'c4', session: 's1' }, { state: 'failed', decisions: [], result: result('c4', 'no', false) });
    assert.equal((await ledger.requestCancel('c4', 's1')), false);
    assert.equal((await ledger.requestCancel('nope', 's1')), false);
  });
});

describe('ledger schema 4 (retention off the call path)', () => {
  it('a file of schema 3 gains each ended call\'s sizes on open, and retention by bytes counts them', async () => {
    const file = path.join(dir, 'v3.sqlite');
    const raw = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 3)) raw.exec(migration);
    raw.pragma('user_version = 3');
    const insert = raw.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, state, owner_pid, created_at, ended_at) VALUES (?, 's1', 'write_file', '1.0.0', '{}', ?, 'done', 1, ?, ?)`);
    for (const [i, id] of ['old1', 'old2'].entries()) {
      const row = Number(insert.run(id, dir, i, i).lastInsertRowid);
      const json = JSON.stringify(result(id, 'seen'));
      raw.prepare('INSERT INTO results (call, success, result, full_output, size, stored_at) VALUES (?, 1, ?, ?, ?, ?)').run(row, json, Buffer.from('é'.repeat(3000)), 6000, i);
    }
    raw.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, state, owner_pid, created_at) VALUES ('waits', 's1', 'write_file', '1.0.0', '{}', ?, 'pending', ?, 0)`).run(dir, process.pid);
    raw.close();
    const reader = Ledger.open({ file, readonly: true });
    assert.deepEqual((await reader.list()).map((c) => [c.callId, c.resultSize]), [['waits', undefined], ['old2', 6000], ['old1', 6000]], 'read-only: sizes from the results, file not migrated');
    assert.equal(reader.schemaVersion(), 3);
    await reader.close();
    const ledger = open({ file, maxBytes: 9000 });
    assert.equal(ledger.schemaVersion(), MIGRATIONS.length);
    const raw4 = new Database(file, { readonly: true });
    const sizes = raw4.prepare('SELECT call_id, output_bytes, stored_bytes FROM calls ORDER BY id').all() as Array<{ call_id: string; output_bytes: number | null; stored_bytes: number | null }>;
    raw4.close();
    const json = Buffer.byteLength(JSON.stringify(result('old1', 'seen')));
    // Opening took a retention step: 2 x 6188 bytes is over 9000, so the older call went; the pending one stays.
    assert.deepEqual(sizes, [{ call_id: 'old2', output_bytes: 6000, stored_bytes: 6000 + json }, { call_id: 'waits', output_bytes: null, stored_bytes: null }]);
    assert.deepEqual((await ledger.list()).map((c) => [c.callId, c.resultSize]), [['waits', undefined], ['old2', 6000]]);
    assert.equal((await ledger.tombstone('old1', 's1'))?.state, 'done');
  });

  it('finish returns before retention runs; the step comes on a timer and deletes at most its size', async () => {
    const ledger = open({ maxCalls: 2, retentionStepCalls: 3, retentionDelayMs: 30 });
    for (let i = 0; i < 10; i++) (await ledger.finish(call(`t${i}`), { state: 'done', decisions: undefined, result: result(`t${i}`) }));
    assert.equal((await ledger.list()).length, 10, 'nothing pruned inside finish');
    let seen = 10;
    for (const deadline = Date.now() + 10_000; seen === 10 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen = (await ledger.list()).length;
    }
    assert.ok([7, 4, 2].includes(seen), `steps of at most 3 calls, on the timer: ${seen} left when first seen`);
    await ledger.retentionSettled();
    assert.deepEqual((await ledger.list()).map((c) => c.callId), ['t9', 't8']);
  });
});
