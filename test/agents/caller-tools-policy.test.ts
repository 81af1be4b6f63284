/**
 * The caller tools (ask_user, run_subagent, input_subagent, request_tools) run through the
 * executor like every tool: a policy file's deny rule denies them, the model sees the denied
 * result, nothing behind them runs (no question, no child), and the ledger records the call
 * with its decision, which `toolgate trace` shows. Issue 31: "a policy rule can deny run_subagent
 * and ask_user; their calls appear in `toolgate trace`".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { GeneralAgent, Ledger, ToolSystem, type ToolExecutionResult, type UserQuestion } from '../../src/index.js';
import { RUN_SUBAGENT } from '../../src/builtin/subagent.js';
import { tempWorkspace } from '../helpers.js';
import { cliInProcess } from '../cli/in-process.js';
import { offeredTools, ScriptedModel, toolCalls, toolMessages, finalAnswer } from './scripted-model.js';

function byCall(results: readonly ToolExecutionResult[], callId: string): ToolExecutionResult {
  const result = results.find((r) => r.callId === callId);
  assert.ok(result, `no result for ${callId}`);
  return result;
}

describe('a policy file denies the caller tools', () => {
  const t = tempWorkspace();
  const policyFile = path.join(t.root, 'policy.toml');
  let tools: ToolSystem;
  let ledger: Ledger;
  before(async () => {
    fs.writeFileSync(policyFile, [
      '[[rules]]', 'tool = "run_subagent"', 'action = "deny"', 'reason = "no subagents in this project"', '',
      '[[rules]]', 'tool = "ask_user"', 'action = "deny"', 'reason = "work without asking"', '',
    ].join('\n'));
    ledger = Ledger.open({ dir: path.join(t.root, 'state'), workspace: t.ws });
    tools = new ToolSystem({ workspace: t.ws, ported: false, executor: { ledger, policy: { user: policyFile, workspace: false } } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    await ledger.close();
    t.cleanup();
  });

  it('run_subagent: the model sees POLICY_DENIED with the rule\'s reason; no child runs; the ledger has the denied call and its decision', async () => {
    const child = new ScriptedModel([]);
    const parent = new ScriptedModel([toolCalls(['p_sub', RUN_SUBAGENT, { prompt: 'Write notes.md.', model_id: 'worker' }]), finalAnswer('Denied, so I did it myself.')]);
    const agent = new GeneralAgent({ tools, model: parent, subagents: { models: { worker: child } } });
    const run = await agent.run('Delegate the notes.', { turnId: 'policy-turn' });
    assert.equal(run.stopReason, 'final');
    assert.ok(offeredTools(parent.requests[0]).includes(RUN_SUBAGENT), 'offered: the policy decides calls, not the offer');
    const denied = byCall(run.results, 'p_sub');
    assert.deepEqual([denied.success, denied.errorCode, denied.tool], [false, 'POLICY_DENIED', RUN_SUBAGENT]);
    assert.match(denied.output, /no subagents in this project/);
    assert.match(toolMessages(parent.requests[1]!).get('p_sub')!, /^Error: .*no subagents in this project/);
    assert.equal(child.requests.length, 0, 'no child was started');
    assert.deepEqual(agent.subagents!.list(), []);
    const [call] = await ledger.list({ turn: 'policy-turn' });
    assert.deepEqual([call?.callId, call?.tool, call?.state, call?.errorCode], ['p_sub', RUN_SUBAGENT, 'denied', 'POLICY_DENIED']);
    const decisions = await ledger.decisions(call!.callId, call!.session);
    assert.deepEqual(decisions.map((d) => [d.decider, d.verdict]), [['policy', 'deny']]);
    await assertTraced('p_sub', RUN_SUBAGENT);
  });

  it('ask_user: the question never reaches the handler; the model sees POLICY_DENIED; the ledger has the call', async () => {
    const asked: UserQuestion[] = [];
    const model = new ScriptedModel([toolCalls(['q1', 'ask_user', { question: 'Which color?', choices: ['red', 'blue'] }]), finalAnswer('I chose red myself.')]);
    const agent = new GeneralAgent({ tools, model, questionHandler: (question) => {
      asked.push(question);
      return 'blue';
    } });
    const run = await agent.run('Ask me.', { turnId: 'ask-turn' });
    assert.equal(run.stopReason, 'final');
    const denied = byCall(run.results, 'q1');
    assert.deepEqual([denied.success, denied.errorCode], [false, 'POLICY_DENIED']);
    assert.match(denied.output, /work without asking/);
    assert.deepEqual(asked, []);
    const [call] = await ledger.list({ turn: 'ask-turn' });
    assert.deepEqual([call?.callId, call?.tool, call?.state], ['q1', 'ask_user', 'denied']);
    await assertTraced('q1', 'ask_user');
  });

  /** `toolgate trace` (the command line, reading this ledger) shows the denied call with the policy's decision. */
  async function assertTraced(callId: string, tool: string): Promise<void> {
    const where = ['--workspace', t.ws, '--state-dir', path.join(t.root, 'state')];
    const json = await cliInProcess(['trace', ...where, '--call', callId, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const calls = JSON.parse(json.stdout) as Array<{ tool: string; state: string; status: string; decisions: string[] }>;
    assert.deepEqual(calls.map((c) => [c.tool, c.state, c.status]), [[tool, 'denied', 'POLICY_DENIED']]);
    assert.match(calls[0]!.decisions.join(' '), /^policy:deny:/);
    const text = await cliInProcess(['trace', ...where]);
    assert.match(text.stdout, new RegExp(`${callId} {2}${tool}@1\\.0\\.0 {2}denied`));
  }
});

describe('the caller tools without a policy: decided, recorded and bounded like every tool', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  let ledger: Ledger;
  before(async () => {
    ledger = Ledger.open({ dir: path.join(t.root, 'state'), workspace: t.ws });
    tools = new ToolSystem({ workspace: t.ws, ported: false, executor: { ledger } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    await ledger.close();
    t.cleanup();
  });

  it('an answered ask_user is a done call in the ledger; arguments past the schema\'s bounds are refused before anyone is asked', async () => {
    const asked: UserQuestion[] = [];
    const model = new ScriptedModel([
      toolCalls(['q_ok', 'ask_user', { question: 'Which color?', choices: ['red', 'blue'] }]),
      toolCalls(['q_long', 'ask_user', { question: 'x'.repeat(2001) }], ['q_extra', 'ask_user', { question: 'ok?', color: 'red' }]),
      finalAnswer('Done.'),
    ]);
    const agent = new GeneralAgent({ tools, model, questionHandler: (question) => {
      asked.push(question);
      return ['blue'];
    } });
    const run = await agent.run('Ask me.', { turnId: 'bounded-turn' });
    assert.equal(byCall(run.results, 'q_ok').output, 'blue');
    assert.deepEqual(asked.map((q) => [q.callId, q.question, q.choices]), [['q_ok', 'Which color?', ['red', 'blue']]]);
    for (const id of ['q_long', 'q_extra']) assert.equal(byCall(run.results, id).errorCode, 'INVALID_ARGUMENTS', id);
    const stored = (await ledger.list({ turn: 'bounded-turn' })).map((c) => [c.callId, c.tool, c.state]).sort();
    assert.deepEqual(stored, [['q_ok', 'ask_user', 'done']]);
  });

  it('a subagent in a read-only parent is still started (the tool itself writes nothing); a child calling run_subagent is denied by visibility', async () => {
    const child = new ScriptedModel([toolCalls(['deep', RUN_SUBAGENT, { prompt: 'again' }]), finalAnswer('I cannot delegate.')]);
    const parent = new ScriptedModel([toolCalls(['p1', RUN_SUBAGENT, { prompt: 'Look around.', model_id: 'c' }]), finalAnswer('ok')]);
    const { ExploreAgent } = await import('../../src/index.js');
    const agent = new ExploreAgent({ tools, model: parent, subagents: { agents: { explore: ExploreAgent }, models: { c: child } } });
    const run = await agent.run('Delegate.', { turnId: 'depth-turn' });
    assert.equal(byCall(run.results, 'p1').success, true, byCall(run.results, 'p1').output);
    const deep = (await ledger.list({ callId: 'deep' }))[0];
    assert.equal(deep?.tool, RUN_SUBAGENT);
    assert.deepEqual([deep?.state, deep?.errorCode], ['denied', 'UNKNOWN_TOOL']);
    assert.deepEqual((await ledger.decisions('deep', deep!.session)).map((d) => [d.decider, d.verdict]), [['visibility', 'deny']]);
  });
});
