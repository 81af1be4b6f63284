// Regression: close() reported a call that was running in a worker as ABORTED "did not run",
// inviting a retry of something that may have had effects.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';
import { waitFor, wholeNumberIn } from '../wait.js';

describe('close() with calls in flight', () => {
  it('reports a running call as interrupted (WORKER_CRASHED), not as never run', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-close-running-'));
    const executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: ws, poolSize: 1 });
    try {
      const running = executor.execute({ name: 'write_pid_then_spin', arguments: { name: 'running.pid' } });
      // Closed once the tool runs (it wrote its pid): an event, not 500 ms guessed to be enough
      // for the call to reach its worker.
      await waitFor(() => wholeNumberIn(path.join(ws, 'running.pid')), { what: 'the tool to run in its worker' });
      await executor.close();
      const r = await running;
      assert.equal(r.errorCode, 'WORKER_CRASHED', r.error);
      assert.match(r.error!, /closed while it ran.*partial effects/);
    } finally {
      await executor.close();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
