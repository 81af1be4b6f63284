/**
 * Output projection (issue 19 item 7): per tool, what the model sees (head, head-tail, a
 * summary function), whether the whole output is kept, and what the ledger keeps; a tool
 * without the option gets what it got before.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolDefinitionError, ToolExecutor, ToolRegistry, type OutputProjection, type ToolOptions } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { modelView, type ProjectedTool } from '../../src/closeout/projection.js';
import { tempWorkspace } from '../helpers.js';
import { HeadTailInPoolTool, SummarizedInPoolTool, SummarizedInProcessTool } from './projection-tools.js';

const LONG = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}`).join('\n');

const projected = (output: OutputProjection, extra: Partial<ProjectedTool> = {}): ProjectedTool => ({
  name: 't', maxOutputLength: 200, truncation: typeof output.model === 'string' ? output.model : 'head', output, ...extra,
});

describe('the model view', () => {
  it('head (the default) keeps the start with a note, as before', () => {
    const view = modelView(projected({}), LONG, ['[exit 0]'], false);
    assert.ok(view.output.startsWith('line 000'));
    assert.match(view.output, /\[output truncated: \d+ of \d+ characters .* limit 200 characters\]\n\[exit 0\]$/);
    assert.equal(view.partial, true);
    assert.deepEqual(modelView(projected({}), 'short', [], false), { output: 'short', partial: false });
    assert.deepEqual(modelView(projected({}), '', [], false), { output: '[no output]', partial: false });
  });

  it('head-tail keeps the start and the end', () => {
    const view = modelView(projected({ model: 'head-tail' }), LONG, [], false);
    assert.ok(view.output.startsWith('line 000'));
    assert.ok(view.output.endsWith('line 099 ' + 'x'.repeat(20)));
    assert.match(view.output, /omitted from the middle/);
    assert.equal(view.partial, true);
  });

  it('a summary function sees the whole output; its answer is shown with a note, and cut at the cap', () => {
    let seen = '';
    const view = modelView(projected({ model: (text) => { seen = text; return `${text.split('\n').length} lines, last: ${text.slice(text.lastIndexOf('\n') + 1)}`; } }), LONG, ['[exit 0]'], false);
    assert.equal(seen, LONG, 'the whole output');
    assert.equal(view.output, `100 lines, last: line 099 ${'x'.repeat(20)}\n[a summary of ${LONG.length} characters of output]\n[exit 0]`);
    assert.equal(view.partial, true);
    const long = modelView(projected({ model: (text) => text + text }), LONG, [], false);
    assert.match(long.output, /\[output truncated: .* limit 200 characters\]/);
  });

  it('a summary function that throws or answers nothing: the head and a note', () => {
    const thrown = modelView(projected({ model: () => { throw new Error('no parser'); } }), LONG, [], false);
    assert.ok(thrown.output.startsWith('line 000'));
    assert.match(thrown.output, /\[the summary of t's output failed \(no parser\); its head is shown\]/);
    const empty = modelView(projected({ model: () => '  ' }), LONG, [], false);
    assert.match(empty.output, /^\[t's summary of its output was empty\]/);
  });

  it('the @tool option is checked, and a string model is the truncation', () => {
    const target = class { run() { return ''; } };
    const build = (output: unknown) => buildToolDescriptor({ name: 'p', version: '1.0.0', kind: 'internal', readOnly: true, runner: 'main', output } as ToolOptions, target);
    assert.equal(build({ model: 'head-tail' }).truncation, 'head-tail');
    assert.equal(build({}).truncation, 'head');
    assert.throws(() => build({ model: 'middle' }), (e: unknown) => e instanceof ToolDefinitionError && /output\.model/.test(e.message));
    assert.throws(() => build({ trace: 'all' }), /output\.trace/);
    assert.throws(() => build({ storeFull: 'yes' }), /output\.storeFull/);
    assert.throws(() => build({ shown: 'head' }), /output\.shown/);
  });
});

describe('projection through the executor and its ledger', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  const INPUT = { type: 'object', properties: {}, additionalProperties: false };
  const add = (registry: ToolRegistry, name: string, output: OutputProjection | undefined) => {
    const target = class { run() { return LONG; } };
    const options: ToolOptions = { name, version: '1.0.0', kind: 'internal', readOnly: true, runner: 'main', maxOutputLength: 200 };
    if (output !== undefined) options.output = output;
    registry.register(buildToolDescriptor(options, target), { name, version: '1.0.0', description: name, className: 'T', source: 'test', inputSchema: INPUT, outputSchema: null }, { foreignSchemas: true });
  };
  before(() => {
    const registry = new ToolRegistry();
    add(registry, 'plain_long', undefined);
    add(registry, 'tail_long', { model: 'head-tail' });
    add(registry, 'summarized_long', { model: (text) => `${text.split('\n').length} lines` });
    add(registry, 'unstored_long', { storeFull: false });
    add(registry, 'untraced_long', { trace: 'metadata' });
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sweepLeftovers: false, ledger: { dir: path.join(t.root, 'state') }, session: 'projection' });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  it('no option: the model sees the head, the ledger keeps the whole output (as before)', async () => {
    const r = await executor.call('plain_long', {}, { callId: 'p1' });
    assert.equal(r.success, true);
    assert.ok(r.output.startsWith('line 000') && /output truncated/.test(r.output));
    const stored = (await executor.ledger!.result('p1', 'projection'))!;
    assert.equal(stored.fullOutput, LONG);
    assert.equal(stored.result.output, r.output);
  });

  it('head-tail: the model sees the end too', async () => {
    const r = await executor.call('tail_long', {}, { callId: 'h1' });
    assert.ok(r.output.endsWith('x'.repeat(20)) && /omitted from the middle/.test(r.output));
    assert.equal((await executor.ledger!.result('h1', 'projection'))!.fullOutput, LONG);
  });

  it('summary: the model sees the summary, the ledger keeps the whole output', async () => {
    const r = await executor.call('summarized_long', {}, { callId: 's1' });
    assert.equal(r.output, `100 lines\n[a summary of ${LONG.length} characters of output]`);
    assert.equal((await executor.ledger!.result('s1', 'projection'))!.fullOutput, LONG);
  });

  it('storeFull: false: the whole output is kept nowhere', async () => {
    const r = await executor.call('unstored_long', {}, { callId: 'u1' });
    assert.equal(r.fullOutput, undefined);
    const stored = (await executor.ledger!.result('u1', 'projection'))!;
    assert.equal(stored.fullOutput, r.output, 'the ledger has what the model saw, no more');
  });

  it('trace: metadata: the ledger keeps no text, the caller still gets the output', async () => {
    const r = await executor.call('untraced_long', {}, { callId: 'm1' });
    assert.ok(r.output.startsWith('line 000'));
    const stored = (await executor.ledger!.result('m1', 'projection'))!;
    assert.match(stored.result.output, /^\[output not kept \(trace: metadata\): \d+ characters were shown to the model\]$/);
    assert.ok(!stored.fullOutput.includes('line 000'));
    assert.equal(stored.result.outcome, 'success', 'the outcome is kept');
    assert.equal((await executor.ledger!.get('m1', 'projection'))!.state, 'done');
    assert.equal(fs.existsSync(path.join(t.root, 'state')), true);
  });
});

describe('projection in worker runners (process, pool)', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  before(() => {
    const registry = new ToolRegistry();
    for (const [target, name] of [[SummarizedInProcessTool, 'summarized_in_process'], [SummarizedInPoolTool, 'summarized_in_pool'], [HeadTailInPoolTool, 'head_tail_in_pool']] as const) {
      registry.register(target, { name, version: '1.0.0', description: name, className: target.name, source: 'test/closeout/projection-tools.ts', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, outputSchema: { type: 'string' } }, { foreignSchemas: true });
    }
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sweepLeftovers: false, outputStore: { dir: path.join(t.root, 'outputs') } });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  for (const name of ['summarized_in_process', 'summarized_in_pool']) {
    it(`${name}: the worker sends the whole output, the summary is made on the main thread, the whole output is kept`, async () => {
      const r = await executor.call(name, {});
      assert.equal(r.success, true, r.output);
      assert.equal(r.output, `100 lines\n[a summary of ${LONG.length} characters of output]`);
      assert.ok(r.fullOutput !== undefined);
      assert.equal(fs.readFileSync(r.fullOutput.path, 'utf8'), LONG);
    });
  }

  it('head-tail as output.model is cut in the worker like the truncation option', async () => {
    const r = await executor.call('head_tail_in_pool', {});
    assert.ok(r.output.startsWith('line 000') && r.output.endsWith('x'.repeat(20)) && /omitted from the middle/.test(r.output), r.output);
    assert.equal(fs.readFileSync(r.fullOutput!.path, 'utf8'), LONG);
  });
});
