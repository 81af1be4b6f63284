/**
 * Retention's look before a step (issue 32: no count of every ended call after each end):
 * the timer's step first reads the calls ended since the last step, from the oldest call
 * open then on, and runs only when a limit may be exceeded. Ends written by another handle
 * of the file (another process, in production) count too, and so does a call that was open
 * at the last step and ended since.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ledger } from 'toolgate';
import type { NewCall } from '../../src/ledger/store.js';
import { ledgerPerTest, writeFileResult } from './ledger-per-test.js';

const ledgers = ledgerPerTest('toolgate-retention-look-');
const { open } = ledgers;

function call(callId: string): NewCall {
  return { callId, session: 's1', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, workspace: ledgers.dir, turn: '' };
}

const result = writeFileResult;

const end = (ledger: Ledger, id: string) => ledger.finish(call(id), { state: 'done', decisions: undefined, result: result(id) });

describe('retention: the look before a step', () => {
  it('ends by another handle, and of a call open at the last step, are counted: the limit holds', async () => {
    const a = open({ maxCalls: 4, retentionDelayMs: 5 });
    const b = open({ maxCalls: 1_000_000, retentionDelayMs: 5 }); // another writer, whose own retention never prunes
    await a.record(call('open'));
    await end(a, 'c0');
    await end(a, 'c1');
    await a.retentionSettled();
    assert.equal((await a.list({ state: 'done' })).length, 2, 'under the limit: nothing pruned');
    await end(b, 'open');
    for (let i = 0; i < 4; i++) await end(b, `d${i}`);
    await b.retentionSettled();
    assert.equal((await a.list({ state: 'done' })).length, 7);
    await end(a, 'e0');
    await a.retentionSettled();
    const kept = (await a.list({ state: 'done' })).map((c) => c.callId).sort();
    assert.equal(kept.length, 4, `at most 4 ended calls kept: ${kept.join(' ')}`);
    assert.ok(kept.includes('e0'));
  });

  it('under the limits a step deletes nothing, and the next ends over it are pruned', async () => {
    const a = open({ maxCalls: 3, retentionDelayMs: 5 });
    for (let i = 0; i < 3; i++) await end(a, `c${i}`);
    await a.retentionSettled();
    assert.equal((await a.list()).length, 3);
    for (let i = 3; i < 6; i++) await end(a, `c${i}`);
    await a.retentionSettled();
    assert.deepEqual((await a.list()).map((c) => c.callId).sort(), ['c3', 'c4', 'c5']);
  });
});
