/**
 * Schema 8 of the SQLite ledger: a call's events are bounded by `calls.first_event` and
 * `calls.last_event` (kept by a trigger) instead of an index of events by call. Its trail, the
 * feed and retention read and delete by that range; a file of schema 7 is migrated with its
 * events and read as it is when opened read-only.
 */
import path from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { Ledger } from 'toolgate';
import type { NewCall } from '../../src/ledger/store.js';
import { ledgerPerTest, writeFileResult } from './ledger-per-test.js';

const ledgers = ledgerPerTest('toolgate-event-bounds-');
const { open } = ledgers;

function call(callId: string): NewCall {
  return { callId, session: 's1', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt', content: 'x' }, workspace: ledgers.dir, turn: '' };
}

const result = writeFileResult;

const key = (callId: string) => ({ callId, session: 's1' });

/** Every event row of the file, with its call's id (null when the call is gone: an orphan). */
function eventRows(file: string): Array<{ callId: string | null; kind: string }> {
  const raw = new Database(file, { readonly: true });
  try {
    return raw.prepare('SELECT calls.call_id AS callId, events.kind FROM events LEFT JOIN calls ON calls.id = events.call ORDER BY events.id').all() as Array<{ callId: string | null; kind: string }>;
  } finally {
    raw.close();
  }
}

describe('ledger schema 8 (events bounded by their call)', () => {
  it('interleaved calls: each trail holds its own events in order; the bounds follow every event; no index of events by call', async () => {
    const ledger = open();
    await ledger.record(call('a'));
    await ledger.record(call('b'));
    await ledger.claim(key('a'));
    await ledger.claim(key('b'));
    await ledger.requestCancel('a', 's1');
    await ledger.finish(key('b'), { state: 'done', decisions: [], result: result('b') });
    await ledger.finish(key('a'), { state: 'done', decisions: [], result: result('a') });
    assert.deepEqual((await ledger.events('a', 's1')).map((e) => e.kind), ['recorded', 'running', 'cancel_requested', 'done']);
    assert.deepEqual((await ledger.events('b', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    assert.deepEqual(await ledger.events('nope', 's1'), []);
    const raw = new Database(ledger.file, { readonly: true });
    const bounds = raw.prepare(`SELECT call_id, first_event, last_event,
      (SELECT min(id) FROM events WHERE call = calls.id) AS lo, (SELECT max(id) FROM events WHERE call = calls.id) AS hi FROM calls ORDER BY id`).all() as Array<{ first_event: number; last_event: number; lo: number; hi: number }>;
    const index = raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'`).all();
    raw.close();
    for (const b of bounds) assert.deepEqual([b.first_event, b.last_event], [b.lo, b.hi]);
    assert.deepEqual(index, []);
    // The feed is unchanged: every event once, in order of id.
    assert.deepEqual((await ledger.eventsAfter(0)).map((e) => `${e.callId}:${e.kind}`),
      ['a:recorded', 'b:recorded', 'a:running', 'b:running', 'a:cancel_requested', 'b:done', 'a:done']);
  });

  it('retention deletes a deleted call\'s events and no one else\'s, interleaved or not; no event is left without its call', async () => {
    const ledger = open({ maxCalls: 2 });
    // Interleaved: a long call (l) spans the short ones; s0..s3 each record, claim and end.
    await ledger.record(call('l'));
    await ledger.claim(key('l'));
    for (let i = 0; i < 4; i++) {
      await ledger.record(call(`s${i}`));
      await ledger.claim(key(`s${i}`));
      await ledger.progress('l', 's1', { message: `step ${i}` });
      await ledger.finish(key(`s${i}`), { state: 'done', decisions: [], result: result(`s${i}`) });
    }
    await ledger.finish(key('l'), { state: 'done', decisions: [], result: result('l') });
    await ledger.replayed(key('s0'));
    // Oldest first by id: the long call goes first, its range of ids spanning the short calls' events.
    await ledger.prune();
    assert.deepEqual((await ledger.list()).map((c) => c.callId), ['s3', 's2']);
    const rows = eventRows(ledger.file);
    assert.deepEqual(rows.filter((r) => r.callId === null), [], 'no orphan events');
    assert.deepEqual([...new Set(rows.map((r) => r.callId))].sort(), ['s2', 's3']);
    assert.deepEqual((await ledger.events('s2', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    assert.deepEqual((await ledger.events('s3', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    assert.deepEqual(await ledger.events('l', 's1'), []);
    const one = open({ file: ledger.file, maxCalls: 1 });
    await one.prune();
    assert.deepEqual((await one.list()).map((c) => c.callId), ['s3']);
    assert.deepEqual(eventRows(one.file).map((r) => `${r.callId}:${r.kind}`), ['s3:recorded', 's3:running', 's3:done']);
  });

  it('a file of schema 7 is migrated with its events (trails and feed as before); read-only, it is read as it is', async () => {
    const file = path.join(ledgers.dir, 'v7.sqlite');
    const raw = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 7)) raw.exec(migration);
    raw.pragma('user_version = 7');
    const insert = raw.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, state, owner_pid, created_at, ended_at) VALUES (?, 's1', 'write_file', '1.0.0', '{}', ?, 'done', 1, 0, 1)`);
    const x = Number(insert.run('x', ledgers.dir).lastInsertRowid);
    const y = Number(insert.run('y', ledgers.dir).lastInsertRowid);
    const event = raw.prepare('INSERT INTO events (call, at, kind, detail) VALUES (?, 0, ?, NULL)');
    for (const [id, kind] of [[x, 'recorded'], [y, 'recorded'], [x, 'running'], [y, 'running'], [x, 'done'], [y, 'done']] as const) event.run(id, kind);
    raw.close();
    const reader = Ledger.open({ file, readonly: true });
    assert.equal(reader.schemaVersion(), 7);
    assert.deepEqual((await reader.events('x', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    await reader.close();
    const ledger = open({ file });
    assert.equal(ledger.schemaVersion(), MIGRATIONS.length);
    assert.deepEqual((await ledger.events('x', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    assert.deepEqual((await ledger.events('y', 's1')).map((e) => e.kind), ['recorded', 'running', 'done']);
    assert.deepEqual((await ledger.eventsAfter(0)).map((e) => `${e.callId}:${e.kind}`), ['x:recorded', 'y:recorded', 'x:running', 'y:running', 'x:done', 'y:done']);
    await ledger.replayed(key('x'));
    assert.deepEqual((await ledger.events('x', 's1')).map((e) => e.kind), ['recorded', 'running', 'done', 'replayed']);
    await ledger.close();
    const pruning = open({ file, maxCalls: 1 });
    await pruning.prune();
    assert.deepEqual(eventRows(file).map((r) => `${r.callId}:${r.kind}`), ['y:recorded', 'y:running', 'y:done']);
  });
});
