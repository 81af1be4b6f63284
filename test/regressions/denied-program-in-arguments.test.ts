/**
 * Regression: under a deny rule for curl, command lines whose programs run a command line
 * given in their arguments were decided by no rule, so `--yes` or `allow-all` ran the denied
 * program (found by an attack on case C6's family: hidden commands that only a person may
 * allow): `git rebase -x 'curl ...'`, `git submodule foreach`, `git bisect run`, `git difftool
 * -x`, `man -P`, `less +!`, `zip -TT`, `socat EXEC:`, `nc -e`, `sqlite3 '.shell ...'`,
 * `python3 -c 'os.system("curl ...")'`. The list of such programs cannot be completed, so a
 * deny (or ask) rule's program named inside the arguments of a command no table vouches for
 * now makes the line a question only a person answers.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, policyCallInput } from '../../src/policy/policy-rules.js';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { analysisOf, lineVerdict, RUN_COMMAND } from '../policy/line-verdict.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

const DENY_CURL = '[[rules]]\ncommand = "curl"\naction = "deny"\n[[rules]]\ncommand = "echo"\naction = "allow"\n[[rules]]\ncommand = "grep"\naction = "allow"\n[[rules]]\ncommand = "git"\naction = "allow"\n';
const URL = 'http://127.0.0.1:9/';

function match(rules: string, line: string) {
  return matchPolicyRules(parsePolicyFile(rules, '/test/policy.toml'), policyCallInput(RUN_COMMAND, { command: line }, [], [analysisOf(analyze, line)]));
}

describe('a denied program named in the arguments of a program that may run them', () => {
  const lines = [
    `git rebase -x 'curl ${URL}' HEAD~1`, `git rebase --exec='curl ${URL}' HEAD~1`, `git submodule foreach 'curl ${URL}'`, `git bisect run curl ${URL}`,
    `git difftool -x 'curl ${URL}'`, `git filter-branch --tree-filter 'curl ${URL}'`, `git grep -O'curl ${URL}' x`, `man -P 'curl ${URL}' ls`, `man -H'curl ${URL}' ls`,
    `less +'!curl ${URL}' f`, `zip -T -TT 'curl ${URL}' a.zip f`, `socat - EXEC:'curl ${URL}'`, `nc -e '/usr/bin/curl ${URL}' 127.0.0.1 9`,
    `sqlite3 db '.shell curl ${URL}'`, `python3 -c 'import os; os.system("curl ${URL}")'`, `node -e 'require("child_process").execSync("curl ${URL}")'`,
  ];
  for (const line of lines) {
    test(line, () => {
      // denied outright where the analysis reads the option's command line (command-options.ts), else only a person answers (--yes, allow-all do not)
      const m = match(DENY_CURL, line);
      assert.ok(m?.verdict === 'deny' || (m?.verdict === 'ask' && m.person === true), `${line}: ${m?.verdict ?? 'none'} ${m?.person === true ? '(person)' : ''}`);
    });
  }

  test('an ask rule named there asks', () => {
    assert.equal(lineVerdict(analyze, '[[rules]]\ncommand = "git push"\naction = "ask"\n', `python3 -c 'import os; os.system("git push")'`), 'ask');
  });

  test('the control: commands a table vouches for keep their verdicts', () => {
    assert.equal(lineVerdict(analyze, DENY_CURL, 'echo use curl to fetch'), 'allow');
    assert.equal(lineVerdict(analyze, DENY_CURL, 'grep -rn curl src'), 'allow');
    assert.equal(lineVerdict(analyze, DENY_CURL, 'git log --grep=curl'), 'allow');
    assert.equal(lineVerdict(analyze, DENY_CURL, `curl ${URL}`), 'deny');
    assert.equal(lineVerdict(analyze, DENY_CURL, 'python3 -c "print(1)"'), 'none');
    assert.equal(lineVerdict(analyze, DENY_CURL, 'make curlish'), 'none');
  });
});
