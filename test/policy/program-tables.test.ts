/**
 * The per-program tables (issue 30, item 1): an allow rule naming a program covers only the
 * forms its table knows safe, everything else asks (case C4), wrappers are unwrapped and the
 * command they run judged (case C5). Each table entry has cases here, read with the real
 * parser; a test fails if a table has none.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, test } from 'node:test';
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, type PolicyMatch } from '../../src/policy/policy-rules.js';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { awkProgramProblem } from '../../src/policy/shell/program-tables/awk.js';
import { PROGRAM_TABLES, WRAPPER_TABLES } from '../../src/policy/shell/program-tables/index.js';
import { sedScriptProblem } from '../../src/policy/shell/program-tables/sed.js';

let analyze: ShellAnalyzer;
before(async () => {
  analyze = await loadShellAnalyzer();
});

/** What a user file holding `rules` (TOML) says about `run_command` of `line`. */
function judge(rules: string, line: string): PolicyMatch | undefined {
  const file = parsePolicyFile(rules, '/home/u/.config/toolgate/policy.toml');
  const shell = analyze(line);
  return matchPolicyRules(file, { tool: 'run_command', kind: 'shell_command', args: { command: line }, paths: [], shell, commandArguments: ['command'] });
}

const rule = (command: string, extra = '') => `[[rules]]\ncommand = ${JSON.stringify(command)}\naction = "allow"\n${extra}`;

/** [program rule, line, verdict]: `allow` covered, `ask` not covered. Every table's first program has at least one of each (echo-like ones: allow). */
const CASES: ReadonlyArray<readonly [string, string, 'allow' | 'ask']> = [
  // git: read subcommands under `git`; writes, runners and unknown options ask (C4)
  ['git', 'git status -s', 'allow'],
  ['git', 'git log --oneline -n 5 -- src', 'allow'],
  ['git', 'git --no-pager diff --stat HEAD~1', 'allow'],
  ['git', 'git show HEAD:README.md', 'allow'],
  ['git', 'git branch -a', 'allow'],
  ['git', 'git config --get user.name', 'allow'],
  ['git', 'git grep -n foo', 'allow'],
  ['git', 'git', 'allow'],
  ['git', 'git log --output=out.txt', 'ask'],
  ['git', 'git log --out=out.txt', 'ask'],
  ['git', 'git -c core.pager=less log', 'ask'],
  ['git', 'git -c color.ui=never status', 'ask'],
  ['git', 'git --config-env=core.pager=P log', 'ask'],
  ['git', 'git --exec-path=/tmp status', 'ask'],
  ['git', 'git -p log', 'ask'],
  ['git', 'git diff --ext-diff', 'ask'],
  ['git', 'git log -p --textconv', 'ask'],
  ['git', 'git grep -O foo', 'ask'],
  ['git', 'git grep --open-files-in-pager=vi foo', 'ask'],
  ['git', 'git fetch --upload-pack=touch origin', 'ask'],
  ['git', 'git commit -m x', 'ask'],
  ['git', 'git branch evil', 'ask'],
  ['git', 'git config alias.x "!touch pwn"', 'ask'],
  ['git', 'git x', 'ask'],
  ['git', 'git help log', 'ask'],
  ['git', 'git status --frobnicate', 'ask'],
  ['git commit', 'git commit -m "a message" --signoff', 'allow'],
  ['git commit', 'git commit -S -m x', 'ask'],
  ['git commit', 'git commit -m x --template=t', 'allow'],
  ['git push', 'git push origin main', 'allow'],
  ['git merge', 'git merge --no-ff topic', 'allow'],
  ['git merge', 'git merge -s evil topic', 'ask'],
  ['git push', 'git push --receive-pack=x origin', 'ask'],
  ['git log', 'git log --graph', 'allow'],
  ['git log', 'git log --output=f', 'ask'],
  ['git x', 'git x', 'allow'],
  ['git x', 'git x --y', 'ask'],
  // sed (C4)
  ['sed', "sed -n '1,5p' notes.txt", 'allow'],
  ['sed', "sed -E 's/a+/b/g; /x/d' notes.txt", 'allow'],
  ['sed', "sed -e 's/a/b/' -e '$a\\' notes.txt", 'allow'],
  ['sed', "sed -n '1w pwn' notes.txt", 'ask'],
  ['sed', "sed 's/a/b/w pwn' notes.txt", 'ask'],
  ['sed', "sed 's/a/b/e' notes.txt", 'ask'],
  ['sed', "sed '1e touch pwn' notes.txt", 'ask'],
  ['sed', "sed 'W pwn' notes.txt", 'ask'],
  ['sed', 'sed -i s/a/b/ notes.txt', 'ask'],
  ['sed', 'sed --in-place=.bak s/a/b/ notes.txt', 'ask'],
  ['sed', 'sed -f script.sed notes.txt', 'ask'],
  ['sed', "sed -e 's/a/b/' --frob notes.txt", 'ask'],
  // awk
  ['awk', "awk '{print $1}' notes.txt", 'allow'],
  ['awk', "awk -F: -v n=2 '$1 > 5 {print $n}' notes.txt", 'allow'],
  ['awk', "awk '/a|b/ {n++} END {print n}' notes.txt", 'allow'],
  ['awk', "awk 'BEGIN{system(\"touch pwn\")}'", 'ask'],
  ['awk', "awk '{print | \"sh\"}' notes.txt", 'ask'],
  ['awk', "awk '{print 1 / 1 | \"touch pwn\" (1/1)}' notes.txt", 'ask'],
  ['awk', "awk '{print > \"out.txt\"}' notes.txt", 'ask'],
  ['awk', "awk '{\"date\" | getline d}' notes.txt", 'ask'],
  ['awk', 'awk -f prog.awk notes.txt', 'ask'],
  ['awk', "awk --dump-variables=out '{print}' notes.txt", 'ask'],
  // find (C4)
  ['find', "find . -name '*.txt' -type f -print", 'allow'],
  ['find', 'find -L src -maxdepth 2 \\( -name a -o -name b \\) -ls', 'allow'],
  ['find', 'find . -delete', 'ask'],
  ['find', "find . -exec sh -c 'touch pwn' \\;", 'ask'],
  ['find', 'find . -execdir rm {} +', 'ask'],
  ['find', 'find . -ok rm {} \\;', 'ask'],
  ['find', 'find . -fprint out.txt', 'ask'],
  ['find', 'find . -frobnicate', 'ask'],
  // grep / rg
  ['grep', "grep -rn --include='*.ts' foo src", 'allow'],
  ['grep', 'grep -3 -E "a|b" notes.txt', 'allow'],
  ['grep', 'grep --frobnicate x notes.txt', 'ask'],
  ['rg', 'rg -n -g "*.ts" foo', 'allow'],
  ['rg', 'rg --pre ./evil foo', 'ask'],
  ['rg', 'rg --pre=./evil foo', 'ask'],
  ['rg', 'rg -z foo', 'ask'],
  ['rg', 'rg --search-zip foo', 'ask'],
  ['rg', 'rg --hostname-bin=./evil foo', 'ask'],
  // sort, uniq
  ['sort', 'sort -u -k2,2 -t, notes.txt', 'allow'],
  ['sort', 'sort -o out.txt notes.txt', 'ask'],
  ['sort', 'sort --output=out.txt notes.txt', 'ask'],
  ['sort', 'sort --compress-program=sh notes.txt', 'ask'],
  ['sort', 'sort -T /tmp notes.txt', 'ask'],
  ['sort -o', 'sort -o out.txt notes.txt', 'allow'],
  ['uniq', 'uniq -c notes.txt', 'allow'],
  ['uniq', 'uniq notes.txt out.txt', 'ask'],
  // tar
  ['tar', 'tar -tzf a.tgz', 'allow'],
  ['tar', 'tar tvf a.tar', 'allow'],
  ['tar', 'tar -xOf a.tar notes.txt', 'allow'],
  ['tar', 'tar -czf - src', 'allow'],
  ['tar', 'tar -xf a.tar', 'ask'],
  ['tar', 'tar xf a.tar', 'ask'],
  ['tar', 'tar -czf out.tgz src', 'ask'],
  ['tar', 'tar -xf a.tar --to-command=sh', 'ask'],
  ['tar', 'tar -I sh -tf a.tar', 'ask'],
  ['tar', 'tar --use-compress-program=sh -tf a.tar', 'ask'],
  ['tar', 'tar -tf a.tar --checkpoint=1 --checkpoint-action=exec=sh', 'ask'],
  ['tar', 'tar -tf host:a.tar', 'ask'],
  ['tar', 'tar -tvf a.tar --index-file=out.txt', 'ask'],
  // writing coreutils: covered when the rule names them; `*` does not
  ['tee', 'tee -a notes.txt', 'allow'],
  ['*', 'tee notes.txt', 'ask'],
  ['cp', 'cp -r src dst', 'allow'],
  ['cp', 'cp --frob src dst', 'ask'],
  ['mv', 'mv a b', 'allow'],
  ['ln', 'ln -s a b', 'allow'],
  ['mkdir', 'mkdir -p a/b', 'allow'],
  ['touch', 'touch a', 'allow'],
  ['rm', 'rm -rf build', 'allow'],
  ['rm', 'rm -rf --no-preserve-root /', 'ask'],
  ['rmdir', 'rmdir a', 'allow'],
  ['install', 'install -m 644 a b', 'allow'],
  ['install', 'install -s a b', 'ask'],
  ['truncate', 'truncate -s 0 a', 'allow'],
  ['chmod', 'chmod 644 a', 'allow'],
  ['dd', 'dd if=a bs=1 count=4', 'allow'],
  ['dd', 'dd if=a of=b', 'ask'],
  // read-only coreutils
  ['echo', 'echo -n hi --anything', 'allow'],
  ['printf', 'printf "%s\\n" a', 'allow'],
  ['true', 'true x', 'allow'],
  ['pwd', 'pwd -P', 'allow'],
  ['pwd', 'pwd --frob', 'ask'],
  ['ls', 'ls -la --color=never src', 'allow'],
  ['ls', 'ls --frobnicate', 'ask'],
  ['cat', 'cat -n notes.txt', 'allow'],
  ['cat', 'cat --frob notes.txt', 'ask'],
  ['tac', 'tac notes.txt', 'allow'],
  ['head', 'head -5 notes.txt', 'allow'],
  ['head', 'head -n 5 -q notes.txt', 'allow'],
  ['head', 'head --frob notes.txt', 'ask'],
  ['tail', 'tail -n +3 notes.txt', 'allow'],
  ['tail', 'tail --frob notes.txt', 'ask'],
  ['tail', 'tail -fn 5 notes.txt', 'allow'],
  ['sort', 'sort -co out.txt notes.txt', 'ask'],
  ['git', 'git diff -U --ext-diff', 'ask'],
  ['wc', 'wc -l notes.txt', 'allow'],
  ['wc', 'wc --frob notes.txt', 'ask'],
  ['diff', 'diff -u a b', 'allow'],
  ['diff', 'diff --frob a b', 'ask'],
  ['cmp', 'cmp a b', 'allow'],
  ['comm', 'comm -12 a b', 'allow'],
  ['cut', 'cut -d, -f1 a', 'allow'],
  ['paste', 'paste -sd, a', 'allow'],
  ['join', 'join a b', 'allow'],
  ['tr', 'tr a-z A-Z', 'allow'],
  ['nl', 'nl a', 'allow'],
  ['fold', 'fold -w 10 a', 'allow'],
  ['expand', 'expand a', 'allow'],
  ['rev', 'rev a', 'allow'],
  ['basename', 'basename a/b', 'allow'],
  ['dirname', 'dirname a/b', 'allow'],
  ['realpath', 'realpath a', 'allow'],
  ['readlink', 'readlink -f a', 'allow'],
  ['stat', 'stat -c %s a', 'allow'],
  ['du', 'du -sh .', 'allow'],
  ['df', 'df -h', 'allow'],
  ['date', 'date -u +%s', 'allow'],
  ['date', 'date 010100002030', 'ask'],
  ['date', 'date -s tomorrow', 'ask'],
  ['sleep', 'sleep 1', 'allow'],
  ['seq', 'seq 3', 'allow'],
  ['which', 'which git', 'allow'],
  ['whoami', 'whoami', 'allow'],
  ['md5sum', 'md5sum a', 'allow'],
  ['base64', 'base64 -d a', 'allow'],
  ['od', 'od -c a', 'allow'],
  ['xxd', 'xxd a', 'allow'],
  ['xxd', 'xxd -r a b', 'ask'],
  ['file', 'file a', 'allow'],
  ['file', 'file -C -m magic', 'ask'],
  ['column', 'column -t a', 'allow'],
  ['tree', 'tree -a', 'allow'],
  ['tree', 'tree -o out.txt', 'ask'],
  ['env', 'env', 'allow'],
  // wrappers: unwrapped and the command judged (C5)
  ['timeout', 'timeout 5 rm -rf data', 'ask'],
  ['env', "env -S 'rm -rf data'", 'ask'],
  ['nice', 'nice -n 5 rm -rf data', 'ask'],
  ['xargs', 'echo data | xargs rm -rf', 'ask'],
  ['nohup', 'nohup rm -rf data', 'ask'],
  ['stdbuf', 'stdbuf -o0 rm -rf data', 'ask'],
  ['ionice', 'ionice -c3 rm -rf data', 'ask'],
  ['time', 'time -p rm -rf data', 'ask'],
  ['setsid', 'setsid rm -rf data', 'ask'],
  ['command', 'command -v git', 'allow'],
];

/** Rules of two commands: the wrapper's and the wrapped command's. */
const WRAPPED: ReadonlyArray<readonly [string, string, 'allow' | 'ask']> = [
  ['ls', 'timeout -s KILL 5 ls -l', 'allow'],
  ['ls', 'nice -n 5 ls', 'allow'],
  ['ls', 'nohup ls', 'ask'],
  ['nohup ls', 'nohup ls', 'allow'],
  ['ls', 'env LANG=C ls', 'allow'],
  ['ls', "env -S 'ls -l'", 'allow'],
  ['ls', 'stdbuf -oL ls', 'allow'],
  ['ls', 'ionice -c3 ls', 'allow'],
  ['ls', 'setsid ls', 'allow'],
  ['ls', 'time -p ls', 'allow'],
  ['ls', 'time -o out.txt ls', 'ask'],
  ['ls', 'env -P /tmp ls', 'ask'],
  ['ls', 'env -C /tmp ls', 'ask'],
  ['ls', 'sudo ls', 'ask'],
  ['sudo ls', 'sudo ls', 'allow'],
  ['sudo ls', 'sudo -E ls', 'ask'],
  ['grep', 'find . -name "*.ts" | xargs grep -n foo', 'ask'],
  ['grep', 'find . -name "*.ts" -print0 | xargs -0 grep -n foo --', 'allow'],
  ['grep', 'printf -- "--pre=./evil" | xargs rg foo', 'ask'],
  ['grep', 'printf x | xargs -I{} grep {} -- notes.txt', 'ask'],
  ['grep', 'printf x | xargs -I{} grep -n -- {} notes.txt', 'allow'],
  ['ls', "bash -c 'ls -l'", 'allow'],
  ['ls', "bash -c 'ls -l; rm -rf data'", 'ask'],
];

describe('per-program tables: what an allow rule covers', () => {
  for (const [command, line, expected] of CASES) {
    test(`${expected === 'ask' ? 'C4/C5: ' : ''}allow "${command}": \`${line}\` ${expected === 'allow' ? 'is covered' : 'asks'}`, () => {
      // the other commands of a line (echo, find before a pipe) are allowed by their own rules
      const rules = `${rule(command)}\n${rule('echo')}\n${rule('find')}\n${rule('printf')}`;
      const match = judge(rules, line);
      assert.equal(match?.verdict, expected, `${line}: ${match?.reason}`);
    });
  }
  for (const [command, line, expected] of WRAPPED) {
    test(`C5: allow "${command}" and the wrappers: \`${line}\` ${expected === 'allow' ? 'is covered' : 'asks'}`, () => {
      const rules = `${rule(command)}\n${rule('timeout')}\n${rule('find')}\n${rule('printf')}`;
      const match = judge(rules, line);
      assert.equal(match?.verdict, expected, `${line}: ${match?.reason}`);
    });
  }

  test('every table has cases: a covered form and (where options exist) one that asks', () => {
    const firsts = new Map<string, Set<string>>();
    for (const [command, , expected] of CASES) {
      const program = command.split(' ')[0]!;
      if (!firsts.has(program)) firsts.set(program, new Set());
      firsts.get(program)!.add(expected);
    }
    for (const table of [...PROGRAM_TABLES, ...WRAPPER_TABLES.filter((t) => t.family === 'wrappers')]) {
      const seen = table.programs.map((p) => firsts.get(p)).filter((s) => s !== undefined);
      assert.ok(seen.length > 0, `no case for the table of ${table.programs.join(', ')}`);
      const all = new Set(seen.flatMap((s) => [...s!]));
      if (table.wrapper !== true) assert.ok(all.has('allow'), `no covered case for ${table.programs[0]}`);
      const flagOnly = table.form?.noOptions === true || table.programs.some((p) => ['tac', 'mv', 'ln', 'mkdir', 'touch', 'rmdir', 'truncate', 'chmod', 'cmp', 'comm', 'cut', 'paste', 'join', 'tr', 'nl', 'fold', 'expand', 'rev', 'basename', 'dirname', 'realpath', 'readlink', 'stat', 'du', 'df', 'sleep', 'seq', 'which', 'whoami', 'md5sum', 'base64', 'od', 'column', 'tee', 'command'].includes(p));
      if (!flagOnly) assert.ok(all.has('ask'), `no case that asks for ${table.programs[0]}`);
    }
  });

  test('docs/policy.md\'s table names every table (its first program) and every family', () => {
    const docs = fs.readFileSync(new URL('../../../docs/policy.md', import.meta.url), 'utf8');
    for (const table of [...PROGRAM_TABLES, ...WRAPPER_TABLES.filter((t) => t.family === 'wrappers')]) {
      assert.ok(docs.includes(`\`${table.programs[0]}\``), `docs/policy.md does not name ${table.programs[0]}`);
      assert.ok(docs.includes(`| ${table.family} |`), `docs/policy.md has no row for the family ${table.family}`);
    }
  });

  test('an unknown option of a known program asks, naming it', () => {
    const match = judge(rule('git'), 'git log --frobnicate');
    assert.equal(match?.verdict, 'ask');
    assert.match(match!.reason, /unknown option --frobnicate/);
    assert.match(match!.reason, /table entry: git log/);
  });

  test('allow_options widens a rule explicitly: `--output`, `-c`, `of`, and words of an unknown program', () => {
    assert.equal(judge(rule('git log', 'allow_options = ["--output"]\n'), 'git log --output=f')?.verdict, 'allow');
    assert.equal(judge(rule('git', 'allow_options = ["-c"]\n'), 'git -c color.ui=never status')?.verdict, 'allow');
    assert.equal(judge(rule('dd', 'allow_options = ["of"]\n'), 'dd if=a of=b')?.verdict, 'allow');
    assert.equal(judge(rule('make', 'allow_options = ["test", "-j*"]\n'), 'make -j4 test')?.verdict, 'allow');
    assert.equal(judge(rule('make', 'allow_options = ["test"]\n'), 'make install')?.verdict, 'ask');
    assert.equal(judge(rule('find', 'allow_options = ["-delete"]\n'), 'find . -name "*.o" -delete')?.verdict, 'allow');
  });

  test('a program no table knows: exactly the words given', () => {
    assert.equal(judge(rule('mytool'), 'mytool')?.verdict, 'allow');
    assert.equal(judge(rule('mytool'), 'mytool --x')?.verdict, 'ask');
    assert.equal(judge(rule('npm test'), 'npm test')?.verdict, 'allow');
    assert.equal(judge(rule('npm test'), 'npm test -- --watch')?.verdict, 'ask');
    assert.equal(judge(rule('npm run test*'), 'npm run test:unit')?.verdict, 'allow');
    assert.equal(judge(rule('*'), 'mytool')?.verdict, 'allow');
    assert.equal(judge(rule('*'), 'mytool x')?.verdict, 'ask');
  });

  test('only literal words name a program or subcommand: a glob matches but covers only reading forms', () => {
    assert.equal(judge(rule('r*'), 'rm -rf data')?.verdict, 'ask');
    assert.equal(judge(rule('* *'), 'tee out.txt')?.verdict, 'ask');
    assert.equal(judge(rule('git c*'), 'git commit -m x')?.verdict, 'ask');
    assert.equal(judge(rule('git c*'), 'git cat-file -p HEAD')?.verdict, 'allow');
    assert.equal(judge(rule('git log --out*'), 'git log --output=f')?.verdict, 'ask');
    assert.equal(judge(rule('rm'), 'rm -rf data')?.verdict, 'allow');
  });

  test('a word that is not static may be an option at run time: covered only after -- or for echo', () => {
    assert.equal(judge(rule('rg'), 'F=--pre=./evil; rg "$F" x')?.verdict, 'ask');
    assert.equal(judge(rule('rg'), 'rg -n -- "$F" x')?.verdict, 'allow');
    assert.equal(judge(rule('find'), 'find . "$X"')?.verdict, 'ask');
    assert.equal(judge(rule('cat'), 'cat $(ls)')?.verdict, 'ask');
    assert.equal(judge(rule('git'), 'git log "$R"')?.verdict, 'ask');
    assert.equal(judge(rule('git'), 'git log -- "$P"')?.verdict, 'allow');
    assert.equal(judge(rule('echo'), 'echo "$HOME" $(date)')?.verdict, 'ask', 'the date inside needs its own rule');
    assert.equal(judge(`${rule('echo')}\n${rule('date')}`, 'echo "$HOME" $(date)')?.verdict, 'allow');
    assert.equal(judge(rule('find'), "find . -name '*.ts'")?.verdict, 'allow', 'a quoted glob is static');
    assert.equal(judge(rule('mytool'), 'mytool "$X"')?.verdict, 'ask');
  });

  test('deny and ask rules still match a prefix, whatever follows', () => {
    assert.equal(judge('[[rules]]\ncommand = "git"\naction = "deny"\n', 'git log --frobnicate')?.verdict, 'deny');
    assert.equal(judge(`${rule('git')}\n[[rules]]\ncommand = "git log"\naction = "ask"\n`, 'git log --oneline')?.verdict, 'ask');
    // a later, narrower allow that does not cover the command leaves it to an earlier rule
    assert.equal(judge(`[[rules]]\ntool = "run_command"\naction = "allow"\n\n${rule('git')}`, 'git log --output=f')?.verdict, 'allow');
  });

  test('sed scripts and awk programs, read alone', () => {
    assert.equal(sedScriptProblem('s/a/b/g;3d;/x/,/y/p;$!N;y/ab/cd/'), undefined);
    assert.match(sedScriptProblem('1~2w out')!, /writes/);
    assert.match(sedScriptProblem('/x/I e ls')!, /runs/);
    assert.match(sedScriptProblem('s|a|b|gpw out')!, /writes/);
    assert.equal(awkProgramProblem('{ if ($1 > 5) print $2 }'), undefined);
    assert.equal(awkProgramProblem('{ print ($1 > 5) }'), undefined);
    assert.equal(awkProgramProblem('BEGIN { FS = "|" } /a|b/ { print $1 || $2 }'), undefined);
    assert.match(awkProgramProblem('{ print $1 >> "f" }')!, /writes/);
    assert.match(awkProgramProblem('{ printf "%s", $1 > "/dev/stderr" }')!, /writes/);
    assert.match(awkProgramProblem('{ print |& "cat" }')!, /pipe|coprocess/);
    assert.match(awkProgramProblem('@include "x"')!, /@include/);
  });
});
