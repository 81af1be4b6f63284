/**
 * ask_user questions through the ledger (ledgerQuestionHandler): stored as a pending ask_user
 * call with a question of kind `question`, answered by a reply given elsewhere (the cockpit),
 * refused by a deny, ended by an abort; and the ledger's live-view reads the cockpit uses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Ledger, ledgerQuestionHandler, sessionApprovalMode, setSessionApprovalMode } from 'toolgate';

let dir: string;
let ledger: Ledger;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-user-questions-'));
  ledger = Ledger.open({ dir, workspace: dir, pollMs: 20 });
});
afterEach(async () => {
  await ledger.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The question of the latest pending approval, once one is stored. */
async function pending() {
  for (;;) {
    const [question] = await ledger.pendingApprovals();
    if (question !== undefined) return question;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('ask_user through the ledger', () => {
  it('stores the question, resolves with the reply given elsewhere, and ends the call done with it', async () => {
    const ask = ledgerQuestionHandler(ledger, { workspace: dir });
    const answer = ask({ callId: 'q1', question: 'Which colour?', choices: ['red', 'blue'] });
    const question = await pending();
    assert.equal(question.tool, 'ask_user');
    assert.equal(question.request.kind, 'question');
    assert.deepEqual(question.request.arguments, { question: 'Which colour?', choices: ['red', 'blue'] });
    assert.equal(question.ownerAlive, true);
    assert.equal((await ledger.answer(question.id, JSON.stringify({ reply: ['blue'] }), 'cockpit:1'))?.first, true);
    assert.deepEqual(await answer, ['blue']);
    assert.equal((await ledger.get('q1', question.session))?.state, 'done');
    assert.equal((await ledger.result('q1', question.session))?.fullOutput, 'blue');
  });

  it('rejects on a refusal (deny) and on an abort, and ends the call failed', async () => {
    const ask = ledgerQuestionHandler(ledger, { workspace: dir });
    const refused = ask({ callId: 'q2', question: 'Go on?' });
    const first = await pending();
    await ledger.answer(first.id, 'deny', 'cli:1');
    await assert.rejects(refused, /declined/);
    assert.equal((await ledger.get('q2', first.session))?.state, 'failed');

    const controller = new AbortController();
    const aborted = ask({ callId: 'q3', question: 'Still there?' }, controller.signal);
    const second = await pending();
    controller.abort();
    await assert.rejects(aborted, /aborted/);
    assert.equal((await ledger.get('q3', second.session))?.state, 'failed');
    assert.equal((await ledger.result('q3', second.session))?.result.errorCode, 'ABORTED');
  });
});

describe('the ledger\'s live view', () => {
  it('lists events after an id, in order, with their call', async () => {
    const call = { callId: 'c1', session: 's', tool: 'write_file', version: '1.0.0', arguments: {}, workspace: dir, turn: '' };
    await ledger.record(call);
    const mark = await ledger.lastEventId();
    await ledger.claim(call);
    const after = await ledger.eventsAfter(mark);
    assert.deepEqual(after.map((e) => [e.kind, e.callId, e.session]), [['running', 'c1', 's']]);
    assert.ok(after[0]!.id > mark);
    assert.deepEqual((await ledger.eventsAfter(after[0]!.id)), []);
  });

  it('keeps session approval modes, refuses an unknown one, and clears them', async () => {
    await setSessionApprovalMode(ledger, 'turn-1', 'deny-all', 'cockpit:1');
    assert.equal(await sessionApprovalMode(ledger, 'turn-1'), 'deny-all');
    assert.equal((await ledger.sessionSetting('turn-1', 'approval_mode'))?.setBy, 'cockpit:1');
    await assert.rejects(() => setSessionApprovalMode(ledger, 'turn-1', 'sometimes' as never, 'x'), TypeError);
    await setSessionApprovalMode(ledger, 'turn-1', undefined, 'cockpit:1');
    assert.equal(await sessionApprovalMode(ledger, 'turn-1'), undefined);
    assert.deepEqual((await ledger.sessionSettings()), []);
  });
});
