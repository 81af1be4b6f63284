/**
 * The build's standalone validators: every built-in schema has one, and it judges every
 * value as ajv compiling the schema at run time does, message for message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolRegistry } from '../../src/registry/registry.js';
import { loadToolFolders } from '../../src/system/tool-folders.js';
import { createLogger } from '../../src/logging/logger.js';
import { ASK_USER_TOOL } from '../../src/builtin/ask-user.js';
import { compileValidator, isPrecompiled } from '../../src/schema/validator.js';
import type { JsonSchema } from '../../src/types/tool.js';

async function builtinSchemas(): Promise<Array<{ name: string; schema: JsonSchema; subject: 'argument' | 'output' }>> {
  const registry = new ToolRegistry();
  await loadToolFolders(registry, {}, () => createLogger('silent'));
  const out: Array<{ name: string; schema: JsonSchema; subject: 'argument' | 'output' }> = [{ name: 'ask_user', schema: ASK_USER_TOOL.inputSchema, subject: 'argument' }];
  for (const tool of registry.list()) {
    out.push({ name: tool.key, schema: tool.inputSchema, subject: 'argument' });
    if (tool.outputSchema !== null) out.push({ name: `${tool.key} output`, schema: tool.outputSchema, subject: 'output' });
  }
  return out;
}

/** Values that break a schema in the usual ways: wrong type, nothing, extra and mistyped fields. */
function probes(schema: JsonSchema): unknown[] {
  const values: unknown[] = [null, 'text', 42, [], {}, { unexpected_field: true }];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const wrong = [7, 'seven', true, null, [1, 'a'], { nested: {} }, -1.5, ''];
  for (const [name, property] of Object.entries(properties)) {
    for (const value of wrong) values.push({ [name]: value });
    if (Array.isArray(property.enum)) values.push({ [name]: 'not-one-of-them' });
  }
  values.push(Object.fromEntries(Object.keys(properties).map((name, i) => [name, wrong[i % wrong.length]])));
  return values;
}

test('every built-in schema (every built-in tool and ask_user) has a standalone validator from the build', async () => {
  const schemas = await builtinSchemas();
  assert.ok(schemas.length > 58, `only ${schemas.length} schemas`);
  const missing = schemas.filter((s) => !isPrecompiled(s.schema)).map((s) => s.name);
  assert.deepEqual(missing, []);
});

test('a standalone validator answers every probe exactly as ajv compiling the schema now', async () => {
  let compared = 0;
  for (const { name, schema, subject } of await builtinSchemas()) {
    const built = compileValidator(schema, subject);
    const compiled = compileValidator(schema, subject, false);
    for (const value of probes(schema)) {
      assert.equal(built(value), compiled(value), `${name}: ${JSON.stringify(value)}`);
      compared++;
    }
  }
  assert.ok(compared > 1000, `${compared} comparisons`);
});

test('a schema the build did not see is compiled with ajv and judged the same way', () => {
  const schema: JsonSchema = { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, required: ['size'], additionalProperties: false };
  assert.equal(isPrecompiled(schema), false);
  const validate = compileValidator(schema, 'argument');
  assert.equal(validate({ size: 3 }), undefined);
  assert.match(validate({ size: 0 }) ?? '', /size/);
});
