/**
 * Lazy visibility through GeneralAgent with a scripted model (a ChatModel implemented here):
 * round 1 offers the core and request_tools only, a direct call of a hidden tool is answered
 * TOOL_HIDDEN (a result, not run), request_tools makes a domain visible and the next round
 * offers its tools; unknown and mode-refused domains are reported unavailable; off by default.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DomainVisibility, ExploreAgent, GeneralAgent, ToolgateOptionError, ToolSystem, type ChatModel, type ChatRequest, type OpenAIAssistantMessage, type OpenAIChatMessage } from 'toolgate';
import { REQUEST_TOOLS_NAME, type RequestToolsAnswer } from '../../src/registry/lazy-visibility.js';
import { tempWorkspace } from '../helpers.js';

interface ScriptedCall { id: string; name: string; arguments: unknown }

/** A model that answers with `script`'s replies in order and keeps every request it got. */
class ScriptedModel implements ChatModel {
  readonly requests: ChatRequest[] = [];
  private next = 0;
  constructor(private readonly script: Array<ScriptedCall[] | string>) {}

  async complete(request: ChatRequest): Promise<OpenAIAssistantMessage> {
    this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
    const step = this.script[this.next++];
    if (step === undefined) throw new Error('the script has no more replies');
    if (typeof step === 'string') return { role: 'assistant', content: step };
    return {
      role: 'assistant',
      content: null,
      tool_calls: step.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } })),
    };
  }

  offered(round: number): string[] {
    return this.requests[round]!.tools.map((t) => t.function.name);
  }
}

function toolMessage(messages: readonly OpenAIChatMessage[], id: string): string {
  const found = messages.find((m) => m.role === 'tool' && (m as { tool_call_id: string }).tool_call_id === id) as { content: string } | undefined;
  assert.ok(found, `a tool message answers ${id}`);
  return found.content;
}

describe('lazy visibility in an agent run', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    tools = new ToolSystem({ workspace: t.ws });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('offers core + request_tools, answers a hidden tool TOOL_HIDDEN, and offers git tools after request_tools', async () => {
    const model = new ScriptedModel([
      [{ id: 'c1', name: 'git_status', arguments: {} }],
      [{ id: 'c2', name: REQUEST_TOOLS_NAME, arguments: { domains: ['git', 'no_such_domain'], reason: 'I need to see what changed.' } }],
      [{ id: 'c3', name: REQUEST_TOOLS_NAME, arguments: { domains: ['git'], reason: 'again' } }],
      'done',
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('What changed?');
    assert.equal(run.stopReason, 'final');

    const round1 = model.offered(0);
    assert.ok(round1.includes('read_file') && round1.includes('write_file') && round1.includes('replace_in_file'), 'everyday tools are core');
    assert.ok(round1.includes(REQUEST_TOOLS_NAME));
    assert.deepEqual(round1.filter((n) => /^(git_|list_archive|csv_query|list_snapshots)/.test(n)), [], 'domain tools are hidden in round 1');
    const spec = model.requests[0]!.tools.find((s) => s.function.name === REQUEST_TOOLS_NAME)!;
    const params = spec.function.parameters as { properties: { domains: { items: { enum: string[] } } }; required: string[] };
    assert.deepEqual(params.properties.domains.items.enum, ['archive', 'artifact', 'computer_use', 'data', 'git', 'memory', 'snapshot', 'task']);
    assert.deepEqual(params.required.sort(), ['domains', 'reason']);

    // The direct call of a hidden tool: a structured result naming request_tools and the domain.
    const hidden = run.results.find((r) => r.callId === 'c1')!;
    assert.equal(hidden.success, false);
    assert.equal(hidden.errorCode, 'TOOL_HIDDEN');
    assert.equal(hidden.stopReason, 'not_run');
    assert.match(hidden.output, /request_tools/);
    assert.match(hidden.output, /"git"/);
    assert.match(toolMessage(run.messages, 'c1'), /request_tools.*"git"/s);

    // Round 2 still hides git (nothing was requested yet); round 3 offers it.
    assert.ok(!model.offered(1).includes('git_status'));
    const round3 = model.offered(2);
    for (const name of ['git_status', 'git_diff', 'git_log', 'git_commit']) assert.ok(round3.includes(name), `${name} is offered after request_tools`);
    assert.ok(!round3.includes('list_archive'), 'only the requested domain became visible');

    const first = JSON.parse(run.results.find((r) => r.callId === 'c2')!.output) as RequestToolsAnswer;
    assert.ok(first.visible.git!.includes('git_status'));
    assert.deepEqual(first.alreadyVisible, {});
    assert.deepEqual(first.unavailable, [{ domain: 'no_such_domain', reason: 'unknown' }]);
    // Monotonic: asking again reports the domain as already visible.
    const second = JSON.parse(run.results.find((r) => r.callId === 'c3')!.output) as RequestToolsAnswer;
    assert.deepEqual(second.visible, {});
    assert.ok(second.alreadyVisible.git!.includes('git_status'));
  });

  it('a visible tool is still decided: git_commit asks for confirmation and, without a handler, does not run', async () => {
    const model = new ScriptedModel([
      [{ id: 'r', name: REQUEST_TOOLS_NAME, arguments: { domains: ['git'], reason: 'commit' } }],
      [{ id: 'c', name: 'git_commit', arguments: { message: 'x' } }],
      'done',
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('commit');
    const commit = run.results.find((r) => r.callId === 'c')!;
    assert.equal(commit.errorCode, 'CONFIRMATION_REQUIRED', commit.output);
  });

  it('a tool that is called in the same response right after request_tools is visible to that call', async () => {
    const model = new ScriptedModel([
      [
        { id: 'r', name: REQUEST_TOOLS_NAME, arguments: { domains: ['git'], reason: 'status' } },
        { id: 's', name: 'git_status', arguments: {} },
      ],
      'done',
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('status');
    assert.notEqual(run.results.find((r) => r.callId === 's')!.errorCode, 'TOOL_HIDDEN');
  });

  it('a domain whose tools the mode never runs is unavailable (explore, with tags mapped to a domain)', async () => {
    const model = new ScriptedModel([
      [{ id: 'r', name: REQUEST_TOOLS_NAME, arguments: { domains: ['editing', 'git'], reason: 'edit and look' } }],
      'done',
    ]);
    const run = await new ExploreAgent({ tools, model, lazyDomains: { tagDomains: { edit: 'editing' } } }).run('look');
    const enumOf = (model.requests[0]!.tools.find((s) => s.function.name === REQUEST_TOOLS_NAME)!.function.parameters as { properties: { domains: { items: { enum: string[] } } } }).properties.domains.items.enum;
    assert.ok(enumOf.includes('editing'), 'tagDomains makes a domain');
    const answer = JSON.parse(run.results[0]!.output) as RequestToolsAnswer;
    assert.deepEqual(answer.unavailable, [{ domain: 'editing', reason: 'not_in_mode' }]);
    // In explore mode only the reading git tools become visible.
    assert.ok(answer.visible.git!.includes('git_status'));
    assert.ok(!answer.visible.git!.includes('git_commit'));
    assert.ok(!model.offered(0).includes('replace_in_file'));
  });

  it('invalid request_tools arguments are INVALID_ARGUMENTS and change nothing', async () => {
    const model = new ScriptedModel([
      [{ id: 'r', name: REQUEST_TOOLS_NAME, arguments: { domains: ['git'] } }],
      'done',
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('x');
    assert.equal(run.results[0]!.errorCode, 'INVALID_ARGUMENTS');
    assert.match(run.results[0]!.output, /reason/);
    assert.ok(!model.offered(1).includes('git_status'));
  });

  it('is off by default: every tool offered, no request_tools, git tools run', async () => {
    const model = new ScriptedModel([[{ id: 's', name: 'git_status', arguments: {} }], 'done']);
    const run = await new GeneralAgent({ tools, model }).run('status');
    const offered = model.offered(0);
    assert.ok(offered.includes('git_status'));
    assert.ok(!offered.includes(REQUEST_TOOLS_NAME));
    assert.notEqual(run.results[0]!.errorCode, 'TOOL_HIDDEN');
  });

  it('preview answers a hidden tool as execute does (deny, TOOL_HIDDEN), and decides it once its domain is visible', async () => {
    const visibility = new DomainVisibility();
    const call = { name: 'git_status', arguments: {}, callId: 'p1' };
    const hidden = await tools.preview(call, { visibility });
    assert.deepEqual([hidden.verdict, hidden.code], ['deny', 'TOOL_HIDDEN']);
    assert.match(hidden.reason!, /request_tools/);
    assert.equal((await tools.execute(call, { visibility })).errorCode, 'TOOL_HIDDEN');
    const all = tools.tools();
    visibility.request(['git'], all, all);
    assert.notEqual((await tools.preview(call, { visibility })).code, 'TOOL_HIDDEN');
    assert.notEqual((await tools.preview(call)).code, 'TOOL_HIDDEN', 'without visibility nothing is hidden');
  });

  it('rejects a malformed lazyDomains option, naming it', () => {
    const model = new ScriptedModel([]);
    assert.throws(() => new GeneralAgent({ tools, model, lazyDomains: { tagDomains: { git: 'Not A Domain' } } }), (e: unknown) => e instanceof ToolgateOptionError && /options\.lazyDomains/.test(e.message));
  });
});
