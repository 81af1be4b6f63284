/**
 * Regression: programs that are neither shells nor interpreters, told by an option or an
 * argument to run commands from a file or a command line, were decided by no rule under a
 * deny rule for curl (so `--yes` and `allow-all` ran them) whenever the denied program was not
 * named in the line: `sqlite3 -init cmds.sql db`, `sqlite3 db '.read cmds.sql'`, `sqlite3 db
 * '.shell sh x.sh'`, `psql -f`, `psql -c '\! ...'`, `mysql -e 'system ...'`, `git -c
 * interactive.diffFilter=...` (and every `-c` key outside a known-safe list), `git rebase -x
 * 'sh x.sh'`, `man -P`, `zip -TT`, `sort --compress-program`, `less +!`, `dc`, `m4 FILE`,
 * `bash --rcfile FILE`, `xargs -a list sh` (found attacking the grants, task s18, item a). The
 * kind is now read (`src/policy/shell/command-options.ts`): a command line given as an option's
 * value is analysed like `bash -c` text (its commands judged by every rule), and a file of
 * commands or a command of the program's own language that starts programs makes the line
 * uncertain: under a deny rule only a person allows it, and an allow rule for the program asks.
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

const DENY_CURL = '[[rules]]\ncommand = "curl"\naction = "deny"\n';
const URL = 'http://127.0.0.1:9/';

function match(rules: string, line: string) {
  return matchPolicyRules(parsePolicyFile(rules, '/test/policy.toml'), policyCallInput(RUN_COMMAND, { command: line }, [], [analysisOf(analyze, line)]));
}

/** An allow rule for every program of the line (each asks unless its table covers the form). */
function allowEach(line: string): string {
  const programs = new Set(analysisOf(analyze, line).commands.map((c) => c.program));
  return [...programs].map((p) => `[[rules]]\ncommand = "${p}"\naction = "allow"\nallow_options = ["*"]\n`).join('');
}

describe('options and arguments that make a program run commands (a file of them, or a command line)', () => {
  const lines = [
    'sqlite3 -init cmds.sql db .tables', 'sqlite3 --init=cmds.sql db', "sqlite3 db '.read cmds.sql'", "sqlite3 db '.shell sh x.sh'", "sqlite3 db '.system sh x.sh'",
    "sqlite3 -cmd '.shell sh x.sh' db", "sqlite3 db '.once |sh x.sh' 'select 1'", "sqlite3 db '.load ./evil'", `sqlite3 db "select load_extension('./evil')"`,
    'psql -f cmds.sql', 'psql --file=cmds.sql', "psql -c '\\! sh x.sh'", "psql -c '\\i cmds.sql'", "psql -o '|sh x.sh' -c 'select 1'",
    "mysql -e 'system sh x.sh'", "mysql -e 'source cmds.sql'", "mariadb --pager='sh x.sh' db", 'mysql --defaults-extra-file=my.cnf db',
    "git -c interactive.diffFilter='sh x.sh' add -p", "git -c difftool.x.cmd='sh x.sh' difftool -t x", "git -c submodule.a.update='!sh x.sh' submodule update",
    'git -c init.templateDir=t init', 'git -c core.attributesFile=a log -p', "git -c safe.directory='*' status", 'git --config-env=core.sshCommand=X fetch',
    "git rebase -x 'sh x.sh' HEAD~1", "git grep -O'sh x.sh' x", "git bisect run sh x.sh", "git submodule foreach 'sh x.sh'",
    "man -P 'sh x.sh' ls", "zip -T -TT 'sh x.sh' a.zip f", "zip --unzip-command 'sh x.sh' -T a.zip f", "sort --compress-program='sh x.sh' f",
    "less +'!sh x.sh' f", "dc -e '!sh x.sh'", 'dc -f x.dc', 'm4 x.m4', "echo 'syscmd(sh x.sh)' | m4",
    'bash --rcfile x.sh -i', 'bash --init-file x.sh', 'xargs -a list sh', 'openssl engine -pre SO_PATH:./e.so dynamic', 'gpg --exec-path x --version',
    // the command line in an option's value is a command of its own: a deny rule denies it
    `git rebase -x 'curl ${URL}' HEAD~1`, `sort --compress-program=curl f`, `man -P 'curl ${URL}' ls`,
  ];
  for (const line of lines) {
    test(line, () => {
      const m = match(DENY_CURL, line);
      assert.ok(m?.verdict === 'deny' || (m?.verdict === 'ask' && m.person === true), `${line}: ${m?.verdict ?? 'none'}${m?.person === true ? ' (person)' : ''}`);
      assert.equal(lineVerdict(analyze, allowEach(line), line), 'ask', 'an allow rule for the program (allow_options = ["*"]) still asks');
    });
  }

  test('a deny rule matches the command line given as an option\'s value', () => {
    for (const line of [`git rebase -x 'curl ${URL}' HEAD~1`, 'sort --compress-program=curl f', `zip -T -TT 'curl ${URL}' a.zip f`]) {
      assert.equal(match(DENY_CURL, line)?.verdict, 'deny', line);
    }
  });

  test('the control: the same programs with nothing that runs commands', () => {
    for (const line of ["sqlite3 db 'select 1'", 'sqlite3 ./data.db', "psql -c 'select 1'", "mysql -e 'select 1' db", 'git -c color.ui=always log', 'sort -k2 f', 'man ls', 'less f', 'dc -e "2 3 + p"']) {
      assert.equal(match(DENY_CURL, line), undefined, line);
    }
    assert.equal(lineVerdict(analyze, '[[rules]]\ncommand = "git"\naction = "allow"\nallow_options = ["-c"]\n', 'git -c color.ui=never status'), 'allow');
  });
});
