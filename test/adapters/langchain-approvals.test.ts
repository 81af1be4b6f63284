/**
 * `toolgate/langchain` with LangChain's and LangGraph's own approval steps, offline: a
 * scripted chat model drives `createAgent` (package `langchain` v1) with a `MemorySaver`
 * checkpointer. Through `humanInTheLoopMiddleware` with `toLangChainInterruptOn`, a person
 * approves one write (toolgate runs it: the approval reaches it as the person's answer) and
 * rejects another; a read toolgate allows does not interrupt. Through the `confirm` option, a
 * LangGraph `interrupt()` pauses the graph (it is not swallowed as a refusal) and the resumed
 * answer decides, with a ledger that must not replay the paused attempt.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { ToolSystem, type ApprovalAnswer, type ConfirmationRequest } from 'toolgate';
import { toLangChainInterruptOn, toLangChainTools } from 'toolgate/langchain';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

/** A chat model that answers each call with the next scripted message. */
class ScriptedChatModel extends BaseChatModel {
  private turn = 0;

  constructor(private readonly turns: AIMessage[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(_tools: StructuredToolInterface[]): this {
    return this;
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.turns[this.turn++];
    if (message === undefined) throw new Error(`the script has no turn ${this.turn}`);
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }
}

function callTurn(id: string, name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] });
}

interface AgentState {
  messages: BaseMessage[];
  __interrupt__?: Array<{ value: unknown }>;
}

function toolMessage(state: AgentState, id: string): ToolMessage | undefined {
  return state.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id);
}

describe('toolgate/langchain: createAgent with LangChain and LangGraph approval steps', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;

  before(async () => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'hello from the notes\n');
    system = new ToolSystem({ workspace: tmp.ws, ported: false, executor: { sweepLeftovers: false, ledger: { dir: path.join(tmp.root, 'state') } } });
    await system.start();
  });

  after(async () => {
    await system.close();
    tmp.cleanup();
  });

  it('humanInTheLoopMiddleware: an approved write runs, a rejected one does not, an allowed read never interrupts', async () => {
    const options = { only: ['read_file', 'write_file'] };
    const model = new ScriptedChatModel([
      callTurn('h1', 'read_file', { filepath: 'notes.txt' }),
      callTurn('h2', 'write_file', { filepath: 'approved.txt', content: 'approved by a person' }),
      callTurn('h3', 'write_file', { filepath: 'rejected.txt', content: 'never' }),
      new AIMessage('done'),
    ]);
    const agent = createAgent({
      model, tools: toLangChainTools(system, options), checkpointer: new MemorySaver(),
      middleware: [humanInTheLoopMiddleware({ interruptOn: toLangChainInterruptOn(system, options) })],
    });
    const config = { configurable: { thread_id: 'hitl' } };

    // The read runs without a question; the write interrupts.
    let state = await agent.invoke({ messages: [new HumanMessage('Copy the notes.')] }, config) as AgentState;
    assert.match(String(toolMessage(state, 'h1')?.content), /hello from the notes/);
    assert.equal(state.__interrupt__?.length, 1, 'the write asks');
    const request = state.__interrupt__![0]!.value as { actionRequests: Array<{ name: string; args: unknown; description: string }> };
    assert.deepEqual(request.actionRequests.map((a) => a.name), ['write_file']);
    assert.match(request.actionRequests[0]!.description, /write_file needs your approval/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'approved.txt')), false, 'nothing written before the answer');

    // Approved: toolgate runs it (before the fix: CONFIRMATION_REQUIRED).
    state = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config) as AgentState;
    const approved = toolMessage(state, 'h2');
    assert.equal(approved?.status, 'success', String(approved?.content));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'approved.txt'), 'utf8'), 'approved by a person');
    assert.equal((approved!.artifact as { decisions?: Array<{ decider: string; reason: string }> }).decisions?.some((d) => /approved by the confirmation handler/.test(d.reason)), true);

    // The next write asks too, and is rejected: not run, the model reads the rejection.
    assert.equal(state.__interrupt__?.length, 1);
    state = await agent.invoke(new Command({ resume: { decisions: [{ type: 'reject', message: 'not this one' }] } }), config) as AgentState;
    assert.equal(fs.existsSync(path.join(tmp.ws, 'rejected.txt')), false);
    assert.equal(toolMessage(state, 'h3')?.content, 'not this one');
    assert.equal((state.messages.at(-1) as AIMessage).content, 'done');
  });

  it('a call edited in humanInTheLoopMiddleware is not approved by it: toolgate still asks', async () => {
    const options = { only: ['write_file'] };
    const model = new ScriptedChatModel([callTurn('e1', 'write_file', { filepath: 'asked.txt', content: 'asked' }), new AIMessage('done')]);
    const agent = createAgent({
      model, tools: toLangChainTools(system, options), checkpointer: new MemorySaver(),
      middleware: [humanInTheLoopMiddleware({ interruptOn: { write_file: { ...toLangChainInterruptOn(system, options).write_file!, allowedDecisions: ['approve', 'edit', 'reject'] } } })],
    });
    const config = { configurable: { thread_id: 'edit' } };
    await agent.invoke({ messages: [new HumanMessage('Write.')] }, config);
    const state = await agent.invoke(new Command({ resume: { decisions: [{ type: 'edit', editedAction: { name: 'write_file', args: { filepath: 'other.txt', content: 'other' } } }] } }), config) as AgentState;
    const answer = toolMessage(state, 'e1');
    assert.equal(answer?.status, 'error');
    assert.match(String(answer?.content), /Confirmation required/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'other.txt')), false);
  });

  it('the confirm option: interrupt() pauses the graph, and the resumed answer approves one write and denies another', async () => {
    const asked: ConfirmationRequest[] = [];
    const confirm = (question: ConfirmationRequest): ApprovalAnswer => {
      asked.push(question);
      return interrupt({ tool: question.tool, paths: question.paths }) as ApprovalAnswer;
    };
    const model = new ScriptedChatModel([
      callTurn('i1', 'write_file', { filepath: 'yes.txt', content: 'approved in the graph' }),
      callTurn('i2', 'write_file', { filepath: 'no.txt', content: 'never' }),
      new AIMessage('done'),
    ]);
    const agent = createAgent({ model, tools: toLangChainTools(system, { only: ['write_file'], confirm }), checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 'interrupt' } };

    let state = await agent.invoke({ messages: [new HumanMessage('Write twice.')] }, config) as AgentState;
    assert.equal(state.__interrupt__?.length, 1, 'the interrupt reached the graph (before the fix: swallowed, a refusal)');
    assert.deepEqual(state.__interrupt__![0]!.value, { tool: 'write_file', paths: ['yes.txt'] });
    assert.equal(toolMessage(state, 'i1'), undefined, 'no answer recorded for the paused call');

    state = await agent.invoke(new Command({ resume: 'allow_once' }), config) as AgentState;
    assert.equal(toolMessage(state, 'i1')?.status, 'success', String(toolMessage(state, 'i1')?.content));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'yes.txt'), 'utf8'), 'approved in the graph');

    assert.equal(state.__interrupt__?.length, 1, 'the second write asks');
    state = await agent.invoke(new Command({ resume: 'deny' }), config) as AgentState;
    const denied = toolMessage(state, 'i2');
    assert.equal(denied?.status, 'error');
    assert.match(String(denied?.content), /Confirmation denied/);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'no.txt')), false);
    assert.equal((state.messages.at(-1) as AIMessage).content, 'done');
    assert.deepEqual(asked.map((q) => q.callId), ['i1', 'i1', 'i2', 'i2'], 'asked when paused, and again on resume');
  });
});
