/**
 * `toolgate/langchain` in a LangChain.js tool loop, offline: a scripted `BaseChatModel`
 * (LangChain's own fake chat models answer one fixed message, not a script of turns) plays the
 * model over two tool rounds; tools are invoked with the model's tool calls, as LangChain's
 * agents do, and answer with `ToolMessage`s. An allowed read, a call a policy hook denies, a
 * read outside the workspace, and a write that asks and is approved through the `confirm`
 * option (LangChain core has no approval step of its own).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ToolSystem, type ConfirmationRequest } from 'toolgate';
import { toLangChainTools } from 'toolgate/langchain';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

/** A chat model that answers each call with the next scripted message, and keeps what it was sent. */
class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  bound: string[] = [];
  private turn = 0;

  constructor(private readonly turns: AIMessage[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(tools: StructuredToolInterface[]): this {
    this.bound = tools.map((t) => t.name);
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const message = this.turns[this.turn++];
    if (message === undefined) throw new Error(`the script has no turn ${this.turn}`);
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }
}

describe('toolgate/langchain: a two-round tool loop with a scripted chat model', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'hello from the notes\n');
    system = new ToolSystem({
      workspace: tmp.ws, ported: false,
      executor: { policyHook: (c) => (c.arguments.filepath === 'secret.txt' ? 'secret.txt is off limits' : undefined), sweepLeftovers: false },
    });
    await system.start();
  });

  after(async () => {
    await system.close();
    tmp.cleanup();
  });

  it('allows, denies, answers an escape as a result, and runs an ask the confirm option approves', async () => {
    const asked: ConfirmationRequest[] = [];
    const tools = toLangChainTools(system, { only: ['read_file', 'write_file'], confirm: (request) => (asked.push(request), 'allow_once') });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '', tool_calls: [
          { id: 'c1', name: 'read_file', args: { filepath: 'notes.txt' }, type: 'tool_call' },
          { id: 'c2', name: 'write_file', args: { filepath: 'secret.txt', content: 'leak' }, type: 'tool_call' },
          { id: 'c3', name: 'read_file', args: { filepath: '../outside/sentinel.txt' }, type: 'tool_call' },
        ],
      }),
      new AIMessage({ content: '', tool_calls: [{ id: 'c4', name: 'write_file', args: { filepath: 'out.txt', content: 'written by the model' }, type: 'tool_call' }] }),
      new AIMessage('done'),
    ]);
    const bound = model.bindTools(tools);
    assert.deepEqual(model.bound, ['read_file', 'write_file']);

    const messages: BaseMessage[] = [new HumanMessage('Copy the notes.')];
    const answers = new Map<string, ToolMessage>();
    for (let round = 0; round < 5; round++) {
      const reply = await bound.invoke(messages);
      messages.push(reply);
      const calls = (reply as AIMessage).tool_calls ?? [];
      if (calls.length === 0) break;
      for (const call of calls) {
        const message = await byName.get(call.name)!.invoke(call);
        assert.ok(message instanceof ToolMessage, 'a tool call is answered with a ToolMessage');
        answers.set(call.id!, message);
        messages.push(message);
      }
    }
    assert.equal(model.seen.length, 3, 'two tool rounds, then the answer');
    assert.equal((messages.at(-1) as AIMessage).content, 'done');

    for (const [id, message] of answers) assert.equal(message.tool_call_id, id);
    assert.match(String(answers.get('c1')!.content), /hello from the notes/);
    assert.equal(answers.get('c1')!.status, 'success');
    assert.equal(answers.get('c2')!.status, 'error');
    assert.match(String(answers.get('c2')!.content), /^Error: .*secret\.txt is off limits/);
    assert.equal(answers.get('c3')!.status, 'error');
    assert.match(String(answers.get('c3')!.content), /^Error: refused: .*outside/i);
    assert.equal((answers.get('c3')!.artifact as { errorCode?: string }).errorCode, 'PATH_TRAVERSAL');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'secret.txt')), false);

    assert.deepEqual(asked.map((r) => [r.callId, r.tool]), [['c4', 'write_file']], 'only the write asks');
    assert.equal(answers.get('c4')!.status, 'success');
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'out.txt'), 'utf8'), 'written by the model');
  });

  it('refuses an ask nobody can answer, with a readable result', async () => {
    const [write] = toLangChainTools(system, { only: ['write_file'] });
    const message = await write!.invoke({ id: 'c5', name: 'write_file', args: { filepath: 'unasked.txt', content: 'x' }, type: 'tool_call' });
    assert.equal(message.status, 'error');
    assert.match(String(message.content), /Confirmation required/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'unasked.txt')), false);
  });

  it('answers arguments that do not match the schema with a readable result, not a throw', async () => {
    const [read] = toLangChainTools(system, { only: ['read_file'] });
    const message = await read!.invoke({ id: 'c6', name: 'read_file', args: { max_lines: 'lots' }, type: 'tool_call' });
    assert.ok(message instanceof ToolMessage);
    assert.equal(message.tool_call_id, 'c6');
    assert.equal(message.status, 'error');
    assert.match(String(message.content), /^Error: Invalid arguments for read_file/);
  });

  it('answers plain arguments with the text, and passes the abort signal through', async () => {
    const [read] = toLangChainTools(system, { only: ['read_file'] });
    assert.match(String(await read!.invoke({ filepath: 'notes.txt' })), /hello from the notes/);
    const controller = new AbortController();
    controller.abort();
    // The call is not run: LangChain hands the aborted signal on, and the answer says so.
    const answer = await read!.invoke({ filepath: 'notes.txt' }, { signal: controller.signal });
    assert.match(String(answer), /^Error: .*abort/i);
  });
});
