/**
 * `toolgate call --queue`: a call that waits on a worker for a person's answer says so, with
 * the commands that answer it (it sat silent before, and a new user thought it hung).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ledger } from '../../src/ledger/store.js';
import { noticeQuestion } from '../../src/distributed/question-notice.js';

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
    const watching = noticeQuestion({ pendingApprovals: async () => [] }, { callId: 'c', session: 's' }, 's.sqlite', (t) => written.push(t), ended.signal, 10);
    ended.abort();
    await watching;
    assert.deepEqual(written, []);
  });
});
