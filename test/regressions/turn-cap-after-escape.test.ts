// Regression (cold review of the shared batch): past the per-turn cap, a call after a
// workspace escape read ABORTED; the cap is checked first, as before the batches were shared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolCallHandler, ToolExecutor } from 'toolgate';
import { executorTarget } from '../../src/system/tool-call-handler.js';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('calls past maxCallsPerTurn are OVERLOADED even after an escape', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  before(async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  it('escape, skipped, over the cap', async () => {
    const handler = new ToolCallHandler(executorTarget(executor), { maxCallsPerTurn: 2 });
    const results = await handler.handle([
      { id: 'a', name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' } },
      { id: 'b', name: 'write_file', arguments: { filepath: 'b.txt', content: 'b' } },
      { id: 'c', name: 'count_calls', arguments: {} },
    ]);
    assert.deepEqual(results.map((r) => [r.callId, r.errorCode]), [['a', 'PATH_TRAVERSAL'], ['b', 'ABORTED'], ['c', 'OVERLOADED']]);
    assert.match(results[1]!.error!, /earlier call in this turn/);
  });

  it('executeMany names its calls a batch', async () => {
    const error = await executor.executeMany([
      { name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' }, callId: 'a' },
      { name: 'write_file', arguments: { filepath: 'b.txt', content: 'b' }, callId: 'b' },
    ], { confirm: true }).then(() => assert.fail('expected PathTraversalError'), (e: unknown) => e as { results: Array<{ error?: string }> });
    assert.match(error.results[1]!.error!, /earlier call in this batch/);
  });
});
