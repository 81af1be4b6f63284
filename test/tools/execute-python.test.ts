/**
 * execute_python through a real executor (tools/execute-python.tool.ts): output, errors,
 * confirmation and modes, timeouts and memory caps (S2), fresh interpreters and named sessions
 * (T8 of the output cases), and two escape routes of the catalogue run through the tool in fresh
 * interpreters (S1). The sandbox itself is test/tools-ported/common/python-sandbox.test.ts.
 *
 * Where bubblewrap is missing, the tests that are not about isolation choose the profile `none`
 * explicitly, and the escape routes check the refusal of the default profile instead.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { PYTHON_ESCAPE_VECTORS, renderEscapeVector } from '../fixtures/python-escape-vectors.js';
import { fixtureRegistry } from '../helpers.js';
import { SECRET_TEXT, startHostTargets, type HostTargets } from '../tools-ported/common/host-targets.js';

let executor: ToolExecutor;
let targets: HostTargets;

const HAS_BWRAP = bubblewrapAvailable();

before(async () => {
  targets = await startHostTargets();
  executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: targets.tmp.ws, ...(HAS_BWRAP ? {} : { sandbox: 'none' as const }) });
});

after(async () => {
  await executor?.close();
  await targets?.close();
});

function python(code: string, extra: Record<string, unknown> = {}): Promise<ToolExecutionResult> {
  return executor.execute({ name: 'execute_python', arguments: { code, ...extra } }, { confirm: true });
}

describe('execute_python through the executor', () => {
  test('print(sum(range(10))) returns 45, with a note of how it ended', async () => {
    const result = await python('print(sum(range(10)))');
    assert.equal(result.success, true, result.output);
    assert.match(result.output, /^45\n/);
    assert.match(result.output, /\[execute_python: finished in \d+ ms in a fresh interpreter/);
  });

  test('requires confirmation, and is denied in read-only modes', async () => {
    const unconfirmed = await executor.execute({ name: 'execute_python', arguments: { code: 'print(1)' } });
    assert.equal(unconfirmed.errorCode, 'CONFIRMATION_REQUIRED');
    const explore = await executor.execute({ name: 'execute_python', arguments: { code: 'print(1)' } }, { confirm: true, mode: 'explore' });
    assert.equal(explore.errorCode, 'MODE_DENIED');
  });

  test('standard error comes after standard output under a [stderr] line', async () => {
    const result = await python('import sys\nprint("out")\nprint("err", file=sys.stderr)', { session: 'basic' });
    assert.equal(result.success, true, result.output);
    assert.match(result.output, /^out\n\[stderr\]\nerr\n/);
  });

  test('T8: code that prints nothing gives [no output], with the ending note still present', async () => {
    const result = await python('x = 1', { session: 'basic' });
    assert.equal(result.success, true, result.output);
    assert.match(result.output, /^\[no output\]\n\[execute_python: finished in \d+ ms in a session interpreter(, isolated by \w+|; warning: [^\]]+)\]$/);
  });

  test('an exception is a failure that shows what was printed and the traceback of the code only', async () => {
    const result = await python('print("before")\ndef f():\n    raise ValueError("bad value")\nf()', { session: 'basic' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.output, /^Error: execute_python failed: Python raised ValueError: bad value\nTraceback/);
    assert.match(result.output, /What it printed:\nbefore(\n\[execute_python: warning: [^\]]+\])?$/, 'the warning of the profile none, when chosen, is a note after it');
    assert.match(result.output, /File "<code>", line 3, in f/);
    assert.ok(!result.output.includes('_pyodide'), 'Pyodide\'s own frames are left out');
  });

  test('input() fails at once instead of waiting for a terminal', async () => {
    const result = await python('input("name? ")', { session: 'basic' });
    assert.equal(result.success, false);
    assert.match(result.output, /Python raised (EOFError|OSError)/);
  });

  test('S2: an endless loop is stopped at timeout_sec, output so far kept, and the next call works', async () => {
    const result = await python('print("started", flush=True)\nwhile True: pass', { timeout_sec: 1 });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TIMEOUT');
    assert.match(result.output, /longer than timeout_sec=1 s/);
    assert.match(result.output, /started/);
    const next = await python('print("alive")');
    assert.equal(next.success, true, next.output);
    assert.match(next.output, /^alive/);
  });

  test('S2: allocating without bound is a memory-cap result, and the next call works', async () => {
    const result = await python('chunks = []\nwhile True:\n    chunks.append(bytearray(10_000_000))', { timeout_sec: 20 });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'MEMORY_LIMIT', result.output);
    assert.match(result.output, /out of memory/);
    const next = await python('print(2 + 2)');
    assert.equal(next.success, true, next.output);
  });

  test('each call has a fresh interpreter; a named session keeps its variables', async () => {
    await python('secret_value = 41');
    const fresh = await python('print(secret_value)');
    assert.equal(fresh.success, false);
    assert.match(fresh.output, /NameError/);
    const first = await python('kept = 41', { session: 'notebook' });
    assert.equal(first.success, true, first.output);
    const second = await python('print(kept + 1)', { session: 'notebook' });
    assert.equal(second.success, true, second.output);
    assert.match(second.output, /^42\n\[execute_python: finished in \d+ ms in a session interpreter/);
  });

  test('bad arguments are refused by the schema', async () => {
    const tooLong = await python('print(1)', { timeout_sec: 26 });
    assert.equal(tooLong.errorCode, 'INVALID_ARGUMENTS');
    const badSession = await python('print(1)', { session: '../x' });
    assert.equal(badSession.errorCode, 'INVALID_ARGUMENTS');
    const noCode = await executor.execute({ name: 'execute_python', arguments: {} }, { confirm: true });
    assert.equal(noCode.errorCode, 'INVALID_ARGUMENTS');
  });
});

describe('S1: the escape catalogue through the tool', () => {
  test('S1 through the tool in fresh interpreters: the constructor chain and the host mount (refused where bubblewrap is missing)', async () => {
    const secure = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: targets.tmp.ws });
    try {
      for (const id of ['pyodide-js-constructor-chain', 'mount-host-fs']) {
        const vector = PYTHON_ESCAPE_VECTORS.find((v) => v.id === id)!;
        const marker = path.join(targets.markerDir, `${id}.tool-marker`);
        const result = await secure.execute({ name: 'execute_python', arguments: { code: renderEscapeVector(vector, { marker, secret: targets.secretFile, url: targets.url, socket: targets.socketPath }) } }, { confirm: true });
        assert.equal(result.success, false, `${id}: ${result.output}`);
        assert.ok(!fs.existsSync(marker), `${id}: no marker`);
        assert.ok(!result.output.includes(SECRET_TEXT), `${id}: no secret`);
        if (HAS_BWRAP) assert.match(result.output, /Python raised|interpreter crashed/);
        else assert.equal(result.errorCode, 'SANDBOX_UNAVAILABLE', result.output);
      }
    } finally {
      await secure.close();
    }
  });
});
