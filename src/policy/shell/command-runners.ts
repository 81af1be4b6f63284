/**
 * The commands that run other command text, for the command-line walk (`command-line.ts`):
 * shells (`bash -c TEXT`, a script, standard input), `eval`, `alias`, `trap`, `su -c`, what
 * `xargs` pastes into code, and `find -exec`. Each either hands static text back to the walk
 * as a nested command line, or records the command with a doubt. Also the helpers the walk and
 * these share: quoting for reasons, program base names, assignments, and splitting a static
 * command string into words.
 *
 * @module
 */
import { codeWordIndex, takesCode } from './code-arguments.js';
import { isInheritedEnvironmentName, isSafeEnvironmentName, isStdinPath, SHELL_VALUE_OPTIONS, SHELLS } from './programs.js';
import { FIND_EXEC_ACTIONS, LOOKUP_VARIABLES } from './syntax-tables.js';
import { childrenOf, resolveWord, type Word } from './words.js';
import type { AssignmentUse, CommandWalker, Context, ParseCommandLine } from './walk-context.js';

/** The longest command line analysed, in UTF-16 code units (64 KiB); a longer one is uncertain without parsing. */
export const MAX_COMMAND_LINE_LENGTH = 64 * 1024;

/** A short, one-line quote of source text for a reason. */
export function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return `\`${line.length > 60 ? `${line.slice(0, 57)}...` : line}\``;
}

/** A program's name: the word without its folder (`/bin/rm` gives `rm`). */
export function basename(word: string): string {
  const trimmed = word.replace(/\/+$/, '');
  const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  return name === '' ? word : name;
}

/**
 * Assignments that change which program a name runs (or what runs first) make the analysis
 * uncertain; so does a name outside the safe list given to a program's environment, or a
 * name commonly exported already set by a plain statement.
 */
export function checkAssignment(walk: Pick<CommandWalker, 'doubt'>, word: string, text: string, use: AssignmentUse): void {
  const name = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(word)?.[1];
  if (name === undefined) {
    // env and sudo take any NAME=VALUE (`env 'BASH_FUNC_echo%%=() { ...; }' bash -c echo` defines a function)
    if (use === 'environment' && /^[^=]+=/.test(word)) walk.doubt(`an environment variable with an unusual name is given to a program: ${quote(text)}`);
    return;
  }
  if (LOOKUP_VARIABLES.has(name)) walk.doubt(`${name} is set, so program names may not say what runs: ${quote(text)}`);
  else if (use === 'environment' && !isSafeEnvironmentName(name)) walk.doubt(`${name} is given to a program's environment, which it may read as configuration that runs code: ${quote(text)}`);
  else if (use === 'statement' && isInheritedEnvironmentName(name)) walk.doubt(`${name} is set, and later programs may read it from their environment: ${quote(text)}`);
}

/** The words of a static command string (`env -S 'rm -f'`), or undefined if it is not one plain command. */
export function splitWords(parse: ParseCommandLine, text: string): Word[] | undefined {
  if (text.length > MAX_COMMAND_LINE_LENGTH) return undefined;
  const parsed = parse(text);
  if (typeof parsed === 'string') return undefined;
  try {
    const statements = childrenOf(parsed.root).filter((child) => child.isNamed);
    const command = statements[0];
    if (parsed.root.hasError || statements.length !== 1 || command?.type !== 'command') return undefined;
    const words: Word[] = [];
    for (let i = 0; i < command.childCount; i += 1) {
      const field = command.fieldNameForChild(i);
      const child = command.child(i)!;
      if (field === 'name' && child.childCount === 1) words.push(resolveWord(child.child(0)!));
      else if (field === 'argument') words.push(resolveWord(child));
      else return undefined;
    }
    return words.every((word) => word.isStatic) ? words.map((word) => ({ text: word.text, isStatic: true })) : undefined;
  } finally {
    parsed.release();
  }
}

/** `sh|bash|... [options] (-c TEXT | SCRIPT | reading stdin)`. */
export function shell(walk: CommandWalker, program: string, argv: readonly Word[], context: Context, text: string): void {
  let runsText = false;
  let readsStdin = false;
  let i = 1;
  while (i < argv.length) {
    const word = argv[i]!;
    if (!word.isStatic) {
      // it may be an option (`-c`, `-s`) as well as the script
      walk.doubt(`${program} has a word that is not static where its options are: ${quote(text)}`);
      return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
    }
    if (word.text === '--' || word.text === '-') { i += 1; break; }
    if (!/^[-+]/.test(word.text) || word.text.length < 2) break;
    if (word.text.startsWith('--')) {
      // an interactive shell runs its startup file first: commands the analysis does not read
      if (/^--(rcfile|init-file)(=|$)/.test(word.text)) walk.doubt(`${program} runs the commands of a startup file the analysis does not read: ${quote(text)}`);
      i += SHELL_VALUE_OPTIONS.has(word.text) ? 2 : 1;
      continue;
    }
    const letters = word.text.slice(1);
    if (word.text.startsWith('-') && letters.includes('c')) runsText = true;
    if (word.text.startsWith('-') && letters.includes('s')) readsStdin = true;
    i += 1 + [...letters].filter((letter) => letter === 'o' || letter === 'O').length;
  }
  const operand = argv[i];
  if (runsText) {
    if (operand === undefined || !operand.isStatic) {
      walk.doubt(`${program} -c runs a command string that is not static: ${quote(text)}`);
      return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
    }
    return walk.line(operand.text, { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...context.wrappers, program], wrapperWords: context.wrapperWords, loopWords: context.loopWords });
  }
  if (readsStdin || operand === undefined) {
    walk.readsInput(`${program} reads commands`, context, text);
    if (context.fedText !== undefined) walk.line(context.fedText, { depth: context.depth + 1, writes: context.writes, wrappers: [...context.wrappers, program], ...(context.wrapperWords !== undefined && { wrapperWords: context.wrapperWords }), loopWords: context.loopWords });
  } else if (operand.node?.type === 'process_substitution' || (operand.isStatic && isStdinPath(operand.text))) {
    walk.doubt(`${program} runs a script the analysis cannot see: ${quote(text)}`);
  } else {
    // `bash script.sh`: the commands are in a file, which may have been written a moment ago.
    walk.doubt(`${program} runs the commands of a script file the analysis does not read: ${quote(text)}`);
  }
  walk.record(argv, context.wrappers, context, text, context.wrapperWords);
}

/** `eval WORDS`: static words are joined and analysed as a command line. */
export function evaluate(walk: CommandWalker, argv: readonly Word[], context: Context, text: string): void {
  const args = argv.slice(1);
  if (args.length === 0 || args.some((word) => !word.isStatic)) {
    if (args.length > 0) walk.doubt(`eval of text that is not static: ${quote(text)}`);
    return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
  }
  walk.line(args.map((word) => word.text).join(' '), { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...context.wrappers, 'eval'], wrapperWords: context.wrapperWords, loopWords: context.loopWords });
}

/**
 * `alias NAME=TEXT...`: TEXT runs wherever NAME is used later (with `expand_aliases`), so a
 * static TEXT is analysed as a command line; `alias` alone (or `alias NAME`) only prints.
 */
export function alias(walk: CommandWalker, argv: readonly Word[], context: Context, text: string): void {
  const definitions = argv.slice(1).filter((word) => !word.isStatic || /^[^-=][^=]*=/.test(word.text));
  if (definitions.length === 0) return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
  for (const definition of definitions) {
    if (!definition.isStatic) walk.doubt(`alias with a definition that is not static: ${quote(text)}`);
    else walk.line(definition.text.slice(definition.text.indexOf('=') + 1), { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...context.wrappers, 'alias'], wrapperWords: context.wrapperWords, loopWords: context.loopWords });
  }
}

/** `trap ACTION SIGNAL...`: a static ACTION is analysed as a command line (it runs when a signal comes). */
export function trap(walk: CommandWalker, argv: readonly Word[], context: Context, text: string): void {
  let i = 1;
  for (; i < argv.length; i += 1) {
    if (argv[i]!.text === '--') { i += 1; break; }
    if (!argv[i]!.isStatic || !/^-[lp]+$/.test(argv[i]!.text)) break;
  }
  const action = argv[i];
  // no signal after it: `trap` lists, `trap -p INT` prints; `-` or a number resets
  if (action === undefined || i + 1 >= argv.length || (action.isStatic && /^(-|\d+)$/.test(action.text))) {
    return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
  }
  if (!action.isStatic) {
    walk.doubt(`trap with an action that is not static: ${quote(text)}`);
    return walk.record(argv, context.wrappers, context, text, context.wrapperWords);
  }
  walk.line(action.text, { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...context.wrappers, 'trap'], wrapperWords: context.wrapperWords, loopWords: context.loopWords });
}

/** `su [options] [-] [user] [-c TEXT]`: TEXT runs in the user's shell; without it, the shell reads standard input. */
export function switchUser(walk: CommandWalker, argv: readonly Word[], context: Context, text: string): void {
  let command: Word | undefined;
  if (argv.some((word) => !word.isStatic)) walk.doubt(`su has words that are not static: ${quote(text)}`);
  for (let i = 1; i < argv.length; i += 1) {
    const word = argv[i]!;
    if (word.text === '-c' || word.text === '--command') command = argv[++i];
    else if (word.text.startsWith('--command=')) command = { text: word.text.slice('--command='.length), isStatic: word.isStatic };
    else if (/^-[^-]*c$/.test(word.text)) command = argv[++i];
    else if (/^(-[sgGw]|--(shell|group|supp-group|whitelist-environment))$/.test(word.text)) i += 1;
  }
  if (command === undefined) walk.doubt(`su starts a shell reading commands from standard input: ${quote(text)}`);
  else if (!command.isStatic) walk.doubt(`su -c runs a command string that is not static: ${quote(text)}`);
  else return walk.line(command.text, { depth: context.depth + 1, writes: context.writes, reads: context.reads, wrappers: [...context.wrappers, 'su'], wrapperWords: context.wrapperWords, loopWords: context.loopWords });
  walk.record(argv, context.wrappers, context, text, context.wrapperWords);
}

/**
 * `xargs` turns its input into arguments of the command it runs: with a replace string
 * (`-I {}`, `-i`, `-J`) pasted into any word, a shell's script (`sh -c {}`) included; and a
 * shell it runs takes the input as its script or its script's name (`xargs sh -c`). Either
 * way what runs depends on data the analysis cannot see.
 */
export function xargsPastes(walk: CommandWalker, options: readonly Word[], inner: readonly Word[], text: string): void {
  const head = inner[0];
  if (head === undefined || !head.isStatic || !takesCode(basename(head.text))) return;
  const program = basename(head.text);
  const args = inner.slice(1).map((word) => (word.isStatic ? word.text : undefined));
  const at = codeWordIndex(program, args);
  // Without its code, the program takes it from the input: `xargs awk`, `xargs sh -c`, and
  // a shell given no -c takes the input as the script it runs (`xargs -a list sh`)
  if (at === -1 || (at === undefined && SHELLS.has(program))) return walk.doubt(`xargs gives its input to ${program} as code or as the script it runs: ${quote(text)}`);
  const replace = replaceString(options);
  if (replace === undefined || at === undefined) return;
  const code = args[at];
  if (code === undefined || code.includes(replace)) {
    walk.doubt(`xargs -I pastes its input into the code ${program} runs, so what runs depends on that input: ${quote(text)}`);
  }
}

/** The commands of `find -exec CMD ... ;` (and `-execdir`, `-ok`, `-okdir`). */
export function findExec(walk: CommandWalker, argv: readonly Word[], context: Context, text: string): void {
  let i = 1;
  while (i < argv.length) {
    if (!FIND_EXEC_ACTIONS.has(argv[i]!.text)) { i += 1; continue; }
    if (argv[i]!.text === '-execdir' || argv[i]!.text === '-okdir') walk.changedFolder = true;
    let end = i + 1;
    while (end < argv.length && !(argv[end]!.text === ';' || (argv[end]!.text === '+' && argv[end - 1]!.text === '{}'))) end += 1;
    const command = argv.slice(i + 1, end);
    // find puts each file name where {} is, inside a word too: in a script it is code.
    const head = command[0];
    if (head !== undefined && head.isStatic && takesCode(basename(head.text))) {
      const args = command.slice(1).map((word) => (word.isStatic ? word.text : undefined));
      const at = codeWordIndex(basename(head.text), args);
      const code = at === undefined || at === -1 ? undefined : args[at];
      if ((at !== undefined && at !== -1 && (code === undefined || code.includes('{}'))) || at === -1) {
        walk.doubt(`find -exec pastes file names into the code ${basename(head.text)} runs, where a file name runs as code: ${quote(text)}`);
      }
    }
    walk.run(command, context, text);
    i = end + 1;
  }
}

/** The replace string of `xargs` options (`-I R`, `-IR`, `-i[R]`, `--replace[=R]`, `-J R`), if any (`{}` by default for `-i` and `--replace`). */
function replaceString(options: readonly Word[]): string | undefined {
  for (let i = 0; i < options.length; i++) {
    const word = options[i]!.text;
    if (word.startsWith('--replace')) return word.includes('=') ? word.slice(word.indexOf('=') + 1) : '{}';
    const m = /^-[0rtxpo]*([IiJ])(.*)$/.exec(word);
    if (m === null) continue;
    if (m[2] !== '') return m[2];
    if (m[1] === 'i') return '{}';
    return options[i + 1]?.text ?? '{}';
  }
  return undefined;
}
