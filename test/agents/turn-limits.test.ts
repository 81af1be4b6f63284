/**
 * Turn limits through GeneralAgent with a scripted model: at most maxModelCalls model requests
 * per run (then stopReason max_model_calls), at most maxToolCallsPerResponse calls of one
 * response run in order (the rest answered OVERLOADED, not run, every call id answered), both
 * validated like maxToolRounds; maxToolRounds, when set, still stops with max_tool_rounds.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolgateOptionError, ToolSystem, type ChatModel, type ChatRequest, type OpenAIAssistantMessage } from 'toolgate';
import { DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE } from '../../src/agents/turn-limits.js';
import { tempWorkspace } from '../helpers.js';

/** A model that answers every request with `calls(n)` tool calls (n = its request number, from 1), or a final text when that is empty. */
class LoopingModel implements ChatModel {
  requests = 0;
  constructor(private readonly calls: (n: number) => Array<{ id: string; name: string; arguments: string }>) {}

  async complete(_request: ChatRequest): Promise<OpenAIAssistantMessage> {
    this.requests += 1;
    const calls = this.calls(this.requests);
    if (calls.length === 0) return { role: 'assistant', content: 'final' };
    return { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
  }
}

describe('turn limits of an agent run', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    // The core only: the calls below need no process (an unknown name is answered at once).
    tools = new ToolSystem({ workspace: t.ws, ported: false });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  const unknownCall = (n: number) => [{ id: `u${n}`, name: 'no_such_tool', arguments: '{}' }];

  it(`stops after ${DEFAULT_MAX_MODEL_CALLS} model calls by default with max_model_calls`, async () => {
    assert.equal(DEFAULT_MAX_MODEL_CALLS, 32);
    const model = new LoopingModel(unknownCall);
    const run = await new GeneralAgent({ tools, model }).run('loop');
    assert.equal(run.stopReason, 'max_model_calls');
    assert.equal(model.requests, 32);
    assert.equal(run.toolRounds, 32);
    assert.equal(run.results.length, 32);
  });

  it('maxModelCalls is an option; a final answer within it ends the run as final', async () => {
    const capped = new LoopingModel(unknownCall);
    const run = await new GeneralAgent({ tools, model: capped, maxModelCalls: 3 }).run('loop');
    assert.equal(run.stopReason, 'max_model_calls');
    assert.equal(capped.requests, 3);
    const finishing = new LoopingModel((n) => (n < 3 ? unknownCall(n) : []));
    const done = await new GeneralAgent({ tools, model: finishing, maxModelCalls: 3 }).run('loop');
    assert.equal(done.stopReason, 'final');
    assert.equal(finishing.requests, 3);
  });

  it('maxToolRounds, when set, stops first with max_tool_rounds; above maxModelCalls the model-call cap wins', async () => {
    const rounds = new LoopingModel(unknownCall);
    assert.equal((await new GeneralAgent({ tools, model: rounds, maxToolRounds: 2 }).run('loop')).stopReason, 'max_tool_rounds');
    assert.equal(rounds.requests, 2);
    const calls = new LoopingModel(unknownCall);
    assert.equal((await new GeneralAgent({ tools, model: calls, maxToolRounds: 10, maxModelCalls: 4 }).run('loop')).stopReason, 'max_model_calls');
    assert.equal(calls.requests, 4);
  });

  it('runs at most maxToolCallsPerResponse calls of one response, in order; the rest are answered OVERLOADED and not run', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, name: 'read_file', arguments: '{"filepath":"a.txt"}' }));
    const model = new LoopingModel((n) => (n === 1 ? five : []));
    const run = await new GeneralAgent({ tools, model, maxToolCallsPerResponse: 3 }).run('read');
    assert.equal(run.stopReason, 'final');
    assert.deepEqual(run.results.map((r) => r.callId), ['r0', 'r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(run.results.map((r) => r.success), [true, true, true, false, false]);
    for (const extra of run.results.slice(3)) {
      assert.equal(extra.errorCode, 'OVERLOADED');
      assert.equal(extra.stopReason, 'not_run');
      assert.match(extra.output, /at most 3 tool calls/);
    }
    // Every call id has its tool message, so the provider accepts the conversation.
    const answered = run.messages.filter((m) => m.role === 'tool').map((m) => (m as { tool_call_id: string }).tool_call_id);
    assert.deepEqual(answered, ['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it(`runs ${DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE} calls of one response by default`, async () => {
    assert.equal(DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE, 64);
    const many = Array.from({ length: 66 }, (_, i) => ({ id: `m${i}`, name: 'no_such_tool', arguments: '{}' }));
    const model = new LoopingModel((n) => (n === 1 ? many : []));
    const run = await new GeneralAgent({ tools, model }).run('many');
    assert.equal(run.results.length, 66);
    assert.deepEqual(run.results.slice(0, 64).map((r) => r.errorCode), Array(64).fill('UNKNOWN_TOOL'));
    assert.deepEqual(run.results.slice(64).map((r) => r.errorCode), ['OVERLOADED', 'OVERLOADED']);
  });

  it('validates the caps like maxToolRounds, naming the option', () => {
    const model = new LoopingModel(() => []);
    for (const [option, value] of [['maxModelCalls', 0], ['maxModelCalls', 2.5], ['maxToolCallsPerResponse', -1], ['maxToolCallsPerResponse', Number.NaN], ['maxToolRounds', 0]] as const) {
      assert.throws(() => new GeneralAgent({ tools, model, [option]: value }), (e: unknown) => e instanceof ToolgateOptionError && e.message.startsWith(`options.${option} must be a positive integer`), `${option}: ${value}`);
    }
  });
});
