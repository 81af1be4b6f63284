/**
 * Remembered answers re-checked at every use (issue 30, item 3; case M1): an answer settles
 * only the question it was given for. Protected paths and path rules are judged again against
 * what the paths resolve to at each use, and an answer is keyed by the tool's built code too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationRequest, type SavedApprovals, type ToolRegistry } from 'toolgate';
import { MemorySaved } from './memory-saved.js';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';


describe('remembered answers are re-checked at every use (M1)', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  before(async () => {
    registry = await fixtureRegistry();
    t = tempWorkspace();
  });
  after(() => t.cleanup());

  /** An executor whose person answers `answer` (a function of the question) and records each question. */
  function executorAnswering(answer: (request: ConfirmationRequest) => ApprovalAnswer, saved: SavedApprovals, options: Record<string, unknown> = {}) {
    const asked: ConfirmationRequest[] = [];
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, savedApprovals: saved, confirmationHandler: (r) => (asked.push(r), answer(r)), ...options });
    return { asked, executor };
  }

  test('M1: always for write_file a.txt, then a.txt replaced by a link to .git/config: the same call asks, and nothing is written there', async () => {
    fs.mkdirSync(path.join(t.ws, '.git'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.git/config'), '[core]\n\tbare = false\n');
    const saved = new MemorySaved();
    const { asked, executor } = executorAnswering((r) => (r.ask.decider === 'protected-paths' ? 'deny' : 'always'), saved);
    const call = () => executor.execute({ name: 'write_file', arguments: { filepath: 'a.txt', content: '[core]\n\tfsmonitor = touch pwn\n' } });
    try {
      const first = await call();
      assert.equal(first.success, true, first.error);
      assert.equal(saved.size, 1);
      const again = await call();
      assert.equal(again.success, true, again.error);
      assert.equal(asked.length, 1, 'the saved answer settles the same question');
      fs.rmSync(path.join(t.ws, 'a.txt'));
      fs.symlinkSync('.git/config', path.join(t.ws, 'a.txt'));
      const swapped = await call();
      assert.equal(swapped.errorCode, 'CONFIRMATION_DENIED', swapped.error);
      assert.equal(asked.length, 2, 'asked anew');
      assert.equal(asked[1]!.ask.decider, 'protected-paths');
      assert.equal(fs.readFileSync(path.join(t.ws, '.git/config'), 'utf8'), '[core]\n\tbare = false\n');
      // Also under allow-all, and in a new executor reading the same saved answers.
      const { asked: asked2, executor: second } = executorAnswering(() => 'deny', saved, { approvalMode: 'allow-all' });
      try {
        const r = await second.execute({ name: 'write_file', arguments: { filepath: 'a.txt', content: '[core]\n\tfsmonitor = touch pwn\n' } });
        assert.equal(r.errorCode, 'CONFIRMATION_DENIED', r.error);
        assert.equal(asked2.length, 1);
      } finally {
        await second.close();
      }
      assert.equal(fs.readFileSync(path.join(t.ws, '.git/config'), 'utf8'), '[core]\n\tbare = false\n');
    } finally {
      await executor.close();
      fs.rmSync(path.join(t.ws, 'a.txt'), { force: true });
    }
  });

  test('an answer for a target does not cover another target the same words reach later (a link to a plain file)', async () => {
    const saved = new MemorySaved();
    const { asked, executor } = executorAnswering(() => 'allow_for_turn', saved);
    const call = () => executor.execute({ name: 'write_file', arguments: { filepath: 'b.txt', content: 'x\n' } }, { turnId: 't' });
    try {
      assert.equal((await call()).success, true);
      assert.equal((await call()).success, true);
      assert.equal(asked.length, 1);
      fs.rmSync(path.join(t.ws, 'b.txt'));
      fs.writeFileSync(path.join(t.ws, 'other.txt'), 'other\n');
      fs.symlinkSync('other.txt', path.join(t.ws, 'b.txt'));
      assert.equal((await call()).success, true);
      assert.equal(asked.length, 2, 'the link leads elsewhere: asked again');
    } finally {
      await executor.close();
    }
  });

  test('an answer given before a policy rule asked does not settle that rule\'s question', async () => {
    const userFile = path.join(t.root, 'policy-m1.toml');
    fs.writeFileSync(userFile, '');
    const saved = new MemorySaved();
    const { asked, executor } = executorAnswering((r) => (r.ask.decider === 'policy' ? 'deny' : 'always'), saved, { policy: { user: userFile, workspace: false } });
    const call = () => executor.execute({ name: 'write_file', arguments: { filepath: 'notes/c.txt', content: 'x\n' } });
    try {
      assert.equal((await call()).success, true);
      assert.equal((await call()).success, true);
      assert.equal(asked.length, 1);
      fs.writeFileSync(userFile, '[[rules]]\naction = "ask"\npaths = "notes/**"\nreason = "notes are reviewed"\n');
      const r = await call();
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', r.error);
      assert.equal(asked.length, 2);
      assert.equal(asked[1]!.ask.decider, 'policy');
    } finally {
      await executor.close();
    }
  });
});
