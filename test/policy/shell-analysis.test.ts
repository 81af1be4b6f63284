/**
 * Shell-command analysis (issue 15, item 4): every simple command of a command line at every
 * depth, wrappers and shells unwrapped, writes and kinds found, and `uncertain` wherever the
 * analysis cannot vouch for the text. Case ids (C1, C2, C3) are the acceptance shapes of the
 * issue.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadShellAnalyzer, readyShellAnalyzer, toolArgumentDoubt, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { loadOnce } from '../../src/policy/shell/load-once.js';
import type { ShellAnalysis, ShellCommand } from '../../src/policy/shell/types.js';

let analyze: ShellAnalyzer;

/** The argv of every command, in order. */
const argvs = (analysis: ShellAnalysis): string[][] => analysis.commands.map((command) => [...command.argv]);
const programs = (analysis: ShellAnalysis): string[] => analysis.commands.map((command) => command.program);
/** The one command running `program`. */
function commandOf(analysis: ShellAnalysis, program: string): ShellCommand {
  const found = analysis.commands.filter((command) => command.program === program);
  assert.equal(found.length, 1, `one ${program} command in ${JSON.stringify(argvs(analysis))}`);
  return found[0]!;
}
function certain(text: string): ShellAnalysis {
  const analysis = analyze(text);
  assert.deepEqual(analysis.uncertain, [], `certain: ${text}`);
  return analysis;
}
function uncertain(text: string): ShellAnalysis {
  const analysis = analyze(text);
  assert.ok(analysis.uncertain.length > 0, `uncertain: ${text} gave ${JSON.stringify(argvs(analysis))}`);
  return analysis;
}

describe('loading the analyzer', () => {
  test('is not ready before the first load; concurrent callers share one load; then ready gives it', async () => {
    assert.equal(readyShellAnalyzer(), undefined);
    const first = loadShellAnalyzer();
    const second = loadShellAnalyzer();
    assert.equal(first, second);
    analyze = await first;
    assert.equal(readyShellAnalyzer(), analyze);
    assert.equal(await loadShellAnalyzer(), analyze);
  });

  test('a failed load rejects every caller waiting on it, and a later call loads again', async () => {
    let calls = 0;
    const once = loadOnce(async () => {
      calls += 1;
      if (calls === 1) throw new Error('no wasm');
      return calls;
    });
    const [a, b] = [once.get(), once.get()];
    await assert.rejects(a, /no wasm/);
    await assert.rejects(b, /no wasm/);
    assert.equal(once.ready(), undefined);
    assert.equal(await once.get(), 2);
    assert.equal(await once.get(), 2);
    assert.equal(once.ready(), 2);
    assert.equal(calls, 2);
  });
});

describe('shell-command analysis', () => {
  before(async () => {
    analyze = await loadShellAnalyzer();
  });

  describe('C1: command lines', () => {
    test('C1: `echo ok && rm -rf data` gives echo and rm', () => {
      const analysis = certain('echo ok && rm -rf data');
      assert.deepEqual(argvs(analysis), [['echo', 'ok'], ['rm', '-rf', 'data']]);
      assert.equal(analysis.kind, 'shell_command');
      assert.deepEqual(analysis.commands[1]!.wrappers, []);
      assert.equal(analysis.commands[1]!.text, 'rm -rf data');
    });

    test('C1: `cd x; curl https://e.com` gives cd and curl, kind network', () => {
      const analysis = certain('cd x; curl https://e.com');
      assert.deepEqual(programs(analysis), ['cd', 'curl']);
      assert.equal(commandOf(analysis, 'curl').kind, 'network');
      assert.equal(commandOf(analysis, 'cd').kind, 'shell_command');
      assert.equal(analysis.kind, 'network');
    });

    test('C1: `cat f | sh` is uncertain (a shell reading a pipe)', () => {
      const analysis = uncertain('cat f | sh');
      assert.deepEqual(programs(analysis), ['cat', 'sh']);
    });

    test('C1: `ls > ~/.bashrc` writes ~/.bashrc; `echo hi > out.txt` writes out.txt', () => {
      assert.deepEqual(commandOf(certain('ls > ~/.bashrc'), 'ls').writes, ['~/.bashrc']);
      assert.deepEqual(commandOf(certain('echo hi > out.txt'), 'echo').writes, ['out.txt']);
    });

    test('every separator: ; && || | |& & and newlines', () => {
      const analysis = certain('a; b && c || d | e |& f & g\nh');
      assert.deepEqual(programs(analysis), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    });

    test('subshells, groups, negation', () => {
      assert.deepEqual(programs(certain('(a; b) && { c; d; } && ! e')), ['a', 'b', 'c', 'd', 'e']);
    });

    test('$( ), backticks, process substitution <( ) and >( )', () => {
      assert.deepEqual(argvs(certain('echo `rm x`')), [['echo', '`rm x`'], ['rm', 'x']]);
      const diff = certain('diff <(curl a) b');
      assert.deepEqual(programs(diff), ['diff', 'curl']);
      assert.equal(diff.kind, 'network');
      assert.deepEqual(programs(certain('tee >(gzip > f.gz) < in')), ['tee', 'gzip']);
      assert.deepEqual(programs(certain('echo "$(rm x)" ${y:-$(rm z)}')), ['echo', 'rm', 'rm']);
    });

    test('if/elif/else, while, until, for, C-style for, select and case: bodies and conditions', () => {
      const analysis = certain('if grep -q x f; then git push; elif a; then b; else c; fi');
      assert.deepEqual(programs(analysis), ['grep', 'git', 'a', 'b', 'c']);
      assert.equal(analysis.kind, 'network');
      assert.deepEqual(programs(certain('while read l; do x; done < f; until y; do z; done')), ['read', 'x', 'y', 'z']);
      assert.deepEqual(argvs(certain('for f in $(ls); do rm "$f"; done')), [['ls'], ['rm', '"$f"']]);
      // arithmetic over a variable or substitution is evaluated as code (shell-hardening, item 2), so uncertain
      assert.deepEqual(programs(uncertain('for ((i=$(a); i<3; i++)); do b; done')), ['a', 'b']);
      assert.deepEqual(programs(certain('for ((;;)); do b; done')), ['b']);
      assert.deepEqual(programs(certain('select x in $(a); do b; done')), ['a', 'b']);
      assert.deepEqual(programs(certain('case $(a) in x) b;; y|z) c;; esac')), ['a', 'b', 'c']);
    });

    test('function definitions: their bodies', () => {
      assert.deepEqual(programs(certain('f() { rm x; }; function g { curl y; }; f')), ['rm', 'curl', 'f']);
    });

    test('assignments: `a=$(curl x); echo $a` and `x=$(curl a) foo` find curl', () => {
      const analysis = certain('a=$(curl x); echo $a');
      assert.deepEqual(argvs(analysis), [['curl', 'x'], ['echo', '$a']]);
      assert.equal(analysis.kind, 'network');
      const prefixed = certain('LC_ALL=$(curl a) foo');
      assert.deepEqual(programs(prefixed).sort(), ['curl', 'foo']);
      assert.deepEqual(commandOf(prefixed, 'foo').argv, ['foo']);
      assert.deepEqual(programs(certain('export TZ=$(b); local c=$(d)')), ['export', 'b', 'local', 'd']);
      // an array subscript is arithmetic, so the output of $(e) is evaluated again (shell-hardening, item 2)
      assert.deepEqual(programs(uncertain('a[$(e)]=1')), ['e']);
    });

    test('[[ ]], test, arithmetic and arrays with substitutions', () => {
      assert.deepEqual(programs(certain('[[ -f $(a) ]] && arr=( $(b) )')), ['a', 'b']);
      // the output of a substitution in arithmetic is evaluated as arithmetic again: `a[$(rm x)]` runs rm (shell-hardening, item 2)
      assert.deepEqual(programs(uncertain('echo $(( $(c) + 1 )) && (( $(d) ))')), ['echo', 'c', 'd']);
      assert.deepEqual(programs(certain('echo $(( 1 + 2 )) && (( 3 ))')), ['echo']);
      // the grammar reads `[ ... ]` as a test expression like `[[ ... ]]`, not as the command `[`
      assert.deepEqual(programs(certain('[ -f "$(a)" ] && test -n "`b`"')), ['a', 'test', 'b']);
      // unquoted, the output may split into `-v a[$(rm x)]` (shell-hardening, item 2)
      assert.deepEqual(programs(uncertain('test -n `b`')), ['test', 'b']);
      assert.deepEqual(programs(uncertain('echo ${arr[$(a)]}')), ['echo', 'a']);
      assert.deepEqual(programs(certain('echo ${arr[0]} "${arr[@]}" ${#arr[*]}')), ['echo']);
    });

    test('heredoc: `cat <<EOF > f` writes f; its text is not commands and is not uncertain', () => {
      const analysis = certain('cat <<EOF > f\nrm -rf /\nEOF');
      assert.deepEqual(argvs(analysis), [['cat']]);
      assert.deepEqual(analysis.commands[0]!.writes, ['f']);
      assert.deepEqual(argvs(certain("cat <<'EOF'\n$(rm x)\nEOF")), [['cat']]);
    });

    test('heredoc: substitutions in an unquoted heredoc run and are found; commands after it on its line too', () => {
      assert.deepEqual(programs(certain('cat <<EOF\nhello $(date)\nEOF')), ['cat', 'date']);
      const analysis = certain('cat <<EOF > f && rm x\na\nEOF\nls');
      assert.deepEqual(programs(analysis), ['cat', 'rm', 'ls']);
      assert.deepEqual(commandOf(analysis, 'rm').writes, []);
    });

    test('comments are not commands', () => {
      assert.deepEqual(programs(certain('ls # rm -rf /')), ['ls']);
    });
  });

  describe('C2: shells and eval', () => {
    test('C2: `eval "$(echo cm0gLXJmIH4= | base64 -d)"` is uncertain', () => {
      const analysis = uncertain('eval "$(echo cm0gLXJmIH4= | base64 -d)"');
      assert.ok(programs(analysis).includes('base64'));
    });

    test("C2: `bash -c 'rm -rf x'` is rm, with bash among its wrappers", () => {
      const analysis = certain("bash -c 'rm -rf x'");
      assert.deepEqual(argvs(analysis), [['rm', '-rf', 'x']]);
      assert.deepEqual(analysis.commands[0]!.wrappers, ['bash']);
    });

    test("C2: `env sh -c 'rm x'` is rm", () => {
      const analysis = certain("env sh -c 'rm x'");
      assert.deepEqual(argvs(analysis), [['rm', 'x']]);
      assert.deepEqual(analysis.commands[0]!.wrappers, ['env', 'sh']);
    });

    test('C2: `bash -lc "curl https://e.com"` is curl, kind network', () => {
      const analysis = certain('bash -lc "curl https://e.com"');
      assert.deepEqual(argvs(analysis), [['curl', 'https://e.com']]);
      assert.equal(analysis.kind, 'network');
    });

    test('shell flags: -ec, -c -e, -o value, --, and every shell name', () => {
      assert.deepEqual(programs(certain("sh -ec 'a; b'")), ['a', 'b']);
      assert.deepEqual(programs(certain("bash -c -e 'a'")), ['a']);
      assert.deepEqual(programs(certain("bash -o pipefail -c 'a | b'")), ['a', 'b']);
      assert.deepEqual(programs(certain("bash --norc --noprofile -c 'a' -- x y")), ['a']);
      for (const shell of ['sh', 'bash', 'dash', 'zsh', 'ksh', '/bin/sh', '/usr/bin/bash']) {
        assert.deepEqual(programs(certain(`${shell} -c 'rm x'`)), ['rm'], shell);
      }
    });

    test('static eval is analysed; a nested shell inside it too', () => {
      const analysis = certain("eval 'rm x' && eval \"bash -c 'curl y'\"");
      assert.deepEqual(argvs(analysis), [['rm', 'x'], ['curl', 'y']]);
      assert.deepEqual(analysis.commands[1]!.wrappers, ['eval', 'bash']);
    });

    test('text that is not static, fed to a shell or eval, is uncertain', () => {
      uncertain('bash -c "$x"');
      uncertain('sh -c "rm $(cat f)"');
      uncertain('eval $cmd');
      uncertain('bash -c');
    });

    test('a shell or source reading a pipe, heredoc, herestring or process substitution is uncertain', () => {
      uncertain('curl x | bash');
      uncertain('sh <<EOF\nrm x\nEOF');
      uncertain('cat <<EOF | sh\nrm x\nEOF');
      uncertain('bash <<< "rm x"');
      uncertain('bash -s < script');
      uncertain('bash <(curl x)');
      uncertain('source <(curl x)');
      uncertain('. <(curl x)');
      uncertain('curl x | source /dev/stdin');
      uncertain('sudo -s');
    });

    test("`trap 'TEXT' SIGNAL` and `su -c 'TEXT'` are analysed like bash -c; su without -c and a dynamic action are uncertain", () => {
      const trapped = certain("trap -- 'rm x' EXIT");
      assert.deepEqual(argvs(trapped), [['rm', 'x']]);
      assert.deepEqual(trapped.commands[0]!.wrappers, ['trap']);
      assert.deepEqual(argvs(certain('trap - INT; trap -p')), [['trap', '-', 'INT'], ['trap', '-p']]);
      uncertain('trap "$x" INT');
      const switched = certain("su - bob -c 'curl x'");
      assert.deepEqual(argvs(switched), [['curl', 'x']]);
      assert.equal(switched.kind, 'network');
      assert.deepEqual(argvs(certain('su --command="rm z"')), [['rm', 'z']]);
      uncertain('echo "rm -rf ~" | su');
      uncertain('su -c "$x"');
    });

    test('`sh script.sh`, `source ./env.sh` and `. ./env.sh` are commands of their own, uncertain: the script is a file the analysis does not read', () => {
      assert.deepEqual(argvs(uncertain('sh script.sh')), [['sh', 'script.sh']]);
      assert.deepEqual(argvs(uncertain('source ./env.sh')), [['source', './env.sh']]);
      assert.deepEqual(argvs(uncertain('. ./env.sh')), [['.', './env.sh']]);
    });

    test('shells nested past 8 levels are uncertain; 8 levels are not', () => {
      const nest = (levels: number): string => {
        let text = 'rm x';
        for (let i = 0; i < levels; i += 1) text = `eval ${text.replace(/[\\ '"$]/g, (c) => `\\${c}`)}`;
        return text;
      };
      const eight = certain(nest(8));
      assert.deepEqual(argvs(eight), [['rm', 'x']]);
      assert.equal(eight.commands[0]!.wrappers.length, 8);
      uncertain(nest(9));
    });
  });

  describe('wrappers', () => {
    const cases: Array<[string, string[], string[]]> = [
      ['timeout 5 rm -rf x', ['rm', '-rf', 'x'], ['timeout']],
      ['timeout -s KILL -k 5 10 rm x', ['rm', 'x'], ['timeout']],
      ['env LANG=C rm -rf x', ['rm', '-rf', 'x'], ['env']],
      ['env -i -u A -C /tmp -- TZ=UTC rm x', ['rm', 'x'], ['env']],
      ['sudo -u root rm x', ['rm', 'x'], ['sudo']],
      ['sudo -E -g wheel -C 3 -D /tmp -- rm x', ['rm', 'x'], ['sudo']],
      ['doas -u bob rm x', ['rm', 'x'], ['doas']],
      ['nohup nice -n 5 rm x &', ['rm', 'x'], ['nohup', 'nice']],
      ['nice -5 rm x', ['rm', 'x'], ['nice']],
      ['xargs rm < list', ['rm'], ['xargs']],
      ['xargs -0 -n 1 -I {} rm {}', ['rm', '{}'], ['xargs']],
      ['exec rm x', ['rm', 'x'], ['exec']],
      ['command -p rm x', ['rm', 'x'], ['command']],
      ['builtin echo x', ['echo', 'x'], ['builtin']],
      ['time -p rm x', ['rm', 'x'], ['time']],
      ['stdbuf -oL -e 0 rm x', ['rm', 'x'], ['stdbuf']],
      ['ionice -c2 -n 7 rm x', ['rm', 'x'], ['ionice']],
      ['setsid -f rm x', ['rm', 'x'], ['setsid']],
      ['chroot /srv rm x', ['rm', 'x'], ['chroot']],
      ["env -S 'rm -f' x", ['rm', '-f', 'x'], ['env']],
      ['LANG=C LC_ALL=$(a) rm x', ['rm', 'x'], []],
      ['sudo timeout 5 env TZ=UTC /bin/rm x', ['/bin/rm', 'x'], ['sudo', 'timeout', 'env']],
      ['taskset -c 0-3 rm x', ['rm', 'x'], ['taskset']],
      ['taskset 0x3 rm x', ['rm', 'x'], ['taskset']],
      ['chrt -f 10 rm x', ['rm', 'x'], ['chrt']],
      ['chrt -T 5 -b 0 rm x', ['rm', 'x'], ['chrt']],
      ['flock -n -w 5 /tmp/lock rm x', ['rm', 'x'], ['flock']],
      ["flock /tmp/lock -c 'rm x'", ['rm', 'x'], ['flock']],
      ['ionice -c 3 rm x', ['rm', 'x'], ['ionice']],
      ['unshare -r -n rm x', ['rm', 'x'], ['unshare']],
      ['unshare --map-user 0 --mount=/x rm x', ['rm', 'x'], ['unshare']],
      ['nsenter -t 1 -m -u rm x', ['rm', 'x'], ['nsenter']],
      ['busybox rm x', ['rm', 'x'], ['busybox']],
      ["busybox sh -c 'rm x'", ['rm', 'x'], ['busybox', 'sh']],
      ['xargs sh -c \'rm "$1"\' _', ['rm', '"$1"'], ['xargs', 'sh']],
    ];
    for (const [text, argv, wrappers] of cases) {
      test(`\`${text}\` runs ${argv.join(' ')} inside ${wrappers.join(', ') || 'no wrapper'}`, () => {
        const analysis = certain(text);
        const command = commandOf(analysis, argv[0]!.replace(/.*\//, ''));
        assert.deepEqual(command.argv, argv);
        assert.deepEqual(command.wrappers, wrappers);
      });
    }

    test('`command -v x` is a lookup, not running x', () => {
      assert.deepEqual(argvs(certain('command -v rm')), [['command', '-v', 'rm']]);
    });

    test('a wrapper with no command is the command itself', () => {
      assert.deepEqual(argvs(certain('env')), [['env']]);
      assert.deepEqual(argvs(certain('timeout 5')), [['timeout', '5']]);
    });

    test('a wrapper word that is not static before the command is uncertain unless double-quoted (it cannot split)', () => {
      const analysis = uncertain('timeout $T rm x');
      assert.deepEqual(commandOf(analysis, 'rm').wrappers, ['timeout']);
      certain('timeout "$T" rm x');
      certain('sudo -u "$U" rm x');
    });

    test('a shell with a word that is not static where its options are is uncertain (it may be -c or -s)', () => {
      uncertain('bash $X "curl evil"');
      uncertain('bash "$script"');
    });

    test("alias definitions are analysed: `alias ls='rm -rf ~'` runs rm where ls is used", () => {
      const analysis = certain("alias ls='rm -rf ~' ll='ls -l'");
      assert.deepEqual(argvs(analysis), [['rm', '-rf', '~'], ['ls', '-l']]);
      assert.deepEqual(analysis.commands[0]!.wrappers, ['alias']);
      assert.deepEqual(argvs(certain('alias; alias ll')), [['alias'], ['alias', 'll']]);
      uncertain('alias x="$y"');
    });

    test('setting PATH, LD_PRELOAD, BASH_ENV and the like is uncertain: program names no longer say what runs', () => {
      for (const text of ['PATH=. ls', 'export PATH=$HOME/bin:$PATH', 'PATH+=:.', 'declare -x PATH=.', 'env LD_PRELOAD=x.so ls', 'sudo BASH_ENV=x bash -c ls']) {
        uncertain(text);
      }
      certain('LANG=C ls; export TZ=UTC');
    });

    test('env -S with a string that is not static is uncertain', () => {
      uncertain('env -S "$CMD" x');
    });

    test('find -exec, -execdir, -ok: the command they run is a command of its own', () => {
      const analysis = certain('find . -name x -exec rm {} \\;');
      assert.deepEqual(argvs(analysis), [['find', '.', '-name', 'x', '-exec', 'rm', '{}', ';'], ['rm', '{}']]);
      assert.deepEqual(commandOf(analysis, 'rm').wrappers, ['find']);
      assert.deepEqual(programs(certain('find . -execdir sh -c \'curl "$0"\' {} + -ok rm {} \\;')), ['find', 'curl', 'rm']);
    });
  });

  describe('C3 and normalisation', () => {
    test('C3: `git -C . commit -m x` and `git --no-pager commit` start with ["git", "commit"]', () => {
      assert.deepEqual(argvs(certain('git -C . commit -m x')), [['git', 'commit', '-m', 'x']]);
      assert.deepEqual(argvs(certain('git --no-pager commit')), [['git', 'commit']]);
    });

    test('C3: git -c k=v, --git-dir=x --work-tree=y, -p are dropped before the subcommand', () => {
      // another repository is uncertain now (shell-hardening, item 4); the options are still dropped
      assert.deepEqual(argvs(uncertain('git -c user.name=x --git-dir=x --work-tree=y -p commit -c y')), [['git', 'commit', '-c', 'y']]);
      assert.deepEqual(argvs(uncertain('git --git-dir x --work-tree y push')), [['git', 'push']]);
      assert.deepEqual(argvs(certain('git -c user.name=x --git-dir=. --work-tree . -p commit -c y')), [['git', 'commit', '-c', 'y']]);
    });

    test('git -c settings that run a program are uncertain', () => {
      uncertain('git -c alias.x="!rm -rf ." x');
      uncertain('git -c core.pager="sh -c id" log');
    });

    test('the program is argv[0] without its folder; argv[0] with a / stays as written (item 8)', () => {
      const analysis = certain('/bin/rm -rf x; ./bin/tool; ~/bin/rm y; \'./git\' status');
      assert.deepEqual(argvs(analysis), [['/bin/rm', '-rf', 'x'], ['./bin/tool'], ['~/bin/rm', 'y'], ['./git', 'status']]);
      assert.deepEqual(programs(analysis), ['rm', 'tool', 'rm', 'git']);
      assert.equal(certain('/usr/bin/curl x').kind, 'network');
      assert.equal(certain('./git push').kind, 'network');
    });

    test('static words lose their quotes; words with expansions or globs are kept as written', () => {
      const analysis = certain("echo 'a b' \"c d\" $'e\\nf' g\\ h 'i'\"j\"k \"$X\" ${Y} *.txt {a,b}");
      assert.deepEqual(analysis.commands[0]!.argv, ['echo', 'a b', 'c d', 'e\nf', 'g h', 'ijk', '"$X"', '${Y}', '*.txt', '{a,b}']);
      assert.deepEqual(argvs(certain("'rm' -rf x")), [['rm', '-rf', 'x']]);
    });

    test('a dynamic program name is uncertain: $X, ${X}, "$cmd", $(which rm), backticks, globs', () => {
      for (const text of ['$X rm', '${X} x', '"$cmd" x', '"$(which rm)" x', '$(which rm) x', '`which rm` x', '/bin/r? x']) {
        uncertain(text);
      }
      assert.ok(programs(uncertain('"$(which rm)" x')).includes('which'));
    });
  });

  describe('redirections', () => {
    test('every writing operator; /dev/null and descriptor duplication are not writes', () => {
      const analysis = certain('a > f1 >> f2 >| f3 &> f4 &>> f5 2> f6 >& f7 2>&1 >&2 2>/dev/null < in');
      assert.deepEqual(analysis.commands[0]!.writes, ['f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7']);
      assert.deepEqual(certain('echo hi >&2 2>/dev/null').commands[0]!.writes, []);
    });

    test('targets lose their quotes when static; dynamic targets are still writes', () => {
      assert.deepEqual(certain('echo > "my file" > $OUT > $(mktemp)').commands[0]!.writes, ['my file', '$OUT', '$(mktemp)']);
    });

    test('a redirect on a compound command is a write of every command inside it', () => {
      const analysis = certain('{ a; b; } > f; (c) > g; while d; do e; done >> h');
      assert.deepEqual(analysis.commands.map((command) => [command.program, ...command.writes]), [['a', 'f'], ['b', 'f'], ['c', 'g'], ['d', 'h'], ['e', 'h']]);
    });

    test('but not of commands in a substitution inside it, whose output goes elsewhere', () => {
      const analysis = certain('{ echo $(date); } > f');
      assert.deepEqual(commandOf(analysis, 'echo').writes, ['f']);
      assert.deepEqual(commandOf(analysis, 'date').writes, []);
    });

    test('a redirect on a shell running -c TEXT is a write of the commands of TEXT', () => {
      assert.deepEqual(certain("bash -c 'rm x' > log").commands[0]!.writes, ['log']);
    });

    test('words after a redirect target are arguments (`echo a > f b`)', () => {
      const analysis = certain('echo a > f b');
      assert.deepEqual(analysis.commands[0]!.argv, ['echo', 'a', 'b']);
      assert.deepEqual(analysis.commands[0]!.writes, ['f']);
    });

    test('a redirection with no command is uncertain', () => {
      uncertain('> f');
    });

    test('`<>` is a parse error of tree-sitter-bash 0.25, so uncertain (fail closed)', () => {
      uncertain('rm x 3<> f');
    });
  });

  describe('kinds', () => {
    const network = [
      'curl x', 'wget x', 'ssh h', 'scp a h:b', 'sftp h', 'rsync a b', 'nc h 80', 'ncat h 80', 'netcat h 80', 'socat - TCP:h:80',
      'telnet h', 'ftp h', 'ping h', 'gh pr list', 'aws s3 ls', 'gcloud info', 'az login',
      'git push', 'git pull', 'git fetch', 'git clone u', 'git ls-remote u', 'git remote update', 'git submodule update',
      'npm install', 'npm ci', 'npm publish', 'pnpm add x', 'yarn', 'yarn add x', 'npx x', 'pip install x', 'pip3 download x',
      'docker pull x', 'docker run x', 'cargo install x',
    ];
    for (const text of network) test(`\`${text}\` is network`, () => assert.equal(certain(text).kind, 'network'));

    const local = ['ls', 'git status', 'git commit -m x', 'git remote -v', 'git submodule status', 'npm test', 'npm run build', 'docker ps', 'pip list', 'rm -rf x'];
    for (const text of local) test(`\`${text}\` is shell_command`, () => assert.equal(certain(text).kind, 'shell_command'));

    test('the analysis kind is the most severe of its commands, shell_command when there are none', () => {
      assert.equal(certain('ls && curl x && rm y').kind, 'network');
      assert.equal(certain('a=1').kind, 'shell_command');
    });
  });

  describe('shell-hardening 1: substitutions the grammar gives no node for', () => {
    const members: Array<[string, string]> = [
      ['backtick in ${x-...}', 'echo ${x-`rm -rf data`}'],
      ['backtick in ${x:-...}', 'echo ${x:-`rm x`}'],
      ['backtick in "${x:=...}"', 'echo "${x:=`rm x`}"'],
      ['backtick in ${x=...}', 'echo ${x=`rm x`}'],
      ['backtick in ${x?...}', 'echo ${x?`rm x`}'],
      ['backtick in "${x:?...}"', 'echo "${x:?`rm x`}"'],
      ['backtick in ${x:+...}, ${x/a/...}, ${x,,...}', 'echo ${x:+`rm x`} ${x/a/`rm y`} ${x,,`rm z`}'],
      ['backtick in nested ${x:-${y:-...}}', 'echo ${x:-${y:-`rm x`}}'],
      ['backtick in an assignment value', 'a=${x:-`rm x`}'],
      ['backtick in [[ ]]', '[[ ${x:-`rm x`} ]]'],
      ['backtick in a redirect target', 'echo x > ${x:-`rm x`}'],
      ['backtick line in an unquoted heredoc', 'echo <<EOF\n`rm x`\nEOF'],
      ['backtick in ${...} in an unquoted heredoc', 'cat <<EOF\n${x:-`rm x`}\nEOF'],
      ['process substitution in ${x:-...}', 'echo ${x:-<(rm x)}'],
      ['output process substitution in ${x:-...}', 'echo ${x:->(rm x)}'],
      ['nested escaped backticks inside backticks', 'echo `echo \\`rm x\\``'],
    ];
    for (const [name, text] of members) test(`${name}: ${JSON.stringify(text)} is uncertain`, () => void uncertain(text));

    test('a quoted heredoc, single quotes, $\'...\' and escaped backticks are text, not substitutions', () => {
      assert.deepEqual(argvs(certain("cat <<'EOF'\n`rm x` ${x:-`rm y`}\nEOF")), [['cat']]);
      assert.deepEqual(argvs(certain('cat <<\\EOF\n`rm x`\nEOF')), [['cat']]);
      assert.deepEqual(argvs(certain('cat <<EOF\na \\` b \\$(c)\nEOF')), [['cat']]);
      // escaped, a backtick runs nothing, but a static word holding one is uncertain by item 2
      assert.deepEqual(argvs(uncertain('echo \\`hi\\`')), [['echo', '`hi`']]);
      certain('cat <<EOF\nplain ${HOME} $(date)\nEOF');
    });
  });

  describe('shell-hardening 2: static data that bash later evaluates as code', () => {
    const members: Array<[string, string]> = [
      ['arithmetic $((x)) over a variable', "x='a[$(rm x)]'; echo $((x))"],
      ['arithmetic $((x+1))', 'echo $((x+1))'],
      ['arithmetic $[x]', 'echo $[x]'],
      ['${x:0:x} substring length', 'echo ${x:0:x}'],
      ['${@:x} positional offset', 'echo ${@:x}'],
      ['${a[@]:x} array slice offset', 'echo ${a[@]:x}'],
      ['${a[x]} as a case pattern', 'case 1 in ${a[x]}) ;; esac'],
      ['unset a[x]', 'unset a[x]'],
      ['(( x ))', '(( x ))'],
      ['${x@P}', "x='$(rm x)'; echo ${x@P}"],
      ['${x@P} on a dynamic value', 'echo ${x@P}'],
      ['${!x} indirection', 'echo ${!x}'],
      ['${y[x]} subscript', 'echo ${y[x]}'],
      ['"${z[x]}" subscript in a string', "printf '%s' \"${z[x]}\""],
      ['${y:x} substring offset', 'echo ${y:x}'],
      ['[[ $x -eq 1 ]]', '[[ $x -eq 1 ]]'],
      ['[[ -v $x ]]', '[[ -v $x ]]'],
      ['[ -v "$x" ]', '[ -v "$x" ]'],
      ['[ -f $x ] (unquoted, may split into -v)', '[ -f $x ]'],
      ['test -v "$x"', 'test -v "$x"'],
      ['printf -v "$x"', 'printf -v "$x" 1'],
      ['printf -v with a subscript', "printf -v 'a[i]' 1"],
      ['read -r "$x"', 'read -r "$x" <<<1'],
      ['read -a "$x"', 'read -a "$x" <<<1'],
      ['mapfile -C callback', 'mapfile -C f -c 1 arr < f'],
      ['unset "$x"', 'unset "$x"'],
      ['declare -n nameref', 'declare -n r=x'],
      ['local -i integer', 'f() { local -i n=$1; }'],
      ['declare "$x"', 'declare "$x"'],
      ['let', 'let x=y+1'],
      ['an array literal with an evaluated subscript', 'declare -A a=([x]=1)'],
      ['hash -p (a program name runs another file)', 'hash -p ./evil git; git status'],
      ['enable -f (a builtin from a shared object)', 'enable -f ./x.so echo'],
      ['$( in single quotes inside a double-quoted ${...}', `echo "\${x:-'$(rm x)'}"`],
      ['a backtick in $\'...\' inside a double-quoted ${...}', "echo \"${x:+$'`rm x`'}\""],
      ['single quotes in ${...} in an unquoted heredoc', "cat <<EOF\n${x:-'`rm x`'}\nEOF"],
      ['a static word holding $(', "echo '$(rm x)'"],
      ['a static word holding a backtick', "echo '`rm x`'"],
      ['an assignment value holding $(', "x='a[$(rm x)]'"],
      ['declare with a value holding $(', "declare x='$(rm x)'"],
    ];
    for (const [name, text] of members) test(`${name}: ${JSON.stringify(text)} is uncertain`, () => void uncertain(text));

    test('plain names, numbers and quoted tests stay certain', () => {
      certain('read -r line < f; printf -v out %s x; test -v name; [[ -v name ]]; [[ 1 -eq 1 ]]; echo $((1 + 2)); [ -f "$f" ]; unset name');
      certain('declare -a arr=(1 2) && local x=1 && printf "%s\\n" "$x"');
    });
  });

  describe('shell-hardening 3: environment given to a program', () => {
    const members = [
      'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log', 'GIT_CONFIG_PARAMETERS="\'core.pager=id\'" git log',
      'GIT_SSH_COMMAND=x git status', 'PAGER=id git log', 'EDITOR=x git commit', 'VISUAL=x crontab -e', 'LESSOPEN="|id" less f',
      'SSH_ASKPASS=x ssh h', 'NODE_OPTIONS=--require=./x.js node -v', 'PYTHONSTARTUP=x python', 'PERL5OPT=-Mx perl -e 1', 'RUBYOPT=-rx ruby -e 1',
      'FOO=1 ls', 'env GIT_DIR=x git status', 'sudo PAGER=x git log', 'export PAGER=x', 'export GIT_CONFIG_PARAMETERS', 'declare -x EDITOR=x',
      'F=a; export F', 'PAGER=id; git log', 'GIT_DIR=/tmp/x; git status', 'local NODE_OPTIONS=x',
      "env 'BASH_FUNC_echo%%=() { rm x; }' bash -c echo", "env -S 'BASH_ENV=x bash -c :'", "env -S '-i PAGER=x git log'",
    ];
    for (const text of members) test(`${JSON.stringify(text)} is uncertain`, () => void uncertain(text));

    test('the safe list (LANG, LC_*, TZ, TERM, COLUMNS, LINES, NO_COLOR, FORCE_COLOR, CI, IFS) and plain local variables stay certain', () => {
      certain('LANG=C LC_ALL=C TZ=UTC TERM=dumb COLUMNS=80 LINES=24 NO_COLOR=1 FORCE_COLOR=0 CI=1 sort f');
      certain('env LC_ALL=C sort f; export TZ=UTC; while IFS= read -r line; do echo "$line"; done < f');
      assert.deepEqual(argvs(certain('F=a; rm "$F"')), [['rm', '"$F"']]);
      uncertain('F=rm; $F x');
    });
  });

  describe('shell-hardening 4: git pointed elsewhere, dynamic subcommands', () => {
    const members = [
      'git -C /tmp/planted status', 'git -C .. status', 'git --git-dir=/tmp/x status', 'git --work-tree /tmp/x status', 'git --namespace=x log',
      'git "$(printf push)"', 'git $SUB', 'git -c "$k" status', 'npm "$x"', 'pip $(echo install) x', 'docker "$c" x',
    ];
    for (const text of members) test(`${JSON.stringify(text)} is uncertain`, () => void uncertain(text));

    test('git in a command line that changes folder reads another folder\'s repository: uncertain, wherever the cd stands', () => {
      for (const text of [
        'cd planted && git status', 'pushd planted; git log; popd', 'for d in a b; do git status; cd $d; done', 'f() { git status; }; cd x; f',
        'find . -execdir git status \\;', 'env -C planted git status', 'env --chdir=planted git status', 'sudo -D planted git status', 'chroot /x git status',
      ]) uncertain(text);
      certain('cd sub && ls');
      certain('find . -exec git add {} +; env LANG=C git status; git ls-files | xargs -r git add; setsid -w git status');
    });

    test("a shell tool's own env and workdir arguments: env outside the safe list, or git in another workdir, is a doubt", () => {
      const git = certain('git status');
      assert.match(toolArgumentDoubt({ command: 'git status', env: { GIT_CONFIG_COUNT: '1' } }, git) ?? '', /GIT_CONFIG_COUNT/);
      assert.match(toolArgumentDoubt({ command: 'echo hi', env: { BASH_ENV: 'x.sh', PS4: '$(id)' } }, certain('echo hi')) ?? '', /BASH_ENV, PS4/);
      assert.match(toolArgumentDoubt({ command: 'git status', workdir: 'planted' }, git) ?? '', /workdir/);
      assert.equal(toolArgumentDoubt({ command: 'git status', workdir: '.', env: { LANG: 'C', TZ: 'UTC' } }, git), undefined);
      assert.equal(toolArgumentDoubt({ command: 'ls', workdir: 'sub' }, certain('ls')), undefined);
      assert.ok(toolArgumentDoubt({ command: 'ls', env: 'A=1' }, certain('ls')) !== undefined);
    });

    test('`git -C .` and `--no-pager` are still dropped and certain; dynamic arguments after the subcommand are fine', () => {
      assert.deepEqual(argvs(certain('git -C . --no-pager status')), [['git', 'status']]);
      certain('git commit -m "$MSG"; npm run "$script"');
    });
  });

  describe('shell-hardening 5: NUL bytes', () => {
    test("`$'rm\\0x'` (bash runs rm) is uncertain", () => void uncertain("$'rm\\0x' -rf data"));
    test("a NUL in an argument or an assignment is uncertain", () => {
      uncertain("echo $'a\\0b'");
      uncertain("x=$'a\\x00b'");
      uncertain('echo a\0b');
    });
  });

  describe('shell-hardening 6: programs that run another command', () => {
    for (const program of ['watch', 'strace', 'ltrace', 'script -c', 'runuser -u bob --', 'parallel', 'systemd-run', 'firejail', 'bwrap --bind / /', 'proot', 'fakeroot', 'catchsegv', 'valgrind', 'gdb --args', 'sudoedit']) {
      test(`\`${program} rm x\` is uncertain`, () => void uncertain(`${program} rm x`));
    }
    test('unshare or nsenter with no command start a shell reading standard input', () => {
      uncertain('unshare -r');
      uncertain('nsenter -t 1 -m');
    });
    test('taskset -p, chrt -p/-m and flock FD run no command', () => {
      assert.deepEqual(argvs(certain('taskset -p 3 1234; chrt -m; flock 9')), [['taskset', '-p', '3', '1234'], ['chrt', '-m'], ['flock', '9']]);
    });
    test('flock -c with text that is not static is uncertain', () => void uncertain('flock f -c "$cmd"'));
  });

  describe('shell-hardening 8: input, file names and program text that become commands (attack s11)', () => {
    const cases = [
      'echo "hi; rm -rf v" | xargs -I{} sh -c "echo {}"',
      'echo rm -rf v | xargs -I{} sh -c {}',
      'echo x | xargs --replace=X sh -c "echo X"',
      'echo "rm -rf v" | xargs sh -c',
      "echo x | xargs -I{} python3 -c 'print(\"{}\")'",
      'find notes -type f -exec sh -c "echo {}" \\;',
      'find . -exec bash -c {} \\;',
      '/lib64/ld-linux-x86-64.so.2 /usr/bin/rm -rf d',
      'coreutils --coreutils-prog=rm x',
      "awk 'BEGIN{system(\"rm -rf d\")}'",
      "awk '{ print | \"sh\" }' f",
      'awk -f prog.awk in.txt',
      'sed -n "1e rm -rf d" f',
      "sed 's/x/date/e' f",
      'sed -f script.sed f',
      'bash s.sh',
      'tar -cf a.tar --checkpoint=1 --checkpoint-action=exec="rm -rf v" f',
      'tar --to-command="sh -c rm" -xf a.tar',
      'rsync -e "sh -c rm" a b:',
      'ssh -o ProxyCommand="rm x" host',
      'vim -c "!rm x" f',
      // from the review: variants of each
      "sed --expression='1e touch p' f", "sed -e'1e touch p' f", "sed '/x/Ie touch p' f", "sed '\\%x%e touch p' f",
      "awk 'BEGIN{c=\"touch p\"} {print $0 | c}' f", 'gawk -l /tmp/evil f', 'gawk -i lib.awk f', "gawk '@include \"x.awk\"'", "gawk 'BEGIN{f=\"sys\" \"tem\"; @f(\"touch p\")}'",
      "echo 'BEGIN{system(1)}' | xargs -0 awk", 'ls | xargs -0 sed -n', "ls | xargs -0I{} sh -c 'echo {}'",
      'find . -exec perl -E {} \\;', 'find . -exec node --eval {} \\;',
      "tar --to-com='sh -c id' -xf a.tar", 'tar --checkpoint=1 --checkpoint-act=exec=id -cf a.tar x', "tar xIf 'sh -c id' a.tar",
      "ssh -voProxyCommand='touch p' host", 'ssh -F/tmp/evil host', 'ssh -o PKCS11Provider=/tmp/evil.so host', 'scp -S /tmp/evil a host:b',
      'vim -u evil.vim f', 'nvim -l x.lua',
      // a variable inside the script is code too: NEW='x/;e touch p;s/a/' would add an e command
      'sed -i "s/foo/$NEW/" f',
    ];
    for (const text of cases) test(`${JSON.stringify(text)} is uncertain`, () => void uncertain(text));
    test('their everyday forms stay certain', () => {
      for (const text of [
        // from the review: variables, globs and substitutions as file operands, awk's ||, FS="|", split on "|", sed -i.conf
        "sed -i 's/a/b/' *.txt", 'for f in *.txt; do sed -i \'s/a/b/\' "$f"; done', "awk '{print $1}' \"$f\"", "awk -v n=\"$N\" 'NR<=n' f",
        'tar -czf backup-$(date +%F).tgz src', 'ssh "$HOST" ls', 'rsync -a "$SRC" dest/', 'vim "$f"',
        "awk '$1 == \"a\" || $2 == \"b\"' f", "awk 'BEGIN{FS=\"|\"}{print $1}' f", "awk '{split($0,a,\"|\"); print a[1]}' f", "awk '/foo|bar/ {print}' f",
        'awk -vfile=1 \'{print file}\' f', "sed -i.conf 's/a/b/' f", "sed 's/ e / x /' f", "sed -n '$p' f", "sed '1~3d' f", "sed '/foo/,+2d' f",
        "ls | xargs -I{} sh -c 'echo \"$1\"' _ {}", 'ls | xargs sed -i \'s/a/b/\'', 'find . -name x -exec grep -l foo {} +',
        'ls | xargs wc -l', 'ls | xargs -I {} cp {} {}.bak', "ls | xargs sh -c 'wc -l \"$@\"' _", "find . -exec sh -c 'wc -l \"$0\"' {} \\;", 'find . -exec rm {} \\;', "awk '{print $1}' f", "awk -F: '{print $1}' /etc/passwd", "sed 's/e/E/g' f", "sed -i -e 's/a/b/' f", 'tar xzf a.tgz', 'tar -czf a.tgz src', 'rsync -av a/ b/', 'ssh host ls', 'vim f']) certain(text);
    });
  });

  describe('shell-hardening 7: coproc', () => {
    for (const text of ['coproc NAME { rm x; }', 'coproc { rm x; }', 'coproc echo { rm x; }', 'coproc while true; do rm x; done', 'time { rm x; }', 'time -p { rm x; }']) {
      test(`${JSON.stringify(text)} is uncertain`, () => void uncertain(text));
    }
    test('`coproc cmd` runs cmd', () => {
      const analysis = certain('coproc rm x');
      assert.deepEqual(argvs(analysis), [['rm', 'x']]);
      assert.deepEqual(analysis.commands[0]!.wrappers, ['coproc']);
    });
  });

  describe('failing closed', () => {
    test('empty or blank text: no commands, not uncertain', () => {
      for (const text of ['', '   ', '\n\t\n']) {
        assert.deepEqual(analyze(text), { commands: [], uncertain: [], kind: 'shell_command' });
      }
    });

    test('a parse error or a missing part is uncertain', () => {
      for (const text of ['if', 'echo a |', 'echo (', 'for x in; do', 'a && ', '$(', '"unterminated']) uncertain(text);
    });

    test('text over 64 KiB is uncertain without parsing', () => {
      const analysis = uncertain(`echo ${'a'.repeat(64 * 1024)}`);
      assert.deepEqual(analysis.commands, []);
    });

    test('deeply nested constructs are uncertain, not a crash', () => {
      uncertain(`${'$('.repeat(3000)}x${')'.repeat(3000)}`);
      uncertain(`${'( '.repeat(3000)}x${' )'.repeat(3000)}`);
    });

    test('never throws, whatever the input', () => {
      const samples = ['\0', '\\', "'", '`', '$((', '<<EOF', ')', '}', ';;', '\u{1F600} rm', 'a\r\nb', '${!x[@]}', '$"x"', 'coproc x', '|| a'];
      for (const text of samples) {
        const analysis = analyze(text);
        assert.ok(Array.isArray(analysis.commands) && Array.isArray(analysis.uncertain), text);
      }
      // a caller that passes something other than a string (no type check at run time) gets uncertain
      assert.ok(analyze(42 as unknown as string).uncertain.length > 0);
      let random = 7;
      const alphabet = 'ab $()`\'"\\|&;<>{}[]!#=*\n\t-ce';
      for (let round = 0; round < 300; round += 1) {
        let text = '';
        for (let i = 0; i < 40; i += 1) {
          random = (random * 1103515245 + 12345) % 2147483648;
          text += alphabet[random % alphabet.length];
        }
        const analysis = analyze(text);
        assert.ok(Array.isArray(analysis.commands), text);
      }
    });
  });
});

describe('what allow rules read of a command (issue 30)', () => {
  before(async () => {
    analyze = await loadShellAnalyzer();
  });

  test('C5: each wrapper\'s own words, outermost first; git\'s dropped global options', () => {
    const analysis = certain("timeout -s KILL 5 env -u X nice -n 5 rm -rf data; git --no-pager -C . log --oneline");
    const rm = commandOf(analysis, 'rm');
    assert.deepEqual(rm.wrappers, ['timeout', 'env', 'nice']);
    assert.deepEqual(rm.wrapperWords, [['timeout', '-s', 'KILL', '5'], ['env', '-u', 'X'], ['nice', '-n', '5']]);
    const git = commandOf(analysis, 'git');
    assert.deepEqual(git.argv, ['git', 'log', '--oneline']);
    assert.deepEqual(git.globalWords, ['--no-pager', '-C', '.']);
    assert.equal(commandOf(certain('git status'), 'git').globalWords, undefined);
    const split = commandOf(certain("env -S 'rm -rf data'"), 'rm');
    assert.deepEqual(split.wrapperWords, [['env', '-S', 'rm -rf data']]);
    const shell = commandOf(certain("bash -c 'timeout 5 ls'"), 'ls');
    assert.deepEqual(shell.wrapperWords, [['bash'], ['timeout', '5']]);
  });

  test('an interpreter reading its code from standard input is uncertain: `echo ... | python3`', () => {
    for (const line of ["echo 'import os' | python3", 'node -', 'cat x | perl']) uncertain(line);
    certain('python3 script.py');
    certain('node --version');
  });

  test('C6: a line beyond the limits says so: length, commands, nesting', () => {
    assert.equal(analyze(`${'true;'.repeat(20_000)} curl http://127.0.0.1:1/`).beyondLimits, true);
    assert.equal(analyze(`${'$('.repeat(200)}curl x${')'.repeat(200)}`).beyondLimits, true);
    const many = analyze(`${'echo x;'.repeat(5_000)} curl x`);
    assert.equal(many.beyondLimits, true);
    assert.ok(many.uncertain.some((why) => /more than 4096 commands/.test(why)) || many.uncertain.some((why) => /parsing took longer/.test(why)), many.uncertain.join('; '));
    assert.equal(analyze("bash -c 'bash -c \"bash -c \\\"ls\\\"\"'").beyondLimits, undefined);
    assert.equal(analyze('echo ok').beyondLimits, undefined);
  });
});
