/**
 * `toolgate call --queue`: a call that waits on a worker for a person's answer says so, with
 * the commands that answer it (it sat silent before, and a new user thought it hung); so does
 * a call no worker of its pool takes (a misspelled --pool sat silent too).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ledger } from '../../src/ledger/store.js';
import { noticeQuestion, noticeUnclaimed } from '../../src/distributed/question-notice.js';

describe('the notice of a question a queued call waits on', () => {
  it('names the question and the approvals and cockpit commands with the same --store, once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-notice-'));
    const store = Ledger.open({ file: path.join(dir, 'store.sqlite') });
    const ended = new AbortController();
    try {
      const key = { callId: 'c1', session: 'cli' };
      await store.record({ ...key, tool: 'run_command', version: '1.0.0', arguments: { command: 'make' }, workspace: dir, turn: '', pool: 'build' });
      const written: string[] = [];
      const watching = noticeQuestion(store, key, path.join(dir, 'store.sqlite'), (t) => written.push(t), ended.signal, 10);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(written.length, 0, 'no question yet: nothing said');
      const id = await store.ask(key, { tool: 'run_command' });
      await watching;
      assert.equal(written.length, 1);
      assert.match(written[0]!, new RegExp(`question ${id}, run_command`));
      assert.ok(written[0]!.includes(`toolgate approvals allow ${id} --store ${path.join(dir, 'store.sqlite')}`), written[0]);
      assert.ok(written[0]!.includes(`toolgate cockpit --store ${path.join(dir, 'store.sqlite')}`), written[0]);
    } finally {
      ended.abort();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops without a word when the call ends first', async () => {
    const ended = new AbortController();
    const written: string[] = [];
    const watching = noticeQuestion({ get: async () => undefined, events: async () => [], approval: async () => undefined }, { callId: 'c', session: 's' }, 's.sqlite', (t) => written.push(t), ended.signal, 10);
    ended.abort();
    await watching;
    assert.deepEqual(written, []);
  });

  it('a call untaken in its pool is said so once, naming the pool and the worker command; one parked on a question is not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-notice-'));
    const file = path.join(dir, 'store.sqlite');
    const store = Ledger.open({ file });
    const ended = new AbortController();
    try {
      const parked = { callId: 'asks', session: 'cli' };
      await store.record({ ...parked, tool: 'run_command', version: '', arguments: { command: 'make' }, workspace: dir, turn: '', pool: 'build' });
      await store.ask(parked, { tool: 'run_command' });
      const untaken = { callId: 'untaken', session: 'cli' };
      await store.record({ ...untaken, tool: 'read_file', version: '', arguments: { filepath: 'x' }, workspace: dir, turn: '', pool: 'nobody' });
      const written: string[] = [];
      const onUntaken = noticeUnclaimed(store, untaken, file, (t) => written.push(t), ended.signal, 20, 5);
      const onParked = noticeUnclaimed(store, parked, file, (t) => written.push(`parked: ${t}`), ended.signal, 20, 5);
      await onUntaken;
      assert.equal(written.length, 1, written.join(''));
      assert.match(written[0]!, /^toolgate: call untaken waits in the queue of pool nobody: no worker of that pool has taken it/);
      assert.ok(written[0]!.includes(`toolgate worker --pool nobody --store ${file} --queue QUEUE`), written[0]);
      // The parked call has waited as long: still nothing said of it.
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(written.filter((w) => w.startsWith('parked')).length, 0);
      ended.abort();
      await onParked;
    } finally {
      ended.abort();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads only its call\'s question, never every question waiting (other calls\' questions do not count)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-notice-'));
    const file = path.join(dir, 'store.sqlite');
    const ledger = Ledger.open({ file });
    const ended = new AbortController();
    let everyQuestion = 0;
    // The store as the notices see it, counting reads of every question waiting.
    const store = new Proxy(ledger, {
      get(target, property) {
        if (property === 'pendingApprovals') everyQuestion++;
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      // Other calls wait on questions of their own.
      for (let n = 0; n < 5; n++) {
        const other = { callId: `other-${n}`, session: 'cli' };
        await ledger.record({ ...other, tool: 'run_command', version: '', arguments: { command: 'make' }, workspace: dir, turn: '', pool: 'build' });
        await ledger.ask(other, { tool: 'run_command' });
      }
      const key = { callId: 'mine', session: 'cli' };
      await ledger.record({ ...key, tool: 'write_file', version: '', arguments: { filepath: 'a' }, workspace: dir, turn: '', pool: 'build' });
      const written: string[] = [];
      const asking = noticeQuestion(store, key, file, (t) => written.push(t), ended.signal, 5);
      const untaken = noticeUnclaimed(store, key, file, (t) => written.push(t), ended.signal, 1_000_000, 5);
      await new Promise((r) => setTimeout(r, 60));
      assert.deepEqual(written, [], 'the other calls\' questions are not this call\'s');
      const id = await ledger.ask(key, { tool: 'write_file' });
      await asking;
      assert.equal(written.length, 1);
      assert.match(written[0]!, new RegExp(`call mine waits on a worker for a person's answer \\(question ${id}, write_file\\)`));
      ended.abort();
      await untaken;
      assert.equal(everyQuestion, 0, 'every question waiting was read');
    } finally {
      ended.abort();
      await ledger.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
