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
    // typeCheck: false (only where tsc has just checked the same files) skips that check alone.
    const unchecked = await generateSchemas({ cwd: dir, patterns: ['d.ts'], typeCheck: false });
    assert.deepEqual(Object.keys(unchecked.tools), ['typed@1.0.0']);
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
    write('h.ts', `${header}export interface Step {\n${doc('@format shell-input')}  chars: string;\n}\n/** Doc. */\n@tool({ name: 'nested_input', version: '1.0.0', runner: 'main' })\nexport class I { run(args: { steps: Step[] }) { return ''; } }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['h.ts'] }), /nested_input@1\.0\.0.*@format shell-input on steps \(below the top level\)/s);
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

  it('a declaration file under node_modules parsed by an earlier run in this process is read again once it changed', async () => {
    // Declaration files of node_modules are parsed once per process (schema-program.ts): a
    // changed one must not be served from that cache.
    const pkg = path.join(dir, 'node_modules', 'shapes');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'shapes', types: 'index.d.ts' }));
    const shape = (fields: string) => fs.writeFileSync(path.join(pkg, 'index.d.ts'), `export interface Shape {\n${fields}}\n`);
    write('uses.ts', `import type { Shape } from 'shapes';\n${header}/** Doc. */\n@tool({ name: 'shaped', version: '1.0.0' })\nexport class S { run(args: Shape) { return ''; } }\n`);
    const fields = async () => Object.keys((await generateSchemas({ cwd: dir, patterns: ['uses.ts'] })).tools['shaped@1.0.0']!.inputSchema.properties as object);
    shape('  /** Width. */\n  width: number;\n');
    assert.deepEqual(await fields(), ['width']);
    shape('  /** Width. */\n  width: number;\n  /** Height. */\n  height: number;\n');
    assert.deepEqual((await fields()).sort(), ['height', 'width']);
  });
});

describe('regressions of issue 17 (schema generator fixes)', () => {
  const header = "declare function tool(o: object): (c: unknown) => void;\n";
  const tsconfig = JSON.stringify({ compilerOptions: { target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, experimentalDecorators: true, skipLibCheck: true, types: [] } });
  /** An ESM project (TypeScript then prints module paths with a resolution mode) with recursive and generic types exported from another module. */
  const makeProject = (dir: string) => {
    fs.mkdirSync(path.join(dir, 'src/lib'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), tsconfig);
    fs.writeFileSync(path.join(dir, 'src/lib/tree.ts'), 'export interface TreeNode { name: string; children: TreeNode[] }\nexport interface Tree<T> { value: T; children: Tree<T>[] }\n');
    fs.writeFileSync(
      path.join(dir, 'src/outline.tool.ts'),
      `${header}import type { Tree, TreeNode } from './lib/tree.js';\n/** Outline. */\n@tool({ name: 'outline', version: '1.0.0' })\nexport class Outline { run(args: { root: TreeNode; sizes: Tree<number> }) { return ''; } }\n/** Count. */\n@tool({ name: 'count_tree', version: '1.0.0' })\nexport class CountTree { run(args: TreeNode) { return 1; } }\n`,
    );
  };
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('definition names hold no file path: toolgate schemas --check passes in another checkout', async () => {
    const [a, b] = [fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-checkout-a-')), fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-checkout-b-'))];
    dirs.push(a!, b!);
    makeProject(a!);
    makeProject(b!);
    const { cliInProcess } = await import('../cli/in-process.js');
    const first = await cliInProcess(['schemas', 'src/**/*.ts', '--out', 'tool-schemas.json'], { cwd: a });
    assert.equal(first.code, 0, first.stderr);
    const text = fs.readFileSync(path.join(a!, 'tool-schemas.json'), 'utf8');
    assert.ok(!text.includes('import(') && !text.includes(a!) && !text.includes(os.tmpdir()), text);
    fs.copyFileSync(path.join(a!, 'tool-schemas.json'), path.join(b!, 'tool-schemas.json'));
    const check = await cliInProcess(['schemas', 'src/**/*.ts', '--out', 'tool-schemas.json', '--check'], { cwd: b });
    assert.equal(check.code, 0, check.stderr);
    const outline = (JSON.parse(text) as { tools: Record<string, { inputSchema: JsonSchema }> }).tools['outline@1.0.0']!.inputSchema;
    assert.deepEqual(Object.keys(outline.$defs as object), ['TreeNode', 'Tree_number']);
  });

  it('a recursive root is inlined with its recursion in $defs, and OpenAI strict keeps it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-root-'));
    dirs.push(dir);
    makeProject(dir);
    const generated = await generateSchemas({ cwd: dir, patterns: ['src/**/*.ts'] });
    const input = generated.tools['count_tree@1.0.0']!.inputSchema;
    assert.equal(input.type, 'object');
    assert.deepEqual(input.properties, { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } } });
    assert.deepEqual(Object.keys(input.$defs as object), ['TreeNode']);
    const { toOpenAIStrictTool } = await import('../../src/formats/openai.js');
    const strict = toOpenAIStrictTool({ name: 'count_tree', description: 'Count.', inputSchema: input, outputSchema: null, readOnly: true, kind: 'internal', tags: [] }).function;
    assert.equal(strict.strict, true);
    assert.deepEqual((strict.parameters.$defs as Record<string, JsonSchema>).TreeNode!.required, ['name', 'children']);
  });

  it('enum order as written; rest tuples; one description per path field', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-shapes-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), tsconfig);
    fs.writeFileSync(
      path.join(dir, 'shapes.ts'),
      `${header}export type Size = 'small' | 'medium' | 'large';\n/** Shapes. */\n@tool({ name: 'shapes', version: '1.0.0' })\nexport class S { run(args: {\n  /** Size. */\n  size: Size;\n  /** Series. */\n  series: [string, ...number[]];\n  /**\n   * Path of the file, relative to the workspace root.\n   * @format workspace-path\n   */\n  file: string;\n}) { return ''; } }\n`,
    );
    const entry = (await generateSchemas({ cwd: dir, patterns: ['shapes.ts'] })).tools['shapes@1.0.0']!;
    const props = entry.inputSchema.properties as Record<string, JsonSchema>;
    assert.deepEqual(props.size!.enum, ['small', 'medium', 'large']);
    assert.deepEqual(props.series, { description: 'Series.', type: 'array', items: [{ type: 'string' }], minItems: 1, additionalItems: { type: 'number' } });
    const { toAnthropicTool } = await import('../../src/formats/anthropic.js');
    const { toMcpTool } = await import('../../src/formats/mcp.js');
    const tool = { ...entry, readOnly: true, kind: 'internal' as const, tags: [] };
    assert.equal((toAnthropicTool(tool).input_schema.properties as Record<string, JsonSchema>).file!.description, 'Path of the file, relative to the workspace root.');
    const series = (toMcpTool(tool).inputSchema.properties as Record<string, JsonSchema>).series!;
    assert.deepEqual(series, { description: 'Series.', type: 'array', minItems: 1, prefixItems: [{ type: 'string' }], items: { type: 'number' } });
  });
});

describe('run signatures the generator refuses', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-run-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, experimentalDecorators: true, types: [] } }));
  const header = "declare function tool(o: object): (c: unknown) => void;\n";

  it('an overloaded run, and a run that is a property, are refused with the reason', async () => {
    fs.writeFileSync(
      path.join(dir, 'overloaded.ts'),
      `${header}/** Doc. */\n@tool({ name: 'overloaded', version: '1.0.0' })\nexport class O {\n  run(args: { a: string }): string;\n  run(args: { b: number }): string;\n  run(args: { a?: string; b?: number }): string { return ''; }\n}\n`,
    );
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['overloaded.ts'] }), /overloaded@1\.0\.0.*O\.run \(overloaded\.ts\) must have exactly one signature; got 2/s);
    fs.writeFileSync(path.join(dir, 'property.ts'), `${header}/** Doc. */\n@tool({ name: 'as_property', version: '1.0.0' })\nexport class P { run = (args: { a: string }) => args.a; }\n`);
    await assert.rejects(generateSchemas({ cwd: dir, patterns: ['property.ts'] }), /as_property@1\.0\.0.*has no run\(args, ctx\) method \(a method, not a property holding a function\)/s);
  });
});
