// Regression: when a ToolCallTarget's execute threw anything but PathTraversalError, the
// ToolCallHandler rethrew it: no call of the turn was answered (not even the ones that had
// succeeded), and the conversation kept an assistant message whose tool calls have no
// results, which providers reject.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolCallHandler, type ToolCallTarget } from '../../src/system/tool-call-handler.js';
import type { OpenAIAssistantMessage, OpenAIChatMessage } from '../../src/formats/openai.js';

describe('ToolCallHandler: a target that throws', () => {
  it('every call is answered once, the thrown one as TOOL_ERROR', async () => {
    const target: ToolCallTarget = {
      writes: (call) => call.name === 'write_bad',
      execute: async (call) => {
        if (call.name.endsWith('bad')) throw new Error(`bug in ${call.name}`);
        return { success: true, output: 'ok', durationMs: 0, confirmed: true, tool: call.name, callId: call.callId ?? '', stopReason: 'completed', outcome: 'success', sideEffects: 'possible' };
      },
    };
    const message: OpenAIAssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: ['good', 'bad', 'write_bad', 'good'].map((name, i) => ({ id: `c${i}`, type: 'function' as const, function: { name, arguments: '{}' } })),
    };
    const conversation: OpenAIChatMessage[] = [];
    const results = await new ToolCallHandler(target).answerOpenAI(message, conversation);
    assert.deepEqual(results.map((r) => [r.callId, r.success, r.errorCode]), [
      ['c0', true, undefined], ['c1', false, 'TOOL_ERROR'], ['c2', false, 'TOOL_ERROR'], ['c3', true, undefined],
    ]);
    const answers = conversation.filter((m) => m.role === 'tool') as Array<{ tool_call_id: string; content: string }>;
    assert.deepEqual(answers.map((m) => m.tool_call_id), ['c0', 'c1', 'c2', 'c3']);
    assert.match(answers[1]!.content, /bug in bad/);
  });
});
