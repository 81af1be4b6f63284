// Regression: a model turn with a thousand tool calls ran every one of them (and would have
// asked a person a thousand times for confirmations); now at most maxCallsPerTurn run and
// the rest are answered OVERLOADED without running, each call still answered once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolCallHandler } from 'toolgate';
import { MAX_CALLS_PER_TURN, type ToolCallTarget } from '../../src/system/tool-call-handler.js';

describe('ToolCallHandler: calls per turn', () => {
  it(`runs at most ${MAX_CALLS_PER_TURN} calls of one turn by default and answers the rest OVERLOADED`, async () => {
    let ran = 0;
    const target: ToolCallTarget = {
      writes: () => false,
      execute: async (call) => {
        ran++;
        return { success: true, output: 'ok', durationMs: 0, confirmed: true, tool: call.name, callId: call.callId ?? '', stopReason: 'completed', outcome: 'success', sideEffects: 'possible' };
      },
    };
    const calls = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, name: 'read_something', arguments: '{}' }));
    const results = await new ToolCallHandler(target).handle(calls);
    assert.equal(ran, MAX_CALLS_PER_TURN);
    assert.equal(results.length, 1000);
    assert.deepEqual(results.map((r) => r.callId), calls.map((c) => c.id));
    assert.equal(results.filter((r) => r.success).length, MAX_CALLS_PER_TURN);
    const rest = results.slice(MAX_CALLS_PER_TURN);
    assert.ok(rest.every((r) => r.errorCode === 'OVERLOADED' && r.stopReason === 'not_run'));
    assert.match(rest[0]!.error!, /at most 64 tool calls of one turn run, and this is call 65 of 1000/);
  });

  it('the cap is an option, checked', async () => {
    const target: ToolCallTarget = { writes: () => true, execute: async (call) => ({ success: true, output: 'ok', durationMs: 0, confirmed: true, tool: call.name, callId: call.callId ?? '', stopReason: 'completed', outcome: 'success', sideEffects: 'possible' }) };
    const results = await new ToolCallHandler(target, { maxCallsPerTurn: 2 }).handle([1, 2, 3].map((i) => ({ id: `w${i}`, name: 'write_x', arguments: '{}' })));
    assert.deepEqual(results.map((r) => r.errorCode), [undefined, undefined, 'OVERLOADED']);
    assert.throws(() => new ToolCallHandler(target, { maxCallsPerTurn: 0 }), /maxCallsPerTurn must be a positive integer/);
  });
});
