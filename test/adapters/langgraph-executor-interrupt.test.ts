/**
 * LangGraph's `interrupt()` inside the executor's own confirmation handler (issue 34, item 2):
 * a graph whose node calls toolgate pauses (the interrupt is not swallowed as a refusal), the
 * ledger keeps the call `pending` with its one open question, and when the graph resumes with
 * `Command({ resume })` the same call id is answered once: approved, it runs once; denied, it
 * is refused without running. Without a ledger the interrupt propagates the same way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Annotation, Command, END, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { isSuspension, ToolSystem, type ApprovalAnswer, type ConfirmationRequest, type ToolExecutionResult } from 'toolgate';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

const State = Annotation.Root({
  callId: Annotation<string>,
  file: Annotation<string>,
  result: Annotation<ToolExecutionResult | undefined>,
});

/** A one-node graph: the node writes `file` through toolgate with the call id of the state. */
function graphOf(system: ToolSystem) {
  return new StateGraph(State)
    .addNode('tool', async (state) => ({
      result: await system.execute({ name: 'write_file', arguments: { filepath: state.file, content: 'written once' }, callId: state.callId }),
    }))
    .addEdge(START, 'tool')
    .addEdge('tool', END)
    .compile({ checkpointer: new MemorySaver() });
}

/** The handler under test: LangGraph's own approval step, asked from inside the executor. */
let asked = 0;
const interruptingHandler = (request: ConfirmationRequest): ApprovalAnswer => {
  asked++;
  return interrupt({ tool: request.tool, arguments: request.arguments }) as ApprovalAnswer;
};

describe('a LangGraph interrupt() in the executor confirmation handler suspends the call', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;

  before(async () => {
    tmp = tempWorkspace();
    system = new ToolSystem({
      workspace: tmp.ws, ported: false,
      executor: { sweepLeftovers: false, confirmationHandler: interruptingHandler, ledger: { dir: path.join(tmp.root, 'state') } },
    });
    await system.start();
  });

  after(async () => {
    await system.close();
    tmp.cleanup();
  });

  for (const [answer, runs] of [['allow_once', true], ['deny', false]] as const) {
    it(`resumed with ${answer}: one question, one answer, the call ${runs ? 'run once' : 'denied'}`, async () => {
      const graph = graphOf(system);
      const callId = `lg_${answer}`;
      const file = `${answer}.txt`;
      const config = { configurable: { thread_id: callId } };
      asked = 0;
      const paused = await graph.invoke({ callId, file }, config) as typeof State.State & { __interrupt__?: Array<{ value: unknown }> };
      assert.equal(paused.__interrupt__?.length, 1, 'the graph paused on the interrupt');
      assert.deepEqual(paused.__interrupt__![0]!.value, { tool: 'write_file', arguments: { filepath: file, content: 'written once' } });
      assert.equal(paused.result, undefined);
      const ledger = system.executor.ledger!;
      const waiting = await ledger.get(callId, system.executor.session);
      assert.equal(waiting?.state, 'pending', 'suspended, not refused');
      const open = (await ledger.pendingApprovals()).filter((q) => q.callId === callId);
      assert.equal(open.length, 1, 'its question is open');
      assert.equal(fs.existsSync(path.join(tmp.ws, file)), false);

      const done = await graph.invoke(new Command({ resume: answer }), config);
      const result = done.result!;
      assert.equal(result.callId, callId);
      assert.equal(result.success, runs, result.output);
      if (!runs) assert.equal(result.errorCode, 'CONFIRMATION_DENIED');
      assert.equal(fs.existsSync(path.join(tmp.ws, file)), runs);
      assert.equal(asked, 2, 'the handler ran again on resume, and interrupt() returned the answer');

      const record = await ledger.get(callId, system.executor.session);
      assert.equal(record?.state, runs ? 'done' : 'denied');
      const events = (await ledger.events(callId, system.executor.session)).map((e) => e.kind);
      assert.equal(events.filter((k) => k === 'asked').length, 1, `one question: ${events.join(' ')}`);
      assert.equal(events.filter((k) => k === 'answered').length, 1, `one answer: ${events.join(' ')}`);
      assert.equal(events.filter((k) => k === 'suspended').length, 1, `suspended once: ${events.join(' ')}`);
      assert.equal(events.filter((k) => k === 'running').length, runs ? 1 : 0, `run ${runs ? 'once' : 'never'}: ${events.join(' ')}`);
      const question = await ledger.approval(open[0]!.id);
      assert.equal(question?.answer, answer);
      assert.equal(question?.answeredBy, 'handler');

      // A retry of the same call id afterwards is the stored result, not a second run or question.
      const again = await system.execute({ name: 'write_file', arguments: { filepath: file, content: 'written once' }, callId });
      assert.equal(again.success, runs);
      assert.equal(asked, 2);
    });
  }

  it('without a ledger the interrupt propagates too, and the resumed answer decides', async () => {
    const bare = new ToolSystem({ workspace: tmp.ws, ported: false, executor: { sweepLeftovers: false, confirmationHandler: interruptingHandler, ledger: false } });
    await bare.start();
    try {
      const graph = graphOf(bare);
      const config = { configurable: { thread_id: 'bare' } };
      const paused = await graph.invoke({ callId: 'bare_1', file: 'bare.txt' }, config) as { __interrupt__?: unknown[] };
      assert.equal(paused.__interrupt__?.length, 1);
      const done = await graph.invoke(new Command({ resume: true }), config);
      assert.equal(done.result?.success, true, done.result?.output);
      assert.equal(fs.readFileSync(path.join(tmp.ws, 'bare.txt'), 'utf8'), 'written once');
    } finally {
      await bare.close();
    }
  });

  it('isSuspension: the duck-typed marker, not any error', () => {
    assert.equal(isSuspension(Object.assign(new Error('x'), { is_bubble_up: true })), true);
    assert.equal(isSuspension(Object.assign(new Error('x'), { [Symbol.for('toolgate.suspends')]: true })), true);
    assert.equal(isSuspension(new Error('no')), false);
    assert.equal(isSuspension(undefined), false);
  });
});
