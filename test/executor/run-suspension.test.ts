/**
 * A tool on the `main` runner whose run throws a suspension (`isSuspension`: an `interrupt()`
 * inside the tool; `ask_user`'s question handler for an MCP 2026-07-28 client) leaves its call
 * waiting: the executor rejects with the suspension, a recorded call goes back from `running`
 * to `pending` (an event `suspended`), and the same call made again is claimed and run again
 * from the start, once. Before, the runner turned the suspension into a failed result and the
 * call ended. Temp folders only; removed after.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SUSPENDS, ToolExecutor, ToolRegistry } from 'toolgate';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('a main-runner run that suspends leaves its call waiting', () => {
  let tmp: TempWorkspace;
  let registry: ToolRegistry;
  const runs: string[] = [];
  let suspend = true;
  before(() => {
    tmp = tempWorkspace();
    registry = new ToolRegistry();
    registry.register({
      name: 'ask_then_answer', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Suspends until resumed, then answers.',
      inputSchema: { type: 'object', properties: {} },
      run: () => {
        runs.push(suspend ? 'suspended' : 'answered');
        if (suspend) throw Object.assign(new Error('waits for a later request'), { [SUSPENDS]: true });
        return 'answered';
      },
    });
  });
  after(() => tmp.cleanup());

  it('with a ledger: pending and suspended after the first run; the same call again runs once more and ends done', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws, ledger: { dir: path.join(tmp.root, 'state') }, outputStore: false, sweepLeftovers: false });
    try {
      runs.length = 0;
      suspend = true;
      const call = { name: 'ask_then_answer', arguments: {}, callId: 'c1' };
      await assert.rejects(executor.execute(call, { session: 's1' }), (error: unknown) => (error as { [SUSPENDS]?: boolean })[SUSPENDS] === true);
      const ledger = executor.ledger!;
      assert.equal((await ledger.get('c1', 's1'))?.state, 'pending');
      assert.ok((await ledger.events('c1', 's1')).some((e) => e.kind === 'suspended'));
      suspend = false;
      const resumed = await executor.execute(call, { session: 's1' });
      assert.equal(resumed.success, true, resumed.output);
      assert.equal(resumed.output, 'answered');
      await ledger.flush();
      assert.equal((await ledger.get('c1', 's1'))?.state, 'done');
      assert.equal((await ledger.events('c1', 's1')).filter((e) => e.kind === 'running').length, 2);
      // Ended: the same call again is the recorded end, not a third run.
      assert.equal((await executor.execute(call, { session: 's1' })).output, 'answered');
      assert.deepEqual(runs, ['suspended', 'answered']);
    } finally {
      await executor.close();
    }
  });

  it('without a ledger: the suspension is thrown on, and nothing is left running', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws, outputStore: false, sweepLeftovers: false });
    try {
      suspend = true;
      await assert.rejects(executor.execute({ name: 'ask_then_answer', arguments: {}, callId: 'c2' }), (error: unknown) => (error as { [SUSPENDS]?: boolean })[SUSPENDS] === true);
      suspend = false;
      assert.equal((await executor.execute({ name: 'ask_then_answer', arguments: {}, callId: 'c2' })).output, 'answered');
    } finally {
      await executor.close();
    }
  });
});
