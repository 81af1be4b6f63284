/**
 * ToolExecutor.preview: what the gates would decide about a call, without running it or
 * recording anything (what the adapters' needsApproval asks).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('ToolExecutor.preview', () => {
  let tmp: TempWorkspace;
  let executor: ToolExecutor;
  let registry: ToolRegistry;

  before(async () => {
    tmp = tempWorkspace();
    registry = await fixtureRegistry();
    executor = new ToolExecutor(registry, {
      workspaceRoot: tmp.ws, sweepLeftovers: false,
      policyHook: (call) => (call.tool === 'fail_always' ? 'fail_always is vetoed' : undefined),
    });
  });

  after(async () => {
    await executor.close();
    tmp.cleanup();
  });

  it('says allow for a call nothing objects to, without running it', async () => {
    const before = await executor.execute({ name: 'count_calls', arguments: {} });
    assert.deepEqual(await executor.preview({ name: 'count_calls', arguments: {} }), { verdict: 'allow', decisions: [], revision: registry.get('count_calls')!.revision });
    const next = await executor.execute({ name: 'count_calls', arguments: {} });
    assert.equal(Number(next.output), Number(before.output) + 1, 'the preview did not run the tool');
  });

  it('says ask for a call that needs a person, and nobody is asked', async () => {
    let asked = 0;
    const preview = await executor.preview({ name: 'confirm_action', arguments: { value: 'x' } }, { confirmationHandler: () => (asked++, true) });
    assert.equal(preview.verdict, 'ask');
    assert.equal(asked, 0);
    assert.equal((await executor.preview({ name: 'confirm_action', arguments: {} }, { confirm: true })).verdict, 'allow');
  });

  it('says deny with the code and reason of a refusal or of a call that cannot run', async () => {
    const vetoed = await executor.preview({ name: 'fail_always', arguments: { message: 'm' } });
    assert.equal(vetoed.verdict, 'deny');
    assert.equal(vetoed.code, 'POLICY_DENIED');
    assert.match(vetoed.reason!, /vetoed/);
    assert.equal((await executor.preview({ name: 'no_such_tool', arguments: {} })).code, 'UNKNOWN_TOOL');
    assert.equal((await executor.preview({ name: 'fail_always', arguments: {} })).code, 'INVALID_ARGUMENTS');
    const escape = await executor.preview({ name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' } });
    assert.deepEqual([escape.verdict, escape.code], ['deny', 'PATH_TRAVERSAL']);
    assert.equal((await executor.preview({ name: 'confirm_action', arguments: {} }, { mode: 'explore' })).code, 'MODE_DENIED');
  });

  it('gives the revision it was asked about; an approved call for another revision is answered TOOL_REPLACED and not run', async () => {
    const ran: string[] = [];
    const define = (which: string) => registry.register({
      name: 'tag_release', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, description: `Tag a release (${which}).`,
      inputSchema: { type: 'object', properties: {} },
      run: () => (ran.push(which), which),
    });
    const old = define('old');
    const asked = await executor.preview({ name: 'tag_release', arguments: {} });
    assert.deepEqual([asked.verdict, asked.revision], ['ask', old.revision]);
    define('new');
    const replaced = await executor.execute({ name: 'tag_release', arguments: {} }, { confirm: true, approvedRevision: asked.revision });
    assert.equal(replaced.errorCode, 'TOOL_REPLACED', replaced.output);
    assert.deepEqual(ran, []);
    const current = await executor.preview({ name: 'tag_release', arguments: {} });
    const ok = await executor.execute({ name: 'tag_release', arguments: {} }, { confirm: true, approvedRevision: current.revision });
    assert.equal(ok.success, true, ok.output);
    assert.deepEqual(ran, ['new']);
  });
});
