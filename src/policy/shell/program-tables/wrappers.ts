/**
 * Wrappers: programs that run the command given after their own options (`timeout 5 CMD`).
 * The analysis always unwraps them and judges the command they run; these tables say which of
 * the wrapper's own options an allow rule covers, so that a rule for the command inside
 * (`command = "ls"`) covers `timeout 5 ls` and `nice -n 5 ls`, not `env -P DIR ls` or
 * `time -o FILE ls`. A rule naming only the wrapper (`command = "timeout"`) covers no command
 * it runs: `timeout 5 rm -rf data` is judged as `rm -rf data`. A wrapper without a table
 * (`sudo`, `doas`, `chroot`, `unshare`, `nsenter`, `flock`, `su`, `exec`, and `nohup`, which
 * writes `nohup.out` when its output is a terminal, as under `exec_command`) is covered only
 * where the rule names it (`command = "sudo ls"`) and then only with no options of its own.
 *
 * For `xargs`, the command gets the input as more arguments, which may be options: a command
 * under xargs is covered only when its words end its options with `--` (`xargs grep -n x
 * --`), and no word before that holds the replace string (`-I {}`), since otherwise a line of
 * input such as `--pre=./evil` becomes an option.
 *
 * @module
 */
import { opts, runs, writes } from './options.js';
import type { ProgramTable } from './types.js';

/** The wrapper tables; the `operands` are the words before the command (timeout's duration). */
export const WRAPPERS: readonly ProgramTable[] = [
  { family: 'wrappers', programs: ['timeout'], wrapper: true, form: { effect: 'read', options: opts('-s= --signal=', '-k= --kill-after=', '--preserve-status', '--foreground', '-v --verbose'), note: 'the command it runs is judged' } },
  { family: 'wrappers', programs: ['nice'], wrapper: true, form: { effect: 'read', options: opts('-n= --adjustment='), numberOption: true, note: 'the command it runs is judged' } },
  { family: 'wrappers', programs: ['setsid', 'builtin', 'command'], wrapper: true, form: { effect: 'read', options: opts('-c --ctty', '-f --fork', '-w --wait', '-p', '-v', '-V'), note: 'the command it runs is judged' } },
  {
    family: 'wrappers', programs: ['env'], wrapper: true,
    form: {
      effect: 'read', note: 'the command it runs is judged (NAME=VALUE only for the safe names); not -C, -P',
      options: [...opts('-i --ignore-environment', '-0 --null', '-u= --unset=', '-S= --split-string=', '-v --debug', '--block-signal[=]', '--default-signal[=]', '--ignore-signal[=]', '--list-signal-handling'), ...runs('-C= --chdir=', '-P=')],
    },
  },
  { family: 'wrappers', programs: ['stdbuf'], wrapper: true, form: { effect: 'read', options: opts('-i= --input=', '-o= --output=', '-e= --error='), note: 'the command it runs is judged' } },
  { family: 'wrappers', programs: ['ionice'], wrapper: true, form: { effect: 'read', options: opts('-c= --class=', '-n= --classdata=', '-t --ignore'), note: 'the command it runs is judged' } },
  { family: 'wrappers', programs: ['time'], wrapper: true, form: { effect: 'read', options: [...opts('-p --portability', '-v --verbose', '-f= --format=', '-q --quiet'), ...writes('-o= --output=', '-a --append')], note: 'not -o (writes a file)' } },
  {
    family: 'wrappers', programs: ['xargs'], wrapper: true,
    form: {
      effect: 'read', note: 'the command it runs is judged, and must end its options with --',
      options: [
        ...opts('-0 --null', '-a= --arg-file=', '-d= --delimiter=', '-E= -e[=] --eof[=]', '-I= -i[=] --replace[=]', '-L= -l[=] --max-lines[=]', '-n= --max-args=',
          '-P= --max-procs=', '-p --interactive', '-r --no-run-if-empty', '-s= --max-chars=', '--show-limits', '-t --verbose', '-x --exit'),
        ...runs('--process-slot-var=', '-o --open-tty'),
      ],
    },
  },
  // shells and eval given static text: that text is analysed, its commands judged
  { family: 'shells', programs: ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'eval', 'trap', 'alias', 'find'], wrapper: true, form: { effect: 'read', options: [], note: 'static text it runs is analysed and each command judged' } },
];
