/**
 * The misc tools (tools-ported/misc/): calculate and current_time, through the ported
 * registry and a real ToolExecutor, plus their plain functions.
 *
 * calculate: arithmetic, units, matrices and assignments work; every function that parses or
 * evaluates text, changes the calculator or works symbolically is disabled inside expressions
 * (mathjs's security guidance), nothing reaches JavaScript (case S1's family: no constructor
 * walks, no marker file), the calculator is not changed for the next call, and syntax errors,
 * unknown symbols and oversized expressions or results are clear errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { callsTo, portedRegistry, tempWorkspace } from '../helpers.js';
import { calculate, MAX_EXPRESSION_LENGTH } from '../../tools-ported/misc/calculate.tool.js';
import { currentTime } from '../../tools-ported/misc/current-time.tool.js';

let tmp: ReturnType<typeof tempWorkspace>;
let executor: ToolExecutor;

before(async () => {
  tmp = tempWorkspace();
  executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws });
});

after(async () => {
  await executor?.close();
  tmp?.cleanup();
});

const call = callsTo(() => executor);

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call(name, args);
  assert.equal(result.success, true, `${name} ${JSON.stringify(args)}: ${result.output}`);
  return result.structured as Record<string, unknown>;
}

async function fails(name: string, args: Record<string, unknown>, pattern: RegExp, code = 'TOOL_ERROR'): Promise<void> {
  const result = await call(name, args);
  assert.equal(result.success, false, `${name} ${JSON.stringify(args)} should fail; got ${result.output}`);
  assert.equal(result.errorCode, code, result.output);
  assert.match(result.output, pattern);
}

describe('calculate', () => {
  test('arithmetic, functions, units, matrices, complex numbers and assignments', async () => {
    assert.deepEqual(await ok('calculate', { expression: '2 * (3 + 4)' }), { expression: '2 * (3 + 4)', result: '14', type: 'number' });
    assert.equal((await ok('calculate', { expression: 'sqrt(2)^2' })).result, '2');
    assert.equal((await ok('calculate', { expression: '5 km to m' })).result, '5000 m');
    const det = await ok('calculate', { expression: 'det([1, 2; 3, 4])' });
    assert.equal(det.result, '-2');
    assert.equal((await ok('calculate', { expression: '[1, 2] * 2' })).result, '[2, 4]');
    assert.equal((await ok('calculate', { expression: 'sqrt(-4)' })).type, 'Complex');
    assert.equal((await ok('calculate', { expression: 'x = 3; y = x^2\ny + 1' })).result, '10');
    assert.equal((await ok('calculate', { expression: 'f(x) = x^2; f(4)' })).result, '16');
    assert.equal((await ok('calculate', { expression: 'pi', precision: 5 })).result, '3.1416');
  });

  test('variables do not leak from one call into the next', async () => {
    await ok('calculate', { expression: 'leak = 42; leak' });
    await fails('calculate', { expression: 'leak + 1' }, /unknown symbol "leak"/);
  });

  test('syntax errors name the position; unknown symbols and functions are clear errors', async () => {
    await fails('calculate', { expression: '2 * (3 + ' }, /syntax error in the expression/);
    await fails('calculate', { expression: 'foo + 1' }, /unknown symbol "foo".*assign it first/);
    await fails('calculate', { expression: 'nosuchfn(2)' }, /unknown (function|symbol) "nosuchfn"/);
    // An assignment alone returns its value; a hidden one (ending with ";") leaves no result.
    assert.equal((await ok('calculate', { expression: 'x = 2' })).result, '2');
    await fails('calculate', { expression: 'x = 2;' }, /has no result/);
  });

  for (const fn of ['import', 'createUnit', 'evaluate', 'parse', 'compile', 'simplify', 'derivative', 'resolve', 'reviver', 'config', 'typed', 'chain', 'parser', 'rationalize', 'help']) {
    test(`the function ${fn} is disabled inside expressions`, async () => {
      const expression = fn === 'import' ? 'import({a: 1})' : fn === 'config' ? 'config({number: "BigNumber"})' : fn === 'createUnit' ? 'createUnit("foo")' : `${fn}("1 + 1")`;
      // chain is not offered to expressions by mathjs at all; the rest are replaced by throwing functions.
      await fails('calculate', { expression }, fn === 'chain' ? /disabled in calculate|unknown function "chain"/ : /disabled in calculate/);
    });
  }

  test('config cannot be changed for later calls (still numbers after a refused config)', async () => {
    await fails('calculate', { expression: 'config({number: "BigNumber", precision: 500})' }, /disabled/);
    assert.equal((await ok('calculate', { expression: '0.1 + 0.2' })).type, 'number');
  });

  test('S1 family: no way from an expression to JavaScript (constructors, prototypes, globals)', async () => {
    const marker = path.join(os.tmpdir(), `toolgate-calc-pwn-${process.pid}`);
    const attempts = [
      'cos.constructor("return process")()',
      `[].map.constructor("require('fs').writeFileSync('${marker}', 'x')")()`,
      'f = typeOf.constructor; f("return this")()',
      '{}.constructor.constructor("return process")()',
      'a = {}; a["__proto__"]',
      'process',
      'globalThis',
      'require("fs")',
    ];
    for (const expression of attempts) {
      const result = await call('calculate', { expression });
      assert.equal(result.success, false, `${expression} must fail, got ${result.output}`);
      assert.doesNotMatch(result.output, /\[object process\]|pid|versions/);
    }
    assert.equal(fs.existsSync(marker), false, 'no code ran');
  });

  test('bounds: expression length, result size, and wrong types', async () => {
    await fails('calculate', { expression: '1+'.repeat(1500) + '1' }, /at most 2000|must NOT have more than 2000/i, 'INVALID_ARGUMENTS');
    await assert.rejects(calculate('1'.repeat(MAX_EXPRESSION_LENGTH + 1)), /at most 2000 are accepted/);
    await fails('calculate', { expression: 'ones(400, 400)' }, /more than 100000 elements/);
    await fails('calculate', { expression: 'range(1, 5000)' }, /more than 10000/);
    await fails('calculate', { expression: 3 }, /expression/, 'INVALID_ARGUMENTS');
    await fails('calculate', { expression: '' }, /expression/, 'INVALID_ARGUMENTS');
    await fails('calculate', { expression: '1', precision: 0 }, /precision/, 'INVALID_ARGUMENTS');
    await fails('calculate', {}, /expression/, 'INVALID_ARGUMENTS');
  });
});

describe('current_time', () => {
  test('an IANA zone gives ISO 8601 with its offset, the zone and a readable form', async () => {
    const tokyo = await ok('current_time', { timezone: 'Asia/Tokyo' });
    assert.equal(tokyo.timezone, 'Asia/Tokyo');
    assert.equal(tokyo.utc_offset, '+09:00');
    assert.match(tokyo.iso as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    assert.ok(Math.abs(Date.parse(tokyo.iso as string) - (tokyo.unix_ms as number)) < 1000, 'the ISO text is the same instant');
    assert.match(tokyo.human as string, /\d{4}/);
    const utc = await ok('current_time', { timezone: 'UTC' });
    assert.equal(utc.utc_offset, '+00:00');
    const host = await ok('current_time', {});
    assert.equal(typeof host.timezone, 'string');
  });

  test('a fixed instant: offsets with minutes, negative offsets and summer time', () => {
    const instant = new Date('2026-07-01T12:00:00Z');
    assert.equal(currentTime('Asia/Kolkata', instant).iso, '2026-07-01T17:30:00+05:30');
    assert.equal(currentTime('America/New_York', instant).iso, '2026-07-01T08:00:00-04:00');
    assert.equal(currentTime('America/New_York', new Date('2026-01-15T12:00:00Z')).iso, '2026-01-15T07:00:00-05:00');
    assert.match(currentTime('Europe/Paris', instant).human, /^Wednesday,? 1 July 2026 at 14:00:00 CEST$/);
  });

  test('an invalid zone is a clear error that says how to find valid names and suggests close ones', async () => {
    await fails('current_time', { timezone: 'Mars/Olympus_Mons' }, /not an IANA time zone name.*Europe\/Paris.*tz database/);
    await fails('current_time', { timezone: 'Europe/Pariss' }, /close matches: .*Europe\//);
    await fails('current_time', { timezone: 5 }, /timezone/, 'INVALID_ARGUMENTS');
    await fails('current_time', { timezone: 'x'.repeat(101) }, /timezone/, 'INVALID_ARGUMENTS');
  });
});
