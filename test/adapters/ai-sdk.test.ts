/**
 * `toolgate/ai-sdk` in a real AI SDK tool loop (`generateText`), offline: the SDK's own
 * `MockLanguageModelV3` plays a scripted model over two tool rounds. An allowed read, a call a
 * policy hook denies, a read outside the workspace, and a write that asks and is approved
 * through the SDK's approval (`tool-approval-request` answered by `tool-approval-response`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { ToolSystem } from 'toolgate';
import { approvedInConversation, toAiSdkTools } from 'toolgate/ai-sdk';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

type GenerateResult = Exclude<NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doGenerate'], ((...args: never[]) => unknown) | unknown[] | undefined>;
type CallOptions = MockLanguageModelV3['doGenerateCalls'][number];

const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** A model turn that calls tools. */
function toolCalls(...calls: Array<[id: string, name: string, input: Record<string, unknown>]>): GenerateResult {
  return {
    content: calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE, warnings: [],
  };
}

/** A model turn that answers in text. */
function text(answer: string): GenerateResult {
  return { content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
}

/** The tool results the model was shown in a prompt, by call id. */
function toolResults(prompt: CallOptions['prompt']): Map<string, { type: string; value?: unknown; reason?: string }> {
  const out = new Map<string, { type: string; value?: unknown; reason?: string }>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') out.set(part.toolCallId, part.output as { type: string });
  }
  return out;
}

describe('toolgate/ai-sdk: a two-round generateText loop with a scripted model', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'hello from the notes\n');
    system = new ToolSystem({
      workspace: tmp.ws, ported: false,
      executor: { policyHook: (call) => (call.arguments.filepath === 'secret.txt' ? 'secret.txt is off limits' : undefined), sweepLeftovers: false },
    });
    await system.start();
  });

  after(async () => {
    await system.close();
    tmp.cleanup();
  });

  it('allows, denies, answers an escape as a result, and runs an ask once the SDK approval says yes', async () => {
    const script = [
      toolCalls(
        ['c1', 'read_file', { filepath: 'notes.txt' }],
        ['c2', 'write_file', { filepath: 'secret.txt', content: 'leak' }],
        ['c3', 'read_file', { filepath: '../outside/sentinel.txt' }],
      ),
      toolCalls(['c4', 'write_file', { filepath: 'out.txt', content: 'written by the model' }]),
      text('done'),
    ];
    let turn = 0;
    const model = new MockLanguageModelV3({ doGenerate: async () => script[turn++]! });
    const tools = toAiSdkTools(system, { only: ['read_file', 'write_file'] });
    assert.deepEqual(Object.keys(tools).sort(), ['read_file', 'write_file']);

    // Round 1 runs three calls; round 2's write asks: the SDK stops with an approval request.
    const first = await generateText({ model, tools, stopWhen: stepCountIs(6), prompt: 'Copy the notes.' });
    const shown = toolResults(model.doGenerateCalls[1]!.prompt);
    assert.equal(shown.get('c1')?.type, 'text');
    assert.match(String(shown.get('c1')?.value), /hello from the notes/);
    assert.equal(shown.get('c2')?.type, 'execution-denied');
    assert.match(String(shown.get('c2')?.reason), /secret\.txt is off limits/);
    assert.equal(shown.get('c3')?.type, 'error-text');
    assert.match(String(shown.get('c3')?.value), /refused: .*outside/i);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'secret.txt')), false);
    assert.equal(fs.readFileSync(tmp.sentinel, 'utf8'), 'SENTINEL CONTENT\n');

    const approvals = first.content.filter((p) => p.type === 'tool-approval-request');
    assert.equal(approvals.length, 1, 'the write asks for approval');
    assert.equal(approvals[0]!.toolCall.toolCallId, 'c4');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'out.txt')), false, 'nothing written before the approval');

    // The person approves through the SDK; the call runs with that approval, then the loop goes on.
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Copy the notes.' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvals[0]!.approvalId, approved: true }] },
    ];
    const second = await generateText({ model, tools, stopWhen: stepCountIs(6), messages });
    assert.equal(second.text, 'done');
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'out.txt'), 'utf8'), 'written by the model');
    const approvedResult = toolResults(model.doGenerateCalls[2]!.prompt).get('c4');
    assert.equal(approvedResult?.type, 'text', JSON.stringify(approvedResult));
  });

  it('leaves a call the person denies through the SDK unrun, and the model reads the denial', async () => {
    const script = [toolCalls(['d1', 'write_file', { filepath: 'denied.txt', content: 'never' }]), text('understood')];
    let turn = 0;
    const model = new MockLanguageModelV3({ doGenerate: async () => script[turn++]! });
    const tools = toAiSdkTools(system, { only: ['write_file'] });
    const first = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: 'Write it.' });
    const [request] = first.content.filter((p) => p.type === 'tool-approval-request');
    assert.equal(request?.toolCall.toolCallId, 'd1');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Write it.' }, ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: false, reason: 'not now' }] },
    ];
    const second = await generateText({ model, tools, stopWhen: stepCountIs(4), messages });
    assert.equal(second.text, 'understood');
    assert.equal(toolResults(model.doGenerateCalls[1]!.prompt).get('d1')?.type, 'execution-denied');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'denied.txt')), false);
  });

  it('refuses an asked call whose approval the conversation does not hold', async () => {
    const tools = toAiSdkTools(system, { only: ['write_file'] });
    const output = await tools.write_file!.execute!({ filepath: 'unapproved.txt', content: 'x' }, { toolCallId: 'c9', messages: [] });
    assert.equal((output as { errorCode?: string }).errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'unapproved.txt')), false);
    assert.equal(approvedInConversation([], 'c9'), false);
  });

  it('does not run a definition registered again between the approval question and the approved run (TOOL_REPLACED)', async () => {
    const ran: string[] = [];
    const define = (which: string) => system.registry.register({
      name: 'stamp_note', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, description: `Stamp a note (${which}).`,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      run: ({ text }) => { ran.push(which); return `stamped ${String(text)}`; },
    });
    define('old');
    const tools = toAiSdkTools(system, { only: ['stamp_note'] });
    const input = { text: 'x' };
    const needs = tools.stamp_note!.needsApproval as (input: unknown, options: { toolCallId: string; messages: ModelMessage[] }) => Promise<boolean>;
    assert.equal(await needs(input, { toolCallId: 'r1', messages: [] }), true, 'the call asks');
    const approvedMessages: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'r1', toolName: 'stamp_note', input }, { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'r1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
    ];
    // The person approved the old definition; a new one is registered before the call runs.
    define('new');
    const output = await tools.stamp_note!.execute!(input, { toolCallId: 'r1', messages: approvedMessages }) as { success: boolean; errorCode?: string };
    assert.equal(output.errorCode, 'TOOL_REPLACED', JSON.stringify(output));
    assert.deepEqual(ran, [], 'neither definition ran');
    // Asked and approved again (for the new definition), it runs.
    assert.equal(await needs(input, { toolCallId: 'r2', messages: [] }), true);
    const again = approvedMessages.map((m) => JSON.parse(JSON.stringify(m).replaceAll('r1', 'r2')) as ModelMessage);
    const second = await tools.stamp_note!.execute!(input, { toolCallId: 'r2', messages: again }) as { success: boolean };
    assert.equal(second.success, true, JSON.stringify(second));
    assert.deepEqual(ran, ['new']);
  });

  it('an SDK approval answers a question that must be asked every time (always-ask), for the arguments asked about only', async () => {
    const tools = toAiSdkTools(system, { only: ['write_file'], call: { approvalMode: 'always-ask' } });
    const input = { filepath: 'fresh.txt', content: 'asked afresh' };
    const needs = tools.write_file!.needsApproval as (input: unknown, options: { toolCallId: string; messages: ModelMessage[] }) => Promise<boolean>;
    const approvedFor = (id: string): ModelMessage[] => [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'write_file', input }, { type: 'tool-approval-request', approvalId: `a_${id}`, toolCallId: id }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: `a_${id}`, approved: true }] },
    ];
    assert.equal(await needs(input, { toolCallId: 'f1', messages: [] }), true);
    // Before: `confirm: true` does not answer a fresh question, so the approved call was refused.
    const ran = await tools.write_file!.execute!(input, { toolCallId: 'f1', messages: approvedFor('f1') }) as { success: boolean; output: string };
    assert.equal(ran.success, true, ran.output);
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'fresh.txt'), 'utf8'), 'asked afresh');
    // Asked about one content, run with another: the approval does not carry over.
    assert.equal(await needs(input, { toolCallId: 'f2', messages: [] }), true);
    const other = await tools.write_file!.execute!({ ...input, content: 'something else' }, { toolCallId: 'f2', messages: approvedFor('f2') }) as { success: boolean; errorCode?: string };
    assert.equal(other.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'fresh.txt'), 'utf8'), 'asked afresh');
  });

  it('passes the abort signal through: an aborted call is not run', async () => {
    const tools = toAiSdkTools(system, { only: ['read_file'] });
    const controller = new AbortController();
    controller.abort();
    const output = await tools.read_file!.execute!({ filepath: 'notes.txt' }, { toolCallId: 'c10', messages: [], abortSignal: controller.signal });
    assert.equal((output as { errorCode?: string }).errorCode, 'ABORTED');
  });
});
