/**
 * The scripted agent flow in the Anthropic Messages shape, through the ToolCallHandler:
 * tool_use blocks in, one user message of tool_result blocks out, every id threaded, is_error
 * on failures, ask_user answered by the handler, images as image blocks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem, type AnthropicMessage, type ConfirmationRequest, type UserQuestion } from 'toolgate';
import type { AnthropicToolResultBlock } from '../../src/formats/anthropic.js';
import { ASK_USER_UNAVAILABLE } from '../../src/system/tool-call-handler.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace } from '../helpers.js';

function assistant(...uses: Array<[id: string, name: string, input: unknown]>): AnthropicMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text: 'Working on it.' }, ...uses.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input }))],
  };
}

function resultBlocks(message: AnthropicMessage | undefined): AnthropicToolResultBlock[] {
  assert.ok(message !== undefined && message.role === 'user' && Array.isArray(message.content), 'a user message of tool_result blocks');
  return message.content as AnthropicToolResultBlock[];
}

describe('ToolCallHandler in the Anthropic shape', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(t.ws, 'b.txt'), 'beta\n');
    tools = new ToolSystem({ workspace: t.ws, toolFolders: [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }] });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('answers parallel, malformed (A2), unknown, confirmed, denied and ask_user calls with threaded tool_result blocks', async () => {
    const conversation: AnthropicMessage[] = [{ role: 'user', content: 'Read a.txt and b.txt, save the result, and ask me for a color.' }];
    const asked: ConfirmationRequest[] = [];
    const questions: UserQuestion[] = [];
    const options = {
      confirmationHandler: (request: ConfirmationRequest) => {
        asked.push(request);
        return request.paths[0] === 'out/ok.txt';
      },
      questionHandler: (question: UserQuestion) => {
        questions.push(question);
        return ['blue', 'green'];
      },
    };

    // Turn 1: two reads in parallel, arguments of the wrong type (Anthropic sends objects), an unknown tool.
    const turn1 = assistant(['toolu_a', 'read_file', { filepath: 'a.txt' }], ['toolu_b', 'read_file', { filepath: 'b.txt' }], ['toolu_bad', 'read_file', ['a.txt']], ['toolu_unknown', 'delete_everything', {}]);
    await tools.handler.answerAnthropic(turn1, conversation, options);
    assert.equal(conversation.length, 3);
    assert.equal(conversation[1], turn1, 'the assistant turn is appended before its results');
    const blocks1 = resultBlocks(conversation[2]);
    assert.deepEqual(blocks1.map((b) => [b.type, b.tool_use_id, b.is_error]), [
      ['tool_result', 'toolu_a', undefined], ['tool_result', 'toolu_b', undefined], ['tool_result', 'toolu_bad', true], ['tool_result', 'toolu_unknown', true],
    ]);
    assert.deepEqual(blocks1[0]!.content, [{ type: 'text', text: 'alpha\n' }]);
    assert.deepEqual(blocks1[1]!.content, [{ type: 'text', text: 'beta\n' }]);
    assert.deepEqual(blocks1[2]!.content, [{ type: 'text', text: 'Error: Invalid arguments for read_file: arguments must be a JSON object; got array.' }]);
    assert.match((blocks1[3]!.content[0] as { text: string }).text, /^Error: Unknown tool "delete_everything"\./);

    // Turn 2: a write approved, a write denied, in order.
    const turn2 = assistant(['toolu_ok', 'write_file', { filepath: 'out/ok.txt', content: 'approved' }], ['toolu_no', 'write_file', { filepath: 'out/denied.txt', content: 'nope' }]);
    conversation.push(turn2);
    const results2 = await tools.handler.answerAnthropic(turn2, conversation, options);
    assert.equal(conversation.length, 5, 'a turn already appended is not appended twice');
    assert.deepEqual(resultBlocks(conversation[4]).map((b) => [b.tool_use_id, b.is_error, (b.content[0] as { text: string }).text.slice(0, 30)]), [
      ['toolu_ok', undefined, 'Wrote 8 bytes to out/ok.txt'], ['toolu_no', true, 'Error: Confirmation denied: th'],
    ]);
    assert.deepEqual(results2.map((r) => r.errorCode), [undefined, 'CONFIRMATION_DENIED']);
    assert.deepEqual(asked.map((a) => a.callId), ['toolu_ok', 'toolu_no']);
    assert.equal(fs.readFileSync(path.join(t.ws, 'out/ok.txt'), 'utf8'), 'approved');
    assert.equal(fs.existsSync(path.join(t.ws, 'out/denied.txt')), false);

    // Turn 3: ask_user (multi), answered by the handler, never run as a tool.
    const turn3 = assistant(['toolu_ask', 'ask_user', { question: 'Which colors?', choices: ['red', 'blue', 'green'], multi: true }]);
    await tools.handler.answerAnthropic(turn3, conversation, options);
    assert.deepEqual(conversation[6], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_ask', content: [{ type: 'text', text: 'blue\ngreen' }] }] });
    assert.deepEqual(questions, [{ callId: 'toolu_ask', question: 'Which colors?', choices: ['red', 'blue', 'green'], multi: true }]);

    // Final answer: no tool_use blocks, nothing appended after it.
    const final: AnthropicMessage = { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] };
    const none = await tools.handler.answerAnthropic(final, conversation, options);
    assert.deepEqual(none, []);
    assert.equal(conversation.at(-1), final);
  });

  it('a mode violation, ask_user without a handler, invalid ask_user arguments', async () => {
    const conversation: AnthropicMessage[] = [];
    const turn = assistant(['toolu_w', 'write_file', { filepath: 'x.txt', content: 'x' }], ['toolu_q', 'ask_user', { question: 'May I?' }]);
    await tools.handler.answerAnthropic(turn, conversation, { mode: 'explore', confirm: true });
    assert.deepEqual(resultBlocks(conversation[1]).map((b) => [b.tool_use_id, b.is_error, (b.content[0] as { text: string }).text]), [
      ['toolu_w', true, 'Error: write_file is not allowed in explore mode: this mode is read-only; use read-only tools.'],
      ['toolu_q', true, `Error: ${ASK_USER_UNAVAILABLE}`],
    ]);
    assert.equal(fs.existsSync(path.join(t.ws, 'x.txt')), false);

    const bad = assistant(['toolu_q2', 'ask_user', { question: 'Pick', multi: true }]);
    const [result] = await tools.handler.answerAnthropic(bad, conversation, { questionHandler: () => assert.fail('not asked with invalid arguments') });
    assert.equal(result!.errorCode, 'INVALID_ARGUMENTS');
    assert.match(result!.output, /multi is only meaningful with choices/);
  });

  it('images attached by a tool follow the text inside its tool_result', async () => {
    const conversation: AnthropicMessage[] = [];
    await tools.handler.answerAnthropic(assistant(['toolu_img', 'attach_images', { count: 2 }]), conversation);
    const [block] = resultBlocks(conversation[1]);
    assert.equal(block!.content.length, 3);
    assert.match((block!.content[0] as { text: string }).text, /^a caption\n\[image 1 of 2 attached/);
    for (const image of block!.content.slice(1)) {
      assert.equal(image.type, 'image');
      const { source } = image as { source: { type: string; media_type: string; data: string } };
      assert.deepEqual([source.type, source.media_type], ['base64', 'image/png']);
      assert.match(source.data, /^iVBORw0KGgo[A-Za-z0-9+/=]+$/);
    }
  });

  it('a call that leaves the workspace is answered PATH_TRAVERSAL; later calls of the turn are not run', async () => {
    const conversation: AnthropicMessage[] = [];
    const turn = assistant(
      ['toolu_esc', 'write_file', { filepath: '../outside/sentinel.txt', content: 'pwned' }],
      ['toolu_after', 'write_file', { filepath: 'after.txt', content: 'x' }],
    );
    const results = await tools.handler.answerAnthropic(turn, conversation, { confirm: true });
    assert.deepEqual(results.map((r) => [r.callId, r.errorCode]), [['toolu_esc', 'PATH_TRAVERSAL'], ['toolu_after', 'ABORTED']]);
    assert.deepEqual(resultBlocks(conversation[1]).map((b) => [b.tool_use_id, b.is_error]), [['toolu_esc', true], ['toolu_after', true]]);
    assert.equal(fs.readFileSync(t.sentinel, 'utf8'), 'SENTINEL CONTENT\n');
    assert.equal(fs.existsSync(path.join(t.ws, 'after.txt')), false);
  });
});
