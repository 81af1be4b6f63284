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
