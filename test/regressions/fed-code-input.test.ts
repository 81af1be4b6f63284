/**
 * Regression: text a command line feeds on standard input to a program that runs it as
 * commands was not checked against deny rules (found by the security trial after case C6):
 * `ed -s f <<< '!curl x'`, `sqlite3 db <<< '.shell curl x'`, `make -f - <<< ...`, `make -f
 * <(printf ...)`, `ed f < cmds.txt` came back as plain questions (or allows), which `--yes` and
 * `allow-all` answer. Such text is now code the analysis does not read (`fed-code.ts`): under
 * a deny rule on a command only a person allows it, and an allow rule for the program asks.
 * The shells, interpreters, `awk -f -` and `xargs sh -c` cases, already judged so, are kept.
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

const PROGRAMS = ['ed', 'make', 'bash', 'sh', 'python3', 'xargs', 'sqlite3', 'awk', 'printf', 'echo', 'cat', 'vim'];
const ALLOW = PROGRAMS.map((p) => `[[rules]]\ncommand = "${p}"\naction = "allow"\n`).join('');
const DENY_CURL = `[[rules]]\ncommand = "curl"\naction = "deny"\n${ALLOW}`;
const URL = 'http://127.0.0.1:9/';

function match(rules: string, line: string) {
  return matchPolicyRules(parsePolicyFile(rules, '/test/policy.toml'), policyCallInput(RUN_COMMAND, { command: line }, [], [analysisOf(analyze, line)]));
}

describe('code fed on standard input to a program that runs it', () => {
  const lines = [
    `ed -s f <<< '!curl ${URL}'`, `printf '!curl ${URL}\\n' | ed -s f`, 'ed f < cmds.txt', `make -f <(printf 'all:\\n\\tcurl ${URL}')`,
    `make -f - <<'EOF'\nall:\n\tcurl ${URL}\nEOF`, 'make --file=/dev/stdin < x.mk', `sqlite3 db <<< '.shell curl ${URL}'`, `echo '.system curl ${URL}' | sqlite3 db`,
    `vim f <<< ':!curl ${URL}'`, `bash <<< 'curl ${URL}'`, 'sh < script.sh', `python3 - <<'EOF'\nimport os\nos.system("curl ${URL}")\nEOF`,
    `printf 'curl ${URL}' | xargs sh -c`, `awk -f - f <<< 'BEGIN { system("curl ${URL}") }'`,
  ];
  for (const line of lines) {
    test(line, () => {
      const m = match(DENY_CURL, line);
      assert.ok(m?.verdict === 'deny' || (m?.verdict === 'ask' && m.person === true), `${line}: ${m?.verdict ?? 'none'} ${m?.person === true ? '(person)' : ''}`);
      assert.equal(lineVerdict(analyze, ALLOW, line), 'ask', 'an allow rule for the program asks');
    });
  }

  test('the control: literal text that starts no command, and programs that do not run their input', () => {
    assert.notEqual(match(DENY_CURL, "ed -s f <<< 'p'")?.person, true);
    assert.notEqual(match(DENY_CURL, "sqlite3 db <<< 'select 1;'")?.person, true);
    assert.equal(lineVerdict(analyze, DENY_CURL, "cat f <<< 'curl is a program'"), 'allow');
    assert.notEqual(match(DENY_CURL, 'make curlish')?.person, true);
    assert.equal(match(DENY_CURL, 'make -f build.mk all')?.person, undefined);
  });
});
