/**
 * What shell-command analysis knows about programs, as data: which ones reach other machines,
 * which ones are shells that run a command string, and git's global options (dropped so rules
 * match `git commit` however git was invoked). Names are program basenames (`/usr/bin/git` is
 * `git`). The walk that uses these tables is `command-line.ts`.
 *
 * @module
 */
import type { ActionKind } from '../action-kinds.js';

/**
 * Programs that always reach another machine (kind `network`), whatever their arguments.
 * Kept small and well known: transfer clients (curl, wget, ftp), remote shells and copies
 * (ssh, scp, sftp, rsync: rsync counts even for two local paths, since telling `host:path`
 * from a local `a:b` is guesswork), raw sockets (nc, ncat, netcat, socat, telnet), ping (it
 * sends packets to the named host), and cloud or forge clients whose every subcommand talks
 * to a service (gh, aws, gcloud, az).
 */
const NETWORK_PROGRAMS: ReadonlySet<string> = new Set([
  'curl', 'wget', 'ftp', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ping',
  'gh', 'aws', 'gcloud', 'az',
]);

/**
 * Programs that reach another machine only with some subcommands (the first word after the
 * program that is not an option; git's global options are dropped before). Package managers
 * count when they download, publish or run a downloaded package (`pnpm dlx`, `npm exec`);
 * `docker run` counts because it pulls a missing image. `''` means "no subcommand" (`yarn`
 * alone installs).
 */
const NETWORK_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['git', new Set(['push', 'pull', 'fetch', 'clone', 'ls-remote', 'remote', 'submodule', 'send-email', 'request-pull'])],
  ['npm', new Set(['install', 'i', 'ci', 'add', 'update', 'up', 'upgrade', 'publish', 'exec', 'x', 'outdated', 'view', 'info'])],
  ['pnpm', new Set(['install', 'i', 'add', 'update', 'up', 'upgrade', 'publish', 'dlx', 'fetch', 'outdated'])],
  ['yarn', new Set(['', 'install', 'add', 'upgrade', 'up', 'publish', 'dlx', 'npm', 'outdated', 'info'])],
  ['pip', new Set(['install', 'download', 'search'])],
  ['pip3', new Set(['install', 'download', 'search'])],
  ['docker', new Set(['pull', 'push', 'login', 'search', 'run'])],
  ['podman', new Set(['pull', 'push', 'login', 'search', 'run'])],
  ['cargo', new Set(['install', 'fetch', 'publish', 'update', 'search'])],
]);

/** `git remote` and `git submodule` reach the remote only with these (`git remote -v` does not). */
const GIT_NETWORK_SECOND: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['remote', new Set(['update', 'prune', 'show'])],
  ['submodule', new Set(['update', 'sync', 'foreach'])],
]);

/** Programs that download and run a package by name: always `network`. */
const PACKAGE_RUNNERS: ReadonlySet<string> = new Set(['npx', 'pnpx', 'bunx']);

/**
 * The kind of one command, from its normalised argv (`argv[0]` a basename, git's global
 * options dropped): `network` per the tables above, else `shell_command`.
 */
export function kindOfCommand(argv: readonly string[]): ActionKind {
  const program = argv[0] ?? '';
  if (NETWORK_PROGRAMS.has(program) || PACKAGE_RUNNERS.has(program)) return 'network';
  const subcommands = NETWORK_SUBCOMMANDS.get(program);
  if (subcommands === undefined) return 'shell_command';
  const sub = argv.slice(1).find((word) => !word.startsWith('-')) ?? '';
  if (!subcommands.has(sub)) return 'shell_command';
  const second = program === 'git' ? GIT_NETWORK_SECOND.get(sub) : undefined;
  if (second === undefined) return 'network';
  const rest = argv.slice(argv.indexOf(sub) + 1).find((word) => !word.startsWith('-'));
  return rest !== undefined && second.has(rest) ? 'network' : 'shell_command';
}

/**
 * Environment variables a command may be given (`LANG=C sort`, `env TZ=UTC date`,
 * `export TERM=dumb`) without the analysis losing track of what runs: locale, time zone,
 * terminal size and colour switches, `CI`, and `IFS` (`IFS= read -r line`; bash and sh reset it at start). Every other name given to a program's
 * environment makes the call uncertain, since programs read their environment as
 * configuration that can run code: git's `GIT_CONFIG_*`, `GIT_SSH_COMMAND`, `GIT_DIR`;
 * `PAGER`, `EDITOR`, `VISUAL`, `LESSOPEN`; `NODE_OPTIONS`, `PYTHONSTARTUP`, `PERL5OPT`,
 * `RUBYOPT`; `*_COMMAND`. Kept small on purpose: it lists what is known harmless, not what is
 * known harmful.
 */
const SAFE_ENVIRONMENT: ReadonlySet<string> = new Set(['IFS', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLUMNS', 'LINES', 'NO_COLOR', 'FORCE_COLOR', 'CI']);

/** Whether a program may be given the environment variable `name` (see {@link SAFE_ENVIRONMENT}; `LC_*` too). */
export function isSafeEnvironmentName(name: string): boolean {
  return SAFE_ENVIRONMENT.has(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * Names that a plain assignment statement (`PAGER=x; git log`, no `export`) must not set:
 * variables commonly exported already, so that assigning them changes the environment of
 * every later command, and shell variables that change how later text runs (`PS4` runs
 * substitutions under `set -x`, `IFS` re-splits words, `PROMPT_COMMAND`, `SHELLOPTS`).
 * Other plain assignments (`F=a; rm "$F"`) only make the words that use them dynamic.
 */
const ENVIRONMENT_FAMILIES = /^(GIT_|SSH_|LESS|PYTHON|NODE_|NPM_|npm_config_|PERL|RUBY|GEM_|BUNDLE_|JAVA_|_JAVA_|JDK_|MAVEN_|GRADLE_|CARGO_|RUSTC|RUSTFLAGS|RUSTDOC|DOCKER_|KUBE|AWS_|GOOGLE_|AZURE_|PIP_|VIRTUAL_ENV|CONDA|GO(FLAGS|PROXY|PATH|ROOT|ENV|TOOLCHAIN)|CC$|CXX$|CPP$|LD$|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|MAKE|PAGER$|MANPAGER|EDITOR$|VISUAL$|BROWSER$|TERMINFO|HOME$|TMPDIR$|XDG_|DISPLAY$|SHELL$|IFS$|PS[0-4]$|PROMPT_COMMAND$|SHELLOPTS$|BASHOPTS$|BASH_|CDPATH$|GLOBIGNORE$|HISTFILE$|INPUTRC$|LOCPATH$|GCONV_PATH$|HOSTALIASES$|TERMCAP$|MAIL|http_proxy$|https_proxy$|all_proxy$|no_proxy$|ftp_proxy$|HTTPS?_PROXY$|ALL_PROXY$|NO_PROXY$|SSL_|CURL_|WGETRC$|GNUPG|GPG_|DYLD_|MALLOC_)|(_COMMAND|_OPTIONS|_OPTS|_PAGER|_EDITOR|_PATH|_HOME|_CONFIG|_PRELOAD)$/;

/** Whether a plain assignment statement to `name` may change what later commands run (see {@link ENVIRONMENT_FAMILIES}). */
export function isInheritedEnvironmentName(name: string): boolean {
  return ENVIRONMENT_FAMILIES.test(name);
}

/**
 * Programs that run another command (or code) given in their arguments, in a way the
 * analysis does not unwrap: debuggers and tracers, sandboxes and container launchers,
 * schedulers, terminal recorders, `parallel`, `watch`. A call to one is uncertain. The
 * common ones whose arguments are simple to read are wrappers instead (`wrappers.ts`).
 */
export const UNANALYSED_RUNNERS: ReadonlySet<string> = new Set([
  'watch', 'strace', 'ltrace', 'script', 'runuser', 'parallel', 'sem', 'sudoedit', 'systemd-run', 'machinectl', 'firejail', 'bwrap',
  'proot', 'fakeroot', 'fakechroot', 'catchsegv', 'valgrind', 'gdb', 'lldb', 'perf', 'setpriv', 'prlimit', 'numactl', 'cpulimit',
  'setarch', 'linux32', 'linux64', 'capsh', 'sg', 'newgrp', 'pkexec', 'xvfb-run', 'dbus-launch', 'dbus-run-session', 'ssh-agent',
  'rlwrap', 'unbuffer', 'expect', 'torsocks', 'proxychains', 'proxychains4', 'tsocks', 'chpst', 'setuidgid', 'softlimit',
  'envdir', 'runcon', 'sandbox-exec', 'screen', 'tmux', 'dtach', 'at', 'batch', 'entr', 'hyperfine', 'run-parts', 'start-stop-daemon',
  'daemonize', 'faketime', 'eatmydata', 'tsp', 'uv', 'uvx', 'pipx', 'poetry', 'pdm', 'hatch', 'nix-shell', 'direnv', 'sshpass',
]);

/** The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 /usr/bin/rm x` runs rm). */
export function isProgramLoader(program: string): boolean {
  return /^ld(-linux[\w.-]*|-musl[\w.-]*)?\.so(\.\d+)*$/.test(program);
}

/**
 * Programs whose first word that is not an option is a subcommand saying what they do (and
 * whether it reaches the network): a subcommand that is not static (`git "$(printf push)"`),
 * or a word before it that is not static (`git -c "$k" status`), makes a call uncertain.
 */
export function hasDynamicSubcommand(argv: readonly { readonly text: string; readonly isStatic: boolean }[], program: string): boolean {
  if (!NETWORK_SUBCOMMANDS.has(program)) return false;
  for (let i = 1; i < argv.length; i += 1) {
    const word = argv[i]!;
    if (!word.isStatic) return true;
    if (word.text === '--') return argv[i + 1] !== undefined && !argv[i + 1]!.isStatic;
    if (!word.text.startsWith('-')) return false;
    if (program === 'git' && GIT_VALUE_OPTIONS.has(word.text)) {
      // a value that is not static may be any setting (`git -c "$k"`)
      if (argv[i + 1]?.isStatic === false) return true;
      i += 1;
    }
  }
  return false;
}

/** Shells whose `-c TEXT` runs TEXT as a command line, and that read commands from standard input without one. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh']);

/** Shell options that take the next word as their value (`bash -o pipefail -c ...`). */
export const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/** Builtins that run a file of commands in the current shell (`source f`, `. f`). */
export const SOURCE_BUILTINS: ReadonlySet<string> = new Set(['source', '.']);

/**
 * Script paths that mean "standard input" or an inherited descriptor: a shell or `source`
 * given one reads text the analysis cannot see.
 */
export function isStdinPath(path: string): boolean {
  return path === '-' || path === '/dev/stdin' || /^\/dev\/fd\/\d+$/.test(path) || /^\/proc\/(self|\d+)\/fd\/\d+$/.test(path);
}

/**
 * git's global options (before the subcommand) that take the next word as their value;
 * `--name=value` forms are recognised by their `=`. Every other word starting with `-`
 * before the subcommand is a flag (`--no-pager`, `-p`, `--bare`...).
 */
const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  '-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source',
]);

/** git options that choose the repository or work tree git reads its config and hooks from; only `.` is vouched for. */
const GIT_REPOSITORY_OPTIONS: ReadonlySet<string> = new Set(['-C', '--git-dir', '--work-tree', '--namespace']);

/**
 * `-c key=value` settings (lower-cased key) known to run nothing: colours, advice, columns,
 * identity, how names, dates and diffs are shown. Every other key makes the call uncertain:
 * git runs programs from many settings (`alias.x=!cmd`, `core.pager`, `core.fsmonitor`,
 * `interactive.difffilter`, `difftool.*.cmd`, `submodule.*.update=!cmd`, `init.templatedir`
 * hooks, `core.attributesfile` with a textconv driver, `safe.directory` trusting a planted
 * repository...), and a list of those cannot be complete.
 */
const GIT_SAFE_CONFIG = /^(color\.[a-z.]+|advice\.[a-z]+|column\.[a-z]+|user\.(name|email)|author\.(name|email)|committer\.(name|email)|core\.(quotepath|abbrev|autocrlf|safecrlf|eol|filemode|ignorecase|precomposeunicode|untrackedcache|whitespace)|init\.defaultbranch|log\.(date|decorate|abbrevcommit|follow|graphcolors|showroot|mailmap|excludedecoration|initialdecorationset)|diff\.(renames|renamelimit|noprefix|mnemonicprefix|relative|context|interhunkcontext|algorithm|indentheuristic|colormoved|colormovedws|suppressblankempty|statgraphwidth|statnamewidth|dirstat|wserrorhighlight|submodule|ignoresubmodules)|i18n\.[a-z]+|status\.(short|branch|showuntrackedfiles|relativepaths|aheadbehind|renames|renamelimit|showstash|displaycommentprefix)|pull\.(rebase|ff)|merge\.(ff|conflictstyle|stat|log|renames|renamelimit)|rebase\.(autosquash|autostash|stat|abbreviatecommands|missingcommitscheck|updaterefs)|push\.(default|autosetupremote|followtags)|fetch\.(prune|prunetags|parallel)|tag\.sort|branch\.sort|versionsort\.suffix|grep\.(linenumber|patterntype|extendedregexp|column|fullname|threads)|blame\.(coloring|date|showemail|blankboundary|showroot)|format\.(pretty|numbered|signoff|suffix|coverletter)|pretty\.[a-z0-9_-]+|gc\.(auto|autodetach)|maintenance\.auto|feature\.manyfiles|pack\.threads|index\.threads|checkout\.workers|commit\.(verbose|status|cleanup))$/;

/** What {@link normaliseGit} made of a git command line. */
export interface NormalisedGit {
  /** `["git", subcommand, ...its arguments]`, or `["git"]` when there is no subcommand. */
  readonly argv: string[];
  /** Why git's own options make the call unvouchable (a `-c` setting that runs a program, `--exec-path=dir`). */
  readonly uncertain: string[];
}

/**
 * Drops git's global options before the subcommand: `git -C . --no-pager -c k=v commit -m x`
 * gives `["git", "commit", "-m", "x"]`. `argv[0]` must already be `git`.
 */
export function normaliseGit(argv: readonly string[]): NormalisedGit {
  const uncertain: string[] = [];
  let i = 1;
  while (i < argv.length) {
    const word = argv[i]!;
    if (word === '--') { i += 1; break; }
    if (!word.startsWith('-')) break;
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : word;
    let value: string | undefined;
    if (eq > 0 && name.startsWith('--')) value = word.slice(eq + 1);
    else if (GIT_VALUE_OPTIONS.has(word)) { value = argv[i + 1]; i += 1; }
    if (name === '-c' || name === '--config-env') {
      const key = (value ?? '').split('=')[0]!.toLowerCase();
      if (!GIT_SAFE_CONFIG.test(key)) uncertain.push(`git setting \`${key}\` is not known to run nothing (git runs programs from many settings)`);
    }
    if (name === '--exec-path' && value !== undefined) uncertain.push('git --exec-path runs git programs from another folder');
    // another repository's config (a planted bare-repo-shaped folder) can run programs: core.fsmonitor, hooks
    if (GIT_REPOSITORY_OPTIONS.has(name) && value !== '.') uncertain.push(`git ${name} ${value ?? ''} points git at another repository, whose config can run programs`);
    i += 1;
  }
  return { argv: ['git', ...argv.slice(i)], uncertain };
}
