/**
 * A path field declared through a named type and null (`target: WorkspacePath | null`), or
 * optional: its schema keeps `@format workspace-path`, so the gates find it and refuse a
 * path outside the workspace before the tool runs. The schema comes from `toolgate schemas`
 * over the program test/schema-programs/nullable-path.ts, registered with a `run` of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, ToolRegistry } from 'toolgate';
import { findPathArguments } from '../../src/schema/path-arguments.js';
import { assertTraversal, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { generatePrograms } from './schema-programs.js';

describe('a path field through a named type, nullable, optional or an array, is a path argument the gates check', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;

  before(async () => {
    t = tempWorkspace();
    const { file, error } = await generatePrograms(['nullable-path']);
    assert.equal(error, undefined);
    const entry = file!.tools['back_up_file@1.0.0']!;
    const registry = new ToolRegistry();
    registry.register({
      name: 'back_up_file', version: '1.0.0', kind: 'internal', readOnly: true, description: entry.description, inputSchema: entry.inputSchema,
      run: (args: { source: string; target: string | null }) => args.target ?? args.source,
    });
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor?.close();
    t.cleanup();
  });

  it('finds every path field, the named nullable one included', () => {
    const tool = executor.registry.get('back_up_file')!;
    assert.deepEqual(findPathArguments(tool.inputSchema).map((a) => a.name).sort(), ['batch', 'extra', 'more', 'named', 'namedOrNull', 'source', 'target']);
  });

  it('refuses a path outside the workspace in the named nullable field before the tool runs, and takes null', async () => {
    const base = { source: 'a.txt', target: null, named: 'n.txt', batch: [] as string[] };
    await assertTraversal(executor.execute({ name: 'back_up_file', arguments: { ...base, namedOrNull: '../outside/sentinel.txt' } }), 'namedOrNull');
    await assertTraversal(executor.execute({ name: 'back_up_file', arguments: { ...base, namedOrNull: null, batch: ['ok.txt', '../outside/sentinel.txt'] } }), 'batch');
    const ok = await executor.execute({ name: 'back_up_file', arguments: { ...base, namedOrNull: null } });
    assert.equal(ok.success, true, ok.output);
    assert.equal(ok.output, 'a.txt');
  });

  it('keeps the named type\'s bounds on a nullable number field', async () => {
    const refused = await executor.execute({ name: 'back_up_file', arguments: { source: 'a.txt', target: null, named: 'n.txt', namedOrNull: null, batch: [], keep: 101 } });
    assert.equal(refused.errorCode, 'INVALID_ARGUMENTS');
    assert.match(refused.output, /keep/);
  });
});
