/**
 * Output projection (issue 19 item 7) through GeneralAgent with a scripted model: what the
 * model is shown of a long output is the tool's projection (head-tail, a summary), and the
 * ledger keeps the whole output unless the tool says otherwise.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolRegistry, ToolSystem, type ToolOptions } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';

const INPUT = { type: 'object', properties: {}, additionalProperties: false };
/** 200 numbered lines, about 2,400 characters. */
const LONG = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')} of the log`).join('\n');

function addTool(registry: ToolRegistry, name: string, output: ToolOptions['output']): void {
  const target = class { run() { return LONG; } };
  const descriptor = buildToolDescriptor({ name, version: '1.0.0', kind: 'internal', readOnly: true, runner: 'main', maxOutputLength: 600, output } as ToolOptions, target);
  registry.register(descriptor, { name, version: '1.0.0', description: name, className: 'T', source: 'test', inputSchema: INPUT, outputSchema: null }, { foreignSchemas: true });
}

describe('output projection through an agent', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  before(async () => {
    const registry = new ToolRegistry();
    addTool(registry, 'log_head', undefined);
    addTool(registry, 'log_head_tail', { model: 'head-tail' });
    addTool(registry, 'log_summary', { model: (whole: string) => `${whole.split('\n').length} lines; last: ${whole.split('\n').at(-1)}` });
    addTool(registry, 'log_private', { model: 'head', trace: 'metadata', storeFull: false });
    tools = new ToolSystem({ workspace: t.ws, builtins: false, registry, executor: { ledger: { dir: `${t.root}/state`, workspace: t.ws } } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('the model sees each tool\'s projection; the ledger keeps the whole output unless told not to', async () => {
    const model = new ScriptedModel([
      toolCalls(['h', 'log_head', {}], ['ht', 'log_head_tail', {}], ['s', 'log_summary', {}], ['p', 'log_private', {}]),
      finalAnswer('done'),
    ]);
    const result = await new GeneralAgent({ tools, model }).run('read the logs');
    assert.equal(result.stopReason, 'final');
    const seen = toolMessages(model.requests[1]!);

    const head = seen.get('h')!;
    assert.ok(head.startsWith('line 000'));
    assert.ok(!head.includes('line 199'), 'the head alone');
    const headTail = seen.get('ht')!;
    assert.ok(headTail.startsWith('line 000') && headTail.includes('line 199 of the log'), 'head and tail');
    assert.match(headTail, /omitted from the middle/);
    assert.match(seen.get('s')!, /^200 lines; last: line 199 of the log/);
    assert.ok(seen.get('p')!.startsWith('line 000'));

    const ledger = tools.executor.ledger!;
    const byTool = new Map(result.results.map((r) => [r.tool, r.callId]));
    const session = async (tool: string) => (await ledger.list({})).find((c) => c.callId === byTool.get(tool))!.session;
    assert.equal((await ledger.result(byTool.get('log_head')!, await session('log_head')))?.fullOutput, LONG, 'the whole output is kept');
    assert.equal((await ledger.result(byTool.get('log_summary')!, await session('log_summary')))?.fullOutput, LONG);
    assert.notEqual((await ledger.result(byTool.get('log_private')!, await session('log_private')))?.fullOutput, LONG, 'trace: metadata, storeFull: false');
  });
});
