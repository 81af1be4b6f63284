import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { type JsonSchema } from 'toolgate';
import { readSchemaFile } from '../../src/schema/schema-file.js';
import { checkSchema } from '../../src/schema/validator.js';
import { generateSchemas, writeOrCheckSchemaFile } from '../../src/schema-gen/generate.js';
import { REPO_ROOT } from '../helpers.js';

describe('schema generation from TypeScript types (T2)', async () => {
  const generated = await generateSchemas({ cwd: REPO_ROOT, patterns: ['test/fixtures/**/*.ts'] });
  const sink = generated.tools['echo_arguments@1.0.0']!;
  const props = sink.inputSchema.properties as Record<string, JsonSchema>;

  it('the committed fixture schema file is what the generator produces', () => {
    assert.deepEqual(readSchemaFile(path.join(REPO_ROOT, 'test/fixtures/tool-schemas.json')).tools, generated.tools);
  });

  it('takes the description from the class TSDoc and argument docs from field TSDoc', () => {
    assert.equal(sink.description, 'Echo back every argument; a fixture that exercises every schema shape.');
    assert.equal(props.text!.description, 'A required string.');
    assert.deepEqual(sink.inputSchema.required, ['text']);
    assert.equal(sink.inputSchema.additionalProperties, false);
  });

  it('keeps bounds, defaults, integers, unions, literal unions, enums, nested objects and arrays of objects', () => {
    assert.deepEqual(props.count, { description: 'An optional integer with bounds and a default.', type: 'integer', minimum: 1, maximum: 100, default: 10 });
    assert.deepEqual(props.either!.type, ['string', 'number']);
    assert.deepEqual([...(props.size!.enum as string[])].sort(), ['large', 'medium', 'small']);
    assert.deepEqual([...(props.colour!.enum as string[])].sort(), ['green', 'red']);
    assert.equal(props.origin!.additionalProperties, false);
    assert.deepEqual(props.origin!.required, ['x', 'y']);
    assert.equal((props.points!.items as JsonSchema).type, 'object');
    assert.equal(props.target!.format, 'workspace-path');
  });

  it('Record<string, string> keeps its value type (typescript-json-schema alone loses it)', () => {
    assert.deepEqual(props.env!.additionalProperties, { type: 'string' });
    assert.deepEqual(props.weights!.additionalProperties, { type: 'number' });
    const validate = new Ajv({ strict: false, formats: { 'workspace-path': true } }).compile(sink.inputSchema);
    assert.equal(validate({ text: 'a', env: { A: 'x' } }), true);
    assert.equal(validate({ text: 'a', env: { A: 1 } }), false, '{"A": 1} must not pass a Record<string, string>');
  });

  it('unwraps Promise for the output schema, and closes empty inputs', () => {
    assert.equal(sink.outputSchema?.type, 'object');
    assert.deepEqual((sink.outputSchema?.properties as Record<string, JsonSchema>).keys, { description: 'Number of keys received.', type: 'number' });
    assert.deepEqual(generated.tools['return_nothing@1.0.0']!.inputSchema, { type: 'object', additionalProperties: false, properties: {} });
    assert.deepEqual(generated.tools['sleep_then_answer@1.0.0']!.outputSchema, { type: 'string' });
  });

  it('every generated schema passes the draft-07 meta-schema and strict ajv', () => {
    for (const [key, entry] of Object.entries(generated.tools)) {
      assert.equal(checkSchema(entry.inputSchema), undefined, `${key} input`);
      if (entry.outputSchema) assert.equal(checkSchema(entry.outputSchema), undefined, `${key} output`);
    }
    assert.notEqual(checkSchema({ type: 'object', properties: { a: { type: 'strng' } } }), undefined);
  });
});

describe('schema generator errors and staleness', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-gen-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), body);
  const header = "declare function tool(o: object): (c: unknown) => void;\n";

  it('reports a missing description, a non-object input and a duplicate with the tool named', async () => {
    write('a.ts', `${header}@tool({ name: 'no_doc', version: '1.0.0' })\nexport class A { run(args: { x: string }) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['a.ts'] }), /no_doc@1\.0\.0.*no description/s);
    write('b.ts', `${header}/** Doc. */\n@tool({ name: 'not_object', version: '1.0.0' })\nexport class B { run(args: string) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['b.ts'] }), /not_object@1\.0\.0.*must be an object type/s);
    write('c.ts', `${header}/** Doc. */\n@tool({ name: 'dup', version: '1.0.0' })\nexport class C { run(args: { a: string }) { return ''; } }\n/** Doc. */\n@tool({ name: 'dup', version: '1.0.0' })\nexport class D { run(args: { a: string }) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['c.ts'] }), /dup@1\.0\.0.*already registered/s);
    write('d.ts', `${header}/** Doc. */\n@tool({ name: 'typed', version: '1.0.0' })\nexport class E { run(args: { a: string }) { const n: number = 'x'; return n; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['d.ts'] }), /TypeScript errors/);
  });

  it('refuses @format shell-command anywhere but on a top-level string property', async () => {
    const doc = (tag: string) => `  /**\n   * Command.\n   * ${tag}\n   */\n`;
    write('e.ts', `${header}export interface Step {\n${doc('@format shell-command')}  cmd: string;\n}\n/** Doc. */\n@tool({ name: 'nested_cmd', version: '1.0.0' })\nexport class F { run(args: { steps: Step[] }) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['e.ts'] }), /nested_cmd@1\.0\.0.*@format shell-command on steps \(below the top level\)/s);
    write('f.ts', `${header}interface In {\n${doc('@items.format shell-command')}  cmds: string[];\n}\n/** Doc. */\n@tool({ name: 'list_cmd', version: '1.0.0' })\nexport class G { run(args: In) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['f.ts'] }), /list_cmd@1\.0\.0.*@format shell-command on cmds/s);
    write('g.ts', `${header}interface In {\n${doc('@format shell-command')}  cmd: string;\n}\n/** Doc. */\n@tool({ name: 'top_cmd', version: '1.0.0' })\nexport class H { run(args: In) { return ''; } }\n`);
    const [entry] = Object.values((await generateSchemas({ cwd: dir, patterns: ['g.ts'] })).tools);
    assert.equal((entry!.inputSchema.properties as Record<string, JsonSchema>).cmd!.format, 'shell-command');
  });

  it('writes, then detects a stale file without writing in check mode', async () => {
    write('ok.ts', `${header}/** Say hi. */\n@tool({ name: 'say_hi', version: '1.0.0' })\nexport class Hi { run(args: { /** Who. */ who: string }) { return 'hi ' + args.who; } }\n`);
    const out = path.join(dir, 'schemas.json');
    const first = await generateSchemas({ cwd: dir, patterns: ['ok.ts'] });
    assert.deepEqual(writeOrCheckSchemaFile(out, first, false), { stale: true, changed: ['say_hi@1.0.0'], written: true });
    assert.deepEqual(writeOrCheckSchemaFile(out, first, true), { stale: false, changed: [], written: false });
    write('ok.ts', `${header}/** Say hi. */\n@tool({ name: 'say_hi', version: '1.0.0' })\nexport class Hi { run(args: { who: string; loud?: boolean }) { return 'hi ' + args.who; } }\n`);
    const second = await generateSchemas({ cwd: dir, patterns: ['ok.ts'] });
    const before = fs.readFileSync(out, 'utf8');
    assert.deepEqual(writeOrCheckSchemaFile(out, second, true), { stale: true, changed: ['say_hi@1.0.0'], written: false });
    assert.equal(fs.readFileSync(out, 'utf8'), before, 'check mode writes nothing');
  });
});
