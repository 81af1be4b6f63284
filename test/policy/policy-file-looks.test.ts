/**
 * How often a call looks at the policy files (issue 32, the distributed bench): the policy
 * decider checks them (a stat each) and marks them checked for that call; the call's later
 * looks (its commands' paths, its path filter's set of the same files) use those states, with
 * no stat more. A file changed between two calls is seen by the second, and a call's re-check
 * (after a person answered) checks again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, mock, test } from 'node:test';
import type { PolicyCallInput } from '../../src/policy/policy-rules.js';
import { PolicySet } from '../../src/policy/policy-set.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function workspaceFile(text: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-policy-looks-'));
  folders.push(root);
  fs.mkdirSync(path.join(root, '.toolgate'));
  const file = path.join(root, '.toolgate', 'policy.toml');
  fs.writeFileSync(file, text);
  return file;
}

const input: PolicyCallInput = { tool: 'write_file', kind: 'file_write', args: {}, paths: ['a.txt'] };

/** Count the `lstat`s of `file` while `run` runs. */
function lstatsOf(file: string, run: () => void): number {
  const spy = mock.method(fs, 'lstatSync');
  try {
    run();
    return spy.mock.calls.filter((c) => c.arguments[0] === file).length;
  } finally {
    spy.mock.restore();
  }
}

describe('policy files: one look per call', () => {
  test('the decider checks once; the same call\'s later looks, through this set or another of the same files, use that check', () => {
    const file = workspaceFile('[[rules]]\naction = "deny"\ntool = "write_file"\npaths = ["secret/**"]\n');
    const decider = new PolicySet({ workspace: file });
    const filter = new PolicySet({ workspace: file }); // the path filter's own set of the same files
    const call = {};
    const stats = lstatsOf(file, () => {
      assert.equal(decider.decide(input, { call, recheck: true }).verdict, undefined);
      assert.equal(decider.decide({ ...input, paths: ['secret/k'] }, { call, recheck: false }).verdict, 'deny');
      assert.equal(filter.check(call)[0]!.state, 'ok');
    });
    assert.equal(stats, 1, 'one stat of the file for the call');
  });

  test('a file changed between two calls is seen by the second; a re-check of the first (after an answer) sees it too', () => {
    const file = workspaceFile('# no rules yet\n');
    const set = new PolicySet({ workspace: file });
    const first = {};
    assert.equal(set.decide(input, { call: first, recheck: true }).verdict, undefined);
    fs.writeFileSync(file, '[[rules]]\naction = "deny"\ntool = "write_file"\n');
    const second = {};
    assert.equal(set.decide(input, { call: second, recheck: false }).verdict, 'deny', 'not checked for this call: checked now');
    assert.equal(new PolicySet({ workspace: file }).check(first)[0]!.policy?.rules.length, 1, 'the first call\'s check was replaced by a later one: checked now');
    fs.writeFileSync(file, '# the rule removed again, a person answered meanwhile\n');
    assert.equal(set.decide(input, { call: first, recheck: true }).verdict, undefined, 'a re-check always looks');
    assert.equal(set.check()[0]!.policy?.rules.length, 0);
  });
});
