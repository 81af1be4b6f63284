// Regression: the executor threw (TypeError, BottleneckError, ajv errors) where it promises
// results; only PathTraversalError may leave it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PathTraversalError, ToolDefinitionError, ToolExecutor, ToolRegistry, type ToolCallRequest, type ToolRegistry as Registry } from 'toolgate';
import { readSchemaFile } from '../../src/schema/schema-file.js';
import { FIXTURE_SCHEMAS, fixtureRegistry, tempWorkspace } from '../helpers.js';
import { GreetV1Tool } from '../fixtures/versions.tool.js';

describe('the executor answers with results, not exceptions', () => {
  const t = tempWorkspace();
  let registry: Registry;
  let executor: ToolExecutor;
  before(async () => {
    registry = await fixtureRegistry();
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  it('odd call shapes become INVALID_ARGUMENTS or UNKNOWN_TOOL results', async () => {
    const r1 = await executor.execute(null as unknown as ToolCallRequest);
    assert.equal(r1.errorCode, 'INVALID_ARGUMENTS');
    const weird = { toString() { throw new Error('boom'); } };
    const r2 = await executor.execute({ name: weird as unknown as string, arguments: {} });
    assert.equal(r2.errorCode, 'UNKNOWN_TOOL');
    const r3 = await executor.execute({ name: 'greet', arguments: { who: 'a' }, callId: 42 as unknown as string });
    assert.equal(r3.success, true);
    const results = await executor.executeMany([null as unknown as ToolCallRequest, { name: 'greet', arguments: { who: 'b' } }]);
    assert.deepEqual(results.map((r) => r.errorCode ?? 'ok'), ['INVALID_ARGUMENTS', 'ok']);
  });

  it('a schema ajv rejects fails at registration with a definition error', () => {
    const entry = structuredClone(readSchemaFile(FIXTURE_SCHEMAS).tools['greet@1.0.0']!);
    (entry.inputSchema.properties as Record<string, Record<string, unknown>>).who!.minLenght = 2;
    assert.throws(() => new ToolRegistry().register(GreetV1Tool, entry), (e: unknown) => e instanceof ToolDefinitionError && e.code === 'DEFINITION' && /minLenght/.test(e.message));
  });

  it('close() during a rate-limit wait ends the wait with ABORTED', async () => {
    const limited = new ToolExecutor(registry, { workspaceRoot: t.ws });
    const first = await limited.execute({ name: 'ping_rate_limited', arguments: {} });
    assert.equal(first.success, true);
    const waiting = limited.execute({ name: 'ping_rate_limited', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await limited.close();
    const r = await waiting;
    assert.equal(r.errorCode, 'ABORTED', r.error);
    assert.equal((await limited.execute({ name: 'greet', arguments: { who: 'x' } })).errorCode, 'ABORTED', 'calls after close');
  });

  it('executeMany stops after an escape and hands back every result on the error', async () => {
    const calls: ToolCallRequest[] = [
      { name: 'write_file', arguments: { filepath: 'batch1.txt', content: '1' }, callId: 'w1' },
      { name: 'write_file', arguments: { filepath: '../escape.txt', content: 'x' }, callId: 'w2' },
      { name: 'write_file', arguments: { filepath: 'batch3.txt', content: '3' }, callId: 'w3' },
    ];
    const error = await executor.executeMany(calls, { confirm: true }).then(
      () => assert.fail('expected PathTraversalError'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PathTraversalError);
    assert.deepEqual(error.results?.map((r) => [r.callId, r.errorCode ?? 'ok']), [['w1', 'ok'], ['w2', 'PATH_TRAVERSAL'], ['w3', 'ABORTED']]);
    const fs = await import('node:fs');
    assert.equal(fs.existsSync(`${t.ws}/batch3.txt`), false, 'nothing after the escape ran');
  });

  it('long error messages are cut like output', async () => {
    const r = await executor.execute({ name: 'fail_loudly', arguments: { chars: 100_000 } });
    assert.equal(r.errorCode, 'TOOL_ERROR');
    assert.ok(r.output.length < 1000, `output is ${r.output.length} characters`);
    assert.match(r.output, /\[output truncated: \d+ of \d+ characters/);
    const long = await executor.execute({ name: 'x'.repeat(1_000_000), arguments: {} });
    assert.ok(long.output.length < 20_000);
  });

  it('a return value that cannot leave the worker is INVALID_OUTPUT', async () => {
    const r = await executor.execute({ name: 'return_unclonable', arguments: {} });
    assert.equal(r.errorCode, 'INVALID_OUTPUT', r.error);
    assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'y' } })).success, true);
  });
});
