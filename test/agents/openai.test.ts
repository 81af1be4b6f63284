/**
 * The agents against a scripted OpenAI-compatible server on loopback: the exact conversation
 * the server receives (tool results injected, ids threaded, the mode addendum, ask_user
 * offered only with a handler), confirmations, questions, modes, pins and abort.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExploreAgent, GeneralAgent, Harness, MODES, OpenAIChatModel, PlanAgent, ToolSystem, type AgentEvent, type ConfirmationRequest, type UserQuestion } from 'toolgate';
import { ASK_USER_UNAVAILABLE } from '../../src/system/tool-call-handler.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace } from '../helpers.js';
import { startOpenAIFixture, turn, type OpenAIFixture, type ScriptStep } from '../openai-fixture.js';

const TASK = 'Read a.txt and b.txt, save the result, and ask me for a color.';

/** `actual` equals `expected`, where a RegExp in `expected` must match the string at its place. */
function assertShape(actual: unknown, expected: unknown, where = '$'): void {
  if (expected instanceof RegExp) {
    assert.equal(typeof actual, 'string', `${where} should be a string`);
    assert.match(actual as string, expected, where);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where} should be an array`);
    assert.equal(actual.length, expected.length, `${where} length`);
    expected.forEach((e, i) => assertShape((actual as unknown[])[i], e, `${where}[${i}]`));
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${where} should be an object`);
    assert.deepEqual(Object.keys(actual as object).sort(), Object.keys(expected).sort(), `${where} keys`);
    for (const [k, v] of Object.entries(expected)) assertShape((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
    return;
  }
  assert.equal(actual, expected, where);
}

async function withFixture<T>(script: ScriptStep[], body: (fixture: OpenAIFixture, model: OpenAIChatModel) => Promise<T>): Promise<T> {
  const fixture = await startOpenAIFixture(script);
  try {
    return await body(fixture, new OpenAIChatModel({ baseURL: fixture.baseUrl, apiKey: 'sk-fixture', model: 'fixture-model', maxRetries: 0 }));
  } finally {
    await fixture.close();
  }
}

function toolNames(request: { tools?: Array<{ function: { name: string } }> }): string[] {
  return (request.tools ?? []).map((t) => t.function.name);
}

describe('GeneralAgent against an OpenAI-compatible server', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(t.ws, 'b.txt'), 'beta\n');
    tools = new ToolSystem({ workspace: t.ws });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('runs parallel, malformed (A2), unknown, confirmed, denied and ask_user calls, and the server sees the exact conversation', async () => {
    const calls1 = [
      { id: 'call_read_a', name: 'read_file', arguments: '{"filepath":"a.txt"}' },
      { id: 'call_read_b', name: 'read_file', arguments: '{"filepath":"b.txt"}' },
      { id: 'call_bad', name: 'read_file', arguments: '{"filepath": "a.txt"' },
      { id: 'call_unknown', name: 'delete_everything', arguments: '{}' },
    ];
    const script = [
      turn('Reading both files.', calls1),
      turn(null, [
        { id: 'call_write_ok', name: 'write_file', arguments: '{"filepath":"out/ok.txt","content":"approved"}' },
        { id: 'call_write_no', name: 'write_file', arguments: '{"filepath":"out/denied.txt","content":"nope"}' },
      ]),
      turn(null, [{ id: 'call_ask', name: 'ask_user', arguments: '{"question":"Which color?","choices":["red","blue"]}' }]),
      turn('Done: wrote out/ok.txt; the user chose blue.'),
    ];
    const asked: ConfirmationRequest[] = [];
    const questions: UserQuestion[] = [];
    const events: AgentEvent[] = [];
    const result = await withFixture(script, async (fixture, model) => {
      const agent = new GeneralAgent({
        tools, model,
        confirmationHandler: (request) => {
          asked.push(request);
          return request.paths[0] === 'out/ok.txt';
        },
        questionHandler: (question) => {
          questions.push(question);
          return 'blue';
        },
        onEvent: (e) => events.push(e),
      });
      const run = await agent.run(TASK);
      assert.equal(fixture.requests.length, 4);
      assert.ok(fixture.requests.every((r) => r.model === 'fixture-model'));
      assert.equal(fixture.authorizations[0], 'Bearer sk-fixture');

      const system = { role: 'system', content: agent.systemMessage() };
      const user = { role: 'user', content: TASK };
      const assistant1 = {
        role: 'assistant', content: 'Reading both files.',
        tool_calls: calls1.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
      const results1 = [
        { role: 'tool', tool_call_id: 'call_read_a', content: 'alpha\n' },
        { role: 'tool', tool_call_id: 'call_read_b', content: 'beta\n' },
        { role: 'tool', tool_call_id: 'call_bad', content: /^Error: Invalid arguments for read_file: arguments are not valid JSON .*send one JSON object\.$/ },
        { role: 'tool', tool_call_id: 'call_unknown', content: /^Error: Unknown tool "delete_everything"\. Did you mean delete_file\? Available tools: delete_file, append_to_file, .*read_file, .*\.$/ },
      ];
      const assistant2 = {
        role: 'assistant', content: null,
        tool_calls: [
          { id: 'call_write_ok', type: 'function', function: { name: 'write_file', arguments: '{"filepath":"out/ok.txt","content":"approved"}' } },
          { id: 'call_write_no', type: 'function', function: { name: 'write_file', arguments: '{"filepath":"out/denied.txt","content":"nope"}' } },
        ],
      };
      const results2 = [
        { role: 'tool', tool_call_id: 'call_write_ok', content: 'Wrote 8 bytes to out/ok.txt' },
        { role: 'tool', tool_call_id: 'call_write_no', content: /^Error: Confirmation denied: the user did not approve this write_file call\./ },
      ];
      const assistant3 = {
        role: 'assistant', content: null,
        tool_calls: [{ id: 'call_ask', type: 'function', function: { name: 'ask_user', arguments: '{"question":"Which color?","choices":["red","blue"]}' } }],
      };
      const results3 = [{ role: 'tool', tool_call_id: 'call_ask', content: 'blue' }];

      assertShape(fixture.requests[0]!.messages, [system, user]);
      assertShape(fixture.requests[1]!.messages, [system, user, assistant1, ...results1]);
      assertShape(fixture.requests[2]!.messages, [system, user, assistant1, ...results1, assistant2, ...results2]);
      assertShape(fixture.requests[3]!.messages, [system, user, assistant1, ...results1, assistant2, ...results2, assistant3, ...results3]);
      // The same tools in every request; ask_user is offered because a question handler is set.
      for (const request of fixture.requests) {
        const names = toolNames(request);
        assert.ok(names.includes('ask_user') && names.includes('write_file') && names.includes('read_file') && names.includes('run_command'), names.join());
        assert.deepEqual(names, toolNames(fixture.requests[0]!));
      }
      return run;
    });

    assert.equal(result.stopReason, 'final');
    assert.equal(result.text, 'Done: wrote out/ok.txt; the user chose blue.');
    assert.equal(result.toolRounds, 3);
    assert.deepEqual(result.results.map((r) => [r.callId, r.success, r.errorCode]), [
      ['call_read_a', true, undefined], ['call_read_b', true, undefined], ['call_bad', false, 'INVALID_ARGUMENTS'], ['call_unknown', false, 'UNKNOWN_TOOL'],
      ['call_write_ok', true, undefined], ['call_write_no', false, 'CONFIRMATION_DENIED'], ['call_ask', true, undefined],
    ]);
    // Approved once (written), denied once (nothing written).
    assert.deepEqual(asked.map((a) => [a.tool, a.callId, a.paths]), [['write_file', 'call_write_ok', ['out/ok.txt']], ['write_file', 'call_write_no', ['out/denied.txt']]]);
    assert.equal(fs.readFileSync(path.join(t.ws, 'out/ok.txt'), 'utf8'), 'approved');
    assert.equal(fs.existsSync(path.join(t.ws, 'out/denied.txt')), false);
    // The question went to the handler, never to a tool.
    assert.deepEqual(questions, [{ callId: 'call_ask', question: 'Which color?', choices: ['red', 'blue'] }]);
    // The two reads ran concurrently: both started before either ended.
    const order = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => `${e.type}:${(e as { call: { id: string } }).call.id}`);
    assert.ok(order.indexOf('tool_call:call_read_b') < order.indexOf('tool_result:call_read_a'), order.join(' '));
    // The writes ran in order, one at a time.
    assert.ok(order.indexOf('tool_result:call_write_ok') < order.indexOf('tool_call:call_write_no'), order.join(' '));
  });

  it('without a confirmation handler, a write is answered CONFIRMATION_REQUIRED and nothing is written; autoConfirmTools runs it', async () => {
    const script = [
      turn(null, [{ id: 'call_w', name: 'write_file', arguments: '{"filepath":"unasked.txt","content":"x"}' }]),
      turn('I need your approval to write unasked.txt.'),
    ];
    await withFixture(script, async (fixture, model) => {
      const run = await new GeneralAgent({ tools, model }).run('write it');
      assert.equal(run.results[0]!.errorCode, 'CONFIRMATION_REQUIRED');
      assert.equal(run.results[0]!.confirmed, false);
      assert.match(fixture.requests[1]!.messages[3]!.content as string, /^Error: Confirmation required: write_file needs the user's approval/);
      assert.equal(fs.existsSync(path.join(t.ws, 'unasked.txt')), false);
      // Without a question handler, ask_user is not offered.
      assert.ok(!toolNames(fixture.requests[0]!).includes('ask_user'));
    });
    await withFixture(script, async (_fixture, model) => {
      const run = await new GeneralAgent({ tools, model, autoConfirmTools: true }).run('write it');
      assert.equal(run.results[0]!.success, true, run.results[0]!.output);
      assert.equal(fs.readFileSync(path.join(t.ws, 'unasked.txt'), 'utf8'), 'x');
    });
  });

  it('stops after maxToolRounds', async () => {
    const call = (id: string) => turn(null, [{ id, name: 'read_file', arguments: '{"filepath":"a.txt"}' }]);
    await withFixture([call('r1'), call('r2'), call('r3')], async (fixture, model) => {
      const run = await new GeneralAgent({ tools, model, maxToolRounds: 2 }).run('loop');
      assert.equal(run.stopReason, 'max_tool_rounds');
      assert.equal(run.toolRounds, 2);
      assert.equal(fixture.requests.length, 2);
    });
  });
});

describe('ExploreAgent and PlanAgent: modes', () => {
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

  it('explore: the addendum is in the system message, writes are refused by the mode gate, ask_user reports itself unavailable', async () => {
    const script = [
      turn(null, [
        { id: 'call_w', name: 'write_file', arguments: '{"filepath":"x.txt","content":"x"}' },
        { id: 'call_q', name: 'ask_user', arguments: '{"question":"May I write?"}' },
      ]),
      turn('I can only read here.'),
    ];
    await withFixture(script, async (fixture, model) => {
      const run = await new ExploreAgent({ tools, model, autoConfirmTools: true }).run('write x.txt');
      const sys = fixture.requests[0]!.messages[0]!;
      assert.equal(sys.role, 'system');
      assert.ok((sys.content as string).endsWith(`\n\n${MODES.explore.systemPromptAddendum}`), sys.content as string);
      const names = toolNames(fixture.requests[0]!);
      assert.ok(names.includes('read_file') && !names.includes('write_file') && !names.includes('ask_user'), names.join());
      assertShape(fixture.requests[1]!.messages.slice(3), [
        { role: 'tool', tool_call_id: 'call_w', content: /^Error: write_file is not allowed in explore mode: this mode is read-only/ },
        { role: 'tool', tool_call_id: 'call_q', content: `Error: ${ASK_USER_UNAVAILABLE}` },
      ]);
      assert.deepEqual(run.results.map((r) => r.errorCode), ['MODE_DENIED', 'UNKNOWN_TOOL']);
      assert.equal(fs.existsSync(path.join(t.ws, 'x.txt')), false);
    });
  });

  it('plan: writes inside plans/ pass, a sibling named plans-evil is denied (P8)', async () => {
    fs.mkdirSync(path.join(t.ws, 'plans-evil'), { recursive: true });
    const script = [
      turn(null, [
        { id: 'call_plan', name: 'write_file', arguments: '{"filepath":"plans/plan.md","content":"# Plan\\n"}' },
        { id: 'call_evil', name: 'write_file', arguments: '{"filepath":"plans-evil/plan.md","content":"x"}' },
        { id: 'call_root', name: 'write_file', arguments: '{"filepath":"a.txt","content":"changed"}' },
      ]),
      turn('Plan written to plans/plan.md.'),
    ];
    await withFixture(script, async (fixture, model) => {
      const agent = new PlanAgent({ tools, model, autoConfirmTools: true });
      const run = await agent.run('plan it');
      const sys = fixture.requests[0]!.messages[0]!.content as string;
      assert.ok(sys.includes(MODES.plan.systemPromptAddendum) && sys.endsWith('Folders you may write in: plans/.'), sys);
      const names = toolNames(fixture.requests[0]!);
      assert.ok(names.includes('write_file') && names.includes('read_file') && !names.includes('run_command'), names.join());
      assert.deepEqual(run.results.map((r) => r.errorCode), [undefined, 'MODE_DENIED', 'MODE_DENIED']);
      assert.equal(fs.readFileSync(path.join(t.ws, 'plans/plan.md'), 'utf8'), '# Plan\n');
      assert.equal(fs.existsSync(path.join(t.ws, 'plans-evil/plan.md')), false);
      assert.equal(fs.readFileSync(path.join(t.ws, 'a.txt'), 'utf8'), 'alpha\n');
      assert.equal(run.text, 'Plan written to plans/plan.md.');
    });
  });
});

describe('Agents: abort, images, versions, harness', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    tools = new ToolSystem({ workspace: t.ws, toolFolders: [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }] });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('an abort while a tool runs stops the tool and the loop', async () => {
    const script = [turn(null, [{ id: 'call_wait', name: 'wait_for_abort', arguments: '{}' }]), turn('never sent')];
    await withFixture(script, async (fixture, model) => {
      const controller = new AbortController();
      const agent = new GeneralAgent({
        tools, model,
        // wait_for_abort only ends when its signal aborts: if the abort did not reach it, this test would hang.
        onEvent: (e) => {
          if (e.type === 'tool_call') setImmediate(() => controller.abort());
        },
      });
      const run = await agent.run('wait', { signal: controller.signal });
      assert.equal(run.stopReason, 'aborted');
      assert.equal(run.results.length, 1);
      assert.equal(run.results[0]!.errorCode, 'ABORTED');
      assert.equal(run.results[0]!.stopReason, 'interrupted');
      assert.equal(fixture.requests.length, 1, 'no model request after the abort');
      // The conversation still answers the call.
      assert.deepEqual(run.messages.at(-1), { role: 'tool', tool_call_id: 'call_wait', content: run.results[0]!.output });
    });
  });

  it('an abort while the model is thinking stops the loop', async () => {
    await withFixture([{ hang: true }], async (fixture, model) => {
      const controller = new AbortController();
      const agent = new GeneralAgent({ tools, model, onEvent: (e) => e.type === 'model_request' && setImmediate(() => controller.abort()) });
      const run = await agent.run('think', { signal: controller.signal });
      assert.equal(run.stopReason, 'aborted');
      assert.equal(run.toolRounds, 0);
      assert.ok(fixture.requests.length <= 1);
    });
  });

  it('images a tool attaches reach the model in a user message after the tool results', async () => {
    const script = [turn(null, [{ id: 'call_img', name: 'attach_images', arguments: '{"count":1}' }]), turn('One pixel.')];
    await withFixture(script, async (fixture, model) => {
      await new GeneralAgent({ tools, model }).run('show');
      const [toolMessage, imageMessage] = fixture.requests[1]!.messages.slice(3);
      assertShape(toolMessage, { role: 'tool', tool_call_id: 'call_img', content: /^a caption\n\[image 1 of 1 attached: image\/png/ });
      assertShape(imageMessage, {
        role: 'user',
        content: [{ type: 'text', text: 'Images attached by tool call call_img (attach_images):' }, { type: 'image_url', image_url: { url: /^data:image\/png;base64,iVBOR/ } }],
      });
    });
  });

  it('pins per agent select the version offered and run; a deprecation reaches the model in the spec and the result', async () => {
    tools.versions.deprecate('greet', '1.2.0', 'use greet 2.x, which takes a greeting word');
    assert.deepEqual(tools.versions.versions('greet').map((v) => [v.version, v.latest, v.deprecated, v.revision.length]), [
      ['1.0.0', false, undefined, 64], ['1.2.0', false, 'use greet 2.x, which takes a greeting word', 64], ['2.0.0', true, undefined, 64],
    ]);
    const script = [turn(null, [{ id: 'call_g', name: 'greet', arguments: '{"who":"ada"}' }]), turn('Greeted.')];
    await withFixture(script, async (fixture, model) => {
      const run = await new GeneralAgent({ tools, model, name: 'pinned', pins: { greet: '^1.0.0' } }).run('greet ada');
      const spec = fixture.requests[0]!.tools!.find((s) => s.function.name === 'greet')!;
      assert.match(spec.function.description, /^DEPRECATED: use greet 2\.x, which takes a greeting word\n\n/);
      assert.deepEqual(Object.keys((spec.function.parameters as { properties: object }).properties), ['who']);
      assert.equal(run.results[0]!.version, '1.2.0');
      assert.equal(fixture.requests[1]!.messages.at(-1)!.content, 'hello ada (1.2.0)\n[note: greet 1.2.0 is deprecated: use greet 2.x, which takes a greeting word]');
      assert.equal(tools.versions.revision('greet', 'pinned'), tools.registry.get('greet', '1.2.0')!.revision);
    });
    // Another agent is not pinned: it gets 2.0.0.
    await withFixture(script, async (fixture, model) => {
      const run = await new GeneralAgent({ tools, model, name: 'unpinned' }).run('greet ada');
      assert.equal(run.results[0]!.version, '2.0.0');
      const spec = fixture.requests[0]!.tools!.find((s) => s.function.name === 'greet')!;
      assert.ok(!spec.function.description.startsWith('DEPRECATED'));
    });
    assert.throws(() => tools.versions.pin('x', 'greet', '^9'), (e: Error & { code?: string }) => e.code === 'INVALID_OPTIONS' && /options\.pins\.x\.greet matches no registered tool/.test(e.message));
    assert.throws(() => tools.versions.deprecate('greet', '7.0.0', 'gone'), (e: Error & { code?: string }) => e.code === 'INVALID_OPTIONS');
  });

  it('harness.use(ToolSystem) starts and closes it; a connector registers tools and is closed', async () => {
    const t2 = tempWorkspace();
    let closed = 0;
    let connectedTo: ToolSystem | undefined;
    const system = new ToolSystem({
      workspace: t2.ws, builtins: false,
      connectors: [async (s) => {
        connectedTo = s;
        return () => {
          closed += 1;
        };
      }],
    });
    const harness = new Harness().use(system);
    assert.throws(() => harness.use(system), (e: Error & { code?: string }) => e.code === 'INVALID_OPTIONS');
    await harness.start();
    assert.equal(harness.get<ToolSystem>('tool-system'), system);
    assert.equal(connectedTo, system, 'the connector ran at start, with the system');
    assert.equal(system.registry.size, 0, 'builtins: false loads nothing');
    await harness.close();
    assert.equal(closed, 1);
    const after = await system.execute({ name: 'read_file', arguments: '{}' });
    assert.equal(after.errorCode, 'UNKNOWN_TOOL');
    t2.cleanup();
  });
});
