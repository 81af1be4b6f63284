// Regression: path length, notes and thrown values were not bounded: a 40,000-component path
// held the main thread for tens of seconds, notes of megabytes passed the output cap, and a
// tool throwing an unprintable value killed its worker.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, mock } from 'node:test';
import { InvalidPathError } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { MAX_NOTE_LENGTH, MAX_NOTES, CallContext } from '../../src/runner/call-context.js';
import { serializeError } from '../../src/runner/runner.js';
import { tempWorkspace } from '../helpers.js';

describe('bounded sizes', () => {
  it('paths longer than 4096 characters are refused at once, before any file system call', () => {
    const t = tempWorkspace();
    const workspace = new Workspace(t.ws);
    workspace.resolve('.'); // the root's real path, found once
    // The work is counted, not timed: refused "at once" means no component of the 40,000 is
    // looked up (the walk that held the main thread for tens of seconds).
    const calls = [mock.method(fs.realpathSync, 'native'), mock.method(fs, 'realpathSync'), mock.method(fs, 'lstatSync'), mock.method(fs, 'statSync'), mock.method(fs, 'readlinkSync')];
    try {
      assert.throws(() => workspace.resolve('a/'.repeat(40_000)), (e: unknown) => e instanceof InvalidPathError && /longer than 4096/.test(e.message));
      assert.deepEqual(calls.map((c) => c.mock.callCount()), [0, 0, 0, 0, 0], 'file system calls made for the over-long path');
      // The same counters see a path of normal length being looked up.
      workspace.resolve('a/'.repeat(10));
      assert.ok(calls.reduce((sum, c) => sum + c.mock.callCount(), 0) > 0, 'the counters see a lookup');
    } finally {
      for (const c of calls) c.mock.restore();
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
