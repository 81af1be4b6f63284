/**
 * Every schema program (test/schema-programs/*.ts) through `toolgate schemas`: the accepted
 * ones generate what their `<name>.expected.json` says, compile in ajv, accept the values
 * the program declares valid (typed by TypeScript against the same argument type) and refuse
 * the invalid ones, and export to every format; OpenAI strict exports pass the OpenAI SDK's
 * own strict-schema check. The refused ones fail with the committed message, which names the
 * construct and the way around it. `npm run schema-programs` rewrites the expectations.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { EXPORT_FORMATS, exportTool } from '../../src/formats/export.js';
import type { McpTool } from '../../src/formats/mcp.js';
import type { OpenAITool } from '../../src/formats/openai.js';
import type { SchemaFile } from '../../src/schema/schema-file.js';
import { checkSchema, compileForeignValidator, compileValidator } from '../../src/schema/validator.js';
import { REPO_ROOT } from '../helpers.js';
import { generatePrograms, PROGRAMS_DIR, programNames, readExpectation, type ProgramExpectation } from './schema-programs.js';

const names = programNames();
const expectations = new Map<string, ProgramExpectation>(names.map((n) => [n, readExpectation(n)]));
const accepted = names.filter((n) => expectations.get(n)!.error === undefined);
const refused = names.filter((n) => expectations.get(n)!.error !== undefined);

/** The example values a program declares (`valid` is typed by the program's own argument type). */
async function examples(name: string): Promise<{ valid: unknown[]; invalid: unknown[] }> {
  const module = (await import(new URL(`../schema-programs/${name}.js`, import.meta.url).href)) as { valid?: unknown[]; validJson?: unknown[]; invalid?: unknown[] };
  return { valid: module.validJson ?? module.valid ?? [], invalid: module.invalid ?? [] };
}

describe('schema programs: what TypeScript users write, through toolgate schemas', () => {
  it('covers about forty programs, some refused on purpose', () => {
    assert.ok(names.length >= 38, `${names.length} programs`);
    assert.ok(refused.length >= 4 && accepted.length >= 30);
  });

  describe('accepted programs (one toolgate schemas run for all of them)', () => {
    let file: SchemaFile;
    before(async () => {
      const outcome = await generatePrograms(accepted);
      assert.equal(outcome.error, undefined);
      file = outcome.file!;
    });

    for (const name of accepted) {
      it(`${name}: generates what is expected, compiles, validates its examples, exports to every format`, async () => {
        const expected = expectations.get(name)!;
        const entries = Object.fromEntries(Object.entries(file.tools).filter(([, e]) => e.source === `${PROGRAMS_DIR}/${name}.ts`));
        assert.deepEqual(entries, expected.tools, 'generated entries (run `npm run schema-programs` to update on purpose)');
        const text = JSON.stringify(entries);
        assert.ok(!text.includes('import(') && !text.includes(REPO_ROOT), 'no module path in any schema');
        const { valid, invalid } = await examples(name);
        for (const [key, entry] of Object.entries(entries)) {
          assert.equal(checkSchema(entry.inputSchema), undefined, `${key} input schema`);
          if (entry.outputSchema) assert.equal(checkSchema(entry.outputSchema), undefined, `${key} output schema`);
          const validate = compileValidator(entry.inputSchema, 'argument');
          for (const value of valid) assert.equal(validate(value), undefined, `${JSON.stringify(value)} is valid`);
          for (const value of invalid) assert.match(validate(value) ?? '', /./, `${JSON.stringify(value)} is invalid`);

          const tool = { ...entry, readOnly: true, kind: 'internal' as const, tags: [] };
          for (const format of EXPORT_FORMATS) assert.ok(exportTool(tool, format), format);
          // MCP: JSON Schema 2020-12, which the export declares in $schema.
          const mcp = exportTool(tool, 'mcp') as McpTool;
          const validate2020 = compileForeignValidator(mcp.inputSchema, 'argument');
          for (const value of valid) assert.equal(validate2020(value), undefined, `MCP: ${JSON.stringify(value)} is valid`);
          for (const value of invalid) assert.match(validate2020(value) ?? '', /./, `MCP: ${JSON.stringify(value)} is invalid`);
          // OpenAI strict where OpenAI's rules allow it; the SDK's own check agrees.
          const strict = (exportTool(tool, 'openai-strict') as OpenAITool).function;
          assert.equal(strict.strict, expected.openaiStrict![key], `${key}: strict export`);
          if (strict.strict) {
            assert.doesNotThrow(() => toStrictJsonSchema(structuredClone(strict.parameters) as Parameters<typeof toStrictJsonSchema>[0]));
            assert.equal(checkSchema(strict.parameters), undefined, 'the strict schema is a valid schema too');
          }
          // A fallback (strict: false) is recorded in the expectation: open maps, tuples and
          // untyped values (which the SDK lets through but the API's subset does not type).
        }
      });
    }
  });

  for (const name of refused) {
    it(`${name}: refused with a message naming the construct and the way around it`, async () => {
      const outcome = await generatePrograms([name]);
      assert.equal(outcome.error, expectations.get(name)!.error);
    });
  }
});
