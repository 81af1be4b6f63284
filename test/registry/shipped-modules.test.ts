/**
 * Which tool modules `toolgate call` may import before a call is decided: only the ones
 * toolgate ships (their top-level code has no effects), never a user's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isShippedModule } from '../../src/registry/loader.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { loadToolFolders } from '../../src/system/tool-folders.js';
import { createLogger } from '../../src/logging/logger.js';
import { fixtureRegistry } from '../helpers.js';

test('the shipped tools are shipped modules; a user folder\'s tools and module-less tools are not', async () => {
  const registry = new ToolRegistry();
  await loadToolFolders(registry, {}, () => createLogger('silent'));
  const shipped = registry.list();
  assert.ok(shipped.length > 50);
  assert.deepEqual(shipped.filter((t) => !isShippedModule(t.moduleUrl)).map((t) => t.key), []);
  // The fixture registry holds the builtins too; its own tools come from dist/test/fixtures.
  const user = (await fixtureRegistry()).list().filter((t) => t.moduleUrl?.includes('/test/fixtures/'));
  assert.ok(user.length > 0);
  assert.deepEqual(user.filter((t) => isShippedModule(t.moduleUrl)).map((t) => t.key), []);
  assert.equal(isShippedModule(undefined), false);
  assert.equal(isShippedModule('file:///tmp/tools/evil.tool.js'), false);
});
