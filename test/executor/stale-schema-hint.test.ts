/**
 * (s21 new-user trial) A user's tool whose types gained a property, with its schema file not
 * regenerated, refused the new argument with "unknown argument 'skipBlank'; allowed: ..." and
 * no word of the schema file. An unknown argument of a tool loaded from a generated schema file
 * now names that file and `toolgate schemas`; toolgate's own tools and schemas given as objects
 * get no such hint (there is no file of the user's to regenerate).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadTools, ToolExecutor, ToolRegistry } from 'toolgate';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('an unknown argument of a tool from a generated schema file names the file', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  let executor: ToolExecutor;
  before(async () => {
    tmp = tempWorkspace();
    executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws, outputStore: false });
  });
  after(async () => {
    await executor?.close();
    tmp?.cleanup();
  });

  test("a user's tool: the hint names the schema file and `toolgate schemas`", async () => {
    const r = await executor.execute({ name: 'greet', version: '1.0.0', arguments: { who: 'a', skipBlank: true } });
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS');
    assert.match(r.error!, /unknown argument 'skipBlank'; allowed: who/);
    assert.ok(r.error!.includes(`greet's JSON Schema comes from the generated schema file ${FIXTURE_SCHEMAS}; if the tool's types changed since, run \`toolgate schemas\` to regenerate it`), r.error);
    // Another kind of problem is not about a stale file.
    const wrongType = await executor.execute({ name: 'greet', version: '1.0.0', arguments: { who: 42 } });
    assert.equal(wrongType.errorCode, 'INVALID_ARGUMENTS');
    assert.equal(wrongType.error!.includes('toolgate schemas'), false, wrongType.error);
  });

  test("toolgate's own tools get no hint", async () => {
    const r = await executor.execute({ name: 'read_file', arguments: { filepath: 'a.txt', skipBlank: true } });
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS');
    assert.match(r.error!, /unknown argument 'skipBlank'/);
    assert.equal(r.error!.includes('toolgate schemas'), false, r.error);
  });

  test('schemas given as an object: no file to name', async () => {
    const registry = new ToolRegistry();
    await loadTools({ directories: [FIXTURES_DIR], schemas: JSON.parse(fs.readFileSync(FIXTURE_SCHEMAS, 'utf8')), registry });
    const own = new ToolExecutor(registry, { workspaceRoot: tmp.ws, outputStore: false });
    try {
      const r = await own.execute({ name: 'greet', version: '1.0.0', arguments: { who: 'a', skipBlank: true } });
      assert.equal(r.errorCode, 'INVALID_ARGUMENTS');
      assert.equal(r.error!.includes('toolgate schemas'), false, r.error);
    } finally {
      await own.close();
    }
  });
});
