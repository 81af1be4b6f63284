/**
 * Tools by model class: `forModel` from the decorator through the build's tool manifest into
 * the registry; `isOfferedToModel` (the visibility decider); a scripted model through
 * GeneralAgent offered describe_image and not read_image when text-only, the reverse when
 * vision (and by default); the ToolSystem's exports (OpenAI, Anthropic, MCP) by model class.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, MODEL_CLASSES, OpenAIChatModel, ToolDefinitionError, ToolSystem, type ModelClass } from 'toolgate';
import { isModelClass } from '../../src/types/model-class.js';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { MANIFEST_FILE, readManifest } from '../../src/registry/manifest.js';
import { isOfferedToModel } from '../../src/decisions/visibility.decider.js';
import type { OpenAIAssistantMessage } from '../../src/formats/openai.js';
import { REPO_ROOT, tempWorkspace } from '../helpers.js';
import { offeredTools as offered, ScriptedModel } from './scripted-model.js';

/** A chat model that answers from a script and keeps every request it was sent. */

describe('forModel from the decorator to the registry', () => {
  it('the decorator checks forModel and keeps it only when given', () => {
    class Plain {
      run(): string {
        return '';
      }
    }
    const vision = buildToolDescriptor({ name: 'look', version: '1.0.0', kind: 'internal', readOnly: true, forModel: 'vision' }, Plain);
    assert.equal(vision.forModel, 'vision');
    const any = buildToolDescriptor({ name: 'any_model', version: '1.0.0', kind: 'internal', readOnly: true }, Plain);
    assert.ok(!('forModel' in any), 'no forModel key: the manifests of other tools do not change');
    assert.throws(
      () => buildToolDescriptor({ name: 'hear', version: '1.0.0', kind: 'internal', readOnly: true, forModel: 'audio' as ModelClass }, Plain),
      (e: unknown) => e instanceof ToolDefinitionError && /forModel.*"vision", "text-only"/.test(e.message),
    );
    assert.deepEqual(MODEL_CLASSES, ['vision', 'text-only']);
    assert.equal(isModelClass('text-only'), true);
    assert.equal(isModelClass('image'), false);
  });

  it('the build writes forModel into the ported tools\' manifest, and the registry reads it from there', async () => {
    const dir = path.join(REPO_ROOT, 'dist/tools-ported');
    const read = readManifest(dir);
    assert.equal(read.kind, 'fresh', JSON.stringify(read));
    const raw = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as { tools: Array<{ descriptor: { name: string; forModel?: string } }> };
    const byName = new Map(raw.tools.map((t) => [t.descriptor.name, t.descriptor]));
    assert.equal(byName.get('read_image')?.forModel, 'vision');
    assert.equal(byName.get('describe_image')?.forModel, 'text-only');
    assert.ok(!('forModel' in byName.get('image_info')!));
    const t = tempWorkspace();
    const tools = new ToolSystem({ workspace: t.ws });
    try {
      await tools.start();
      const describeImage = tools.registry.get('describe_image')!;
      assert.equal(describeImage.forModel, 'text-only');
      assert.equal(describeImage.target, undefined, 'registered from the manifest, not imported');
      assert.equal(tools.registry.get('read_image')!.forModel, 'vision');
      assert.equal(tools.registry.get('read_file')!.forModel, undefined);
    } finally {
      await tools.close();
      t.cleanup();
    }
  });

  it('isOfferedToModel: a tool of a class goes to that class only; a tool without one, and any tool when no class is given, to all', () => {
    for (const modelClass of [undefined, 'vision', 'text-only'] as const) {
      assert.equal(isOfferedToModel({ forModel: undefined }, modelClass), true);
    }
    assert.equal(isOfferedToModel({ forModel: 'vision' }, 'vision'), true);
    assert.equal(isOfferedToModel({ forModel: 'vision' }, 'text-only'), false);
    assert.equal(isOfferedToModel({ forModel: 'text-only' }, 'vision'), false);
    assert.equal(isOfferedToModel({ forModel: 'text-only' }, undefined), true);
  });
});

describe('agents and exports by model class', () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  // No vision model configured, before any tool process starts (they copy the environment).
  const visionEnv = ['TOOLGATE_VISION_BASE_URL', 'TOOLGATE_VISION_API_KEY', 'OPENAI_API_KEY'] as const;
  const saved = Object.fromEntries(visionEnv.map((name) => [name, process.env[name]]));
  before(async () => {
    for (const name of visionEnv) delete process.env[name];
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'alpha\n');
    tools = new ToolSystem({ workspace: t.ws });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
    for (const name of visionEnv) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('a text-only model through GeneralAgent is offered describe_image and not read_image, and its call to it runs', async () => {
    fs.writeFileSync(path.join(t.ws, 'pic.png'), Buffer.from('not really a png'));
    const model = new ScriptedModel([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'describe_image', arguments: '{"source":"pic.png"}' } }] },
      { role: 'assistant', content: 'No vision model here.' },
    ]);
    const agent = new GeneralAgent({ tools, model, modelClass: 'text-only' });
    assert.equal(agent.modelClass, 'text-only');
    const run = await agent.run('What is in pic.png?');
    assert.equal(run.stopReason, 'final');
    const names = offered(model.requests[0]);
    assert.ok(names.includes('describe_image'), names.join(','));
    assert.ok(!names.includes('read_image'), names.join(','));
    assert.ok(names.includes('read_file') && names.includes('image_info'), 'tools without forModel are offered to every model');
    assert.deepEqual(offered(model.requests[1]), names, 'the same tools every round');
    assert.equal(run.results.length, 1);
    assert.equal(run.results[0]!.success, true, run.results[0]!.output);
    assert.match(run.results[0]!.output, /^describe_image unavailable: no vision model is configured/);
  });

  it('a vision model is offered read_image and not describe_image; vision is the default, and the model\'s own class counts', async () => {
    const vision = new ScriptedModel([{ role: 'assistant', content: 'ok' }]);
    await new GeneralAgent({ tools, model: vision, modelClass: 'vision' }).run('look');
    const names = offered(vision.requests[0]);
    assert.ok(names.includes('read_image') && !names.includes('describe_image'), names.join(','));

    const unsaid = new ScriptedModel([{ role: 'assistant', content: 'ok' }]);
    const byDefault = new GeneralAgent({ tools, model: unsaid });
    assert.equal(byDefault.modelClass, 'vision');
    await byDefault.run('look');
    assert.deepEqual(offered(unsaid.requests[0]), names);

    const textModel = new ScriptedModel([{ role: 'assistant', content: 'ok' }], 'text-only');
    const fromModel = new GeneralAgent({ tools, model: textModel });
    assert.equal(fromModel.modelClass, 'text-only');
    await fromModel.run('look');
    assert.ok(offered(textModel.requests[0]).includes('describe_image') && !offered(textModel.requests[0]).includes('read_image'));
    assert.equal(new GeneralAgent({ tools, model: textModel, modelClass: 'vision' }).modelClass, 'vision', 'the agent option wins over the model');
    assert.equal(new OpenAIChatModel({ model: 'local', baseURL: 'http://127.0.0.1:9/v1', modelClass: 'text-only' }).modelClass, 'text-only');
    assert.throws(() => new GeneralAgent({ tools, model: unsaid, modelClass: 'smell' as ModelClass }), /modelClass/);
  });

  it('a subagent keeps its parent\'s model class on the parent\'s model, and takes its own model\'s class (else the parent\'s) on another', async () => {
    const runSubagent = (id: string, args: Record<string, unknown>): OpenAIAssistantMessage =>
      ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'run_subagent', arguments: JSON.stringify(args) } }] });
    // The parent's model (no class of its own: the agent says text-only) also serves the first child.
    const parentModel = new ScriptedModel([
      runSubagent('s1', { prompt: 'Same model.' }),
      { role: 'assistant', content: 'child on the parent model done' },
      runSubagent('s2', { prompt: 'Vision model.', model_id: 'v' }),
      runSubagent('s3', { prompt: 'Unsaid model.', model_id: 'u' }),
      { role: 'assistant', content: 'done' },
    ]);
    const visionModel = new ScriptedModel([{ role: 'assistant', content: 'ok' }], 'vision');
    const unsaidModel = new ScriptedModel([{ role: 'assistant', content: 'ok' }]);
    const agent = new GeneralAgent({ tools, model: parentModel, modelClass: 'text-only', subagents: { models: { v: visionModel, u: unsaidModel } } });
    const run = await agent.run('Delegate.');
    assert.equal(run.stopReason, 'final');
    assert.ok(run.results.every((r) => r.success), run.results.map((r) => r.output).join('\n'));
    const childRequest = parentModel.requests.find((r) => r.messages.some((m) => m.role === 'user' && m.content === 'Same model.'));
    const same = offered(childRequest);
    assert.ok(same.includes('describe_image') && !same.includes('read_image'), `the child on the text-only parent's model: ${same.join(',')}`);
    const vision = offered(visionModel.requests[0]);
    assert.ok(vision.includes('read_image') && !vision.includes('describe_image'), `the child on a vision model: ${vision.join(',')}`);
    const unsaid = offered(unsaidModel.requests[0]);
    assert.ok(unsaid.includes('describe_image') && !unsaid.includes('read_image'), `the child on a model without a class: ${unsaid.join(',')}`);
  });

  it('exports for OpenAI, Anthropic and MCP take the model class; without one every tool is exported', () => {
    const names = (specs: unknown[]): string[] => specs.map((s) => (s as { name?: string; function?: { name: string } }).function?.name ?? (s as { name: string }).name);
    for (const format of ['openai', 'openai-strict', 'anthropic', 'mcp'] as const) {
      const text = names(tools.toolSpecs(format as 'openai', { modelClass: 'text-only' }));
      const vision = names(tools.toolSpecs(format as 'openai', { modelClass: 'vision' }));
      const all = names(tools.toolSpecs(format as 'openai'));
      assert.ok(text.includes('describe_image') && !text.includes('read_image'), `${format}: ${text.join(',')}`);
      assert.ok(vision.includes('read_image') && !vision.includes('describe_image'), `${format}: ${vision.join(',')}`);
      assert.ok(all.includes('read_image') && all.includes('describe_image'), format);
      assert.equal(text.length, vision.length, `${format}: one image tool swapped for the other`);
      assert.equal(all.length, text.length + 1, format);
    }
    assert.deepEqual(tools.tools({ modelClass: 'text-only', mode: 'explore' }).filter((tool) => tool.tags.includes('image')).map((tool) => tool.name).sort(), ['describe_image', 'image_info']);
  });
});
