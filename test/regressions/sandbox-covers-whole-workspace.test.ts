// Regression (review s21): the sandbox hides what a call's deny path rules withhold from a
// shell command (`grep -r KEY` names no file for the deciders to judge). Its walk for those
// paths stopped after 5,000 entries and said nothing: in a larger workspace every withheld
// file past them, and every hard link of one, stayed readable by the command (fail open).
// The walk now covers the whole workspace (asynchronously, up to 1,000,000 entries), and a
// walk that could not see everything refuses to run the command.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bubblewrapAvailable } from 'toolgate/internal';
import { withheldCovers } from '../../src/workspace/withheld-inodes.js';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';
import { policyExecutor } from '../policy-executor.js';

const FOLDERS = 20;
const FILES_PER_FOLDER = 600;

describe('sandbox covers: every withheld path of a large workspace is hidden from a shell command', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
  const { t, run } = policyExecutor({ rules: '[[rules]]\naction = "deny"\npaths = ["**/.env", "secrets/**"]\n', executor: { approvalMode: 'allow-all' } });
  before(() => {
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET-KEY needle\n');
    // 20 folders of 600 files (12,000 entries): past 5,000, at least eleven folders went unseen.
    for (let f = 0; f < FOLDERS; f++) {
      const dir = path.join(t.ws, `pkg${String(f).padStart(2, '0')}`);
      fs.mkdirSync(dir);
      for (let i = 0; i < FILES_PER_FOLDER; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), '');
      fs.writeFileSync(path.join(dir, '.env'), `TOKEN=SECRET-ENV-${f} needle\n`);
      fs.writeFileSync(path.join(dir, 'readme.txt'), `plain ${f} needle\n`);
      fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(dir, 'key-link'));
    }
  });

  test('grep -r over 12,000 entries finds every plain file and no withheld one, nor a hard link of one', async () => {
    const r = await run('grep -r needle . | sort', { confirm: true });
    const output = String(r.output);
    assert.doesNotMatch(output, /SECRET/, output.slice(0, 2000));
    for (let f = 0; f < FOLDERS; f++) assert.match(output, new RegExp(`plain ${f} needle`));
  });
});

describe('withheldCovers', () => {
  let t: TempWorkspace;
  before(() => {
    t = tempWorkspace();
    fs.mkdirSync(path.join(t.ws, 'a/secrets'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'a/secrets/k'), 'k');
    fs.writeFileSync(path.join(t.ws, 'a/.env'), 'e');
    fs.writeFileSync(path.join(t.ws, 'b.txt'), 'b');
    fs.linkSync(path.join(t.ws, 'a/.env'), path.join(t.ws, 'env-link'));
  });
  after(() => t.cleanup());
  const withheld = (p: string) => p.endsWith('.env') || p === 'a/secrets' || p.startsWith('a/secrets/');

  test('the topmost withheld entries, then the other names of withheld files; complete', async () => {
    const found = await withheldCovers(t.ws, withheld);
    assert.equal(found.complete, true);
    assert.deepEqual([...found.paths].sort(), ['a/.env', 'a/secrets', 'env-link']);
  });

  test('a walk cut short by its bound says so (the command is then refused)', async () => {
    const found = await withheldCovers(t.ws, withheld, undefined, 3);
    assert.equal(found.complete, false);
  });

  test('an aborted walk rejects with the reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await assert.rejects(withheldCovers(t.ws, withheld, controller.signal), /stopped/);
  });
});
