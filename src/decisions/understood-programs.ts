/**
 * The programs whose file accesses the analysis understands, for judging paths without a
 * sandbox (`--dangerously-disable-sandbox`, `sandbox: 'none'`): every file such a program
 * opens is named by the words of its line (its arguments, its redirections, the folders its
 * line changes to), where the deciders judge it, and it runs no code the line does not show
 * (no Makefile, no package script, no test, no plugin found in the working folder). A
 * program not listed here runs code the analysis cannot see (`make` runs a Makefile's
 * recipes, `npm run x` a package script, `pytest` the tests it collects), so without a
 * sandbox to withhold files at the kernel, its line is unseen for path purposes
 * ({@link unseenProgram}): under a `deny` or `ask` path rule, and for the protected paths,
 * a person decides (`policy-files.decider.ts`, `protected-paths.decider.ts`). With a sandbox
 * nothing here applies: the kernel withholds what a deny path rule covers, and `.git`,
 * `.toolgate` and toolgate's own files are read-only mounts.
 *
 * Adding a program is one line in {@link UNDERSTOOD}: `name: true`, or a check that says
 * when a form of it reads files no word names (`grep -r` with no file searches its working
 * folder). A program belongs here only when its file reads and writes are all in its words;
 * what its words may run (`find -exec`, `xargs`, `git -c core.pager=...`, `tar -I PROG`,
 * awk's and sed's code) is the shell analysis's part (src/policy/shell/), and interpreters'
 * and awk's or sed's own code naming files is `namesFilesInCode`'s.
 *
 * @module
 */
import { commandCoverage } from '../policy/shell/program-tables/coverage.js';
import { programTable } from '../policy/shell/program-tables/index.js';
import { tarNamesNotInWords } from '../policy/shell/program-tables/tar.js';
import type { ShellCommand } from '../policy/shell/types.js';
import { MAX_BRACE_WORDS } from './command-word-paths.js';

/**
 * Why a form of a listed program opens files no word names (`undefined`: none): a string for a
 * form that reads what no word names (`grep -r KEY`: a rule for the program does not grant it),
 * an {@link UnseenProgram} for a form that may also write files no word names or run code
 * (`git config KEY VALUE` writes `.git/config`; `curl -K FILE` takes options from a file).
 */
type FormCheck = (args: readonly string[], command: ShellCommand) => string | UnseenProgram | undefined;

/**
 * Every file operand that follows the options, for a program whose options `valued` (short
 * letters, long names) take the next word as their value; `--` ends the options.
 */
function positionals(args: readonly string[], valued: { short: string; long: readonly string[] }): { words: string[]; given: Set<string> } {
  const words: string[] = [];
  const given = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') {
      words.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith('--')) {
      const name = word.split('=')[0]!;
      given.add(name);
      if (!word.includes('=') && valued.long.includes(name)) i++;
    } else if (word.startsWith('-') && word.length > 1) {
      for (let k = 1; k < word.length; k++) {
        given.add(`-${word[k]!}`);
        if (valued.short.includes(word[k]!)) {
          if (k === word.length - 1) i++;
          break;
        }
      }
    } else words.push(word);
  }
  return { words, given };
}

const GREP_VALUED = {
  short: 'efmABCdD',
  long: ['--regexp', '--file', '--max-count', '--after-context', '--before-context', '--context', '--directories', '--devices', '--label', '--binary-files', '--include', '--exclude', '--exclude-dir', '--exclude-from', '--group-separator'],
};

/** grep searching folders (`-r`, `-R`, `-d recurse`, `rgrep`) with no file operand: it reads its working folder, which no word names. */
function grepForm(recursive: boolean): FormCheck {
  return (args) => {
    const { words, given } = positionals(args, GREP_VALUED);
    const recurses = recursive || ['-r', '-R', '--recursive', '--dereference-recursive'].some((o) => given.has(o))
      || args.some((w, i) => /^--directories=recurse$/.test(w) || (/^-[A-Za-z]*d$/.test(w) && args[i + 1] === 'recurse') || /^-[A-Za-z]*drecurse$/.test(w) || (w === '--directories' && args[i + 1] === 'recurse'));
    if (!recurses) return undefined;
    const patternGiven = ['-e', '-f', '--regexp', '--file'].some((o) => given.has(o));
    return words.length - (patternGiven ? 0 : 1) <= 0 ? 'searches its working folder, which no word names' : undefined;
  };
}

const RG_VALUED = {
  short: 'ABCEefgjMmrtT',
  long: ['--regexp', '--file', '--glob', '--iglob', '--type', '--type-not', '--type-add', '--type-clear', '--max-count', '--after-context', '--before-context', '--context',
    '--threads', '--max-columns', '--replace', '--encoding', '--max-depth', '--max-filesize', '--ignore-file', '--path-separator', '--pre-glob', '--sort', '--sortr',
    '--colors', '--context-separator', '--field-context-separator', '--field-match-separator', '--dfa-size-limit', '--regex-size-limit', '--engine', '--hostname-bin', '--hyperlink-format', '--pre'],
};

/** ripgrep: with no path it searches its working folder; `--pre` runs a program on every file it reads. */
const rgForm: FormCheck = (args) => {
  const { words, given } = positionals(args, RG_VALUED);
  if ([...given].some((o) => o === '--pre' || o === '--search-zip' || o === '-z')) return 'runs a program on the files it searches (--pre, --search-zip)';
  if (given.has('--files') || given.has('--type-list')) return words.length === 0 ? 'lists its working folder, which no word names' : undefined;
  const patternGiven = ['-e', '-f', '--regexp', '--file'].some((o) => given.has(o));
  return words.length - (patternGiven ? 0 : 1) <= 0 ? 'searches its working folder, which no word names' : undefined;
};

/** install: `-s`/`--strip` runs `strip`, or the program `--strip-program` names, on what it installs. */
const installForm: FormCheck = (args) =>
  args.some((w) => /^--strip(-program)?(=|$)/.test(w) || /^-[A-Za-z]*s/.test(w)) ? 'runs a strip program on what it installs (-s, --strip-program)' : undefined;

/**
 * git: the subcommands and options its table knows (`program-tables/git.ts`, as a rule naming
 * the subcommand covers them) write only the repository's objects, refs, index and working
 * tree, files its words or its folder show. Anything else may write git's settings, which run
 * programs at the next git command (`git config core.fsmonitor ./x`, `git config
 * core.hooksPath d`, `git remote add r 'ext::sh ...'`, `git config alias.x '!sh'`), or is a
 * subcommand no table reads (`submodule`, `worktree`, `clone --config`, `maintenance`, an
 * alias): `.git/config` is then written with no word naming it. And a known subcommand that
 * writes the working tree from a commit ({@link fromRevision}) writes the commit's names.
 */
const gitForm: FormCheck = (_args, command) => {
  const sub = command.argv[1];
  if (sub === undefined) return undefined;
  if (programTable('git')?.subcommands?.[sub] === undefined) {
    return { reason: `git ${sub} is a subcommand no table reads (an alias, submodule, worktree, clone...): it may write git's settings (.git/config), whose core.fsmonitor, core.hooksPath and aliases run programs, and files no word names`, grantable: true };
  }
  const own = { ...command, wrappers: [], wrapperWords: [] };
  const coverage = commandCoverage(own, { named: 2, matched: 2, namedWrapper: -1, allowOption: () => false });
  if (!coverage.covered) return { reason: `\`git ${sub}\` is not a form its table knows (${coverage.why ?? 'unknown'}): it may write git's settings (.git/config), whose core.fsmonitor, core.hooksPath and aliases run programs`, grantable: true };
  const args = command.argv.slice(2);
  const unnamed = workingFolderRead(sub, args);
  if (unnamed !== undefined) return unnamed;
  return fromRevision(sub, args) ? { reason: `\`git ${sub}\` writes the working tree from a commit or the index, whose file names no word shows (a fetched commit may hold .envrc, .toolgate/, .husky/, or a file a path rule covers)`, grantable: true } : undefined;
};

/**
 * Why a git form reads working-tree files no word names (a rule for git does not grant it; under
 * a deny or ask path rule it asks): `add -A`/`--all`/`-u`/`--update` and `commit -a`/`--all`
 * take every changed file of the working folder (`git add -A && git commit -m x && git push URL`
 * sent a denied file away), and `--pathspec-from-file` takes names from a file.
 */
function workingFolderRead(sub: string, args: readonly string[]): string | undefined {
  if (args.some((w) => w.startsWith('--pathspec-from-file'))) return 'takes the names of the files it reads from a file (--pathspec-from-file), which the words do not show';
  const flags = (long: readonly string[], short: string) => args.some((w) => long.includes(w.split('=')[0]!) || (/^-[A-Za-z]+$/.test(w) && [...short].some((c) => w.slice(1).includes(c))));
  if (sub === 'add' && flags(['--all', '--update', '--no-ignore-removal'], 'Au')) return 'add -A/-u reads every changed file of its working folder, which no word names';
  if (sub === 'commit' && flags(['--all'], 'a')) return 'commit -a reads every changed tracked file of its working folder, which no word names';
  return undefined;
}

/**
 * Whether a git subcommand its table knows writes working-tree files from a commit or the
 * index (`checkout`, `switch`, `restore`, `reset --hard`, `merge`, `pull`, `stash` but
 * `list`/`show`): the names are the commit's, not the line's words (`git fetch URL main && git
 * reset --hard FETCH_HEAD` wrote a fetched `.envrc` and `.toolgate/policy.toml`).
 */
function fromRevision(sub: string, args: readonly string[]): boolean {
  if (['checkout', 'switch', 'restore', 'merge', 'pull'].includes(sub)) return true;
  if (sub === 'reset') return args.some((w) => /^--(hard|merge|keep)$/.test(w));
  if (sub === 'stash') return !['list', 'show'].includes(args.find((w) => !w.startsWith('-')) ?? '');
  return false;
}

/** curl's short options that take a value (the rest of the cluster, or the next word): letters after one are its value, not options. */
const CURL_VALUED = 'AbcCdDeEFHKmoPQrtTuUwxXyYz';

/** Why a curl command names a file no word shows: options from a file, a name from the URL or server. */
function curlUnnamed(args: readonly string[]): string | undefined {
  const said = (name: string, value: string | undefined): string | undefined => {
    if (name === '-K' || name === '--config') return 'curl -K/--config reads options from a file, whose lines may name files to send or write that no word names';
    if (['-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name'].includes(name)) return 'curl -O/--remote-name/-J writes a file named by the URL or the server, which no word names';
    if ((name === '-o' || name === '--output') && value?.includes('#') === true) return 'curl -o with #N names its output from the URL\'s glob, which no word shows';
    return undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') break;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq > 0 ? word.slice(0, eq) : word;
      // the next word is read as a word of its own too (an option's value is seldom `-O`): no
      // list of which long options take a value can hide an option from this loop
      const why = said(name, eq > 0 ? word.slice(eq + 1) : args[i + 1]);
      if (why !== undefined) return why;
    } else if (word.startsWith('-') && word.length > 1) {
      for (let k = 1; k < word.length; k++) {
        const name = `-${word[k]!}`;
        const valued = CURL_VALUED.includes(word[k]!);
        const value = valued ? (k < word.length - 1 ? word.slice(k + 1) : args[i + 1]) : undefined;
        const why = said(name, value);
        if (why !== undefined) return why;
        if (valued) break; // the rest is its value (`-XPOST`); a next word is read on its own too
      }
    }
  }
  return undefined;
}

/**
 * curl: every file of a plain call is a word (`-T F`, `-o F`, `-d @F`, `-F n=@F`, `-H @F`; the
 * `@`/`<` forms are read by `wordPathForms`). Not so: `-K`/`--config FILE` (its lines are more
 * options, naming files: `upload-file`, `output`, `data = @F`), and a file named by the URL or
 * the server (`-O`, `--remote-name-all`, `-J`, an output with `#1` from a URL glob), which lands
 * in the working folder under a name no word shows (`curl -O http://h/.envrc`).
 */
const curlForm: FormCheck = (args) => {
  const why = curlUnnamed(args);
  if (why !== undefined) return { reason: why, grantable: true };
  // curl's own globbing (`-T '{a,b}'`, `file:///x/{a,b}`): each name is judged (`wordPathForms`) up to a bound
  const names = (word: string) => [...word.matchAll(/\{([^{}]*)\}/g)].reduce((n, m) => n * m[1]!.split(',').length, 1);
  return args.some((w) => names(w) > MAX_BRACE_WORDS) ? `expands {...} in a word to more than ${MAX_BRACE_WORDS} names, more than are judged` : undefined;
};

/**
 * tar: what it reads and writes are its words (`-f`, `-C`, the members), except extraction to
 * files, which writes the names the archive holds (`.git/hooks/pre-commit`, `.envrc`, a hard
 * link `h` to `secrets/key`), and an archive named `host:file` (a remote shell).
 */
const tarForm: FormCheck = (args) => {
  const why = tarNamesNotInWords(args);
  return why === undefined ? undefined : { reason: `${why}: it writes names the archive holds, which no word shows`, grantable: true };
};

/**
 * jq: its program may read modules and data files no word names (`import "conf" as $c
 * {search: "."}` reads `./conf.json`; `include`, `-L DIR`, a program from a file `-f F`).
 */
const jqForm: FormCheck = (args) =>
  args.some((w) => /\b(import|include|modulemeta|get_search_list)\b/.test(w) || /^(-L|--library-path|-f|--from-file)(=|$)|^-[A-Za-z]*[Lf]/.test(w))
    ? 'reads modules or a program file (import, include, -L, -f) whose files no word names'
    : undefined;

/**
 * The programs the analysis understands: shell builtins and plain tools whose every file is
 * one of their words. One line per program (or per family of one program's names).
 */
const UNDERSTOOD: Readonly<Record<string, true | FormCheck>> = Object.freeze({
  // bash builtins that open no file of their own (the walker follows `cd`/`pushd`/`popd`;
  // `source`, `.`, `enable -f`, `fc` and `history` are not here: they run or read files)
  'cd': true, 'pushd': true, 'popd': true, 'dirs': true, 'pwd': true,
  'echo': true, 'printf': true, 'test': true, '[': true, 'true': true, 'false': true, ':': true,
  'export': true, 'unset': true, 'set': true, 'shift': true, 'local': true, 'declare': true, 'typeset': true, 'readonly': true, 'let': true,
  'read': true, 'mapfile': true, 'readarray': true, 'getopts': true,
  'exit': true, 'return': true, 'break': true, 'continue': true, 'wait': true, 'sleep': true,
  'type': true, 'hash': true, 'command': true, 'builtin': true, 'umask': true, 'ulimit': true, 'times': true, 'jobs': true, 'kill': true, 'alias': true, 'unalias': true, 'shopt': true,
  // the environment, printed
  'env': true, 'printenv': true,
  // coreutils and friends that read only the files they are given (`program-tables/coreutils.ts`)
  'cat': true, 'tac': true, 'nl': true, 'head': true, 'tail': true, 'wc': true, 'ls': true, 'dir': true, 'vdir': true, 'tree': true, 'stat': true, 'file': true, 'du': true, 'df': true,
  'diff': true, 'cmp': true, 'comm': true, 'cut': true, 'paste': true, 'join': true, 'tr': true, 'fold': true, 'expand': true, 'unexpand': true, 'rev': true, 'column': true,
  'sort': true, 'uniq': true, 'basename': true, 'dirname': true, 'realpath': true, 'readlink': true, 'date': true, 'seq': true, 'yes': true, 'which': true,
  'whoami': true, 'id': true, 'groups': true, 'uname': true, 'nproc': true, 'tty': true, 'logname': true, 'arch': true, 'hostid': true, 'hostname': true,
  'md5sum': true, 'sha1sum': true, 'sha224sum': true, 'sha256sum': true, 'sha384sum': true, 'sha512sum': true, 'b2sum': true, 'cksum': true, 'sum': true,
  'base64': true, 'base32': true, 'basenc': true, 'od': true, 'xxd': true,
  // coreutils that write the operands they are given (`program-tables/writing.ts`)
  'cp': true, 'mv': true, 'rm': true, 'rmdir': true, 'mkdir': true, 'touch': true, 'ln': true, 'tee': true, 'install': installForm, 'truncate': true, 'chmod': true, 'chown': true, 'chgrp': true, 'mktemp': true, 'dd': true,
  // searching: named files, or the working folder when none is named
  'grep': grepForm(false), 'egrep': grepForm(false), 'fgrep': grepForm(false), 'rgrep': grepForm(true), 'rg': rgForm,
  'find': true,
  // programs whose code the analysis reads (`namesFilesInCode`: ARGV, getline <, r/R/w/W)
  'awk': true, 'gawk': true, 'mawk': true, 'nawk': true, 'sed': true, 'gsed': true,
  // archives and git by their tables (what they run is the analysis's: `tar -I`, `git -c`)
  'tar': tarForm, 'gtar': tarForm, 'bsdtar': tarForm, 'git': gitForm,
  // JSON and HTTP: files only as words (`jq --rawfile N F`; `curl -T F`, `-o F`, `-d @F`), not modules, config files or remote names
  'jq': jqForm, 'curl': curlForm,
});

/** Why a command is unseen for path purposes ({@link unseenProgram}). */
export interface UnseenProgram {
  /** Readable: what the program may do that no word shows. */
  readonly reason: string;
  /**
   * Whether an explicit allow rule naming exactly this program (`command = "make"`,
   * `command = "./build.sh"`) is the person's grant for it: true for a program the analysis
   * does not know (its code is the person's to vouch for), false for a known program's form
   * that reads what no word names (`grep -r KEY`), which a rule for the program does not grant.
   */
  readonly grantable: boolean;
}

/**
 * Why `command`'s program may open files no word of the line names when no sandbox withholds
 * them, or `undefined` when it is understood ({@link UNDERSTOOD}): a program run by its path
 * (`./run.sh`, `bin/tool`: its code is not one the analysis knows), a program not listed
 * (`make`, `npm`, `cargo`, `pytest`...), or a listed program's form that reads its working
 * folder unnamed (`grep -r KEY`).
 */
export function unseenProgram(command: ShellCommand): UnseenProgram | undefined {
  const name = command.argv[0];
  if (name === undefined) return undefined;
  if (name.includes('/')) return { reason: `runs the program ${name}, whose code may open files no word names`, grantable: true };
  const entry = Object.hasOwn(UNDERSTOOD, command.program) ? UNDERSTOOD[command.program] : undefined;
  if (entry === undefined) return { reason: `runs ${command.program}, a program whose code (a Makefile, a package script, a test, a plugin) the analysis cannot see, which may open files no word names`, grantable: true };
  if (entry === true) return undefined;
  const why = entry(command.argv.slice(1), command);
  if (why === undefined || typeof why !== 'string') return why;
  return { reason: `${command.program} ${why}`, grantable: false };
}

/**
 * The program a reason of {@link unseenProgram} names when an allow rule may grant it
 * (`grantable`: "runs the program ./run.sh, whose code ..." or "runs make, a program whose
 * code ..."), read back from a decision's reason text (results keep the text, not the
 * command); `undefined` for any other reason. Kept beside the wording it reads.
 */
export function grantableProgramOf(reason: string): string | undefined {
  const found = /\bruns (?:the program (\S+), whose code|(\S+), a program whose code)/.exec(reason);
  return found?.[1] ?? found?.[2];
}
