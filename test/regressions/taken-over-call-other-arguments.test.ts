// Regression: a pending call whose owner died is taken over by the next process that gets the
// same call id and session, and the answer its question got counts. The new request's
// arguments were never compared with the stored ones: an approval given (`toolgate approvals
// allow ID`, the cockpit) for `write_file {"filepath": "ok.txt"}` ran a later
// `write_file {"filepath": "evil.txt"}` sent with the same call id (a model or framework whose
// call ids repeat, `call_0`, with a session kept across restarts). The same call id with
// another request is refused, as it is for an ended call; the same request still runs.
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger, ToolSystem } from 'toolgate';
import { tempWorkspace } from '../helpers.js';

/** A pid that is not running (a child that has exited). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

describe('an approval stored for a call binds to its arguments when another process takes the call over', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const dir = path.join(t.root, 'state');

  /** A pending write_file call `callId` of session s1 whose question was answered allow, asked by a process now gone. */
  async function answeredByTheDead(callId: string, filepath: string): Promise<void> {
    const ledger = Ledger.open({ dir, workspace: t.ws });
    try {
      const entry = { callId, session: 's1', tool: 'write_file', version: '1.0.0', arguments: { filepath, content: 'approved content' }, workspace: t.ws, turn: '' };
      await ledger.record(entry);
      const id = await ledger.ask(entry, { tool: 'write_file', arguments: entry.arguments });
      await ledger.answer(id, 'allow_once', 'cli:test');
      const raw = new Database(ledger.file);
      raw.prepare('UPDATE calls SET owner_pid = ? WHERE call_id = ?').run(deadPid(), callId);
      raw.close();
    } finally {
      await ledger.close();
    }
  }

  it('the same call id with other arguments is refused and writes nothing; the approved request runs', async () => {
    await answeredByTheDead('call_0', 'ok.txt');
    await answeredByTheDead('call_1', 'ok.txt');
    const system = new ToolSystem({ workspace: t.ws, ported: false, ledger: { dir, pollMs: 20 } });
    await system.start();
    try {
      const other = await system.execute({ name: 'write_file', arguments: { filepath: 'evil.txt', content: 'not approved' }, callId: 'call_0' }, { session: 's1' });
      assert.equal(other.success, false, other.output);
      assert.equal(other.errorCode, 'INVALID_ARGUMENTS', other.output);
      assert.equal(fs.existsSync(path.join(t.ws, 'evil.txt')), false, 'the approval for ok.txt did not write evil.txt');
      const same = await system.execute({ name: 'write_file', arguments: { filepath: 'ok.txt', content: 'approved content' }, callId: 'call_1' }, { session: 's1' });
      assert.equal(same.success, true, same.output);
      assert.equal(fs.readFileSync(path.join(t.ws, 'ok.txt'), 'utf8'), 'approved content');
    } finally {
      await system.close();
    }
  });

  it('a call this process recorded earlier (adopted, as an MCP task is) is bound to its arguments too', async () => {
    const system = new ToolSystem({ workspace: t.ws, ported: false, ledger: { dir, pollMs: 20 } });
    await system.start();
    try {
      const ledger = system.executor.ledger!;
      const entry = { callId: 'call_2', session: 's2', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'ok2.txt', content: 'approved content' }, workspace: t.ws, turn: '' };
      assert.equal((await ledger.record(entry)).kind, 'recorded');
      await ledger.answer(await ledger.ask(entry, { tool: 'write_file', arguments: entry.arguments }), 'allow_once', 'cli:test');
      const other = await system.execute({ name: 'write_file', arguments: { filepath: 'evil2.txt', content: 'not approved' }, callId: 'call_2' }, { session: 's2' });
      assert.equal(other.errorCode, 'INVALID_ARGUMENTS', other.output);
      assert.equal(fs.existsSync(path.join(t.ws, 'evil2.txt')), false, 'the approval for ok2.txt did not write evil2.txt');
    } finally {
      await system.close();
    }
  });
});
