/**
 * The caller tools as registry entries: registered once (idempotent, a caller's own tool of the
 * same name kept), never listed by a selection, with the schemas the executor checks (the
 * offered specs without the caller's enums), and run by the executor with what the call lends.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainVisibility, ToolRegistry, ToolSystem } from 'toolgate';
import { ASK_USER_TOOL } from '../../src/builtin/ask-user.js';
import { INPUT_SUBAGENT, RUN_SUBAGENT, subagentTools } from '../../src/builtin/subagent.js';
import { REQUEST_TOOLS_NAME } from '../../src/registry/lazy-visibility.js';
import { CallerServices, withServices } from '../../src/builtin/caller-services.js';
import { CALLER_TOOL_NAMES, registerCallerTools } from '../../src/builtin/caller-tools.js';
import { REQUEST_TOOLS_INPUT_SCHEMA } from '../../src/builtin/request-tools.js';
import { isCallerTool } from '../../src/registry/visibility.js';
import { tempWorkspace } from '../helpers.js';

describe('caller tools in the registry', () => {
  const t = tempWorkspace();
  let system: ToolSystem;
  before(async () => {
    system = new ToolSystem({ workspace: t.ws, ported: false });
    await system.start();
  });
  after(async () => {
    await system.close();
    t.cleanup();
  });

  test('registered once, on the main runner, internal and read-only; registering again changes nothing', () => {
    const registry = new ToolRegistry();
    registerCallerTools(registry);
    const first = [...CALLER_TOOL_NAMES].map((name) => registry.get(name)!);
    registerCallerTools(registry);
    assert.deepEqual([...CALLER_TOOL_NAMES].map((name) => registry.get(name)), first, 'the same registrations: nothing replaced');
    for (const tool of first) {
      assert.deepEqual([tool.runner, tool.kind, tool.readOnly, isCallerTool(tool)], ['main', 'internal', true, true], tool.name);
    }
    const again = new ToolRegistry();
    registerCallerTools(again);
    assert.equal(again.get(RUN_SUBAGENT)!.revision, registry.get(RUN_SUBAGENT)!.revision, 'a stable revision: remembered approvals carry over');
  });

  test('a registry that has its own ask_user keeps it', () => {
    const registry = new ToolRegistry();
    const mine = registry.register({
      name: 'ask_user', version: '2.0.0', kind: 'internal', readOnly: true, description: 'My own.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false }, run: () => 'mine',
    });
    registerCallerTools(registry);
    assert.equal(registry.get('ask_user'), mine);
    assert.equal(isCallerTool(mine), false);
  });

  test('the registered schemas are the offered ones without the caller\'s enums', () => {
    const registry = new ToolRegistry();
    registerCallerTools(registry);
    assert.deepEqual(registry.get(ASK_USER_TOOL.name)!.inputSchema, ASK_USER_TOOL.inputSchema);
    assert.deepEqual(registry.get(REQUEST_TOOLS_NAME)!.inputSchema, REQUEST_TOOLS_INPUT_SCHEMA);
    const [run, input] = subagentTools({ agents: ['general'], models: ['small'] });
    const registered = registry.get(RUN_SUBAGENT)!.inputSchema as { properties: Record<string, { enum?: unknown }> };
    assert.deepEqual(Object.keys(registered.properties).sort(), Object.keys((run.inputSchema as { properties: object }).properties).sort());
    assert.equal(registered.properties.agent_id!.enum, undefined);
    assert.equal(registered.properties.model_id!.enum, undefined);
    assert.deepEqual(registry.get(INPUT_SUBAGENT)!.inputSchema, input.inputSchema);
  });

  test('no selection lists them: the tool system\'s offer and specs stay as they were', async () => {
    registerCallerTools(system.registry);
    const names = system.tools().map((tool) => tool.name);
    for (const name of CALLER_TOOL_NAMES) assert.ok(!names.includes(name), name);
    assert.ok(!system.toolSpecs('openai').some((spec) => CALLER_TOOL_NAMES.has(spec.function.name)));
  });

  test('request_tools through the tool system: checked against its schema, answered with the visibility lent to the call', async () => {
    registerCallerTools(system.registry);
    const visibility = new DomainVisibility({ tagDomains: { fs: 'files' } });
    const services = new CallerServices({ visibility, domains: { selected: () => system.tools(), offered: () => system.tools() } });
    const client = withServices(undefined, services);
    const bad = await system.execute({ name: REQUEST_TOOLS_NAME, arguments: { domains: [] }, callId: 'r0' }, { client });
    assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
    const hidden = await system.execute({ name: 'read_file', arguments: { filepath: 'x.txt' }, callId: 'h1' }, { client });
    assert.equal(hidden.errorCode, 'TOOL_HIDDEN', hidden.output);
    const answered = await system.execute({ name: REQUEST_TOOLS_NAME, arguments: { domains: ['files', 'nope'], reason: 'read' }, callId: 'r1' }, { client });
    assert.equal(answered.success, true, answered.output);
    const answer = JSON.parse(answered.output) as { visible: Record<string, string[]>; unavailable: unknown[] };
    assert.ok(answer.visible.files!.includes('read_file'));
    assert.deepEqual(answer.unavailable, [{ domain: 'nope', reason: 'unknown' }]);
    const shown = await system.execute({ name: 'read_file', arguments: { filepath: 'x.txt' }, callId: 'h2' }, { client });
    assert.notEqual(shown.errorCode, 'TOOL_HIDDEN');
    const unlent = await system.execute({ name: REQUEST_TOOLS_NAME, arguments: { domains: ['files'], reason: 'read' }, callId: 'r2' });
    assert.equal(unlent.errorCode, 'UNKNOWN_TOOL');
    assert.match(unlent.output, /request_tools is unavailable/);
  });
});
