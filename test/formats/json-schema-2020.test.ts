/**
 * JSON Schema draft-07 to 2020-12 for MCP `tools/list` (issue 18): tuple forms, definitions and
 * dependencies converted, `$schema` set, and the converted schema accepting exactly what the
 * draft-07 original accepts (checked with ajv's draft-07 and 2020-12 dialects side by side).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { JSON_SCHEMA_2020_12, toJsonSchema2020 } from '../../src/formats/json-schema-2020.js';

const draft07 = {
  type: 'object',
  properties: {
    pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
    head: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'boolean' } },
    open: { type: 'array', items: [{ type: 'string' }] },
    list: { type: 'array', items: { type: 'integer' } },
    node: { $ref: '#/definitions/node' },
    // A property called like a keyword stays a property.
    definitions: { type: 'string' },
    items: { type: 'string' },
  },
  dependencies: { a: ['b'], c: { required: ['d'] } },
  definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' }, tags: { type: 'array', items: [{ const: 'x' }] } } } },
  additionalProperties: true,
};

describe('toJsonSchema2020', () => {
  test('converts tuple items, additionalItems, definitions, $ref and dependencies, and says 2020-12', () => {
    const out = toJsonSchema2020(draft07) as Record<string, any>;
    assert.equal(out.$schema, JSON_SCHEMA_2020_12);
    assert.deepEqual(out.properties.pair, { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    assert.deepEqual(out.properties.head, { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } });
    assert.deepEqual(out.properties.open, { type: 'array', prefixItems: [{ type: 'string' }] });
    assert.deepEqual(out.properties.list, { type: 'array', items: { type: 'integer' } });
    assert.equal(out.properties.node.$ref, '#/$defs/node');
    assert.deepEqual(out.properties.definitions, { type: 'string' });
    assert.deepEqual(out.properties.items, { type: 'string' });
    assert.equal(out.definitions, undefined);
    assert.equal(out.$defs.node.properties.next.$ref, '#/$defs/node');
    assert.deepEqual(out.$defs.node.properties.tags, { type: 'array', prefixItems: [{ const: 'x' }] });
    assert.deepEqual(out.dependentRequired, { a: ['b'] });
    assert.deepEqual(out.dependentSchemas, { c: { required: ['d'] } });
    assert.equal(out.dependencies, undefined);
    assert.equal((draft07 as Record<string, any>).properties.pair.items.length, 2, 'the argument is not changed');
  });

  test('a schema that names 2020-12 (or 2019-09) is kept as it is', () => {
    const given = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }] } } };
    assert.equal(toJsonSchema2020(given), given);
  });

  test('the converted schema accepts and refuses what the draft-07 original does', () => {
    const old = new Ajv({ strict: false }).compile(draft07);
    const now = new Ajv2020({ strict: false }).compile(toJsonSchema2020(draft07));
    const values: unknown[] = [
      {}, { pair: ['a', 1] }, { pair: ['a', 1, 2] }, { pair: [1, 'a'] }, { head: ['a', true, false] }, { head: ['a', 'b'] },
      { open: ['a', 1, null] }, { open: [1] }, { list: [1, 2] }, { list: [1.5] }, { node: { next: { tags: ['x', 'y'] } } },
      { node: { next: { tags: ['y'] } } }, { a: 1 }, { a: 1, b: 2 }, { c: 1 }, { c: 1, d: 2 }, { definitions: 'x', items: 'y' }, { items: 3 },
    ];
    for (const value of values) assert.equal(now(value), old(value), JSON.stringify(value));
  });
});
