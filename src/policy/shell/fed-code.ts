/**
 * Programs that run what the command line feeds them (a heredoc, a here-string, a `<` file,
 * a pipe) as commands, though they are neither shells nor interpreters (those are read by
 * `command-runners.ts` and `code-arguments.ts`): `ed -s f <<< '!curl x'`, `sqlite3 db <<<
 * '.shell curl x'`, `vim f < keys`, `make -f - <<< 'all: ...'`, `make -f <(printf ...)`. The
 * text is code the analysis does not read, so the line is uncertain: an allow rule asks, and
 * under a deny rule on a command only a person answers (`policy-rules.ts`). A literal text
 * that holds no way to start a command (an ed script without `!`) is let through.
 *
 * @module
 */
import { isStdinPath } from './programs.js';

/** Whether a literal text fed to the program can start no command; undefined: any text may. */
type LiteralCheck = (text: string) => boolean;

/** Programs that read commands from their standard input, some of which start programs, with the check of a literal text where one is known. */
const FED_COMMAND_READERS: ReadonlyMap<string, LiteralCheck | undefined> = new Map<string, LiteralCheck | undefined>([
  // `!cmd`, `r !cmd`, `w !cmd`, `e !cmd`
  ['ed', (text) => !text.includes('!')], ['red', (text) => !text.includes('!')],
  // dc's `!` runs a command
  ['dc', (text) => !text.includes('!')],
  // dot commands (`.shell`, `.system`, `.once |cmd`, `.load`), load_extension(), edit() start programs
  ['sqlite3', (text) => !/^\s*\./m.test(text) && !/load_extension|edit\s*\(/i.test(text)],
  ['sqlite', (text) => !/^\s*\./m.test(text) && !/load_extension|edit\s*\(/i.test(text)],
  // keystrokes or ex commands (`:!cmd`)
  ...['ex', 'vi', 'vim', 'nvim', 'view', 'vimdiff', 'rvim', 'gvim', 'emacs', 'nano', 'psql', 'mysql', 'mariadb', 'ftp', 'lftp', 'sftp',
    'gnuplot', 'octave', 'R', 'irb', 'jshell', 'ghci', 'guile', 'sbcl', 'clisp', 'racket', 'crontab', 'mongosh', 'mongo', 'sage', 'maxima',
    'julia', 'scala', 'groovysh', 'erl', 'iex', 'ksh93', 'busybox', 'm4'].map((name) => [name, undefined] as const),
]);

/** make's options that name a makefile. */
const MAKEFILE_OPTION = /^(-f|--file|--makefile)(=|$)/;

/**
 * Why `program` runs code fed to it that the analysis does not read, or undefined. `args` are
 * its arguments after the name (undefined for a word that is not static: `<(...)`, `"$f"`);
 * `fed` whether the line feeds its standard input, `fedText` the literal text when known.
 */
export function runsFedCode(program: string, args: ReadonlyArray<string | undefined>, fed: boolean, fedText: string | undefined): string | undefined {
  if (program === 'make' || program === 'gmake') {
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === undefined || a === '--') continue;
      let value: string | undefined | null = null;
      if (MAKEFILE_OPTION.test(a)) value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      else if (/^-[^-]*f/.test(a)) value = a.slice(a.indexOf('f') + 1) || args[++i];
      if (value === null) continue;
      if (value === undefined || isStdinPath(value)) return `${program} runs the recipes of a makefile the analysis cannot read (standard input or a substitution)`;
    }
    return undefined;
  }
  if (!fed || !FED_COMMAND_READERS.has(program)) return undefined;
  const literal = FED_COMMAND_READERS.get(program);
  if (literal !== undefined && fedText !== undefined && literal(fedText)) return undefined;
  return `${program} reads commands fed to it by the command line (a heredoc, a here-string, a pipe or a file), which may start programs the analysis does not see`;
}
