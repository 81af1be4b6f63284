/**
 * Regression: an `always` (or `allow_for_turn`) answer for a shell command was keyed by the
 * command's argv, wrappers' names and redirect writes only, so it covered words the person
 * never saw (found attacking the grants, task s18): `cat < notes.txt` approved covered `cat <
 * other.txt`; `git log` covered `git --bare -p log` (git's global options are dropped from
 * argv); `time ls` covered `time -o out.txt ls` (a wrapper's own options). The key of a
 * command now holds every word the person saw: the files it reads, git's global options and
 * the wrappers' own words.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, beforeEach, describe, test } from 'node:test';
import type { ApprovalAnswer } from 'toolgate';
import { policyExecutor } from '../policy-executor.js';

describe('a remembered answer covers only the words the person saw', () => {
  let answer: ApprovalAnswer;
  const fx = policyExecutor({ executor: { sandbox: 'none' }, person: () => answer });
  const { t, userFile, asked } = fx;
  before(() => {
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'notes\n');
    fs.writeFileSync(path.join(t.ws, 'other.txt'), 'other\n');
  });
  beforeEach(() => {
    fs.writeFileSync(userFile, '# rules\n');
  });

  const run = (command: string, turnId?: string) => fx.executor.execute({ name: 'run_command', arguments: { command } }, turnId === undefined ? {} : { turnId });

  for (const [approved, other] of [['cat < notes.txt', 'cat < other.txt'], ['git log -1', 'git --bare -p log -1'], ['time ls', 'time -o out.txt ls']] as const) {
    test(`always for ${approved} does not cover ${other}`, async () => {
      answer = 'always';
      await run(approved);
      assert.equal(asked.length, 1, 'asked once');
      assert.ok(asked[0]!.offers.includes('always'), 'always is offered');
      await run(approved);
      assert.equal(asked.length, 1, 'the same command is not asked again');
      answer = 'deny';
      const r = await run(other);
      assert.equal(asked.length, 2, `${other} was let through by the answer for ${approved}`);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED');
      assert.equal(fs.existsSync(path.join(t.ws, 'out.txt')), false);
    });
  }

  test('allow_for_turn for cat < notes.txt does not cover cat < other.txt in the turn', async () => {
    answer = 'allow_for_turn';
    await run('cat < notes.txt', 'turn-1');
    answer = 'deny';
    const r = await run('cat < other.txt', 'turn-1');
    assert.equal(asked.length, 2);
    assert.equal(r.errorCode, 'CONFIRMATION_DENIED');
    assert.doesNotMatch(String(r.output ?? ''), /^other$/m);
  });
});
