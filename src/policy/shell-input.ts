/**
 * Input typed into a running program, judged like a command (issue 30, item 5; case C7). A
 * tool argument marked `@format shell-input` (`input_command`'s `chars`) carries text for a
 * program's standard input; the tool says what reads it ({@link ShellInputTool}, a static
 * `shellInputTarget` on its class) and this module turns the text into what the deciders
 * judge, a {@link ShellAnalysis} beside those of `@format shell-command` arguments:
 *
 * - nothing (no analysis, no question) for an empty text (a poll) and a lone Ctrl-C
 *   (`"\u0003"`), and when nothing reads it (no such session: the call fails without writing);
 * - typed into a shell that reads its commands from standard input (`bash`, `sh -i`, `dash`,
 *   `zsh`..., alone or under wrappers that pass their input on: `env bash`, `exec -a x bash`,
 *   `timeout 60 sh`): the analysis of the text as a command line, as `run_command` of it gets, so
 *   rules (a deny for `curl`), the shell analysis and protected paths apply. A line begun in
 *   an earlier call (`cu`, then `rl ...`) is judged whole: the text is analysed after what
 *   is still pending of the session's earlier input (everything after its last complete
 *   line);
 * - typed into anything else (an interpreter such as `python3`, a program the analysis does
 *   not know, a shell that already started an interpreter or `xargs` in an earlier input):
 *   one command marked `opaqueInput`, whose argv is the reading program's. Only a rule that
 *   names the tool allows it (`tool = "input_command"`, `command = "python3"`), since a rule
 *   for running a program is not one for typing code into it; without one it asks. Unless the
 *   reader is a known interpreter in a session that starts no shell, the text is also read as
 *   a shell would read it (`cat | bash`, `script -qc bash /dev/null`, `while read l; do eval
 *   "$l"; done` and a program the analysis does not know may run it so; case C7): those
 *   commands, marked `readAsShell`, are judged by deny and ask rules, never allowed by a rule,
 *   and their doubts are the call's.
 *
 * A tool with a shell-input argument asks by default when it types something (as a tool that
 * declares `requiresConfirmation` does; see `approval-mode.decider.ts`).
 *
 * @module
 */
import type { ShellInputTarget, ShellInputTool } from '../types/tool.js';
import { mostSevere } from './action-kinds.js';
import { analyzeCommandArguments, type ShellAnalyzer } from './shell/analyze.js';
import { SHELLS, SHELL_VALUE_OPTIONS } from './shell/programs.js';
import type { ShellAnalysis, ShellCommand } from './shell/types.js';
import { typesInput } from './typed-input.js';
import { runsFedCode } from './shell/fed-code.js';

/**
 * Programs that, started inside a shell session, may read the rest of its input as code or
 * as commands to run: interpreters and `xargs`. Once the session's earlier input started one,
 * later input is opaque (it may be theirs), not a command line.
 */
const STDIN_RUNNERS: ReadonlySet<string> = new Set([
  'python', 'python2', 'python3', 'perl', 'ruby', 'irb', 'node', 'nodejs', 'deno', 'bun', 'php', 'lua', 'tclsh', 'wish', 'Rscript', 'R',
  'pwsh', 'gdb', 'sqlite3', 'psql', 'mysql', 'ed', 'ex', 'vim', 'vi', 'nvim', 'xargs', 'parallel', 'awk', 'gawk', 'mawk', 'sed', 'expect',
]);

/**
 * Builtins whose effect outlives their line in a session and changes what later text runs:
 * aliases (expanded in an interactive shell), exported or assigned variables (`PATH`,
 * `BASH_ENV`), shell options (`shopt -s expand_aliases`), builtins turned off, files sourced.
 * Once the session's earlier input ran one, later input is doubted (a rule does not allow it
 * without asking).
 */
const STATE_BUILTINS: ReadonlySet<string> = new Set(['alias', 'export', 'declare', 'typeset', 'readonly', 'local', 'set', 'shopt', 'enable', 'hash', 'source', '.', 'trap', 'unset', 'unalias', 'builtin', 'command_not_found_handle']);

/** The tool side the analysis needs: its shell-input argument names and its class (with the static hook), once loaded. */
export interface InputTool {
  readonly inputArguments: readonly string[];
  readonly target: unknown;
}

/** The tool side {@link callAnalyses} needs. */
export interface AnalysedTool extends InputTool {
  readonly commandArguments: readonly string[];
}

/**
 * Every analysis the deciders judge a call by: its `@format shell-command` arguments'
 * ({@link analyzeCommandArguments}), then its `@format shell-input` arguments'
 * ({@link analyseInputArguments}).
 */
export function callAnalyses(analyze: ShellAnalyzer, tool: AnalysedTool, args: Readonly<Record<string, unknown>>, workspaceRoot: string): ShellAnalysis[] {
  const commands = tool.commandArguments.length === 0 ? [] : analyzeCommandArguments(analyze, tool.commandArguments, args);
  if (tool.inputArguments.length === 0) return commands;
  return [...commands, ...analyseInputArguments(analyze, tool, args, workspaceRoot)];
}

/**
 * The analyses of a call's `@format shell-input` arguments (see the module summary). The
 * tool's class must be loaded (`RegisteredTool.load`): a class without a `shellInputTarget`,
 * or one that throws, makes the input opaque (fail closed).
 */
export function analyseInputArguments(analyze: ShellAnalyzer, tool: InputTool, args: Readonly<Record<string, unknown>>, workspaceRoot: string): ShellAnalysis[] {
  const found: ShellAnalysis[] = [];
  for (const name of tool.inputArguments) {
    const text = args[name];
    if (!typesInput(text)) continue;
    const target = targetOf(tool.target, args, workspaceRoot);
    if (target === undefined) continue;
    found.push(analyseShellInput(analyze, text, target));
  }
  return found;
}

/** What the tool says reads the input; `null` when it cannot say (no hook, or the hook failed). */
function targetOf(toolClass: unknown, args: Readonly<Record<string, unknown>>, workspaceRoot: string): ShellInputTarget | undefined | null {
  const hook = (toolClass as Partial<ShellInputTool> | undefined)?.shellInputTarget;
  if (typeof hook !== 'function') return null;
  try {
    const target = hook.call(toolClass, args, workspaceRoot);
    if (target === undefined) return undefined;
    if (target === null || typeof target !== 'object' || typeof target.command !== 'string' || typeof target.written !== 'string') return null;
    return target;
  } catch {
    return null;
  }
}

/**
 * The analysis of `text` typed into `target` (`null`: a target the tool cannot name), see the
 * module summary. Never throws.
 */
export function analyseShellInput(analyze: ShellAnalyzer, text: string, target: ShellInputTarget | null): ShellAnalysis {
  if (target === null) return opaque(text, '(a program the tool does not name)', UNKNOWN_READER.argv, UNKNOWN_READER.program, analyze(text));
  const session = analyze(target.command);
  const reader = readerOf(session);
  if (reader.shell !== true) return opaque(text, target.command, reader.argv, reader.program, mayBeShell(session, reader.program) ? asShell(analyze, text, target).analysis : undefined);
  const { analysis, done } = asShell(analyze, text, target);
  let doubt: string | undefined;
  if (done !== '') {
    for (const c of analyze(done).commands) {
      // A program the session's shell started earlier may be the one reading now; or the
      // shell itself, once that program is done: the text is read as shell text as well.
      const runner = c.wrappers.find((w) => STDIN_RUNNERS.has(w)) ?? (STDIN_RUNNERS.has(c.program) || (SHELLS.has(c.program) && shellReads(c.argv.slice(1)) === 'script') ? c.program : undefined);
      if (runner !== undefined) return opaque(text, `${target.command}, then ${c.text}`, runner === c.program ? c.argv : [runner, ...c.argv], runner, analysis);
      if (STATE_BUILTINS.has(c.program) || c.wrappers.some((w) => STATE_BUILTINS.has(w))) doubt ??= `the session's earlier input ran \`${clip(c.text, 80)}\`, which changes how later words are read (aliases, variables such as PATH, options), so this text may not run what it says`;
    }
  }
  return doubt === undefined ? analysis : { ...analysis, uncertain: [...analysis.uncertain, doubt] };
}

/**
 * `text` typed into `target` read as a shell reads it: analysed after what is still pending of
 * the session's earlier input (`done` is what came before that), with a doubt when the earlier
 * input was cut.
 */
function asShell(analyze: ShellAnalyzer, text: string, target: ShellInputTarget): { analysis: ShellAnalysis; done: string } {
  const { done, pending } = splitWritten(analyze, target);
  const analysis = analyze(pending + text);
  if (target.truncated !== true || pending === '') return { analysis, done };
  return { analysis: { ...analysis, uncertain: [...analysis.uncertain, 'the session\'s earlier input is longer than the part kept, so where this line begins is unknown'] }, done };
}

/**
 * Interpreters that read code, not command lines, from standard input: text typed into a
 * session that is one of them (and holds no shell) is not read as shell text as well.
 */
const INTERPRETERS: ReadonlySet<string> = new Set([...STDIN_RUNNERS].filter((p) => p !== 'xargs' && p !== 'parallel'));

/**
 * Whether what reads text typed into `session` may be a shell, or run it as one: anything but
 * a known interpreter (`python3`) in a session that starts no shell and no `eval` (`cat |
 * bash`, `script -qc bash /dev/null`, `while read l; do eval "$l"; done`, a program the
 * analysis does not know).
 */
function mayBeShell(session: ShellAnalysis, program: string): boolean {
  if (!INTERPRETERS.has(program)) return true;
  return session.commands.some((c) => c.program === 'eval' || c.program === 'script' || SHELLS.has(c.program) || c.wrappers.some((w) => w === 'eval' || SHELLS.has(w)));
}

/**
 * Wrappers that hand their standard input to the shell they start (`env bash`, `exec -a x
 * bash`, `timeout 60 sh`): a session started so reads its input as a shell started alone does.
 */
const INPUT_PASSING_WRAPPERS: ReadonlySet<string> = new Set(['env', 'exec', 'nice', 'ionice', 'timeout', 'stdbuf', 'setsid', 'nohup', 'chrt', 'taskset', 'time', 'command', 'builtin']);

/** A reader the analysis cannot name: only a rule without a `command` key (and with a `tool` key) can allow input to it. */
const UNKNOWN_READER = Object.freeze({ shell: false as const, argv: Object.freeze(['(unknown)']), program: '(unknown)' });

/** What reads a session's input, from the analysis of the command line it was started with. */
function readerOf(session: ShellAnalysis): { shell: true } | { shell: false; argv: readonly string[]; program: string } {
  const { commands } = session;
  if (commands.length === 0) return UNKNOWN_READER;
  const last = commands[commands.length - 1]!;
  // The last command reads the input once the others are done; any other that runs code from
  // its input (`python3; bash`) may read it first.
  const other = commands.slice(0, -1).find((c) => STDIN_RUNNERS.has(c.program) || SHELLS.has(c.program));
  if (other !== undefined) return { shell: false, argv: other.argv, program: other.program };
  // A doubt about the session's own line (the analysis doubts a bare `bash`: it reads commands
  // it cannot see, which is what this module judges) leaves a shell a shell only when it is
  // the line's one command.
  // A shell under wrappers that pass their input on (`env bash`) is one too, when the only
  // doubt is the shell's own reading of its input (`env PATH=x bash` is doubted twice).
  if (SHELLS.has(last.program) && shellReads(last.argv.slice(1)) === 'input') {
    if (last.wrappers.length === 0 && (commands.length === 1 || session.uncertain.length === 0)) return { shell: true };
    if (commands.length === 1 && last.wrappers.every((w) => INPUT_PASSING_WRAPPERS.has(w)) && session.uncertain.length <= 1) return { shell: true };
  }
  // Likewise the analysis doubts an interpreter that reads its code from standard input
  // (`python3` alone): what it reads is this input, judged here as opaque.
  const interpreterAlone = commands.length === 1 && STDIN_RUNNERS.has(last.program) && last.wrappers.length === 0;
  if (session.uncertain.length !== 0 && !interpreterAlone) return UNKNOWN_READER;
  return { shell: false, argv: last.argv, program: last.program };
}

/**
 * Where a shell started with `args` reads its commands: its standard `input` (no `-c`, no
 * script operand, or `-s`), `code` given with `-c`, or a `script` file (whose own reads of
 * standard input the analysis cannot see).
 */
function shellReads(args: readonly string[]): 'input' | 'code' | 'script' {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--' || a === '-') return i + 1 >= args.length ? 'input' : 'script';
    if (SHELL_VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('--')) continue;
    if (/^[-+][A-Za-z]+$/.test(a)) {
      if (a.startsWith('-') && a.includes('c')) return 'code';
      if (a.startsWith('-') && a.includes('s')) return 'input';
      continue;
    }
    return 'script';
  }
  return 'input';
}

/**
 * The session's earlier input split where its last complete line ends: `done` (every line up
 * to a newline after which the text parses with no doubt) and `pending` (the rest, which the
 * shell has not run yet and which the new text continues). At most four newlines are tried
 * from the end; when none fits, everything is pending.
 */
function splitWritten(analyze: ShellAnalyzer, target: ShellInputTarget): { done: string; pending: string } {
  const { written } = target;
  if (written === '') return { done: '', pending: '' };
  if (target.truncated === true) return { done: '', pending: written };
  let end = written.length;
  for (let tries = 0; tries < 4; tries++) {
    const cut = written.lastIndexOf('\n', end - 1);
    if (cut < 0) break;
    const done = written.slice(0, cut + 1);
    if (analyze(done).uncertain.length === 0) return { done, pending: written.slice(cut + 1) };
    end = cut;
  }
  return { done: '', pending: written };
}

/**
 * What text typed into a program that is not known to be a shell becomes: one command marked
 * `opaqueInput`, and, when the reader may be a shell (`asShell`), the text's commands read as
 * shell text, each marked `readAsShell` (deny and ask rules apply to them, allow rules never),
 * with that reading's doubts.
 */
function opaque(text: string, into: string, argv: readonly string[], program: string, asShell?: ShellAnalysis): ShellAnalysis {
  const command: ShellCommand = {
    argv, program, wrappers: [], kind: 'shell_command', writes: [], opaqueInput: true,
    text: `${JSON.stringify(clip(text, 200))} typed into \`${clip(into, 120)}\``,
  };
  // a program that runs what it reads as commands (ed's `!`, sqlite3's `.shell`, psql's `\!`):
  // typed text is fed code, as a heredoc of a command line is (`fed-code.ts`)
  const fed = runsFedCode(program, argv.slice(1), true, text);
  const fedDoubt = fed === undefined ? [] : [`${fed}: ${JSON.stringify(clip(text, 80))} typed into \`${clip(into, 80)}\``];
  if (asShell === undefined) return { commands: [command], uncertain: fedDoubt, kind: 'shell_command' };
  return {
    commands: [command, ...asShell.commands.map((c): ShellCommand => ({ ...c, readAsShell: true }))],
    uncertain: [...asShell.uncertain, ...fedDoubt], kind: mostSevere(['shell_command', asShell.kind]),
    ...(asShell.beyondLimits === true && { beyondLimits: true }),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
