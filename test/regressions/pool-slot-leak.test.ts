// Regression: every call whose signal had already aborted leaked a slot of the pool's call
// table; after 65536 of them every pool call failed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { MAX_CALLS_IN_FLIGHT } from '../../src/runner/pool/pool-runner.js';
import { fixtureRegistry } from '../helpers.js';

describe('pre-aborted pool calls', () => {
  let executor: ToolExecutor;
  after(() => executor?.close());

  it('do not use up the call table', async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1 });
    const aborted = AbortSignal.abort();
    for (let i = 0; i <= MAX_CALLS_IN_FLIGHT; i++) {
      const r = await executor.execute({ name: 'greet', arguments: { who: 'a' } }, { signal: aborted });
      if (r.errorCode !== 'ABORTED') assert.fail(`call ${i}: ${r.errorCode} ${r.error}`);
    }
    const r = await executor.execute({ name: 'greet', arguments: { who: 'after' } });
    assert.equal(r.success, true, r.error);
  });
});
