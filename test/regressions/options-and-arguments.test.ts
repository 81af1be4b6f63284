// Regression: arguments were checked and run as two different reads of the caller's object
// (a getter could change the path after the mode gate), timeoutMs and mode options were not
// validated, and nested open maps accepted "__proto__" keys.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PathTraversalError, ToolExecutor, type AgentMode, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('options and arguments', () => {
  const t = tempWorkspace();
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  before(async () => {
    registry = await fixtureRegistry();
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws });
    fs.writeFileSync(path.join(t.ws, 'README.md'), 'original');
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  it('arguments given as an object are read once: a getter cannot change what runs', async () => {
    let reads = 0;
    const args = { content: 'changed', get filepath() { reads++; return reads <= 1 ? 'plan/ok.md' : 'README.md'; } };
    const r = await executor.execute({ name: 'write_file', arguments: args }, { mode: 'explore', scopedWriteDirs: ['plan'], confirm: true });
    assert.equal(r.success, true, r.error);
    assert.equal(fs.readFileSync(path.join(t.ws, 'README.md'), 'utf8'), 'original');
    assert.equal(fs.readFileSync(path.join(t.ws, 'plan', 'ok.md'), 'utf8'), 'changed');
    assert.equal(reads, 1);
  });

  it('arguments that are not JSON data are refused with the place named', async () => {
    const r = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', origin: { x: 1, y: new Date() } } });
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS');
    assert.match(r.error!, /arguments\.origin\.y is a Date/);
    const nan = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', count: Number.NaN } });
    assert.match(nan.error!, /arguments\.count is NaN/);
  });

  it('A1 nested: open maps refuse __proto__, constructor and prototype keys', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const raw = `{"text":"a","env":{${JSON.stringify(key)}:"x"}}`;
      const r = await executor.execute({ name: 'echo_arguments', arguments: raw });
      assert.equal(r.errorCode, 'INVALID_ARGUMENTS', key);
    }
  });

  it('timeoutMs: NaN is refused, Infinity disables, huge values are capped without timer spam', async () => {
    const nan = await executor.execute({ name: 'greet', arguments: { who: 'a' } }, { timeoutMs: Number.NaN });
    assert.equal(nan.errorCode, 'INVALID_OPTIONS');
    const text = await executor.execute({ name: 'greet', arguments: { who: 'a' } }, { timeoutMs: '300' as unknown as number });
    assert.equal(text.errorCode, 'INVALID_OPTIONS');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      assert.equal((await executor.execute({ name: 'sleep_briefly', arguments: { ms: 300 } }, { timeoutMs: Number.POSITIVE_INFINITY })).success, true);
      assert.equal((await executor.execute({ name: 'sleep_briefly', arguments: { ms: 300 } }, { timeoutMs: 2 ** 40 })).success, true);
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings.filter((w) => w === 'TimeoutOverflowWarning'), []);
  });

  it('T10: a per-call 0 or negative timeout lifts a tool default shorter than the call', async () => {
    assert.equal((await executor.execute({ name: 'sleep_briefly', arguments: { ms: 300 } })).errorCode, 'TIMEOUT', 'the tool default is 100 ms');
    assert.equal((await executor.execute({ name: 'sleep_briefly', arguments: { ms: 300 } }, { timeoutMs: 0 })).success, true);
    assert.equal((await executor.execute({ name: 'sleep_briefly', arguments: { ms: 300 } }, { timeoutMs: -1 })).success, true);
  });

  it('malformed modes and scoped folders fail closed', async () => {
    const write = (options: Record<string, unknown>) =>
      executor.execute({ name: 'write_file', arguments: { filepath: 'a/x.md', content: 'x' } }, { confirm: true, ...options });
    assert.equal((await write({ mode: { name: 'explore' } as unknown as AgentMode })).errorCode, 'MODE_DENIED');
    assert.equal((await write({ mode: null as unknown as string })).errorCode, 'MODE_DENIED');
    assert.equal((await write({ mode: 'explore', scopedWriteDirs: 'a' as unknown as string[] })).errorCode, 'MODE_DENIED');
    assert.equal((await write({ mode: 'explore', scopedWriteDirs: ['.'] })).errorCode, 'MODE_DENIED');
    assert.equal((await write({ mode: 'explore', scopedWriteDirs: [t.ws] })).errorCode, 'MODE_DENIED');
    assert.equal(fs.existsSync(path.join(t.ws, 'a', 'x.md')), false);
  });

  it('"~name" without a separator is a plain file name, "~/x" and "~user/x" are refused', async () => {
    fs.writeFileSync(path.join(t.ws, '~notes.md'), 'tilde');
    assert.equal((await executor.execute({ name: 'read_file', arguments: { filepath: '~notes.md' } })).output, 'tilde');
    await assert.rejects(executor.execute({ name: 'read_file', arguments: { filepath: '~root/.bashrc' } }), (e: unknown) => e instanceof PathTraversalError && e.code === 'PATH_TRAVERSAL');
  });

  it('write_file refuses a trailing slash and special files', async () => {
    const slash = await executor.execute({ name: 'write_file', arguments: { filepath: 'newdir/', content: 'x' } }, { confirm: true });
    assert.equal(slash.errorCode, 'TOOL_ERROR');
    assert.match(slash.error!, /names a folder/);
    assert.equal(fs.existsSync(path.join(t.ws, 'newdir')), false);
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(t.ws, 'fifo')]);
    const fifo = await executor.execute({ name: 'write_file', arguments: { filepath: 'fifo', content: 'x' } }, { confirm: true });
    assert.match(fifo.error!, /not a regular file/);
    assert.ok(fs.lstatSync(path.join(t.ws, 'fifo')).isFIFO());
    const read = await executor.execute({ name: 'read_file', arguments: { filepath: 'fifo' } });
    assert.match(read.error!, /not a regular file/);
  });
});
