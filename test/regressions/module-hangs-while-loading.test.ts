// Regression: a call whose tool module never finished loading in a worker timed out without
// ending that worker, which stayed occupied for good; such calls jammed the whole pool.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

describe('a tool module that hangs while loading', () => {
  let executor: ToolExecutor;
  after(() => executor?.close());

  it('times out, ends its worker, and leaves the pool serving other tools', async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2 });
    for (let i = 0; i < 4; i++) {
      const r = await executor.execute({ name: 'hang_on_load', arguments: {} });
      assert.equal(r.errorCode, 'TIMEOUT', r.error);
    }
    const next = await executor.execute({ name: 'greet', arguments: { who: 'after' } }, { timeoutMs: 5000 });
    assert.equal(next.success, true, next.error);
  });
});
