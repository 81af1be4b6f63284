/**
 * Regression: text typed (`input_command`) into a session of a program that runs what it
 * reads as commands (ed's `!cmd`, sqlite3's `.shell`/`.system`/`.read`, psql's `\!`) was a
 * plain question under a deny rule for curl, which `allow-all` and `--yes` answer (found
 * attacking the grants, task s18, item c): the same text fed by a heredoc to `ed` or `sqlite3`
 * in a `run_command` line was already a question only a person answers. Typed text is now fed
 * code too (`runsFedCode` in `shell-input.ts`): the same literal check lets through an ed
 * script without `!` and SQL without dot commands.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, policyCallInput } from '../../src/policy/policy-rules.js';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { analyseShellInput } from '../../src/policy/shell-input.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

const INPUT_COMMAND = { name: 'input_command', kind: 'shell_command' as const, commandArguments: [], inputArguments: ['chars'] };
const DENY_CURL = parsePolicyFile('[[rules]]\ncommand = "curl"\naction = "deny"\n', '/test/policy.toml');

function typed(session: string, text: string) {
  const analysis = analyseShellInput(analyze, text, { command: session, written: '' });
  return matchPolicyRules(DENY_CURL, policyCallInput(INPUT_COMMAND, { chars: text }, [], [analysis]));
}

describe('text typed into a program that runs what it reads as commands', () => {
  for (const [session, text] of [
    ['sqlite3 db', '.shell sh x.sh\n'], ['sqlite3 db', '.system sh x.sh\n'], ['sqlite3 db', '.read cmds.sql\n'], ['psql', '\\! sh x.sh\n'],
    ['ed -s f', '!sh x.sh\n'], ['ed f', 'w !sh\n'], ['bash -c "sqlite3 db"', '.shell sh x.sh\n'],
  ] as const) {
    test(`${JSON.stringify(text)} typed into ${session}`, () => {
      const m = typed(session, text);
      assert.equal(m?.verdict, 'ask', `${m?.verdict ?? 'none'}`);
      assert.equal(m?.person, true, 'only a person answers it (--yes, allow-all do not)');
    });
  }

  test('the control: an ed script without ! and SQL without dot commands', () => {
    assert.equal(typed('ed f', 'p\n'), undefined);
    assert.equal(typed('sqlite3 db', 'select 1;\n'), undefined);
  });
});
