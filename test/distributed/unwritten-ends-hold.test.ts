/**
 * A kept end (unwritten-ends.ts) whose retry took a new hold of its call and then lost the
 * write (the store away again between the two) is written under that hold on the next try.
 * Before, the new hold's token was not kept: the next try found the call held by a live owner
 * (this worker's own new hold), took it for someone else's, and dropped the end unwritten and
 * unwarned. A store of the call's state alone (no server), failing on demand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallEnd, CallKey, CallStore, Lease } from '../../src/ledger/call-store.js';
import { UnwrittenEnds } from '../../src/distributed/unwritten-ends.js';
import { waitFor } from '../wait.js';

/** One `pending` call: fenced `finish`, `takeLease` refused while a lease is held (live owner). */
class OneCallStore {
  state = 'pending';
  holder: string | undefined;
  /** Fail the next `finish` calls (the store away). */
  failFinish = 0;
  private tokens = 0;
  async get(): Promise<{ state: string }> {
    return { state: this.state };
  }
  async takeLease(_key: CallKey, request: { owner: string; leaseMs: number }): Promise<Lease | undefined> {
    if (this.state !== 'pending' || this.holder !== undefined) return undefined;
    this.holder = `token-${++this.tokens}`;
    return { owner: request.owner, token: this.holder, expiresAt: Date.now() + request.leaseMs };
  }
  async finish(_key: CallKey, end: CallEnd, fence: { token: string }): Promise<boolean> {
    if (this.failFinish > 0) {
      this.failFinish -= 1;
      throw new Error('connection terminated');
    }
    if (this.state !== 'pending' || fence.token !== this.holder) return false;
    this.state = end.state;
    return true;
  }
}

describe('UnwrittenEnds', () => {
  it('writes a kept end under the hold its own retry took, when the write after that hold failed', async () => {
    const store = new OneCallStore();
    store.failFinish = 1;
    const ends = new UnwrittenEnds(store as unknown as CallStore, { owner: 'worker-1', leaseMs: 60_000 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const key = { callId: 'c-1', session: 's' };
      ends.add(key, { state: 'failed', decisions: [] } as unknown as CallEnd, undefined);
      await waitFor(() => store.state !== 'pending', { what: 'the kept end to be written', timeoutMs: 10_000, seen: () => `state ${store.state}, holder ${store.holder}; ${warnings.join('\n')}` });
      assert.equal(store.state, 'failed');
    } finally {
      ends.close();
      process.off('warning', onWarning);
    }
  });
});
