/**
 * The data tools (tools-ported/data/): json_query, csv_query, convert_data,
 * convert_data_to_file and validate_json, through the ported registry and a real
 * ToolExecutor, in a temporary workspace laid out as `/tmp/x/proj` with siblings and
 * `outside/sentinel.txt`.
 *
 * Each tool: success, documented errors, bad input (paths outside the workspace, wrong types,
 * sizes); the format hazards (YAML alias bombs and custom tags, XML DOCTYPE/entities including
 * an external entity naming the sentinel) are refused; validate_json never fetches a remote
 * `$ref`; convert_data_to_file needs confirmation, writes atomically and never replaces a file
 * unless asked.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { assertTraversal, callsTo, closePortedWorkspace, portedWorkspace, putFile, type TempWorkspace, assertOutsideUnchanged } from '../helpers.js';

let tmp: TempWorkspace;
let ws: string;
let executor: ToolExecutor;

before(async () => {
  ({ tmp, ws, executor } = await portedWorkspace());
  put('data/people.json', JSON.stringify({ people: [{ name: 'Ada', age: 36 }, { name: 'Alan', age: 41 }, { name: 'Grace', age: 85 }] }));
  put('data/people.csv', 'name,age,city\nAda,36,London\nAlan,41,Wilmslow\nGrace,85,New York\nlinus,9,helsinki\n"Doe, Jane",,\n');
  fs.symlinkSync(tmp.sentinel, path.join(ws, 'data/sentinel-link.json'));
  fs.symlinkSync(tmp.outside, path.join(ws, 'data/outside-dir'));
});

after(() => closePortedWorkspace({ tmp, executor }));

function put(rel: string, content: string | Uint8Array): string {
  return putFile(ws, rel, content);
}

function exists(rel: string): boolean {
  return fs.existsSync(path.join(ws, rel));
}

const call = callsTo(() => executor, { confirm: true });

async function ok(name: string, args: Record<string, unknown>): Promise<ToolExecutionResult> {
  const result = await call(name, args);
  assert.equal(result.success, true, `${name} ${JSON.stringify(args).slice(0, 200)}: ${result.output}`);
  return result;
}

async function fails(name: string, args: Record<string, unknown>, pattern: RegExp, code = 'TOOL_ERROR'): Promise<ToolExecutionResult> {
  const result = await call(name, args);
  assert.equal(result.success, false, `${name} ${JSON.stringify(args).slice(0, 200)} should fail; got ${result.output.slice(0, 300)}`);
  assert.equal(result.errorCode, code, result.output);
  assert.match(result.output, pattern);
  assert.doesNotMatch(result.output, /SENTINEL CONTENT/);
  return result;
}

/** Paths that leave the workspace, for every path argument (cases P1, P2, P4). */
function outsidePaths(): string[] {
  return ['../outside/sentinel.txt', tmp.sentinel, path.join(tmp.root, 'proj-evil/x'), path.join(tmp.root, 'proj_backup/x'), 'data/sentinel-link.json', 'data/outside-dir/sentinel.txt', 'data/../../outside/sentinel.txt'];
}

// ---------------------------------------------------------------------------------------------
describe('json_query', () => {
  test('JMESPath over a file and over inline JSON', async () => {
    assert.deepEqual(JSON.parse((await ok('json_query', { filepath: 'data/people.json', query: 'people[?age > `40`].name' })).output), ['Alan', 'Grace']);
    assert.equal(JSON.parse((await ok('json_query', { filepath: 'data/people.json', query: 'length(people)' })).output), 3);
    assert.equal(JSON.parse((await ok('json_query', { filepath: 'data/people.json', query: 'sort_by(people, &age)[-1].name' })).output), 'Grace');
    assert.deepEqual(JSON.parse((await ok('json_query', { json: '{"a": {"b": [1, 2, 3]}}', query: 'a.b[1:]' })).output), [2, 3]);
    assert.equal((await ok('json_query', { json: '{"a": 1}', query: 'missing' })).output, 'null');
  });

  test('invalid JSON (with line and column), query syntax errors and unknown functions are clear errors', async () => {
    await fails('json_query', { json: '{\n  "a": 1,\n  oops\n}', query: 'a' }, /is not valid JSON at line 3/);
    await fails('json_query', { json: '{"a": 1}', query: 'a[' }, /has a syntax error/);
    await fails('json_query', { json: '{"a": 1}', query: 'nosuch(a)' }, /failed: .*nosuch/i);
    await fails('json_query', { json: '{"a": 1}', query: 'length(a)' }, /failed/);
  });

  test('exactly one input; paths outside the workspace; wrong types and sizes', async () => {
    await fails('json_query', { query: 'a' }, /give the input: filepath .* or json/);
    await fails('json_query', { json: '{}', filepath: 'data/people.json', query: 'a' }, /either filepath or json, not both/);
    await fails('json_query', { filepath: 'data/missing.json', query: 'a' }, /does not exist/);
    for (const bad of outsidePaths()) await assertTraversal(call('json_query', { filepath: bad, query: '@' }), `json_query ${bad}`);
    await fails('json_query', { json: '{}', query: 5 }, /query/, 'INVALID_ARGUMENTS');
    await fails('json_query', { json: {}, query: 'a' }, /json/, 'INVALID_ARGUMENTS');
    await fails('json_query', { json: '{}', query: 'a'.repeat(2001) }, /query/, 'INVALID_ARGUMENTS');
    put('data/huge.json', Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    await fails('json_query', { filepath: 'data/huge.json', query: '@' }, /data files up to 10485760 bytes/);
    put('data/latin1.json', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    await fails('json_query', { filepath: 'data/latin1.json', query: '@' }, /not UTF-8/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('csv_query', () => {
  type Out = { columns: string[]; total_rows: number; matched_rows: number; rows: Record<string, string>[]; truncated: boolean; next_offset?: number };
  const query = async (args: Record<string, unknown>) => (await ok('csv_query', { filepath: 'data/people.csv', ...args })).structured as Out;

  test('conditions (numeric and text), selection, ordering and paging', async () => {
    const older = await query({ where: [{ column: 'age', op: 'gt', value: 40 }], columns: ['name'] });
    assert.deepEqual(older.rows, [{ name: 'Alan' }, { name: 'Grace' }]);
    assert.equal(older.total_rows, 5);
    assert.equal(older.matched_rows, 2);
    assert.deepEqual(older.columns, ['name']);
    // "9" < "36" numerically although not as text.
    assert.deepEqual((await query({ where: [{ column: 'age', op: 'lt', value: '36.0' }], columns: ['name'] })).rows, [{ name: 'linus' }]);
    assert.deepEqual((await query({ where: [{ column: 'age', op: 'eq', value: '36.0' }], columns: ['name'] })).rows, [{ name: 'Ada' }]);
    assert.deepEqual((await query({ where: [{ column: 'city', op: 'contains', value: 'HELSINKI', case_sensitive: false }], columns: ['name'] })).rows, [{ name: 'linus' }]);
    assert.deepEqual((await query({ where: [{ column: 'city', op: 'contains', value: 'HELSINKI' }] })).rows, []);
    assert.deepEqual((await query({ where: [{ column: 'name', op: 'in', value: ['Ada', 'Grace'] }], columns: ['name'] })).rows, [{ name: 'Ada' }, { name: 'Grace' }]);
    assert.deepEqual((await query({ where: [{ column: 'age', op: 'empty' }], columns: ['name'] })).rows, [{ name: 'Doe, Jane' }]);
    assert.deepEqual(
      (await query({ where: [{ column: 'name', op: 'starts_with', value: 'G' }, { column: 'city', op: 'ends_with', value: 'low' }], match: 'any', columns: ['name'] })).rows,
      [{ name: 'Alan' }, { name: 'Grace' }],
    );
    const sorted = await query({ where: [{ column: 'age', op: 'not_empty' }], order_by: 'age', descending: true, columns: ['name', 'age'] });
    assert.deepEqual(sorted.rows.map((r) => r.age), ['85', '41', '36', '9']);
    const page1 = await query({ limit: 2, columns: ['name'] });
    assert.deepEqual(page1.rows, [{ name: 'Ada' }, { name: 'Alan' }]);
    assert.equal(page1.truncated, true);
    assert.equal(page1.next_offset, 2);
    const page3 = await query({ limit: 2, offset: 4, columns: ['name'] });
    assert.deepEqual(page3.rows, [{ name: 'Doe, Jane' }]);
    assert.equal(page3.truncated, false);
  });

  test('output is bounded by max_chars; TSV files use tabs; odd headers stay plain keys', async () => {
    const rows = ['id,text'];
    for (let i = 0; i < 200; i++) rows.push(`${i},${'x'.repeat(100)}`);
    put('data/long.csv', rows.join('\n'));
    const bounded = (await ok('csv_query', { filepath: 'data/long.csv', limit: 1000, max_chars: 1000 })).structured as Out;
    assert.ok(bounded.rows.length >= 1 && bounded.rows.length < 10, `${bounded.rows.length} rows`);
    assert.ok(JSON.stringify(bounded.rows).length <= 1200);
    assert.equal(bounded.truncated, true);
    assert.equal(bounded.next_offset, bounded.rows.length);
    put('data/t.tsv', 'a\tb\n1\t2\n');
    assert.deepEqual(((await ok('csv_query', { filepath: 'data/t.tsv' })).structured as Out).rows, [{ a: '1', b: '2' }]);
    put('data/proto.csv', '__proto__,constructor,,x,x\n1,2,3,4,5\n');
    const proto = (await ok('csv_query', { filepath: 'data/proto.csv' })).structured as Out;
    assert.deepEqual(proto.columns, ['__proto__', 'constructor', 'column_3', 'x', 'x_2']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('unknown columns, values that do not fit the operator, invalid CSV and bad input', async () => {
    await fails('csv_query', { filepath: 'data/people.csv', where: [{ column: 'nope', op: 'eq', value: 1 }] }, /no column "nope"; the columns are "name", "age", "city"/);
    await fails('csv_query', { filepath: 'data/people.csv', columns: ['nope'] }, /no column "nope" to select/);
    await fails('csv_query', { filepath: 'data/people.csv', order_by: 'nope' }, /no column "nope" to order by/);
    await fails('csv_query', { filepath: 'data/people.csv', where: [{ column: 'age', op: 'gt' }] }, /needs a value/);
    await fails('csv_query', { filepath: 'data/people.csv', where: [{ column: 'age', op: 'in', value: 3 }] }, /needs a list/);
    await fails('csv_query', { filepath: 'data/people.csv', where: [{ column: 'age', op: 'eq', value: [1] }] }, /single value/);
    put('data/bad.csv', 'a,b\n"unclosed,2\n');
    await fails('csv_query', { filepath: 'data/bad.csv' }, /not valid CSV/);
    put('data/empty.csv', '');
    await fails('csv_query', { filepath: 'data/empty.csv' }, /is empty/);
    await fails('csv_query', { filepath: 'data/people.csv', where: [{ column: 'age', op: 'regex', value: '.*' }] }, /op/, 'INVALID_ARGUMENTS');
    await fails('csv_query', { filepath: 'data/people.csv', where: { column: 'age', op: 'eq', value: 1 } }, /where/, 'INVALID_ARGUMENTS');
    await fails('csv_query', { filepath: 'data/people.csv', limit: 5000 }, /limit/, 'INVALID_ARGUMENTS');
    await fails('csv_query', { filepath: 'data/people.csv', delimiter: ';;' }, /delimiter/, 'INVALID_ARGUMENTS');
    for (const bad of outsidePaths()) await assertTraversal(call('csv_query', { filepath: bad }), `csv_query ${bad}`);
  });
});

// ---------------------------------------------------------------------------------------------
describe('convert_data and convert_data_to_file', () => {
  test('JSON, YAML, TOML, CSV and XML convert both ways', async () => {
    const yaml = (await ok('convert_data', { filepath: 'data/people.json', to: 'yaml' })).output;
    assert.match(yaml, /people:\n {2}- name: Ada\n {4}age: 36/);
    assert.deepEqual(JSON.parse((await ok('convert_data', { text: yaml, from: 'yaml', to: 'json' })).output), JSON.parse(fs.readFileSync(path.join(ws, 'data/people.json'), 'utf8')));
    const toml = (await ok('convert_data', { text: '{"title": "x", "owner": {"name": "Tom"}, "ports": [80, 443]}', from: 'json', to: 'toml' })).output;
    assert.match(toml, /title = "x"/);
    assert.match(toml, /\[owner\]\nname = "Tom"/);
    assert.deepEqual(JSON.parse((await ok('convert_data', { text: toml, from: 'toml', to: 'json' })).output), { title: 'x', ports: [80, 443], owner: { name: 'Tom' } });
    const fromCsv = JSON.parse((await ok('convert_data', { filepath: 'data/people.csv', to: 'json' })).output);
    assert.deepEqual(fromCsv[0], { name: 'Ada', age: '36', city: 'London' });
    assert.equal(fromCsv[4].name, 'Doe, Jane');
    const csv = (await ok('convert_data', { text: '[{"a": 1, "b": "x,y"}, {"a": 2, "c": {"d": true}}]', from: 'json', to: 'csv' })).output;
    assert.equal(csv, 'a,b,c\n1,"x,y",\n2,,"{""d"":true}"\n');
    const xml = (await ok('convert_data', { text: '<catalog><book id="1"><title>A &amp; B</title></book><book id="2"><title>C</title></book></catalog>', from: 'xml', to: 'json' })).output;
    assert.deepEqual(JSON.parse(xml), { catalog: { book: [{ '@_id': '1', title: 'A & B' }, { '@_id': '2', title: 'C' }] } });
    const back = (await ok('convert_data', { text: xml, from: 'json', to: 'xml' })).output;
    assert.match(back, /<book id="1">\s*<title>A &amp; B<\/title>/);
    assert.match((await ok('convert_data', { text: '[1, 2]', from: 'json', to: 'xml' })).output, /<root>/);
  });

  test('YAML: alias bombs and custom tags are refused; __proto__ keys stay data', async () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f']]) bomb.push(`${name}: &${name} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`);
    await fails('convert_data', { text: bomb.join('\n'), from: 'yaml', to: 'json' }, /refused: .*alias/i);
    await fails('convert_data', { text: 'run: !!js/function "function () { return 1 }"', from: 'yaml', to: 'json' }, /custom YAML tag, which is refused/);
    await fails('convert_data', { text: 'x: !custom 1', from: 'yaml', to: 'json' }, /custom YAML tag/);
    await fails('convert_data', { text: 'a: 1\na: 2', from: 'yaml', to: 'json' }, /not valid YAML/);
    await fails('convert_data', { text: 'a: [1, 2', from: 'yaml', to: 'json' }, /not valid YAML/);
    const proto = JSON.parse((await ok('convert_data', { text: '__proto__: {polluted: true}', from: 'yaml', to: 'json' })).output);
    assert.deepEqual(Object.keys(proto), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('XML: DOCTYPE and entity declarations are refused (no external entity reads the sentinel, no entity bomb)', async () => {
    const xxe = `<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY s SYSTEM "file://${tmp.sentinel}">]>\n<r>&s;</r>`;
    await fails('convert_data', { text: xxe, from: 'xml', to: 'json' }, /DOCTYPE or ENTITY declaration, which is refused/);
    const lol = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    await fails('convert_data', { text: lol, from: 'xml', to: 'json' }, /DOCTYPE or ENTITY/);
    await fails('convert_data', { text: '<a><b></a>', from: 'xml', to: 'json' }, /not valid XML at line 1/);
  });

  test('documented errors: unknown input format, data a format cannot hold, results too long to return', async () => {
    await fails('convert_data', { text: '{}', to: 'yaml' }, /cannot tell the input format of inline text/);
    put('data/notes.txt', 'a: 1');
    await fails('convert_data', { filepath: 'data/notes.txt', to: 'json' }, /cannot tell the input format from the name/);
    assert.match((await ok('convert_data', { filepath: 'data/notes.txt', from: 'yaml', to: 'json' })).output, /"a": 1/);
    await fails('convert_data', { text: '[1, 2]', from: 'json', to: 'toml' }, /TOML needs a table/);
    await fails('convert_data', { text: '{"a": null}', from: 'json', to: 'toml' }, /cannot be written as TOML/);
    await fails('convert_data', { text: '5', from: 'json', to: 'csv' }, /CSV needs a list of rows/);
    await fails('convert_data', { text: 'a = ', from: 'toml', to: 'json' }, /not valid TOML/);
    const big = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, text: 'y'.repeat(40) })));
    await fails('convert_data', { text: big, from: 'json', to: 'yaml' }, /write it to a file with convert_data_to_file/);
    await fails('convert_data', { text: '{}', from: 'json', to: 'ini' }, /to/, 'INVALID_ARGUMENTS');
    await fails('convert_data', { text: '{}', from: 'json' }, /to/, 'INVALID_ARGUMENTS');
    for (const bad of outsidePaths()) await assertTraversal(call('convert_data', { filepath: bad, from: 'json', to: 'yaml' }), `convert_data ${bad}`);
  });

  test('convert_data_to_file writes atomically, needs confirmation, and never replaces a file unless asked', async () => {
    const denied = await call('convert_data_to_file', { filepath: 'data/people.json', destination: 'conv/people.yaml' }, { confirm: false });
    assert.equal(denied.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(exists('conv/people.yaml'), false);
    const written = await ok('convert_data_to_file', { filepath: 'data/people.json', destination: 'conv/people.yaml' });
    assert.match(written.output, /from json to yaml and wrote conv\/people\.yaml/);
    assert.match(fs.readFileSync(path.join(ws, 'conv/people.yaml'), 'utf8'), /- name: Grace/);
    await fails('convert_data_to_file', { filepath: 'data/people.csv', destination: 'conv/people.yaml' }, /already exists; pass overwrite: true/);
    assert.match(fs.readFileSync(path.join(ws, 'conv/people.yaml'), 'utf8'), /- name: Grace/);
    const replaced = await ok('convert_data_to_file', { filepath: 'data/people.csv', destination: 'conv/people.yaml', overwrite: true });
    assert.match(replaced.output, /overwrote an existing file/);
    assert.match(fs.readFileSync(path.join(ws, 'conv/people.yaml'), 'utf8'), /city: New York/);
    // A failed conversion leaves the existing file as it was and no temporary file behind.
    await fails('convert_data_to_file', { text: '[1]', from: 'json', destination: 'conv/people.yaml', to: 'toml', overwrite: true }, /TOML needs a table/);
    assert.match(fs.readFileSync(path.join(ws, 'conv/people.yaml'), 'utf8'), /city: New York/);
    assert.deepEqual(fs.readdirSync(path.join(ws, 'conv')), ['people.yaml']);
    await fails('convert_data_to_file', { text: '{}', from: 'json', destination: 'conv/out.unknown' }, /cannot tell the output format/);
    await fails('convert_data_to_file', { text: '{}', from: 'json', destination: 'conv', to: 'json' }, /is a folder/);
    for (const bad of [...outsidePaths(), path.join(tmp.outside, 'new.json'), 'data/outside-dir/new.json']) {
      await assertTraversal(call('convert_data_to_file', { text: '{}', from: 'json', to: 'json', destination: bad, overwrite: true }), `convert_data_to_file destination=${bad}`);
    }
    assertOutsideUnchanged(tmp);
  });

  test('read-only modes allow convert_data and deny convert_data_to_file', async () => {
    const read = await call('convert_data', { filepath: 'data/people.json', to: 'yaml' }, { mode: 'explore', confirm: false });
    assert.equal(read.success, true, read.output);
    const write = await call('convert_data_to_file', { filepath: 'data/people.json', destination: 'conv/explore.yaml' }, { mode: 'explore', confirm: true });
    assert.equal(write.errorCode, 'MODE_DENIED');
    assert.equal(exists('conv/explore.yaml'), false);
  });
});

// ---------------------------------------------------------------------------------------------
describe('validate_json', () => {
  type Out = { valid: boolean; draft: string; error_count: number; errors: Array<{ pointer: string; message: string; keyword: string; schema_path: string }>; truncated: boolean };
  const schema = {
    type: 'object',
    required: ['id', 'tags'],
    properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' }, tags: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  };

  test('valid documents pass; every violation is reported with its JSON pointer', async () => {
    const good = (await ok('validate_json', { json: '{"id": 1, "tags": ["a"], "email": "a@b.org"}', schema })).structured as Out;
    assert.deepEqual(good, { valid: true, draft: 'draft-07', error_count: 0, errors: [], truncated: false });
    const bad = (await ok('validate_json', { json: '{"id": "x", "tags": ["a", 2, 3], "email": "nope", "extra": 1}', schema })).structured as Out;
    assert.equal(bad.valid, false);
    assert.deepEqual(bad.errors.map((e) => `${e.pointer} ${e.keyword}`).sort(), ['  additionalProperties', '/email format', '/id type', '/tags/1 type', '/tags/2 type'].map((s) => s.replace(/^ {2}/, ' ')).sort());
    assert.equal(bad.error_count, 5);
    const missing = (await ok('validate_json', { json: '{}', schema })).structured as Out;
    assert.deepEqual(missing.errors.map((e) => e.message).sort(), ["must have required property 'id'", "must have required property 'tags'"]);
  });

  test('schema files, 2020-12 schemas with local $defs, and pointers with escaped characters', async () => {
    put('schemas/s2020.json', JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { n: { type: 'number' } }, type: 'object', properties: { 'a/b': { $ref: '#/$defs/n' }, 'c~d': { prefixItems: [{ type: 'string' }] } } }));
    put('data/doc.json', JSON.stringify({ 'a/b': 'not a number', 'c~d': [1] }));
    const out = (await ok('validate_json', { filepath: 'data/doc.json', schema_filepath: 'schemas/s2020.json' })).structured as Out;
    assert.equal(out.draft, '2020-12');
    assert.deepEqual(out.errors.map((e) => e.pointer).sort(), ['/a~1b', '/c~0d/0']);
  });

  test('remote and file $refs are refused, never fetched (a loopback server counts requests)', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.end('{"type": "string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      await fails('validate_json', { json: '"x"', schema: { $ref: `http://127.0.0.1:${port}/s.json` } }, /never fetches remote or file schemas/);
      await fails('validate_json', { json: '"x"', schema: { $ref: `file://${tmp.sentinel}` } }, /never fetches/);
      await fails('validate_json', { json: '"x"', schema: { properties: { a: { $ref: '#/definitions/missing' } } } }, /does not resolve inside the schema/);
      assert.equal(requests, 0, 'no request reached the server');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('documented errors and bad input', async () => {
    await fails('validate_json', { json: '{}' }, /give the schema/);
    put('schemas/plain.json', '{}');
    await fails('validate_json', { json: '{}', schema: {}, schema_filepath: 'schemas/plain.json' }, /either schema or schema_filepath/);
    await fails('validate_json', { json: '{}', schema: { $schema: 'http://json-schema.org/draft-04/schema#' } }, /is not supported/);
    await fails('validate_json', { json: '{}', schema: { type: 'nonsense' } }, /not a valid JSON Schema/);
    await fails('validate_json', { json: '{oops', schema: {} }, /not valid JSON/);
    put('schemas/bad.json', '[1, 2]');
    await fails('validate_json', { json: '{}', schema_filepath: 'schemas/bad.json' }, /must be a JSON object/);
    await fails('validate_json', { json: '{}', schema: '{"type": "object"}' }, /schema/, 'INVALID_ARGUMENTS');
    for (const bad of outsidePaths()) {
      await assertTraversal(call('validate_json', { filepath: bad, schema: {} }), `validate_json filepath=${bad}`);
      await assertTraversal(call('validate_json', { json: '{}', schema_filepath: bad }), `validate_json schema_filepath=${bad}`);
    }
    assertOutsideUnchanged(tmp);
  });
});
