/**
 * `~` after a change of `HOME` in the same line (s20's note "HOME set in the line"): bash
 * expands `~` to the line's `HOME`, the deciders judged it at toolgate's own home folder, so
 * `read HOME < h.txt; echo x > ~/hooks/pre-commit` (h.txt holding `.git`) wrote a git hook
 * under allow-all, and `cat ~/config` printed `.git/config` past a deny rule on `.git/**`.
 * Through the executor users get, with no sandbox: every form that may change `HOME`
 * (an assignment in any form, `read`, `mapfile`, `printf -v`, `for`, `declare`, `export`,
 * `local` in a function, `eval`, a `bash -c` body, `env HOME=...`) makes its `~` words unseen:
 * a person is asked (and answers no here), nothing is written or printed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import type { ExecuteOptions } from 'toolgate';
import { policyExecutor } from '../policy-executor.js';

/** Ways of making HOME `.git` (read from h.txt, so that no word of the line names `.git`). */
const SET_HOME = [
  'read HOME < h.txt;',
  'read -r HOME < h.txt;',
  'mapfile -t HOME < h.txt;',
  'printf -v HOME %s "$(cat h.txt)";',
  'HOME=$(cat h.txt);',
  'HOME=; HOME+=$(cat h.txt);',
  'declare HOME=$(cat h.txt);',
  'export HOME=$(cat h.txt);',
  'for HOME in $(cat h.txt); do :; done;',
  'eval "HOME=$(cat h.txt)";',
];

/** The same, around a body that uses `~` (`%` stands for the body). */
const AROUND = [
  'for HOME in $(cat h.txt); do %; done',
  'f() { local HOME=$(cat h.txt); %; }; f',
  'HOME=$(cat h.txt) bash -c \'%\'',
  'bash -c \'read HOME < h.txt; %\'',
  'env HOME="$(cat h.txt)" bash -c \'%\'',
  'while read HOME; do %; done < h.txt',
];

const lines = (body: string): string[] => [...SET_HOME.map((set) => `${set} ${body}`), ...AROUND.map((around) => around.replace('%', body))];

describe('~ after HOME changes in the line (no sandbox)', () => {
  const { t, asked, policy, run } = policyExecutor({ executor: { sandbox: 'none' }, person: 'deny', emptyEachTest: true });
  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: t.ws });
    fs.appendFileSync(path.join(t.ws, '.git', 'config'), '[toolgate]\n\tmarker = SECRET-GIT\n');
    fs.writeFileSync(path.join(t.ws, 'h.txt'), '.git\n');
  });

  const hook = () => path.join(t.ws, '.git', 'hooks', 'pre-commit');

  /** Runs each line; none may run: each asks (the answer is no) or is denied, and nothing reaches .git. */
  const refused = async (body: string, options: ExecuteOptions, what: RegExp) => {
    for (const line of lines(body)) {
      asked.length = 0;
      const r = await run(line, options);
      assert.ok(r.errorCode === 'CONFIRMATION_DENIED' || r.errorCode === 'POLICY_DENIED', `${line}: ran (${r.errorCode ?? 'success'}): ${JSON.stringify(r.output).slice(0, 200)}`);
      if (r.errorCode === 'CONFIRMATION_DENIED') assert.match(asked[0]?.ask.reason ?? '', what, line);
      assert.equal(fs.existsSync(hook()), false, `${line}: wrote the hook`);
      assert.doesNotMatch(JSON.stringify(r), /SECRET-GIT/, line);
    }
  };

  test('under allow-all, a write to ~/hooks/pre-commit after HOME changes asks, and no hook is written', async () => {
    policy('');
    await refused('echo x > ~/hooks/pre-commit', { approvalMode: 'allow-all' }, /computed when the line runs|HOME/);
    await refused('cp h.txt ~/hooks/pre-commit', { approvalMode: 'allow-all' }, /computed when the line runs|HOME/);
  });

  test('under an allow rule for the tool (and for the programs), a write through ~ after HOME changes asks', async () => {
    policy('[[rules]]\ntool = "run_command"\naction = "allow"\n');
    await refused('touch ~/hooks/pre-commit', {}, /HOME|computed when the line runs/);
    policy(['read', 'mapfile', 'printf', 'cat', 'declare', 'export', 'eval', 'touch', 'bash', 'env', 'f', 'local', ':'].map((c) => `[[rules]]\ncommand = "${c}"\naction = "allow"\n`).join('\n'));
    await refused('touch ~/hooks/pre-commit', {}, /HOME|computed when the line runs/);
  });

  test('under a deny rule on .git/**, reading ~/config after HOME changes does not print .git/config', async () => {
    policy('[[rules]]\npaths = [".git/**"]\naction = "deny"\n');
    await refused('cat ~/config', {}, /HOME|computed when the line runs|cannot vouch/);
    await refused('cat "$HOME/config"', {}, /HOME|computed when the line runs|cannot vouch/);
  });

  test('without a change of HOME, ~ words run as before under allow-all and the deny rule', async () => {
    policy('[[rules]]\npaths = [".git/**"]\naction = "deny"\n');
    fs.writeFileSync(path.join(t.ws, 'out.txt'), '');
    const r = await run('echo ok > out.txt; cat ~/.nonexistent-toolgate-test 2>/dev/null; cat h.txt', { approvalMode: 'allow-all' });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });
});
