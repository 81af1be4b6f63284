// Regression: every worker imported every pool tool module at start-up, so one module that
// kills the worker loading it stopped the pool from starting workers: every pool tool hung.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

describe('a tool module that kills its worker', () => {
  let executor: ToolExecutor;
  after(() => executor?.close());

  it('crashes only its own calls; the pool keeps serving every other tool', async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2 });
    assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'a' } })).success, true);
    for (let i = 0; i < 3; i++) {
      const killed = await executor.execute({ name: 'kill_loader', arguments: {} }, { timeoutMs: 10_000 });
      assert.equal(killed.errorCode, 'WORKER_CRASHED', killed.error);
      const next = await executor.execute({ name: 'greet', arguments: { who: `after ${i}` } }, { timeoutMs: 10_000 });
      assert.equal(next.success, true, next.error);
    }
    // A replaced worker preloads only modules that answered calls, never the killer.
    const spin = await executor.execute({ name: 'spin_forever', arguments: {} }, { timeoutMs: 200 });
    assert.equal(spin.errorCode, 'TIMEOUT');
    assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'z' } }, { timeoutMs: 10_000 })).success, true);
  });
});
