// Regression: close() reported a call that was running in a worker as ABORTED "did not run",
// inviting a retry of something that may have had effects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

describe('close() with calls in flight', () => {
  it('reports a running call as interrupted (WORKER_CRASHED), not as never run', async () => {
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1 });
    // Load the tool in the pool's worker first, so the call below starts at once even on a busy machine.
    await executor.execute({ name: 'sleep_then_answer', arguments: { ms: 0 } });
    const running = executor.execute({ name: 'sleep_then_answer', arguments: { ms: 2000 } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await executor.close();
    const r = await running;
    assert.equal(r.errorCode, 'WORKER_CRASHED', r.error);
    assert.match(r.error!, /closed while it ran.*partial effects/);
  });
});
