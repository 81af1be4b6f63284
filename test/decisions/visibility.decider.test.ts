/**
 * The visibility decider as plain logic: what a caller lent its calls (CallerServices on the
 * call's client) decides whether a caller tool may answer and whether a lazy domain hides a
 * tool; and the offer: which tools a caller lists (selection, mode, model class, lazy domains)
 * and which caller tools it offers and lets be called. Tools are plain objects with the fields
 * the decider reads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ASK_USER_UNAVAILABLE } from '../../src/builtin/ask-user.js';
import { CallerServices, servicesOf, withServices } from '../../src/builtin/caller-services.js';
import { SUBAGENT_DEPTH_MESSAGE, type SubagentDriver } from '../../src/builtin/subagent.js';
import type { PreparedCall } from '../../src/decisions/decision.js';
import { existsFor, isCallable, isOfferedInMode, isSelected, offeredCallerTools, offers, VisibilityDecider } from '../../src/decisions/visibility.decider.js';
import { MODES } from '../../src/modes/modes.js';
import { DomainVisibility } from '../../src/registry/lazy-visibility.js';
import type { RegisteredTool } from '../../src/registry/registered-tool.js';
import { CALLER_TOOL_SOURCE } from '../../src/registry/visibility.js';
import type { ToolClient } from '../../src/types/tool.js';
import { workspaceFor, type Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

function fakeTool(fields: Partial<RegisteredTool> = {}): RegisteredTool {
  return { name: 'git_log', version: '1.0.0', readOnly: true, scopedWrite: false, kind: 'file_read', tags: ['git'], domain: 'git', source: 'tools-ported', ...fields } as unknown as RegisteredTool;
}
const callerTool = (name: string) => fakeTool({ name, domain: undefined, tags: ['builtin', 'agent'], kind: 'internal', source: CALLER_TOOL_SOURCE });
const driver = (depth: 0 | 1): SubagentDriver => ({ depth, run: () => Promise.reject(new Error('not here')), input: () => Promise.reject(new Error('not here')) });

let tmp: TempWorkspace;
let workspace: Workspace;
before(() => {
  tmp = tempWorkspace();
  workspace = workspaceFor(tmp.ws);
});
after(() => tmp.cleanup());

function prepared(tool: RegisteredTool, client: ToolClient | undefined, fields: Partial<PreparedCall> = {}): PreparedCall {
  return { tool, args: {}, callId: 'c1', workspace, paths: [], mode: MODES.default, modeName: 'default', scopedWriteDirs: [], approvalMode: undefined, session: 's', turnId: '', commands: [], client, ...fields };
}

describe('visibility decider', () => {
  const decider = new VisibilityDecider(undefined);

  test('a call of an ordinary tool without caller services has no opinion', () => {
    assert.equal(decider.decide(prepared(fakeTool(), undefined)), undefined);
    assert.equal(decider.decide(prepared(fakeTool(), { progress: () => undefined })), undefined, 'a client without services');
    assert.equal(decider.decide(prepared(fakeTool(), { services: { visibility: 'forged' } })), undefined, 'services that are not a CallerServices are ignored');
  });

  test('a caller tool whose caller lent nothing is denied UNKNOWN_TOOL, saying why; lent, it has no opinion', () => {
    const denied = decider.decide(prepared(callerTool('ask_user'), undefined));
    assert.deepEqual([denied?.verdict, denied?.code, denied?.decider, denied?.reason], ['deny', 'UNKNOWN_TOOL', 'visibility', ASK_USER_UNAVAILABLE]);
    const withHandler = withServices(undefined, new CallerServices({ askUser: () => 'yes' }));
    assert.equal(decider.decide(prepared(callerTool('ask_user'), withHandler)), undefined);

    assert.match(decider.decide(prepared(callerTool('request_tools'), withHandler))!.reason, /request_tools is unavailable: tools are not grouped in domains/);
    const lazy = withServices(undefined, new CallerServices({ visibility: new DomainVisibility(), domains: { selected: () => [], offered: () => [] } }));
    assert.equal(decider.decide(prepared(callerTool('request_tools'), lazy)), undefined);

    assert.match(decider.decide(prepared(callerTool('run_subagent'), withHandler))!.reason, /run_subagent is unavailable: this agent was given no subagents/);
    const parent = withServices(undefined, new CallerServices({ subagents: driver(0) }));
    assert.equal(decider.decide(prepared(callerTool('run_subagent'), parent)), undefined);
    assert.equal(decider.decide(prepared(callerTool('input_subagent'), parent)), undefined);
    const child = withServices(undefined, new CallerServices({ subagents: driver(1) }));
    assert.equal(decider.decide(prepared(callerTool('input_subagent'), child))!.reason, `input_subagent is ${SUBAGENT_DEPTH_MESSAGE}`);
  });

  test('a tool with the name of a caller tool but registered by someone else is an ordinary tool', () => {
    assert.equal(decider.decide(prepared(fakeTool({ name: 'ask_user', domain: undefined, source: 'register()' }), undefined)), undefined);
  });

  test('a lazy domain still hidden is denied TOOL_HIDDEN naming request_tools and the domain; once requested, no opinion', () => {
    const visibility = new DomainVisibility();
    const client = withServices(undefined, new CallerServices({ visibility }));
    const hidden = decider.decide(prepared(fakeTool(), client));
    assert.deepEqual([hidden?.verdict, hidden?.code, hidden?.rule], ['deny', 'TOOL_HIDDEN', 'domain git']);
    assert.match(hidden!.reason, /git_log is not visible yet: it belongs to the domain "git"\. Call request_tools with \{"domains": \["git"\]/);
    assert.equal(decider.decide(prepared(fakeTool({ name: 'read_file', domain: undefined, tags: ['fs'] }), client)), undefined, 'a core tool');
    visibility.request(['git'], [fakeTool()], [fakeTool()]);
    assert.equal(decider.decide(prepared(fakeTool(), client)), undefined);
  });

  test('a hidden tool the mode would never run is left to the mode decider', () => {
    const client = withServices(undefined, new CallerServices({ visibility: new DomainVisibility() }));
    const commit = fakeTool({ name: 'git_commit', readOnly: false, kind: 'file_write' });
    assert.equal(decider.decide(prepared(commit, client, { mode: MODES.explore, modeName: 'explore' })), undefined);
    assert.equal(decider.decide(prepared(commit, client))?.code, 'TOOL_HIDDEN', 'the default mode runs it: hidden');
  });

  test('withServices keeps the caller\'s handlers, bound, and servicesOf reads the services back', () => {
    const seen: string[] = [];
    const client = { tag: 'mine', progress(this: { tag: string }, done: number) { seen.push(`${this.tag}:${done}`); } };
    const services = new CallerServices({ session: 's1' });
    const carried = withServices(client as ToolClient, services)!;
    carried.progress!(3, undefined, undefined);
    assert.deepEqual(seen, ['mine:3']);
    assert.equal(servicesOf(carried), services);
    assert.equal(withServices(client as ToolClient, undefined), client);
    assert.ok(Object.isFrozen(services));
    assert.equal(services.with({ turnId: 't' }).session, 's1');
  });
});

describe('visibility offer (what a caller lists and may call)', () => {
  const readFile = fakeTool({ name: 'read_file', domain: undefined, tags: ['fs'] });
  const writeFile = fakeTool({ name: 'write_file', domain: undefined, tags: ['fs'], readOnly: false, kind: 'file_write' });
  const askUser = callerTool('ask_user');

  test('selection: inside every selection (tags, names); empty selects all; a caller tool never is', () => {
    assert.equal(isSelected(readFile), true);
    assert.equal(isSelected(readFile, { tags: ['fs'] }, { names: ['read_file'] }), true);
    assert.equal(isSelected(readFile, { tags: ['fs'] }, { names: ['write_file'] }), false, 'one selection that does not hold it is enough');
    assert.equal(isSelected(readFile, { tags: new Set(['git']) }), false);
    assert.equal(isSelected(readFile, { tags: [], names: new Set() }), true);
    assert.equal(isSelected(askUser), false);
    assert.equal(existsFor(askUser, { tags: ['git'] }), true, 'a caller tool exists for the tool system: its call is decided');
    assert.equal(existsFor(readFile, { tags: ['git'] }), false);
  });

  test('offers: selection, mode, model class and lazy domains, each on its own', () => {
    assert.equal(offers(readFile, { mode: MODES.explore }), true);
    assert.equal(offers(writeFile, { mode: MODES.explore }), false, 'a read-only mode never runs it');
    assert.equal(offers(writeFile, { mode: undefined }), false, 'an unknown mode offers nothing');
    assert.equal(offers(readFile, { mode: MODES.default, selections: [{ tags: ['git'] }] }), false);
    assert.equal(offers(fakeTool({ name: 'read_image', domain: undefined, forModel: 'vision' }), { mode: MODES.default, modelClass: 'text-only' }), false);
    const visibility = new DomainVisibility();
    assert.equal(offers(fakeTool(), { mode: MODES.default, visibility }), false, 'a domain not asked for');
    assert.equal(offers(readFile, { mode: MODES.default, visibility }), true, 'a core tool');
    assert.equal(offers(askUser, { mode: MODES.default }), false, 'caller tools are offered by their caller');
    const scoped = fakeTool({ name: 'edit', domain: undefined, readOnly: false, scopedWrite: true });
    assert.equal(isOfferedInMode(scoped, MODES.explore, ['notes']), true);
    assert.equal(isOfferedInMode(scoped, MODES.explore, ['notes'], new Set(['other'])), false, 'the executor narrowed the scoped-write tools');
  });

  test('caller tools offered: ask_user with a question handler inside its selections, subagent tools for a parent, request_tools while a domain exists', () => {
    assert.deepEqual(offeredCallerTools({}, MODES.default), []);
    assert.deepEqual(offeredCallerTools({ askUser: true, subagentDepth: 0, lazyDomains: ['git'] }, MODES.explore), ['ask_user', 'run_subagent', 'input_subagent', 'request_tools']);
    assert.deepEqual(offeredCallerTools({ subagentDepth: 1 }, MODES.default), [], 'a child drives no subagents');
    assert.deepEqual(offeredCallerTools({ lazyDomains: [] }, MODES.default), [], 'request_tools is not listed without a domain');
    assert.deepEqual(offeredCallerTools({ askUser: true }, undefined), [], 'an unknown mode offers nothing');
    assert.deepEqual(offeredCallerTools({ askUser: false }, MODES.default), [], 'askUser false (a config toolset) hides ask_user');
    assert.deepEqual(offeredCallerTools({ askUser: true, askUserSelections: [{ tags: ['fs'] }] }, MODES.default), [], 'a selection of other tags');
    assert.deepEqual(offeredCallerTools({ askUser: true, askUserSelections: [{ names: ['read_file'] }] }, MODES.default), [], 'a selection of other names');
    assert.deepEqual(offeredCallerTools({ askUser: true, askUserSelections: [{ tags: ['agent'] }, { names: ['ask_user'] }] }, MODES.default), ['ask_user']);
  });

  test('callable: an ordinary tool inside the selections; a caller tool as the offer lets it (request_tools whenever lazy domains are on)', () => {
    assert.equal(isCallable(readFile, [{ tags: ['fs'] }], {}), true);
    assert.equal(isCallable(readFile, [{ names: ['write_file'] }], {}), false);
    assert.equal(isCallable(askUser, [], { askUser: false }), false);
    assert.equal(isCallable(askUser, [], { askUser: true }), true);
    assert.equal(isCallable(askUser, [], { askUser: true, askUserSelections: [{ tags: ['fs'] }] }), false);
    assert.equal(isCallable(callerTool('request_tools'), [], { lazyDomains: [] }), true, 'answered (nothing to request) though not listed');
    assert.equal(isCallable(callerTool('request_tools'), [], {}), false);
    assert.equal(isCallable(callerTool('run_subagent'), [], { askUser: true }), false);
    assert.equal(isCallable(fakeTool({ name: 'ask_user', domain: undefined, source: 'register()' }), [{ tags: ['git'] }], { askUser: false }), true, 'a registry\'s own ask_user is an ordinary tool');
  });
});
