// Regression (cold review of the decision pipeline): on the rate-limit path a throw in dispatch
// reached the caller as a rejection, where every other path turns it into an INTERNAL result.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import type { Runner } from '../../src/runner/runner.js';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('a bug past the rate limit is an INTERNAL result, not a rejection', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  before(async () => {
    // A runner that breaks its contract by throwing, standing in for any bug at dispatch.
    const broken: Runner = { kind: 'main', run: () => { throw new TypeError('runner bug'); }, close: async () => [] };
    executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: t.ws, runners: { main: broken } });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  it('for a tool without a rate limit and for one with', async () => {
    for (const name of ['count_calls', 'ping_rate_limited']) {
      const result = await executor.execute({ name, arguments: {} });
      assert.equal(result.errorCode, 'INTERNAL', `${name}: ${result.error}`);
      assert.match(result.error!, /runner bug/);
    }
  });
});
