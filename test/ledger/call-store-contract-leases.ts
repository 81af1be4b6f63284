/**
 * The part of the call store contract (`call-store-contract.ts`) for owners that are not one
 * process tree: fenced claims under leases, their expiry, calls queued for a pool, and
 * waiting for another handle's change (`CallLeases`, `CallWaits`, `queuedFor`). Run inside
 * `callStoreContract`'s `describe`, on the stores its factory opens.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { queuedFor, type CallStore, type NewCall } from '../../src/ledger/call-store.js';
import type { ToolExecutionResult } from '../../src/types/result.js';

/** What the lease tests need of the contract's `describe`. */
export interface LeaseContext {
  /** A new handle on the test's store (closed after the test). */
  open(): Promise<CallStore>;
}

function call(callId: string, pool?: string): NewCall {
  return { callId, session: 'ls', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, workspace: '/w', turn: 't', ...(pool === undefined ? {} : { pool }) };
}

function done(callId: string, output = 'ok'): { state: 'done'; decisions: undefined; result: ToolExecutionResult } {
  return {
    state: 'done', decisions: undefined,
    result: { success: true, output, durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'possible' },
  };
}

const key = (callId: string) => ({ callId, session: 'ls' });

/** Until the lease's expiry has passed (the store's clock may run a little apart: a margin). */
async function pastExpiry(expiresAt: number): Promise<void> {
  while (Date.now() <= expiresAt + 50) await sleep(25);
}

/** The lease and wait tests, registered with `it` in the caller's `describe`. */
export function leaseContract(ctx: LeaseContext): void {
  it('leases: a fenced claim under a fresh token; only that token (or the handle that holds it) ends the call', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    await a.record(call('l1'));
    const before = Date.now();
    const lease = (await a.claimLease(key('l1'), { owner: 'worker-a', leaseMs: 5_000 }))!;
    assert.ok(lease !== undefined, 'claimed');
    assert.match(lease.token, /^[0-9a-f-]{36}$/);
    assert.equal(lease.owner, 'worker-a');
    assert.ok(lease.expiresAt >= before + 4_000 && lease.expiresAt <= Date.now() + 6_000, 'expires leaseMs from now');
    assert.equal(await b.claimLease(key('l1'), { owner: 'worker-b' }), undefined, 'a running call is not claimed again');
    assert.equal(await b.claim(key('l1')), false);
    const record = (await b.get('l1', 'ls'))!;
    assert.deepEqual([record.state, record.owner, record.ownerPid, typeof record.ownerHost, record.leaseExpiresAt], ['running', 'worker-a', process.pid, 'string', lease.expiresAt]);
    assert.equal(await b.finish(key('l1'), done('l1', 'not mine')), false, 'unfenced, from a handle that does not hold the lease');
    assert.equal(await b.finish(key('l1'), done('l1', 'forged'), { token: 'not-the-token' }), false, 'a wrong token');
    assert.equal((await b.get('l1', 'ls'))?.state, 'running');
    assert.equal(await b.finish(key('l1'), done('l1', 'mine'), { token: lease.token }), true, 'the lease token ends it');
    assert.equal((await a.result('l1', 'ls'))?.result.output, 'mine');
    assert.equal(await a.finish(key('l1'), done('l1', 'late'), { token: lease.token }), false, 'once');
    // The handle that took a lease ends its call without naming the token (the executor's path).
    assert.ok(await a.claimLease(call('l2')), 'a NewCall is recorded and claimed at once');
    a.finishSoon(key('l2'), done('l2', 'soon'));
    await a.flush();
    assert.equal((await b.get('l2', 'ls'))?.state, 'done');
  });

  it('leases: of two handles claiming one call at once, exactly one gets a lease', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    for (let i = 0; i < 5; i++) {
      await a.record(call(`race${i}`));
      const leases = await Promise.all([a.claimLease(key(`race${i}`), { owner: 'a' }), b.claimLease(key(`race${i}`), { owner: 'b' })]);
      assert.equal(leases.filter((l) => l !== undefined).length, 1, `race ${i}: ${JSON.stringify(leases)}`);
    }
  });

  it('leases: a running call whose lease lapsed becomes interrupted, never pending again; its late owner cannot renew or end it', async () => {
    const a = await ctx.open();
    const sweeper = await ctx.open();
    const lease = (await a.claimLease(call('x1'), { owner: 'worker-dies', leaseMs: 200, renew: false }))!;
    assert.deepEqual(await sweeper.expireLeases(), [], 'a live lease is left alone');
    await pastExpiry(lease.expiresAt);
    assert.deepEqual((await sweeper.expireLeases()).map((c) => [c.callId, c.state]), [['x1', 'interrupted']]);
    assert.deepEqual(await sweeper.expireLeases(), [], 'swept once');
    const stored = (await sweeper.result('x1', 'ls'))!.result;
    assert.deepEqual([stored.errorCode, stored.stopReason], ['INTERRUPTED', 'interrupted']);
    assert.equal(await a.renewLease(key('x1'), lease.token), undefined, 'lost');
    assert.equal(await a.finish(key('x1'), done('x1', 'late'), { token: lease.token }), false, 'a late owner cannot end it');
    assert.equal(await a.claimLease(key('x1'), { owner: 'redelivered' }), undefined, 'nor can a redelivered one claim it');
    const again = await sweeper.record(call('x1'));
    assert.equal(again.kind === 'ended' && again.result.errorCode, 'INTERRUPTED', 'a retry gets the interrupted result');
    // Without a sweep, the next reader of a lapsed running call repairs it the same way.
    const other = (await a.claimLease(call('x2'), { owner: 'worker-dies', leaseMs: 200, renew: false }))!;
    await pastExpiry(other.expiresAt);
    assert.equal((await sweeper.check(key('x2'))).kind, 'ended');
    assert.equal((await sweeper.get('x2', 'ls'))?.state, 'interrupted');
  });

  it('leases: renewed by hand extend the expiry; renewed by the handle outlive their first length', async () => {
    const a = await ctx.open();
    const sweeper = await ctx.open();
    const manual = (await a.claimLease(call('n1'), { owner: 'w', leaseMs: 1_000, renew: false }))!;
    await sleep(20);
    const renewed = (await a.renewLease(key('n1'), manual.token, 5_000))!;
    assert.ok(renewed.expiresAt > manual.expiresAt, 'later');
    assert.equal(renewed.token, manual.token);
    assert.equal(await a.renewLease(key('n1'), 'another-token'), undefined);
    const beat = (await a.claimLease(call('n2'), { owner: 'w', leaseMs: 300 }))!;
    await pastExpiry(beat.expiresAt + 300);
    assert.deepEqual(await sweeper.expireLeases(), [], 'the heartbeat kept it');
    assert.equal((await sweeper.get('n2', 'ls'))?.state, 'running');
    assert.ok((await sweeper.get('n2', 'ls'))!.leaseExpiresAt! > beat.expiresAt);
    assert.equal(await a.finish(key('n2'), done('n2')), true);
  });

  it('pools: a call queued for a pool waits for a worker; a worker holds it, parks it, another takes it; the caller never takes it over', async () => {
    const caller = await ctx.open();
    const w1 = await ctx.open();
    const w2 = await ctx.open();
    assert.deepEqual(await caller.record(call('q1', 'gpu')), { kind: 'recorded' });
    const queued = (await w1.get('q1', 'ls'))!;
    assert.deepEqual([queued.state, queued.pool, queuedFor(queued)], ['pending', 'gpu', 'gpu']);
    assert.deepEqual((await w1.list({ pool: 'gpu' })).map((c) => c.callId), ['q1']);
    assert.deepEqual(await w1.list({ pool: 'cpu' }), []);
    const hold = (await w1.takeLease(key('q1'), { owner: 'w1' }))!;
    assert.ok(hold !== undefined, 'held');
    assert.equal(await w2.takeLease(key('q1'), { owner: 'w2' }), undefined, 'one holder');
    assert.equal(await w2.claimLease(key('q1'), { owner: 'w2' }), undefined, 'a held call is not claimed by another');
    assert.equal(queuedFor((await w2.get('q1', 'ls'))!), undefined, 'held: not waiting for a worker');
    assert.equal((await caller.record(call('q1', 'gpu'))).kind, 'in_progress');
    // Parked: it asked a person; the worker lets go and the call waits in its pool again.
    const question = await w1.ask(key('q1'), { tool: 'write_file' });
    assert.equal(await w2.releaseLease(key('q1'), 'wrong'), false);
    assert.equal(await w1.releaseLease(key('q1'), hold.token), true);
    assert.equal(queuedFor((await w2.get('q1', 'ls'))!), 'gpu');
    assert.equal((await w2.record(call('q1', 'gpu'))).kind, 'in_progress', 'queued: a retry waits, never takes it over');
    await caller.answer(question, 'allow_once', 'cli:1');
    const hold2 = (await w2.takeLease(key('q1'), { owner: 'w2' }))!;
    assert.equal(await w1.claimLease(key('q1'), { owner: 'w1', token: hold.token }), undefined, 'an old hold does not claim');
    const run = (await w2.claimLease(key('q1'), { owner: 'w2', token: hold2.token }))!;
    assert.ok(run !== undefined && run.token !== hold2.token, 'claimed under a fresh token');
    assert.equal(await w2.finish(key('q1'), done('q1'), { token: hold2.token }), false, 'the hold token no longer fences it');
    assert.equal(await w2.finish(key('q1'), done('q1'), { token: run.token }), true);
  });

  it('pools: a hold whose lease lapsed goes to the next worker (it never ran); the sweep puts it back in its pool', async () => {
    const w1 = await ctx.open();
    const w2 = await ctx.open();
    await w1.record(call('h1', 'p'));
    const hold = (await w1.takeLease(key('h1'), { owner: 'w1', leaseMs: 200, renew: false }))!;
    await pastExpiry(hold.expiresAt);
    assert.equal(queuedFor((await w2.get('h1', 'ls'))!), 'p', 'lapsed: waiting again');
    assert.deepEqual(await w2.expireLeases(), [], 'a pending call is never interrupted');
    assert.equal((await w2.get('h1', 'ls'))?.leaseExpiresAt, undefined, 'the lapsed hold is cleared');
    assert.equal(await w1.claimLease(key('h1'), { owner: 'w1', token: hold.token }), undefined, 'the lapsed hold cannot claim');
    assert.ok(await w2.takeLease(key('h1'), { owner: 'w2' }));
  });

  it('waits: an end, an answer and a cancel made by another handle wake the waiter; a signal stops the wait', async () => {
    const a = await ctx.open();
    const b = await ctx.open();
    await a.record(call('w1'));
    const question = await a.ask(key('w1'), { tool: 'write_file' });
    const answer = a.waitForAnswer(question);
    const cancel = a.waitForCancel(key('w1'));
    const end = a.waitForEnd(key('w1'));
    const notYet = a.waitForEnd(key('w-later'));
    await b.answer(question, 'allow_once', 'cli:2');
    assert.equal(await answer, 'allow_once');
    await b.requestCancel('w1', 'ls');
    assert.equal(await cancel, true);
    await b.finish(key('w1'), done('w1'));
    assert.equal((await end)?.state, 'done');
    await b.finish(call('w-later'), done('w-later'));
    assert.equal((await notYet)?.callId, 'w-later', 'a call recorded after the wait began');
    assert.equal((await a.waitForEnd(key('w1')))?.state, 'done', 'ended already: at once');
    assert.equal(await a.waitForCancel(key('w-later')), false, 'ended without a cancel');
    await assert.rejects(a.waitForAnswer(987_654), /no question/);
    const controller = new AbortController();
    const stopped = a.waitForEnd(key('never'), controller.signal);
    controller.abort(new Error('stop waiting'));
    await assert.rejects(stopped, /stop waiting/);
  });
}
