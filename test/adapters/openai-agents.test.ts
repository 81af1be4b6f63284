/**
 * `toolgate/openai-agents` in a real Agents JS run (`Runner.run`), offline: a scripted
 * implementation of the SDK's `Model` interface plays the model over two tool rounds. An
 * allowed read, a call a policy hook denies, a read outside the workspace, and a write that
 * asks, interrupts the run, and runs once `state.approve(item)` approved it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, Runner, setTracingDisabled, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { ToolSystem } from 'toolgate';
import { toAgentsTools } from 'toolgate/openai-agents';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

/** A model that answers each request with the next scripted turn, and keeps the requests. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  private turn = 0;

  constructor(private readonly script: ModelResponse['output'][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.script[this.turn++];
    if (output === undefined) throw new Error(`the script has no turn ${this.turn}`);
    return { usage: new Usage(), output, responseId: `resp_${this.turn}` };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

function call(callId: string, name: string, input: Record<string, unknown>): ModelResponse['output'][number] {
  return { type: 'function_call', callId, name, arguments: JSON.stringify(input), status: 'completed' };
}

function say(text: string): ModelResponse['output'][number] {
  return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
}

/** The text of the function results the model was shown, by call id. */
function results(request: ModelRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of request.input as AgentInputItem[]) {
    if (item.type !== 'function_call_result') continue;
    const output = item.output as unknown;
    const texts = (Array.isArray(output) ? output : [output]).map((o) => (typeof o === 'string' ? o : (o as { type?: string; text?: string })?.type === 'text' ? (o as { text: string }).text : JSON.stringify(o)));
    out.set(item.callId, texts.join('\n'));
  }
  return out;
}

describe('toolgate/openai-agents: a two-round Agents JS run with a scripted model', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;

  before(async () => {
    setTracingDisabled(true); // offline: no trace export to OpenAI
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

  it('allows, denies, answers an escape as a result, and runs an ask after state.approve', async () => {
    const model = new ScriptedModel([
      [
        call('c1', 'read_file', { filepath: 'notes.txt' }),
        call('c2', 'write_file', { filepath: 'secret.txt', content: 'leak' }),
        call('c3', 'read_file', { filepath: '../outside/sentinel.txt' }),
      ],
      [call('c4', 'write_file', { filepath: 'out.txt', content: 'written by the model' })],
      [say('done')],
    ]);
    const tools = toAgentsTools(system, { only: ['read_file', 'write_file'] });
    assert.deepEqual(tools.map((t) => t.name), ['read_file', 'write_file']);
    const agent = new Agent({ name: 'copier', instructions: 'Copy files.', model, tools });
    const runner = new Runner({ tracingDisabled: true });

    let result = await runner.run(agent, 'Copy the notes.');
    const shown = results(model.requests[1]!);
    assert.match(shown.get('c1')!, /hello from the notes/);
    assert.match(shown.get('c2')!, /^Error: .*secret\.txt is off limits/);
    assert.match(shown.get('c3')!, /^Error: refused: .*outside/i);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'secret.txt')), false);

    // Round 2's write asks: the run stops with an interruption, nothing written yet.
    assert.equal(result.interruptions.length, 1);
    const [item] = result.interruptions;
    assert.equal(item!.name, 'write_file');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'out.txt')), false);

    result.state.approve(item!);
    result = await runner.run(agent, result.state);
    assert.equal(result.finalOutput, 'done');
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'out.txt'), 'utf8'), 'written by the model');
    assert.doesNotMatch(results(model.requests[2]!).get('c4')!, /^Error/);
  });

  it('leaves a rejected ask unrun', async () => {
    const model = new ScriptedModel([[call('r1', 'write_file', { filepath: 'rejected.txt', content: 'x' })], [say('ok')]]);
    const agent = new Agent({ name: 'writer', instructions: 'Write.', model, tools: toAgentsTools(system, { only: ['write_file'] }) });
    const runner = new Runner({ tracingDisabled: true });
    let result = await runner.run(agent, 'Write it.');
    assert.equal(result.interruptions.length, 1);
    result.state.reject(result.interruptions[0]!);
    result = await runner.run(agent, result.state);
    assert.equal(result.finalOutput, 'ok');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'rejected.txt')), false);
  });

  it('an approval given through the run state answers a question that must be asked every time (always-ask)', async () => {
    const model = new ScriptedModel([[call('f1', 'write_file', { filepath: 'fresh.txt', content: 'asked afresh' })], [say('ok')]]);
    const agent = new Agent({ name: 'writer', instructions: 'Write.', model, tools: toAgentsTools(system, { only: ['write_file'], call: { approvalMode: 'always-ask' } }) });
    const runner = new Runner({ tracingDisabled: true });
    let result = await runner.run(agent, 'Write it.');
    assert.equal(result.interruptions.length, 1);
    result.state.approve(result.interruptions[0]!);
    result = await runner.run(agent, result.state);
    // Before: `confirm: true` does not answer a fresh question, so the approved call was refused.
    assert.doesNotMatch(results(model.requests[1]!).get('f1')!, /^Error/);
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'fresh.txt'), 'utf8'), 'asked afresh');
  });

  it('does not run a definition registered again between the interruption and the approved run (TOOL_REPLACED)', async () => {
    const ran: string[] = [];
    const define = (which: string) => system.registry.register({
      name: 'stamp_note', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, description: `Stamp a note (${which}).`,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      run: ({ text }) => { ran.push(which); return `stamped ${String(text)}`; },
    });
    define('old');
    const model = new ScriptedModel([[call('s1', 'stamp_note', { text: 'x' })], [say('ok')]]);
    const agent = new Agent({ name: 'stamper', instructions: 'Stamp.', model, tools: toAgentsTools(system, { only: ['stamp_note'] }) });
    const runner = new Runner({ tracingDisabled: true });
    let result = await runner.run(agent, 'Stamp it.');
    assert.equal(result.interruptions.length, 1, 'the call asks');
    // The person approves the old definition; a new one is registered before the call runs.
    define('new');
    result.state.approve(result.interruptions[0]!);
    result = await runner.run(agent, result.state);
    assert.equal(result.finalOutput, 'ok');
    assert.match(results(model.requests[1]!).get('s1')!, /registered again/);
    assert.deepEqual(ran, [], 'neither definition ran');
  });

  it('offers strict schemas where OpenAI\'s strict subset allows them', () => {
    const [read] = toAgentsTools(system, { only: ['read_file'] });
    assert.equal((read as { strict?: boolean }).strict, true);
    const [loose] = toAgentsTools(system, { only: ['read_file'], strict: false });
    assert.equal((loose as { strict?: boolean }).strict, false);
  });
});
