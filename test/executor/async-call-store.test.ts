/**
 * The executor on a call store that answers later (as a store on the network does): the
 * `ledger` option takes any `CallStore`, not only a `Ledger`; record and claim are awaited, so
 * a tool never starts before its claim is committed, a claim another process won leaves the
 * tool unrun, and a retried call id is answered from the store without running again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger, ToolExecutor, type CallStore, type ToolRegistry } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

/** Methods that answer synchronously (no storage, or fire-and-forget). */
const SYNCHRONOUS = new Set(['finishSoon', 'ownerAlive']);

/**
 * A `CallStore` that is not a `Ledger`: every storage method of `inner` answers after a turn
 * of the event loop (`setImmediate`), and `before` runs first (to look, or to act as another
 * process would meanwhile). Each call's method name is logged.
 */
function laterStore(inner: Ledger, log: string[], before: (method: string, args: unknown[]) => unknown = () => undefined): CallStore {
  const store: Record<string, unknown> = { file: inner.file, readonly: inner.readonly, recovered: inner.recovered, pollMs: inner.pollMs };
  for (const name of Object.getOwnPropertyNames(Ledger.prototype)) {
    const method = (inner as unknown as Record<string, unknown>)[name];
    if (name === 'constructor' || typeof method !== 'function') continue;
    const bound = (method as (...args: unknown[]) => unknown).bind(inner);
    store[name] = SYNCHRONOUS.has(name) || name === 'retentionSettled' ? bound : async (...args: unknown[]) => {
      await new Promise((resolve) => setImmediate(resolve));
      await before(name, args);
      log.push(name);
      return bound(...args);
    };
  }
  assert.equal(store instanceof Ledger, false);
  return store as unknown as CallStore;
}

describe('an executor on a call store that answers later', () => {
  let registry: ToolRegistry;
  let dir: string;
  before(async () => {
    registry = await fixtureRegistry();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-async-store-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('checks, then claims before the tool runs, and answers a retry from the store without running it again', async () => {
    const inner = Ledger.open({ dir, workspace: dir });
    const log: string[] = [];
    const marker = path.join(dir, 'marker.txt');
    const seenAtClaim: boolean[] = [];
    const store = laterStore(inner, log, (method) => {
      if (method === 'claim') seenAtClaim.push(fs.existsSync(marker));
    });
    const executor = new ToolExecutor(registry, { workspaceRoot: dir, session: 'later', sweepLeftovers: false, outputStore: false, ledger: store });
    try {
      const args = { filepath: 'marker.txt', marker: 'ran' };
      const first = await executor.call('append_marker', args, { callId: 'c1' });
      assert.equal(first.success, true, first.output);
      assert.deepEqual(seenAtClaim, [false], 'the tool had not run when the claim was made');
      assert.ok(log.indexOf('check') >= 0 && log.indexOf('check') < log.indexOf('claim'), `check before claim: ${log.join(' ')}`);
      const retried = await executor.call('append_marker', args, { callId: 'c1' });
      assert.equal(retried.output, first.output, 'the stored result');
      assert.equal(fs.readFileSync(marker, 'utf8'), 'ran\n', 'the tool ran once');
      assert.deepEqual(seenAtClaim, [false], 'a retry claims nothing');
      await inner.flush();
      assert.equal((await inner.get('c1', 'later'))?.state, 'done');
    } finally {
      await executor.close();
      await inner.close();
    }
  });

  it('does not run a claimed call when the executor closed while the claim was on its way: it ends failed, not run', async () => {
    const inner = Ledger.open({ dir, workspace: dir });
    let executor: ToolExecutor | undefined;
    let closing: Promise<void> | undefined;
    const store = laterStore(inner, [], (method) => {
      if (method === 'claim') closing = executor!.close();
    });
    executor = new ToolExecutor(registry, { workspaceRoot: dir, session: 'closing', sweepLeftovers: false, outputStore: false, ledger: store });
    try {
      const result = await executor.call('append_marker', { filepath: 'closed.txt', marker: 'ran' }, { callId: 'k1' });
      assert.deepEqual([result.errorCode, result.stopReason], ['ABORTED', 'not_run'], result.output);
      await closing;
      assert.equal(fs.existsSync(path.join(dir, 'closed.txt')), false, 'the tool did not run');
      const row = await inner.get('k1', 'closing');
      assert.deepEqual([row?.state, row?.errorCode], ['failed', 'ABORTED'], 'ended, not left running');
    } finally {
      await executor.close();
      await inner.close();
    }
  });

  it('does not run a call whose claim another process won while the claim was on its way', async () => {
    const inner = Ledger.open({ dir, workspace: dir });
    const other = Ledger.open({ dir, workspace: dir });
    const log: string[] = [];
    // Another process (its own handle on the file) claims r1 first.
    const store = laterStore(inner, log, (method, args) => {
      if (method === 'claim' && (args[0] as { callId: string }).callId === 'r1') return other.claim(args[0] as never);
    });
    const executor = new ToolExecutor(registry, { workspaceRoot: dir, session: 'race', sweepLeftovers: false, outputStore: false, ledger: store });
    try {
      const lost = await executor.call('count_calls', {}, { callId: 'r1' });
      assert.equal(lost.errorCode, 'CALL_IN_PROGRESS', lost.output);
      assert.match(lost.output, /claimed or ended by another process meanwhile/);
      const ran = await executor.call('count_calls', {}, { callId: 'r2' });
      assert.equal(ran.output, 'call 1', 'the lost call never ran here');
      assert.equal((await inner.get('r1', 'race'))?.state, 'running', 'left to the process that claimed it');
    } finally {
      await executor.close();
      await other.close();
      await inner.close();
    }
  });
});
