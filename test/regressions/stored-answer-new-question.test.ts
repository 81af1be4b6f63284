/**
 * A person's answer settles only the questions they were shown (e3d5145), also when it is
 * given in the ledger to a call that suspended while asking and is made again: if the call,
 * made again, raises a question the stored one did not hold (its target became a link to a
 * protected path), the stored answer must not settle it. Temp folders only; removed after.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SUSPENDS, ToolExecutor, ToolRegistry } from 'toolgate';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('a stored answer to a suspended call', () => {
  let tmp: TempWorkspace;
  let registry: ToolRegistry;
  const ran: string[] = [];
  before(() => {
    tmp = tempWorkspace();
    registry = new ToolRegistry();
    registry.register({
      name: 'note_write', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, description: 'Writes a note.',
      inputSchema: { type: 'object', properties: { filepath: { type: 'string', format: 'workspace-path' } }, required: ['filepath'] },
      run: (args: { filepath: string }) => (ran.push(args.filepath), 'written'),
    });
  });
  after(() => tmp.cleanup());

  // Fails today (fail open): the ledger keys a stored answer by call alone (sqlite/questions.ts
  // ask/answeredQuestion, approval.ts answerAsk's durable.questions.answered), not by the
  // questions it was given for. Marked todo until the stored request's questions are compared.
  it('does not settle a protected-path question raised when the call is made again', { todo: 'stored answers are keyed by call, not by the questions shown (review s22)' }, async () => {
    fs.mkdirSync(path.join(tmp.ws, '.git'));
    fs.writeFileSync(path.join(tmp.ws, '.git/config'), '[core]\n');
    fs.writeFileSync(path.join(tmp.ws, 'note.txt'), 'plain');
    const shown: unknown[] = [];
    const executor = new ToolExecutor(registry, {
      workspaceRoot: tmp.ws, ledger: { dir: path.join(tmp.root, 'state') }, outputStore: false, sweepLeftovers: false,
      confirmationHandler: (request) => {
        shown.push(request);
        throw Object.assign(new Error('asks in a later request'), { [SUSPENDS]: true });
      },
    });
    try {
      const call = { name: 'note_write', arguments: { filepath: 'note.txt' }, callId: 'c1' };
      await assert.rejects(executor.execute(call, { session: 's1' }), (error: unknown) => (error as { [SUSPENDS]?: boolean })[SUSPENDS] === true);
      assert.equal(shown.length, 1);
      assert.equal((shown[0] as { also?: unknown }).also, undefined, 'one question was shown');
      const ledger = executor.ledger!;
      const waiting = await ledger.pendingApprovals();
      assert.equal(waiting.length, 1);
      await ledger.answer(waiting[0]!.id, 'allow_once', 'cli:1');
      // the target is now a link to a protected path: the same call raises a person-only question
      fs.rmSync(path.join(tmp.ws, 'note.txt'));
      fs.symlinkSync('.git/config', path.join(tmp.ws, 'note.txt'));
      // the same call under a new id is asked a protected-path question (the one the stored answer must not settle)
      await assert.rejects(executor.execute({ ...call, callId: 'c2' }, { session: 's1' }));
      const fresh = JSON.stringify(shown[1]);
      assert.match(fresh, /protected-paths/, fresh);
      const again = await executor.execute(call, { session: 's1' }).catch((error: unknown) => ({ success: false, output: String(error), errorCode: 'SUSPENDED' }));
      assert.equal(again.success, false, `the answer to the tool's own question ran a call whose protected-path question nobody saw: ${again.output}`);
      assert.deepEqual(ran, []);
    } finally {
      await executor.close();
    }
  });
});
