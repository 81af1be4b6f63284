/**
 * The tests' wait helpers (test/wait.ts): a file read while its writer is half way gives no
 * number, a word split over two chunks of a stream is still found, and a wait that never ends
 * fails naming what it waited for.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { onEachPrompt, textFrom, waitFor, wholeNumberIn } from '../wait.js';

describe('test wait helpers', () => {
  test('wholeNumberIn gives a number only once the file holds all of it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-wait-'));
    try {
      const file = path.join(dir, 'pid');
      assert.equal(wholeNumberIn(file), undefined, 'no file yet');
      fs.writeFileSync(file, '');
      assert.equal(wholeNumberIn(file), undefined, 'made, not yet written: Number(\'\') would be 0');
      fs.writeFileSync(file, '123');
      assert.equal(wholeNumberIn(file), 123);
      assert.equal(wholeNumberIn(file, { newline: true }), undefined, 'its line has not ended');
      fs.writeFileSync(file, '12345\n');
      assert.equal(wholeNumberIn(file, { newline: true }), 12345);
      fs.writeFileSync(file, '0\n');
      assert.equal(wholeNumberIn(file), undefined, 'not a process id');
      fs.writeFileSync(file, '12 34');
      assert.equal(wholeNumberIn(file), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('waitFor gives the first value and fails naming what it waited for', async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 3 ? `after ${n}` : undefined), { what: 'three looks', intervalMs: 1 }), 'after 3');
    await assert.rejects(waitFor(() => false, { what: 'an event that never comes', timeoutMs: 50, seen: () => 'nothing' }), /timed out after 0 s waiting for an event that never comes; seen: nothing/);
  });

  test('textFrom finds a word split over two chunks, and fails when the stream ends first', async () => {
    const stream = new PassThrough();
    const out = textFrom(stream);
    const ready = out.waitFor(': ready', 'the ready line');
    stream.write('worker pid 1: re');
    await new Promise((resolve) => setImmediate(resolve));
    stream.write('ady\n');
    assert.equal(await ready, 'worker pid 1: ready\n');
    const never = out.waitFor(/served \d+/, 'a served line');
    stream.end('bye\n');
    await assert.rejects(never, /the stream ended before a served line; it gave: worker pid 1: ready\nbye\n/);
  });

  test('onEachPrompt answers a prompt split over two chunks once, and two prompts in one chunk twice', () => {
    const stream = new PassThrough();
    let answers = 0;
    onEachPrompt(stream, '[y/N]', () => answers++);
    stream.write('Trust it? [y');
    stream.write('/N] ');
    assert.equal(answers, 1);
    stream.write('again? [y/N] and again? [y/N] ');
    assert.equal(answers, 3);
  });
});
