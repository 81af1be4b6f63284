/**
 * Tool manifests (`src/registry/manifest.ts`): a folder registered from a fresh manifest
 * imports none of its modules until a tool's first call, a stale one is detected and its
 * folder imported instead, a manifest that lies about a tool is caught when its class loads,
 * and arguments are still validated (ajv compiling on first use).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadTools, ToolDefinitionError, ToolExecutor } from 'toolgate';
import { MANIFEST_FILE, readManifest, writeManifest } from '../../src/registry/manifest.js';
import { REPO_ROOT, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { writeMarkerTool, type MarkerTool } from './marker-tool.js';

describe('tool manifests', () => {
  let t: TempWorkspace;
  let folder: MarkerTool;

  before(async () => {
    t = tempWorkspace();
    folder = writeMarkerTool(t.root);
    const written = await writeManifest(folder.dir);
    assert.equal(written.tools, 1);
    // Making the manifest imported the module: start counting from here.
    fs.writeFileSync(folder.marker, '');
  });
  after(() => t.cleanup());

  it('registers a folder from a fresh manifest without importing its modules', async () => {
    assert.equal(readManifest(folder.dir).kind, 'fresh');
    const { registry, loaded, staleManifests } = await loadTools({ directories: [folder.dir], schemas: folder.schemas });
    assert.deepEqual(loaded.map((tool) => tool.key), ['echo_mark@1.0.0']);
    assert.deepEqual(staleManifests, []);
    const tool = registry.get('echo_mark')!;
    assert.equal(tool.kind, 'internal');
    assert.equal(tool.readOnly, true);
    assert.equal(tool.runner, 'main');
    assert.equal(tool.target, undefined, 'the class is not loaded yet');
    assert.equal(fs.readFileSync(folder.marker, 'utf8'), '', 'the module did not run');
  });

  it('validates arguments of a manifest tool (ajv compiles on first use) before its module loads', async () => {
    const { registry } = await loadTools({ directories: [folder.dir], schemas: folder.schemas });
    const tool = registry.get('echo_mark')!;
    assert.match(tool.validateInput({}) ?? '', /missing required argument 'text'/);
    assert.match(tool.validateInput({ text: 7 }) ?? '', /argument 'text' must be string/);
    assert.match(tool.validateInput({ text: 'a', extra: 1 }) ?? '', /unknown argument 'extra'/);
    assert.equal(tool.validateInput({ text: 'a' }), undefined);
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sweepLeftovers: false });
    try {
      const bad = await executor.execute({ name: 'echo_mark', arguments: { text: 42 } });
      assert.equal(bad.success, false);
      assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
      assert.equal(fs.readFileSync(folder.marker, 'utf8'), '', 'a refused call loads no module');
    } finally {
      await executor.close();
    }
  });

  it("loads the tool's class on its first call, and the call works", async () => {
    const { registry } = await loadTools({ directories: [folder.dir], schemas: folder.schemas });
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sweepLeftovers: false });
    try {
      const first = await executor.execute({ name: 'echo_mark', arguments: { text: 'one' } });
      assert.equal(first.success, true, first.error);
      assert.equal(first.output, 'echo one');
      const second = await executor.execute({ name: 'echo_mark', arguments: { text: 'two' } });
      assert.equal(second.output, 'echo two');
      // (This process imported the module when it made the manifest, so the marker cannot count
      // the import here; test/cli/fast-start.test.ts counts it in a fresh process.)
      assert.equal(registry.get('echo_mark')!.target?.name, 'EchoMarkTool');
    } finally {
      await executor.close();
    }
  });

  it('a manifest whose descriptor is not what the module declares fails the call with a stale-manifest error', async () => {
    const copy = path.join(t.root, 'lying');
    fs.cpSync(folder.dir, copy, { recursive: true });
    const file = path.join(copy, MANIFEST_FILE);
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    manifest.tools[0].descriptor.timeoutMs = 12345;
    fs.writeFileSync(file, JSON.stringify(manifest));
    const { registry } = await loadTools({ directories: [copy], schemas: folder.schemas });
    assert.equal(registry.get('echo_mark')!.timeoutMs, 12345);
    await assert.rejects(registry.get('echo_mark')!.load(), (error: unknown) => error instanceof ToolDefinitionError && /manifest is stale/.test(error.message));
  });

  it('a changed, added or removed module makes the manifest stale, and the folder is imported instead', async () => {
    const copy = path.join(t.root, 'stale');
    fs.cpSync(folder.dir, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, 'echo-mark.tool.mjs'), '\n// edited after the build\n');
    const stale = readManifest(copy);
    assert.equal(stale.kind, 'stale');
    assert.match(stale.kind === 'stale' ? stale.reason : '', /echo-mark\.tool\.mjs changed/);
    fs.writeFileSync(folder.marker, '');
    const { registry, staleManifests } = await loadTools({ directories: [copy], schemas: folder.schemas });
    assert.equal(staleManifests.length, 1);
    assert.equal(staleManifests[0]!.file, path.join(copy, MANIFEST_FILE));
    assert.notEqual(registry.get('echo_mark')!.target, undefined, 'registered from the imported module');
    assert.equal(fs.readFileSync(folder.marker, 'utf8').split('\n').filter(Boolean).length, 1);

    fs.writeFileSync(path.join(copy, 'helper.js'), 'export const x = 1;\n');
    assert.match((readManifest(copy) as { reason: string }).reason, /echo-mark|helper\.js is not in it/);
    const removed = path.join(t.root, 'removed');
    fs.cpSync(folder.dir, removed, { recursive: true });
    fs.rmSync(path.join(removed, 'echo-mark.tool.mjs'));
    assert.match((readManifest(removed) as { reason: string }).reason, /echo-mark\.tool\.mjs is gone/);
    fs.writeFileSync(path.join(removed, MANIFEST_FILE), '{"format":"something else"}');
    assert.equal(readManifest(removed).kind, 'stale');
  });

  it('the build wrote fresh manifests for the builtin and ported tools', () => {
    for (const folder of ['dist/tools', 'dist/tools-ported']) {
      const found = readManifest(path.join(REPO_ROOT, folder));
      assert.equal(found.kind, 'fresh', `${folder}: ${found.kind === 'stale' ? found.reason : found.kind}`);
    }
  });
});
