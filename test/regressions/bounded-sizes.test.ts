// Regression: path length, notes and thrown values were not bounded: a 40,000-component path
// held the main thread for tens of seconds, notes of megabytes passed the output cap, and a
// tool throwing an unprintable value killed its worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidPathError } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { MAX_NOTE_LENGTH, MAX_NOTES, CallContext } from '../../src/runner/call-context.js';
import { serializeError } from '../../src/runner/runner.js';
import { tempWorkspace } from '../helpers.js';

describe('bounded sizes', () => {
  it('paths longer than 4096 characters are refused at once', () => {
    const t = tempWorkspace();
    try {
      // CPU time, not wall time: refused "at once" means little work, on a loaded machine too.
      const started = process.cpuUsage();
      assert.throws(() => new Workspace(t.ws).resolve('a/'.repeat(40_000)), (e: unknown) => e instanceof InvalidPathError && /longer than 4096/.test(e.message));
      const used = process.cpuUsage(started);
      assert.ok(used.user + used.system < 1_000_000, `took ${Math.round((used.user + used.system) / 1000)} ms of CPU`);
    } finally {
      t.cleanup();
    }
  });

  it('notes are capped in number and length', () => {
    const ctx = new CallContext('c', 't', '1.0.0', '/tmp', false, 100);
    for (let i = 0; i < 50; i++) ctx.note('n'.repeat(10_000));
    assert.equal(ctx.notes.length, MAX_NOTES);
    assert.ok(ctx.notes.every((n) => n.length < MAX_NOTE_LENGTH + 100));
  });

  it('any thrown value can be described', () => {
    const hostile = new Proxy({}, { get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } });
    assert.deepEqual(serializeError(hostile), { name: 'Error', message: 'the tool threw a value that cannot be described' });
  });
});
