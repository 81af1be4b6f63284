// Regression: foreign (MCP) schemas were compiled by one shared ajv instance that kept every
// schema, so a second schema with the same `$id` failed with "schema with key or id ...
// already exists": a bridged tool vanished when its server's list_changed refresh changed
// its schema, when a second server used the same `$id`, or when a second bridge (a new
// ToolSystem in the same process) registered the same server again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolRegistry } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { compileForeignValidator } from '../../src/schema/validator.js';

const schema = (extra: Record<string, unknown> = {}) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://example.com/schemas/search-args',
  type: 'object',
  properties: { q: { type: 'string' }, ...extra },
  required: ['q'],
});

describe('foreign schemas with the same $id', () => {
  it('compile again, and each validator keeps its own schema', () => {
    const first = compileForeignValidator(schema(), 'argument');
    const second = compileForeignValidator(schema({ limit: { type: 'integer' } }), 'argument');
    assert.equal(first({ q: 'x' }), undefined);
    assert.notEqual(first({}), undefined);
    assert.equal(second({ q: 'x', limit: 3 }), undefined);
    assert.notEqual(second({ q: 'x', limit: 'three' }), undefined);
  });

  it('a proxy registered, removed and registered again with a changed schema (list_changed)', () => {
    const registry = new ToolRegistry();
    const register = (input: Record<string, unknown>) => {
      const descriptor = buildToolDescriptor({ name: 'srv__search', version: '1.0.0', kind: 'mcp_write_or_unknown', description: 'Search.', runner: 'main' }, class { run() { return ''; } });
      return registry.register(descriptor, { name: 'srv__search', version: '1.0.0', description: 'Search.', className: 'X', source: 'mcp:srv', inputSchema: input, outputSchema: null }, { foreignSchemas: true });
    };
    register(schema());
    registry.unregister('srv__search');
    const again = register(schema({ limit: { type: 'integer' } }));
    assert.equal(registry.get('srv__search'), again);
  });
});
