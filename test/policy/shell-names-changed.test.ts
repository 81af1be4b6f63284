/**
 * Variables a command line changes other than by a plain `NAME=value` (`name-changes.ts`), and
 * what the analysis makes of them: `~` words of a line that may change `HOME` are unseen
 * (`$HOME`, computed when the line runs, with a doubt), and `read PATH`, `for PAGER in ...`
 * are doubts like the assignment statements they are.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import type { ShellCommand } from '../../src/policy/shell/types.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

/** Every word of `command` that may name a path. */
const wordsOf = (command: ShellCommand): string[] => [...command.argv, ...command.writes, ...(command.reads ?? []), ...(command.loopWords ?? []), ...(command.wrapperWords ?? []).flat()];

describe('~ in a line that may change HOME', () => {
  const changes = [
    'HOME=.git;', 'HOME+=/x;', 'HOME[0]=.git;', 'export HOME=.git;', 'declare HOME=.git;', 'typeset HOME=.git;', 'readonly HOME=.git;', 'declare "HOME=.git";',
    'export HOME;', 'unset HOME;', 'unset -v HOME;', 'read HOME;', 'read -r HOME;', 'read -a HOME;', 'read -aHOME;', 'mapfile HOME;', 'readarray -t HOME;',
    'printf -v HOME x;', 'printf -vHOME x;', 'getopts a HOME;', 'wait -p HOME;', 'for HOME in .git; do :; done;', 'select HOME in .git; do break; done;',
    ': ${HOME:=.git};', ': ${HOME=.git};', 'eval "$x";', 'eval HOME=.git;', 'source f;', '. f;', 'let x=1;', '(( x = 1 ));', 'echo $((x));',
    'read "$n";', 'printf -v "$n" x;', 'declare "$n=x";', '"$cmd" HOME;', 'command read HOME;', 'builtin read HOME;',
    'f() { local HOME=.git; };', 'bash -c "HOME=.git";', 'HOME=.git true;', 'env HOME=.git true;', 'env -i true;', 'env -u HOME true;', 'env --unset=HOME true;',
  ];

  test('a write through ~ after each way of changing HOME is $HOME (computed), and the line is uncertain', () => {
    for (const change of changes) {
      for (const line of [`${change} echo x > ~/hooks/pre-commit`, `${change} cp a ~/hooks/pre-commit`, `${change} cat < ~/x`]) {
        const analysis = analyze(line);
        assert.ok(analysis.uncertain.length > 0, `${line}: certain`);
        const words = analysis.commands.flatMap(wordsOf);
        assert.ok(!words.some((word) => /(^|[=:])~(\/|$)/.test(word)), `${line}: a ~ word is judged as the process's home: ${JSON.stringify(words)}`);
        assert.ok(words.some((word) => word.startsWith('$HOME/')), `${line}: ${JSON.stringify(words)}`);
      }
    }
  });

  test('the change may come after the word, inside a loop, a function, a bash -c body, or as another user', () => {
    for (const line of [
      'echo x > ~/a; HOME=.git', 'for i in 1 2; do cp a ~/b; HOME=.git; done', 'f() { cp a ~/x; }; read HOME; f',
      'HOME=.git bash -c "cp a ~/x"', 'bash -c "read HOME; cp a ~/x"', 'sudo bash -c "cp a ~/x"', 'su -c "cp a ~/x" bob',
      'eval "read HOME"; cp a ~/x', 'while read HOME; do cp a ~/x; done < h',
    ]) {
      const analysis = analyze(line);
      assert.ok(analysis.uncertain.length > 0, `${line}: certain`);
      assert.ok(!analysis.commands.flatMap(wordsOf).some((word) => /(^|[=:])~(\/|$)/.test(word)), `${line}: ${JSON.stringify(analysis.commands.map((c) => c.argv))}`);
    }
  });

  test('~ after = and :, a quoted "~", cd ~ and loop words are unseen too; ~user, ~+ and ~- are left to the deciders', () => {
    const analysis = analyze('read HOME; dd if=x of=~/a; cp "~/b" x; cd ~; for f in ~/c; do cat "$f"; done; cat ~root/x ~+/y');
    const argvs = analysis.commands.map((command) => command.argv);
    assert.deepEqual(argvs.find((argv) => argv[0] === 'dd'), ['dd', 'if=x', 'of=$HOME/a']);
    assert.deepEqual(argvs.find((argv) => argv[0] === 'cp'), ['cp', '$HOME/b', 'x']);
    assert.deepEqual(argvs.find((argv) => argv[0] === 'cd'), ['cd', '$HOME']);
    const cd = analysis.commands.find((command) => command.program === 'cd')!;
    assert.deepEqual(cd.dynamicWords, [1]);
    const cats = analysis.commands.filter((command) => command.program === 'cat');
    assert.deepEqual(cats[0]!.loopWords, ['$HOME/c']);
    assert.deepEqual(cats[1]!.argv, ['cat', '~root/x', '~+/y']);
  });

  test('$HOME and ${HOME} words are computed (not static) whether or not HOME changes', () => {
    for (const line of ['cp a "$HOME/x"', 'cp a ${HOME}/x', 'HOME=.git; cp a "$HOME/x"']) {
      const cp = analyze(line).commands.find((command) => command.program === 'cp')!;
      assert.deepEqual(cp.dynamicWords, [2], line);
    }
  });

  test('a line that does not change HOME keeps its ~ words as written', () => {
    for (const [line, word] of [['cp a ~/x', '~/x'], ['echo "$HOME_DIR" > ~/y', '~/y'], ['read line; cat ~/z', '~/z'], ['for f in a; do cat ~/w; done', '~/w'], ['MY_HOME=1; cat ~/v', '~/v']] as const) {
      const analysis = analyze(line);
      assert.ok(analysis.commands.flatMap(wordsOf).includes(word), `${line}: ${JSON.stringify(analysis.commands.map(wordsOf))}`);
      assert.ok(!analysis.uncertain.some((why) => /HOME may change/.test(why)), `${line}: ${analysis.uncertain.join('; ')}`);
    }
  });
});

describe('variables changed by builtins and loops are judged like assignments', () => {
  test('PATH changed by read, for, printf -v, mapfile, getopts or unset makes program names unsure', () => {
    for (const line of ['for PATH in /tmp; do ls; done', 'read PATH < f; ls', 'printf -v PATH /tmp; ls', 'mapfile -t PATH < f; ls', 'unset PATH; ls', 'getopts a PATH; ls', 'local PATH; ls']) {
      const analysis = analyze(line);
      assert.ok(analysis.uncertain.some((why) => /PATH is set/.test(why)), `${line}: ${JSON.stringify(analysis.uncertain)}`);
    }
  });

  test('names programs read from their environment changed by read or for are doubts; plain names are not', () => {
    for (const line of ['for PAGER in x; do git log; done', 'read GIT_DIR; git status', 'printf -v EDITOR x; git commit']) {
      assert.ok(analyze(line).uncertain.length > 0, line);
    }
    for (const line of ['for f in a b; do cat "$f"; done', 'while read -r line; do echo "$line"; done < f', 'IFS= read -r x < f', 'printf -v out %s x']) {
      assert.deepEqual(analyze(line).uncertain, [], line);
    }
  });
});

describe('a for loop variable read as each of its static words', () => {
  const commandsOf = (line: string) => analyze(line).commands;

  test('a body that never changes the variable: each use is each word (quoted, unquoted when bash neither splits nor globs it, ${f}, in a redirection)', () => {
    const echo = commandsOf('for f in a.txt "b c.txt"; do echo x > "$f"; done');
    assert.deepEqual(echo.map((command) => command.writes), [['a.txt'], ['b c.txt']]);
    assert.deepEqual(analyze('for f in a.txt "b c.txt"; do echo x > "$f"; done').uncertain, []);
    assert.deepEqual(commandsOf('for f in a b; do rm -f $f ${f}.bak "dir/$f"; done').map((command) => command.argv), [['rm', '-f', 'a', 'a.bak', 'dir/a'], ['rm', '-f', 'b', 'b.bak', 'dir/b']]);
    assert.deepEqual(commandsOf('for f in a; do for g in b c; do cp "$f" "$g"; done; done').map((command) => command.argv), [['cp', 'a', 'b'], ['cp', 'a', 'c']]);
    const cp = commandsOf('for f in a b; do cp "$f" x; done');
    assert.ok(cp.every((command) => command.dynamicWords === undefined), JSON.stringify(cp));
    // text a shell runs: `bash -c "..."` gets the value, and the commands in it are walked
    assert.deepEqual(commandsOf('for f in "a;rm -rf z"; do bash -c "echo $f"; done').map((command) => command.argv), [['echo', 'a'], ['rm', '-rf', 'z']]);
  });

  test('a glob word is read as its matches only where bash takes them whole: quoted, as path components', () => {
    const cat = commandsOf('for f in *.txt; do cat "$f" "$f"/x; done')[0]!;
    assert.deepEqual(cat.argv, ['cat', '*.txt', '*.txt/x']);
    assert.deepEqual(cat.dynamicWords, [1, 2]);
    for (const line of ['for f in *.txt; do cat $f; done', 'for f in *.txt; do cat "$f.bak"; done', 'for f in *.txt; do cat "[$f]"; done']) {
      assert.ok(commandsOf(line).every((command) => command.argv.some((word) => word.includes('$f'))), line);
    }
  });

  test('unquoted values bash would split or glob, and other expansions of the variable, stay unseen', () => {
    for (const line of ['for f in "a b"; do rm $f; done', 'for f in "*"; do rm $f; done', 'for f in ""; do rm $f; done', 'for f in a; do rm "${f%.txt}"; done', 'for f in a; do rm "${#f}"; done']) {
      assert.ok(commandsOf(line).some((command) => (command.dynamicWords?.length ?? 0) > 0), line);
    }
    // an empty quoted value is an empty word, as bash passes it
    assert.deepEqual(commandsOf('for f in ""; do rm -rf "$f"/; done')[0]!.argv, ['rm', '-rf', '/']);
  });

  test('a body that may change the variable, a select, a $@ or computed word list, or a line with code that runs inside the body, leaves the use unseen', () => {
    const bodies = [
      'f=.git;', 'f+=x;', 'read f;', 'read -r f < h;', 'printf -v f x;', 'unset f;', 'declare f=x;', 'local f;', 'export f=x;', 'mapfile f < h;',
      'getopts a f;', 'for f in c; do :; done;', 'eval x;', 'source x;', ': ${f:=x};', '(( f = 1 ));', 'let f=1;', 'echo $((i+1));', 'g;', 'read "$n";', '"$cmd" f;',
      'command read f;', 'x=$(read f);',
    ];
    for (const body of bodies) {
      const line = `g() { f=.git; }; for f in a.txt b.txt; do ${body} echo x > "$f"; done`;
      const writes = commandsOf(line).flatMap((command) => command.writes);
      assert.ok(writes.includes('"$f"') && !writes.includes('a.txt'), `${line}: ${JSON.stringify(writes)}`);
    }
    for (const line of [
      'select f in a.txt; do echo x > "$f"; done', 'for f; do echo x > "$f"; done', 'for f in "$@"; do echo x > "$f"; done', 'for f in $(ls); do echo x > "$f"; done',
      'for f in {a,b}.txt; do echo x > "$f"; done', 'trap "f=.git" DEBUG; for f in a.txt; do echo x > "$f"; done', 'declare -n r=f; for f in a.txt; do r=.git; echo x > "$f"; done',
      'alias echo="f=.git; echo"; for f in a.txt; do echo x > "$f"; done', 'eval "trap x DEBUG"; for f in a.txt; do echo x > "$f"; done', 'for F in a.txt; do echo x > "$F"; done',
      'h() { g; }; g() { read f; }; for f in a.txt; do h; echo x > "$f"; done',
    ]) {
      const writes = commandsOf(line).flatMap((command) => command.writes);
      assert.ok(!writes.includes('a.txt'), `${line}: ${JSON.stringify(writes)}`);
    }
  });
});
