/**
 * The part of the call store contract (`call-store-contract.ts`) for what a call's event log
 * says while and after it runs (issue 34): the latest progress of a `running` call (what the
 * cockpit shows), a call left waiting because its caller's framework suspended (`suspend`),
 * and a retry answered with the stored result (`replayed`). Run inside `callStoreContract`'s
 * `describe`, on the stores its factory opens.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CallStore, NewCall } from '../../src/ledger/call-store.js';
import type { ToolExecutionResult } from '../../src/types/result.js';

/** What the event tests need of the contract's `describe`. */
export interface EventContext {
  /** A new handle on the test's store (closed after the test). */
  open(): Promise<CallStore>;
}

function call(callId: string): NewCall {
  return { callId, session: 'es', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, workspace: '/w', turn: 't' };
}

function done(callId: string): { state: 'done'; decisions: undefined; result: ToolExecutionResult } {
  return {
    state: 'done', decisions: undefined,
    result: { success: true, output: 'ok', durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'possible' },
  };
}

const kinds = async (store: CallStore, callId: string) => (await store.events(callId, 'es')).map((e) => e.kind);

/** The event tests, registered with `it` in the caller's `describe`. */
export function eventContract(ctx: EventContext): void {
  it('progress: recorded for a running call only, read back in order by another handle; not for a pending, ended or unknown call', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    await a.record(call('p1'));
    assert.equal(await a.progress('p1', 'es', { done: 1 }), false, 'pending: not running yet');
    assert.equal(await a.claim(call('p1')), true);
    assert.equal(await a.progress('p1', 'es', { done: 1, total: 4, message: 'compiling a.c' }), true);
    assert.equal(await a.progress('p1', 'es', { message: 'a log line' }), true);
    const progress = (await b.events('p1', 'es')).filter((e) => e.kind === 'progress').map((e) => e.detail);
    assert.deepEqual(progress, [{ done: 1, total: 4, message: 'compiling a.c' }, { message: 'a log line' }]);
    const feed = (await b.eventsAfter(0)).filter((e) => e.callId === 'p1' && e.kind === 'progress');
    assert.equal(feed.length, 2, 'in the feed the cockpit reads');
    await a.finish(call('p1'), done('p1'));
    assert.equal(await a.progress('p1', 'es', { done: 2 }), false, 'ended');
    assert.equal(await a.progress('nope', 'es', { done: 2 }), false, 'unknown');
  });

  it('suspend: a pending call is left waiting (event suspended) and adopted by the next check of this process; not a running or unknown one', async () => {
    const store = await ctx.open();
    assert.equal(store.suspend !== undefined, true, 'implemented');
    assert.equal((await store.check(call('s1'))).kind, 'unknown');
    await store.ask(call('s1'), { tool: 'write_file', ask: { decider: 'approval', reason: 'contract' } });
    assert.equal((await store.check(call('s1'))).kind, 'in_progress', 'handled here');
    assert.equal(await store.suspend!(call('s1')), true);
    assert.deepEqual(await store.check(call('s1')), { kind: 'recorded', adopted: true }, 'the resumed caller adopts it');
    assert.equal((await store.check(call('s1'))).kind, 'in_progress', 'and holds it again');
    assert.equal((await store.get('s1', 'es'))?.state, 'pending');
    assert.equal((await store.pendingApprovals()).filter((q) => q.callId === 's1').length, 1, 'its question stays open');
    assert.ok((await kinds(store, 's1')).includes('suspended'));
    assert.equal(await store.claim(call('s1')), true);
    assert.equal(await store.suspend!(call('s1')), false, 'running');
    assert.equal(await store.suspend!(call('nope')), false, 'unknown');
  });

  it('suspend a claimed call: a running call whose run suspended goes back to pending, its question open, and is claimed again when resumed; not a pending or an ended one', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    await a.record(call('u1'));
    assert.equal(await a.claim(call('u1')), true);
    await a.ask(call('u1'), { kind: 'question', tool: 'write_file', ask: { decider: 'ask_user', reason: 'contract' } });
    assert.equal(await a.suspend!(call('u1'), { claimed: true }), true);
    assert.equal((await b.get('u1', 'es'))?.state, 'pending');
    assert.equal((await b.pendingApprovals()).filter((q) => q.callId === 'u1' && q.answer === undefined).length, 1, 'its question stays open');
    assert.ok((await kinds(b, 'u1')).includes('suspended'));
    // Resumed through another handle (another instance on the same store): taken, and claimed once.
    assert.ok(['recorded', 'taken_over'].includes((await b.check(call('u1'))).kind));
    assert.equal(await b.claim(call('u1')), true);
    assert.equal(await a.claim(call('u1')), false, 'one claim at a time');
    assert.equal((await kinds(b, 'u1')).filter((k) => k === 'running').length, 2);
    await b.finish(call('u1'), done('u1'));
    assert.equal(await b.suspend!(call('u1'), { claimed: true }), false, 'ended');
    await a.record(call('u2'));
    assert.equal(await a.suspend!(call('u2'), { claimed: true }), false, 'pending: not claimed');
    assert.equal((await a.get('u2', 'es'))?.state, 'pending');
  });

  it('replayed: marks an ended call each time a retry is answered with its stored result', async () => {
    const store = await ctx.open();
    await store.finish(call('r1'), done('r1'));
    assert.equal(store.replayed !== undefined, true, 'implemented');
    assert.equal(await store.replayed!(call('r1')), true);
    assert.equal(await store.replayed!(call('r1')), true);
    assert.equal((await kinds(store, 'r1')).filter((k) => k === 'replayed').length, 2);
    assert.equal(await store.replayed!(call('nope')), false);
  });
}
