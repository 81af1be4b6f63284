/**
 * Wrappers: programs that run another command given in their own arguments (`timeout 5 rm x`
 * runs `rm x`). The table says, per wrapper, which of its options take a value and how many
 * operands come before the command; {@link unwrapOnce} applies it. Shells (`bash -c`), `eval`
 * and `find -exec` are not wrappers in this sense: `command-line.ts` handles them.
 *
 * @module
 */

/** How one wrapper's arguments are laid out before the command it runs. */
interface WrapperSpec {
  /** Options that take a value: the next word (`-u root`), or the rest of a short cluster (`-uroot`), or after `=` (`--user=root`). */
  readonly valueOptions?: readonly string[];
  /** Operands between the options and the command (timeout's duration, chroot's folder). */
  readonly operands?: number;
  /** Whether `NAME=value` words before the command are skipped (env). */
  readonly assignments?: boolean;
  /** Options with which the wrapper only looks the command up and does not run it (`command -v`). */
  readonly lookupOptions?: readonly string[];
  /** Options whose value is itself a command line, split and put before the remaining words (`env -S 'rm -f' x`). */
  readonly splitOptions?: readonly string[];
  /** Options with which, given no command, the wrapper starts a shell reading standard input (`sudo -s`). */
  readonly stdinShellOptions?: readonly string[];
  /** Whether, given no command, the wrapper starts `$SHELL` reading standard input (`unshare`, `nsenter`). */
  readonly shellWithoutCommand?: boolean;
  /** Words that, right where the command would start, say the next word is a command line run by `sh -c` (`flock FILE -c TEXT`). */
  readonly shellOptions?: readonly string[];
}

/**
 * The wrappers known, by program basename. Options not listed are flags without a value;
 * `--` ends the options of every one of them.
 */
const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  ['env', {
    valueOptions: ['-u', '--unset', '-C', '--chdir', '-P', '-S', '--split-string', '--block-signal', '--default-signal', '--ignore-signal'],
    assignments: true,
    splitOptions: ['-S', '--split-string'],
  }],
  ['sudo', {
    valueOptions: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout', '-R', '--chroot'],
    assignments: true,
    stdinShellOptions: ['-s', '--shell', '-i', '--login'],
  }],
  ['doas', { valueOptions: ['-u', '-C'], stdinShellOptions: ['-s'] }],
  ['timeout', { valueOptions: ['-s', '--signal', '-k', '--kill-after'], operands: 1 }],
  ['nice', { valueOptions: ['-n', '--adjustment'] }],
  ['nohup', {}],
  ['xargs', {
    valueOptions: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
  }],
  ['exec', { valueOptions: ['-a'] }],
  ['command', { lookupOptions: ['-v', '-V'] }],
  ['builtin', {}],
  ['time', { valueOptions: ['-f', '--format', '-o', '--output'] }],
  ['stdbuf', { valueOptions: ['-i', '--input', '-o', '--output', '-e', '--error'] }],
  ['ionice', { valueOptions: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'] }],
  ['setsid', {}],
  ['chroot', { valueOptions: ['--userspec', '--groups'], operands: 1 }],
  ['coproc', {}],
  // `taskset [-a] [-c] MASK CMD`; with -p it changes a running process
  ['taskset', { operands: 1, lookupOptions: ['-p', '--pid'] }],
  // `chrt [policy] PRIORITY CMD`; -p changes a running process, -m prints the limits
  ['chrt', { valueOptions: ['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline'], operands: 1, lookupOptions: ['-p', '--pid', '-m', '--max'] }],
  // `flock [options] FILE CMD...` or `flock [options] FILE -c TEXT`; `flock FD` runs nothing
  ['flock', { valueOptions: ['-w', '--wait', '--timeout', '-E', '--conflict-exit-code'], operands: 1, shellOptions: ['-c', '--command'] }],
  ['unshare', {
    valueOptions: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd', '--propagation', '--setgroups', '--map-user', '--map-group', '--map-users', '--map-groups', '--monotonic', '--boottime'],
    shellWithoutCommand: true,
  }],
  ['nsenter', { valueOptions: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-W', '--wdns', '-N', '--user-parent'], shellWithoutCommand: true }],
  ['busybox', {}],
  ['toybox', {}],
]);

/** Whether `program` (a basename) is a wrapper of {@link WRAPPERS}. */
export function isWrapper(program: string): boolean {
  return WRAPPERS.has(program);
}

/** Whether the wrapper `program` reads `NAME=VALUE` words before its command into the command's environment (env, sudo). */
export function takesAssignments(program: string): boolean {
  return WRAPPERS.get(program)?.assignments === true;
}

/** What one wrapper's arguments came to. */
export type Unwrapped =
  /** The command starts at `argv[start]`; `prefix` are words to put before it (from `env -S`). */
  | { readonly kind: 'inner'; readonly start: number; readonly prefix?: { readonly value: string; readonly index: number } }
  /** The wrapper runs no command (a lookup, `env` printing the environment, a bare `timeout`). */
  | { readonly kind: 'none' }
  /** The wrapper runs a shell reading standard input (`sudo -s` with no command). */
  | { readonly kind: 'stdin-shell' }
  /** The wrapper runs `argv[index]` as a shell command line (`flock f -c TEXT`). */
  | { readonly kind: 'shell-text'; readonly index: number };

/**
 * Reads the options and operands of the wrapper `argv[0]` (a basename in {@link WRAPPERS})
 * and says where the command it runs starts. `argv` are the words as the analysis resolved
 * them (quotes removed from static words).
 */
export function unwrapOnce(argv: readonly string[]): Unwrapped {
  const spec = WRAPPERS.get(argv[0] ?? '') ?? {};
  const valueOptions = new Set(spec.valueOptions ?? []);
  const split = new Set(spec.splitOptions ?? []);
  const lookup = new Set(spec.lookupOptions ?? []);
  const stdinShell = new Set(spec.stdinShellOptions ?? []);
  let prefix: { value: string; index: number } | undefined;
  let shellOption = false;
  let i = 1;
  const seen = (option: string, valueIndex: number, value: string | undefined): boolean => {
    if (lookup.has(option)) return true;
    if (stdinShell.has(option)) shellOption = true;
    if (split.has(option) && value !== undefined) prefix = { value, index: valueIndex };
    return false;
  };
  while (i < argv.length) {
    const word = argv[i]!;
    if (word === '--') { i += 1; break; }
    // env and sudo read any word holding `=` before the command as NAME=VALUE, whatever NAME is
    if (spec.assignments === true && /^[^-=][^=]*=/.test(word)) { i += 1; continue; }
    if (word === '-' && argv[0] === 'env') { i += 1; continue; }
    if (!word.startsWith('-') || word === '-') break;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq > 0 ? word.slice(0, eq) : word;
      if (eq > 0) {
        if (seen(name, i, word.slice(eq + 1))) return { kind: 'none' };
      } else if (valueOptions.has(name)) {
        if (seen(name, i + 1, argv[i + 1])) return { kind: 'none' };
        i += 1;
      } else if (seen(name, i, undefined)) return { kind: 'none' };
      i += 1;
      continue;
    }
    // a cluster of short options: `-iu root`, `-uroot`, `-n5`, and nice's `-5`
    let consumedNext = false;
    for (let j = 1; j < word.length; j += 1) {
      const option = `-${word[j]}`;
      if (valueOptions.has(option)) {
        const rest = word.slice(j + 1);
        if (rest !== '') {
          if (seen(option, i, rest)) return { kind: 'none' };
        } else {
          if (seen(option, i + 1, argv[i + 1])) return { kind: 'none' };
          consumedNext = true;
        }
        break;
      }
      if (seen(option, i, undefined)) return { kind: 'none' };
    }
    i += consumedNext ? 2 : 1;
  }
  // NAME=value words may follow the options, after `--` too (`env -i -- A=1 cmd`)
  while (spec.assignments === true && i < argv.length && /^[^=]+=/.test(argv[i]!)) i += 1;
  i += spec.operands ?? 0;
  // flock checks the word right after its file for -c / --command (util-linux)
  if (i < argv.length && spec.shellOptions?.includes(argv[i]!) === true) return { kind: 'shell-text', index: i + 1 };
  if (i >= argv.length && prefix === undefined) return shellOption || spec.shellWithoutCommand === true ? { kind: 'stdin-shell' } : { kind: 'none' };
  return prefix === undefined ? { kind: 'inner', start: i } : { kind: 'inner', start: i, prefix };
}
