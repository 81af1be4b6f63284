/**
 * Subagents (issue 19 item 3, seed 000_ba529e068cefa394.txt): `run_subagent` / `input_subagent`
 * on a GeneralAgent with scripted models. A child doing two tool calls, backgrounding past its
 * window, polled, its approval put to the parent's confirmation handler and its calls stored in
 * the ledger under a turn naming the parent call; follow-up prompts; depth 1; the cap of 8
 * sessions; the parent's abort reaching a background child; unknown ids; a read-only parent's
 * child kept read-only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExploreAgent, GeneralAgent, Ledger, ToolSystem, setSessionApprovalMode, supervisedSession, type AgentEvent, type ChatModel, type ChatRequest, type ConfirmationRequest, type OpenAIAssistantMessage, type ToolExecutionResult } from 'toolgate';
import { INPUT_SUBAGENT, RUN_SUBAGENT, parseSubagentTurnId } from '../../src/builtin/subagent.js';
import { SUBAGENT_DEPTH_MESSAGE } from '../../src/agents/subagents.js';
import { tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

type Step = (request: ChatRequest) => OpenAIAssistantMessage | Promise<OpenAIAssistantMessage>;

/** A chat model that answers each request with the next step of its script, and keeps the requests. */
class ScriptedModel implements ChatModel {
  readonly requests: ChatRequest[] = [];
  constructor(private readonly steps: Step[]) {}
  async complete(request: ChatRequest): Promise<OpenAIAssistantMessage> {
    this.requests.push({ ...request, messages: [...request.messages] });
    const step = this.steps.shift();
    if (step === undefined) throw new Error('the script has no more steps');
    return step(request);
  }
}

/** A step answering `content` with tool calls `[id, name, args]`. */
function say(content: string | null, calls: Array<[string, string, Record<string, unknown>]> = []): Step {
  return () => {
    const message: OpenAIAssistantMessage = { role: 'assistant', content };
    if (calls.length) message.tool_calls = calls.map(([id, name, args]) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }));
    return message;
  };
}

/** A promise with its resolve, to hold a scripted model until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The tool message answering `callId` in a request's conversation. */
function toolMessage(request: ChatRequest | undefined, callId: string): string {
  const message = request?.messages.find((m) => m.role === 'tool' && (m as { tool_call_id?: string }).tool_call_id === callId);
  assert.ok(message, `no tool message for ${callId}`);
  return String((message as { content: unknown }).content);
}

function toolNames(request: ChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((t) => t.function.name);
}

function byCall(results: readonly ToolExecutionResult[], callId: string): ToolExecutionResult {
  const result = results.find((r) => r.callId === callId);
  assert.ok(result, `no result for ${callId}`);
  return result;
}

describe('run_subagent / input_subagent on a GeneralAgent', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  let ledger: Ledger;
  before(async () => {
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    ledger = Ledger.open({ dir: path.join(t.root, 'state'), workspace: t.ws });
    tools = new ToolSystem({ workspace: t.ws, ported: false, executor: { ledger } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    await ledger.close();
    t.cleanup();
  });

  it('a child does two tool calls, backgrounds past its window, is polled, and its approval goes to the parent\'s handler; its calls are traced under the parent call', async () => {
    const release = gate();
    const child = new ScriptedModel([
      say('Reading and writing.', [
        ['c_read', 'read_file', { filepath: 'a.txt' }],
        ['c_write', 'write_file', { filepath: 'out/b.txt', content: 'copied' }],
      ]),
      async () => {
        await release.promise;
        return say('Child done: a.txt says alpha; wrote out/b.txt.')({} as ChatRequest);
      },
    ]);
    const parent = new ScriptedModel([
      say(null, [['p_run', RUN_SUBAGENT, { prompt: 'Read a.txt and copy it to out/b.txt.', model_id: 'worker' }]]),
      () => {
        release.open();
        return say(null, [['p_poll', INPUT_SUBAGENT, { subagent_id: 'sa-1', yield_time_ms: 600000 }]])({} as ChatRequest);
      },
      say('The subagent copied the file.'),
    ]);
    const asked: ConfirmationRequest[] = [];
    const events: AgentEvent[] = [];
    const agent = new GeneralAgent({
      tools, model: parent,
      confirmationHandler: (request) => {
        asked.push(request);
        return 'allow_once';
      },
      onEvent: (event) => events.push(event),
      subagents: { agents: { general: GeneralAgent }, models: { worker: child }, windowMs: 100 },
    });

    const run = await agent.run('Copy a.txt to out/b.txt with a subagent.');
    assert.equal(run.stopReason, 'final');
    assert.equal(run.text, 'The subagent copied the file.');
    assert.ok(toolNames(parent.requests[0]).includes(RUN_SUBAGENT) && toolNames(parent.requests[0]).includes(INPUT_SUBAGENT));

    // The first call came back past the 100 ms window (the child waits for the gate), with the id.
    const started = byCall(run.results, 'p_run');
    assert.equal(started.success, true);
    assert.match(started.output, /Subagent sa-1 \(general\) is still running in the background after 100 ms/);
    assert.equal((started.structured as { status: string }).status, 'running');
    assert.match(toolMessage(parent.requests[1], 'p_run'), /input_subagent \{"subagent_id":"sa-1"\}/);

    // The poll waited for the child and answers with its final text and its two calls.
    const polled = byCall(run.results, 'p_poll');
    assert.equal(polled.success, true, polled.output);
    assert.match(polled.output, /Subagent sa-1 \(general\) finished \(2 tool calls in 1 rounds\)/);
    assert.match(polled.output, /Child done: a\.txt says alpha; wrote out\/b\.txt\./);
    assert.deepEqual((polled.structured as { status: string; tool_calls: number }).status, 'idle');
    assert.equal((polled.structured as { tool_calls: number }).tool_calls, 2);

    // The child's write asked the parent's confirmation handler, and ran on its yes.
    assert.deepEqual(asked.map((r) => [r.tool, r.callId]), [['write_file', 'c_write']]);
    assert.equal(fs.readFileSync(path.join(t.ws, 'out/b.txt'), 'utf8'), 'copied');
    const childResults = child.requests[1]!.messages.filter((m) => m.role === 'tool');
    assert.equal(childResults.length, 2);
    assert.match(toolMessage(child.requests[1], 'c_read'), /alpha/);

    // The child's events reach the parent's onEvent tagged with its id.
    const childEvents = events.filter((e): e is Extract<AgentEvent, { type: 'subagent' }> => e.type === 'subagent');
    assert.ok(childEvents.every((e) => e.subagentId === 'sa-1'));
    assert.deepEqual(childEvents.filter((e) => e.event.type === 'tool_result').map((e) => (e.event as { call: { id: string } }).call.id).sort(), ['c_read', 'c_write']);

    // The ledger has the child's two calls under their own ids, in a turn naming the parent call.
    const turn = (polled.structured as { turn: string }).turn;
    assert.match(turn, /^general:[0-9a-f-]+:1\/p_run\/subagent:sa-1$/);
    assert.deepEqual(parseSubagentTurnId(turn), { parentSession: turn.replace(/\/p_run\/subagent:sa-1$/, ''), parentTurnId: turn.replace(/:1\/p_run\/subagent:sa-1$/, ''), parentCallId: 'p_run', subagentId: 'sa-1' });
    // Supervised (cockpit, session approval modes) as part of the parent's run.
    assert.equal(supervisedSession(`${turn}:1`, turn), parseSubagentTurnId(turn)!.parentTurnId);
    const traced = await ledger.list({ turn });
    assert.deepEqual(traced.map((c) => [c.callId, c.tool, c.state]).sort(), [['c_read', 'read_file', 'done'], ['c_write', 'write_file', 'done']]);
    assert.ok(traced.every((c) => c.session === `${turn}:1`));
    assert.deepEqual(agent.subagents?.list().map((s) => [s.id, s.status, s.toolCalls, s.modelId]), [['sa-1', 'idle', 2, 'worker']]);
  });

  it('takes a follow-up prompt once the child is idle (its conversation goes on), refuses one while it runs', async () => {
    const hold = gate();
    const child = new ScriptedModel([
      say('First answer.'),
      async () => {
        await hold.promise;
        return say('Second answer.')({} as ChatRequest);
      },
    ]);
    const parent = new ScriptedModel([
      say(null, [['r1', RUN_SUBAGENT, { prompt: 'First task.', model_id: 'm' }]]),
      say(null, [['f1', INPUT_SUBAGENT, { subagent_id: 'sa-1', prompt: 'Second task.', yield_time_ms: 0 }]]),
      // The child waits for the gate: it is running for sure.
      say(null, [['f2', INPUT_SUBAGENT, { subagent_id: 'sa-1', prompt: 'Third task.' }]]),
      () => {
        hold.open();
        return say(null, [['p2', INPUT_SUBAGENT, { subagent_id: 'sa-1', yield_time_ms: 600000 }]])({} as ChatRequest);
      },
      say('ok'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { m: child }, windowMs: 600000 } });
    // Default agents: the parent's own class under its name.
    assert.deepEqual((agent.toolSpecs().find((s) => s.function.name === RUN_SUBAGENT)?.function.parameters as { properties: { agent_id: { enum: string[] } } }).properties.agent_id.enum, ['general']);
    const run = await agent.run('Go.', {});
    assert.equal(run.stopReason, 'final');
    assert.match(byCall(run.results, 'r1').output, /finished[^]*First answer\./);
    assert.match(byCall(run.results, 'f1').output, /still running in the background after 0 ms/);
    const refused = byCall(run.results, 'f2');
    assert.equal(refused.errorCode, 'INVALID_ARGUMENTS');
    assert.match(refused.output, /sa-1 is still running; it takes a follow-up prompt only once it is idle/);
    assert.match(byCall(run.results, 'p2').output, /Second answer\./);
    // The second task saw the first one's conversation, then the follow-up.
    const second = child.requests[1]!.messages;
    assert.deepEqual(second.filter((m) => m.role === 'user').map((m) => m.content), ['First task.', 'Second task.']);
    assert.ok(second.some((m) => m.role === 'assistant' && m.content === 'First answer.'));
    assert.equal(agent.subagents?.list()[0]?.turns.length, 2);
  });

  it('caps depth at 1: a child is not offered the tools, and a call to them says so', async () => {
    const child = new ScriptedModel([
      say(null, [['deep', RUN_SUBAGENT, { prompt: 'Go deeper.' }], ['deep_poll', INPUT_SUBAGENT, { subagent_id: 'sa-1' }]]),
      say('I could not delegate.'),
    ]);
    const script = new ScriptedModel([say(null, [['r', RUN_SUBAGENT, { prompt: 'Delegate further.', model_id: 'm' }]]), say('done')]);
    const agent = new GeneralAgent({ tools, model: script, subagents: { models: { m: child } } });
    const run = await agent.run('Go.');
    assert.equal(run.stopReason, 'final');
    assert.ok(toolNames(script.requests[0]).includes(RUN_SUBAGENT));
    assert.deepEqual(toolNames(child.requests[0]).filter((n) => n.endsWith('_subagent')), []);
    for (const id of ['deep', 'deep_poll']) {
      const message = toolMessage(child.requests[1], id);
      assert.match(message, /not available to a subagent: subagents cannot start or drive subagents \(depth is capped at 1\)/);
    }
    assert.ok(toolMessage(child.requests[1], 'deep').endsWith(SUBAGENT_DEPTH_MESSAGE));
    assert.match(byCall(run.results, 'r').output, /I could not delegate\./);
    assert.equal(agent.subagents?.depth, 0);
  });

  it('keeps at most 8 sessions: a 9th run_subagent while 8 run gets a clear error; a finished one is evicted for a new one', async () => {
    const hold = gate();
    const slow: ChatModel = {
      async complete() {
        await hold.promise;
        return { role: 'assistant', content: 'slow done' };
      },
    };
    const nine = Array.from({ length: 9 }, (_, i): [string, string, Record<string, unknown>] => [`s${i + 1}`, RUN_SUBAGENT, { prompt: `task ${i + 1}`, model_id: 'slow', yield_time_ms: 0 }]);
    const parent = new ScriptedModel([
      say(null, nine),
      () => {
        hold.open();
        return say(null, [['wait1', INPUT_SUBAGENT, { subagent_id: 'sa-1', yield_time_ms: 600000 }]])({} as ChatRequest);
      },
      say(null, [['tenth', RUN_SUBAGENT, { prompt: 'task 10', model_id: 'slow', yield_time_ms: 600000 }]]),
      say(null, [['gone', INPUT_SUBAGENT, { subagent_id: 'sa-1' }]]),
      say('done'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { slow } } });
    const run = await agent.run('Start nine.');
    assert.equal(run.stopReason, 'final');
    for (let i = 1; i <= 8; i++) assert.match(byCall(run.results, `s${i}`).output, new RegExp(`Subagent sa-${i} .*still running`));
    const ninth = byCall(run.results, 's9');
    assert.equal(ninth.success, false);
    assert.equal(ninth.errorCode, 'OVERLOADED');
    assert.match(ninth.output, /run_subagent refused: 8 subagents are running, the most this agent keeps \(running subagents are never evicted\)/);
    assert.match(byCall(run.results, 'wait1').output, /sa-1 .*finished/);
    // sa-1 had finished: it made room for the tenth (sa-9: the refused call took no id).
    assert.match(byCall(run.results, 'tenth').output, /Subagent sa-9 .*finished[^]*slow done/);
    const gone = byCall(run.results, 'gone');
    assert.equal(gone.errorCode, 'INVALID_ARGUMENTS');
    assert.match(gone.output, /No subagent "sa-1": the subagents are sa-2 \(/);
    assert.match(gone.output, /finished subagents are evicted once 8 are kept/);
    await agent.subagents!.abortAll();
    assert.equal(agent.subagents!.list().length, 8);
  });

  it('aborting the parent run aborts a background child', async () => {
    const childEntered = gate();
    let childSignal: AbortSignal | undefined;
    const child: ChatModel = {
      complete(request) {
        childSignal = request.signal;
        childEntered.open();
        return new Promise((_, reject) => request.signal!.addEventListener('abort', () => reject(new Error('child request aborted')), { once: true }));
      },
    };
    const controller = new AbortController();
    const parent = new ScriptedModel([
      say(null, [['bg', RUN_SUBAGENT, { prompt: 'Work long.', model_id: 'c', yield_time_ms: 0 }]]),
      (request) => new Promise((_, reject) => request.signal!.addEventListener('abort', () => reject(new Error('parent request aborted')), { once: true })),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { c: child } } });
    const running = agent.run('Start and wait.', { signal: controller.signal });
    await childEntered.promise;
    assert.equal(agent.subagents!.list()[0]!.status, 'running');
    controller.abort();
    const run = await running;
    assert.equal(run.stopReason, 'aborted');
    assert.equal(childSignal?.aborted, true);
    await waitFor(() => agent.subagents!.list()[0]!.status !== 'running', { what: 'the aborted subagent to stop running', intervalMs: 10 });
    assert.equal(agent.subagents!.list()[0]!.status, 'aborted');
  });

  it('aborting a later run aborts a background child an earlier run started', async () => {
    const childEntered = gate();
    let childSignal: AbortSignal | undefined;
    const child: ChatModel = {
      complete(request) {
        childSignal = request.signal;
        childEntered.open();
        return new Promise((_, reject) => request.signal!.addEventListener('abort', () => reject(new Error('child request aborted')), { once: true }));
      },
    };
    const parent = new ScriptedModel([
      say(null, [['bg1', RUN_SUBAGENT, { prompt: 'Work long.', model_id: 'c', yield_time_ms: 0 }]]),
      say('Started it.'),
      // The second run calls no subagent tool: its model waits until the run is aborted.
      (request) => new Promise((_, reject) => request.signal!.addEventListener('abort', () => reject(new Error('parent request aborted')), { once: true })),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { c: child } } });
    const first = await agent.run('Start a child.');
    assert.equal(first.stopReason, 'final');
    await childEntered.promise;
    assert.equal(agent.subagents!.list()[0]!.status, 'running');
    const controller = new AbortController();
    const running = agent.run('Wait.', { signal: controller.signal });
    while (parent.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    assert.equal((await running).stopReason, 'aborted');
    assert.equal(childSignal?.aborted, true, 'the child of the first run was aborted');
    await waitFor(() => agent.subagents!.list()[0]!.status !== 'running', { what: 'the aborted subagent to stop running', intervalMs: 10 });
    assert.equal(agent.subagents!.list()[0]!.status, 'aborted');
  });

  it('answers input_subagent for an unknown id with a clear result, and checks arguments', async () => {
    const parent = new ScriptedModel([
      say(null, [
        ['unknown', INPUT_SUBAGENT, { subagent_id: 'sa-42' }],
        ['bad_agent', RUN_SUBAGENT, { prompt: 'x', agent_id: 'wizard' }],
        ['no_prompt', RUN_SUBAGENT, {}],
      ]),
      say('done'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: {} });
    const run = await agent.run('Poll something.');
    const unknown = byCall(run.results, 'unknown');
    assert.equal(unknown.success, false);
    assert.equal(unknown.errorCode, 'INVALID_ARGUMENTS');
    assert.equal(unknown.output, 'Error: input_subagent failed: No subagent "sa-42": no subagent was started. Use an id that run_subagent returned.');
    assert.equal(byCall(run.results, 'bad_agent').errorCode, 'INVALID_ARGUMENTS');
    assert.match(byCall(run.results, 'bad_agent').output, /agent_id/);
    assert.match(byCall(run.results, 'no_prompt').output, /prompt/);
    assert.deepEqual(agent.subagents!.list(), []);
  });

  it('keeps a read-only parent\'s child read-only, whatever kind it asks for', async () => {
    const child = new ScriptedModel([say(null, [['w', 'write_file', { filepath: 'x.txt', content: 'no' }]]), say('could not write')]);
    const parent = new ScriptedModel([say(null, [['r', RUN_SUBAGENT, { prompt: 'Write x.txt.', agent_id: 'general', model_id: 'c' }]]), say('done')]);
    const asked: ConfirmationRequest[] = [];
    const agent = new ExploreAgent({
      tools, model: parent,
      confirmationHandler: (request) => {
        asked.push(request);
        return true;
      },
      subagents: { agents: { general: GeneralAgent }, models: { c: child } },
    });
    const run = await agent.run('Delegate a write.');
    assert.equal(run.stopReason, 'final');
    assert.match(String(child.requests[0]!.messages[0]!.content), /explore mode/);
    assert.equal(toolMessage(child.requests[1], 'w'), 'Error: write_file is not allowed in explore mode: this mode is read-only; use read-only tools.');
    assert.equal(fs.existsSync(path.join(t.ws, 'x.txt')), false);
    assert.deepEqual(asked, []);
  });

  it('applies the approval mode a person set for the parent\'s run (ledger session mode) to the child\'s calls', async () => {
    // The person switches the parent's run to deny-all while the child runs (set before,
    // it would deny the parent's run_subagent call itself: see the next test).
    const child = new ScriptedModel([async (request) => {
      await setSessionApprovalMode(ledger, 'supervised-parent-turn', 'deny-all', 'test');
      return say(null, [['cw', 'write_file', { filepath: 'denied.txt', content: 'no' }]])(request);
    }, say('the write was denied')]);
    const parent = new ScriptedModel([say(null, [['pr', RUN_SUBAGENT, { prompt: 'Write denied.txt.', model_id: 'c' }]]), say('done')]);
    const asked: ConfirmationRequest[] = [];
    const agent = new GeneralAgent({
      tools, model: parent,
      confirmationHandler: (request) => {
        asked.push(request);
        return true;
      },
      subagents: { models: { c: child } },
    });
    try {
      const run = await agent.run('Delegate a write.', { turnId: 'supervised-parent-turn' });
      assert.equal(run.stopReason, 'final');
      assert.match(toolMessage(child.requests[1], 'cw'), /the approval mode is deny-all/);
      assert.equal(fs.existsSync(path.join(t.ws, 'denied.txt')), false);
      assert.deepEqual(asked, []);
      const [call] = await ledger.list({ turn: 'supervised-parent-turn:1/pr/subagent:sa-1' });
      assert.deepEqual([call?.callId, call?.state], ['cw', 'denied']);
    } finally {
      await setSessionApprovalMode(ledger, 'supervised-parent-turn', undefined, 'test');
    }
  });

  it('denies the parent\'s run_subagent call itself when the run is set to deny-all before it: decided and recorded like every call, no child starts', async () => {
    const child = new ScriptedModel([]);
    const parent = new ScriptedModel([say(null, [['stopped', RUN_SUBAGENT, { prompt: 'Write anything.', model_id: 'c' }]]), say('I was stopped')]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { c: child } } });
    await setSessionApprovalMode(ledger, 'stopped-parent-turn', 'deny-all', 'test');
    try {
      const run = await agent.run('Delegate.', { turnId: 'stopped-parent-turn' });
      assert.equal(run.stopReason, 'final');
      const denied = byCall(run.results, 'stopped');
      assert.deepEqual([denied.success, denied.errorCode], [false, 'CONFIRMATION_DENIED'], denied.output);
      assert.match(denied.output, /deny-all/);
      assert.equal(child.requests.length, 0, 'no child ran');
      assert.deepEqual(agent.subagents!.list(), []);
      const [call] = await ledger.list({ turn: 'stopped-parent-turn' });
      assert.deepEqual([call?.callId, call?.tool, call?.state], ['stopped', RUN_SUBAGENT, 'denied']);
    } finally {
      await setSessionApprovalMode(ledger, 'stopped-parent-turn', undefined, 'test');
    }
  });

  it('applies the parent\'s session approval mode to the child when the parent\'s turn id holds a "/" (agent team/general)', async () => {
    const turnId = 'team/general:run-1';
    const child = new ScriptedModel([async (request) => {
      await setSessionApprovalMode(ledger, turnId, 'deny-all', 'test');
      return say(null, [['cw2', 'write_file', { filepath: 'denied-slash.txt', content: 'no' }]])(request);
    }, say('the write was denied')]);
    const parent = new ScriptedModel([say(null, [['pr/2', RUN_SUBAGENT, { prompt: 'Write denied-slash.txt.', model_id: 'c' }]]), say('done')]);
    const asked: ConfirmationRequest[] = [];
    const agent = new GeneralAgent({
      tools, model: parent, name: 'team/general',
      confirmationHandler: (request) => {
        asked.push(request);
        return true;
      },
      subagents: { models: { c: child } },
    });
    try {
      const run = await agent.run('Delegate a write.', { turnId });
      assert.equal(run.stopReason, 'final');
      assert.match(toolMessage(child.requests[1], 'cw2'), /the approval mode is deny-all/);
      assert.equal(fs.existsSync(path.join(t.ws, 'denied-slash.txt')), false);
      assert.deepEqual(asked, []);
      const childTurn = (byCall(run.results, 'pr/2').structured as { turn: string }).turn;
      assert.deepEqual(parseSubagentTurnId(childTurn), { parentSession: `${turnId}:1`, parentTurnId: turnId, parentCallId: 'pr/2', subagentId: 'sa-1' });
      assert.equal(supervisedSession(`${childTurn}:1`, childTurn), turnId);
    } finally {
      await setSessionApprovalMode(ledger, turnId, undefined, 'test');
    }
  });

  it('reports a child whose model fails, and takes no follow-up for it', async () => {
    const broken: ChatModel = {
      async complete() {
        throw new Error('endpoint down');
      },
    };
    const parent = new ScriptedModel([
      say(null, [['fail', RUN_SUBAGENT, { prompt: 'Try.', model_id: 'broken' }]]),
      say(null, [['again', INPUT_SUBAGENT, { subagent_id: 'sa-1', prompt: 'Try again.' }]]),
      say('done'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { broken } } });
    const run = await agent.run('Delegate.');
    assert.equal(run.stopReason, 'final');
    const failed = byCall(run.results, 'fail');
    assert.deepEqual([failed.success, failed.errorCode, failed.output], [false, 'TOOL_ERROR', 'Error: run_subagent failed: Subagent sa-1 (general) failed: endpoint down']);
    const again = byCall(run.results, 'again');
    assert.equal(again.errorCode, 'INVALID_ARGUMENTS');
    assert.match(again.output, /Subagent sa-1 failed; it takes no follow-up prompt\. Start a new one with run_subagent\./);
    assert.deepEqual(agent.subagents!.list().map((s) => [s.status, s.error]), [['failed', 'endpoint down']]);
  });

  it('rejects bad options by name', () => {
    const model = new ScriptedModel([]);
    assert.throws(() => new GeneralAgent({ tools, model, subagents: { windowMs: -1 } }), /options\.subagents\.windowMs must be an integer from 0 to 600000/);
    assert.throws(() => new GeneralAgent({ tools, model, subagents: { maxSessions: 0 } }), /options\.subagents\.maxSessions/);
    assert.throws(() => new GeneralAgent({ tools, model, subagents: { agents: {} } }), /options\.subagents\.agents must name at least one/);
    assert.throws(() => new GeneralAgent({ tools, model, subagents: { models: { x: {} as ChatModel } } }), /options\.subagents\.models\.x must be a ChatModel/);
    assert.equal(new GeneralAgent({ tools, model }).subagents, undefined);
    assert.ok(!new GeneralAgent({ tools, model }).toolSpecs().some((s) => s.function.name === RUN_SUBAGENT));
  });
});

describe('run_subagent in a batch', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  const log: string[] = [];
  before(async () => {
    tools = new ToolSystem({ workspace: t.ws, ported: false });
    tools.registry.register({
      name: 'probe_step', version: '1.0.0', kind: 'internal', readOnly: true, description: 'Log a step, wait 50 ms, log its end.',
      inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'], additionalProperties: false },
      run: async ({ label }) => {
        log.push(`start ${String(label)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push(`end ${String(label)}`);
        return String(label);
      },
    });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('waits for the earlier calls of its batch, and the later calls wait for it (as a write does)', async () => {
    const child = new ScriptedModel([
      () => {
        log.push('child');
        return say('child done')({} as ChatRequest);
      },
    ]);
    const parent = new ScriptedModel([
      say(null, [
        ['a', 'probe_step', { label: 'A' }],
        ['run', RUN_SUBAGENT, { prompt: 'Work.', model_id: 'c' }],
        ['b', 'probe_step', { label: 'B' }],
      ]),
      say('done'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { c: child } } });
    const run = await agent.run('Probe around a subagent.');
    assert.equal(run.stopReason, 'final');
    assert.ok(run.results.every((r) => r.success), run.results.map((r) => r.output).join('\n'));
    assert.deepEqual(log, ['start A', 'end A', 'child', 'start B', 'end B']);
  });
});
