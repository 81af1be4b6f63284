/**
 * awk: an allow rule for `awk` covers programs given on the command line that only read their
 * input and print: no `system()`, no pipe (`print | "cmd"`, `"cmd" | getline`), no output
 * redirection (`print > "file"`, `>>`), no `getline` at all, no `@include` / `@load` / indirect
 * call, no `close()` or `fflush()` of a command. Options covered: `-F`, `-v NAME=VALUE`, `-e`
 * / `--source`, `--`, and a few that only change parsing. Not covered: `-f` / `-i` / `-l` /
 * `-E` (code the analysis does not read), `-o`, `-p`, `-d` (write files), and any other.
 *
 * @module
 */
import { opts, runs, writes } from './options.js';
import type { OptionEntry, ProgramTable } from './types.js';

/**
 * Why an awk program is not covered, or undefined. Strings and regular expressions are blanked
 * first (they hold `|` and `>` as data); then a `|` that is not `||`, `system`, `getline`,
 * `@`, or a `>` at paren depth 0 inside a `print`/`printf` statement is not covered.
 */
export function awkProgramProblem(code: string): string | undefined {
  const bare = blankLiterals(code);
  if (/\bsystem\s*\(/.test(bare)) return 'the awk program calls system()';
  if (/\bgetline\b/.test(bare)) return 'the awk program uses getline (it may read from a command)';
  if (/(^|[^|])\|(?!\|)/.test(bare)) return 'the awk program pipes to or from a command';
  if (/@/.test(bare)) return 'the awk program uses @include, @load or an indirect call';
  if (/\|&/.test(bare)) return 'the awk program opens a coprocess';
  // `>` inside a print or printf statement, outside parentheses, is a redirection to a file; a
  // statement goes on over a newline after a backslash, a comma, `&&` or `||` (`print 1,\n2 > "f"`)
  const statements = bare.replace(/(\\|,|&&|\|\|)[ \t]*\r?\n/g, '$1 ').split(/[;\n{}]/);
  for (const statement of statements) {
    const at = statement.search(/\bprintf?\b/);
    if (at < 0) continue;
    let depth = 0;
    for (const c of statement.slice(at)) {
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === '>' && depth <= 0) return 'the awk program writes to a file (print > or >>)';
    }
  }
  return undefined;
}

/**
 * The program with string literals, regular expressions and comments blanked: a `/` starts a
 * regular expression only where an operand may start (after `(`, `,`, `~`, `!`, `{`, `;`,
 * `&`, `|`, `=`, `?`, `:`, a newline, the start, or `print`/`printf`/`return`); elsewhere it
 * divides, and what follows is code (`print 1 / 1 | "cmd" (1/1)` pipes).
 */
function blankLiterals(code: string): string {
  let out = '';
  let last = '';
  let word = '';
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < code.length && code[j] !== '"' && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      out += '""';
      i = j;
      last = '"';
      word = '';
      continue;
    }
    if (c === '#') {
      while (i < code.length && code[i] !== '\n') i++;
      out += '\n';
      last = '\n';
      word = '';
      continue;
    }
    if (c === '/' && (last === '' || '(,~!{};&|=?:\n'.includes(last) || ['print', 'printf', 'return'].includes(word))) {
      let j = i + 1;
      while (j < code.length && code[j] !== '/' && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      out += '//';
      i = j;
      last = '/';
      word = '';
      continue;
    }
    out += c;
    if (/\w/.test(c)) word = /\w/.test(last) ? word + c : c;
    if (!/[ \t]/.test(c)) {
      if (!/\w/.test(c)) word = '';
      last = c;
    }
  }
  return out;
}

const AWK_OPTIONS: readonly OptionEntry[] = [
  ...opts('-F= --field-separator=', '-v= --assign=', '-e= --source=', '-b --characters-as-bytes', '-c --traditional', '-P --posix',
    '--re-interval', '-N --use-lc-numeric', '-n --non-decimal-data', '-r', '-S --sandbox', '-t --lint-old', '-L[=] --lint[=]', '-s --no-optimize', '-O --optimize'),
  ...writes('-o[=] --pretty-print[=]', '-p[=] --profile[=]', '-d[=] --dump-variables[=]'),
  ...runs('-f= --file=', '-i= --include=', '-l= --load=', '-E= --exec=', '-D[=] --debug[=]'),
];

/** awk's arguments: options, the program (the first operand unless `-e` gave one), then files and `NAME=VALUE` assignments. */
function checkAwk(args: readonly string[], allowed: (word: string, index: number) => boolean): string | undefined {
  const programs: string[] = [];
  let fromOptions = false;
  let operands = 0;
  const known = new Map(AWK_OPTIONS.flatMap((o) => o.names.map((n) => [n, o] as const)));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      if (!fromOptions && i + 1 < args.length) programs.push(args[i + 1]!);
      break;
    }
    if (operands === 0 && a.startsWith('-') && a !== '-') {
      const long = a.startsWith('--');
      const eq = a.indexOf('=');
      const name = long ? (eq > 0 ? a.slice(0, eq) : a) : a.slice(0, 2);
      const entry = known.get(name);
      let value: string | undefined;
      if (long) value = eq > 0 ? a.slice(eq + 1) : entry?.value === 'required' ? args[++i] : undefined;
      else value = a.length > 2 ? a.slice(2) : entry?.value === 'required' ? args[++i] : undefined;
      if (allowed(name, i)) continue;
      if (entry === undefined) return `unknown option ${name}`;
      if (entry.effect !== undefined) return `${name} ${entry.effect === 'write' ? 'writes a file' : 'runs code the analysis does not read'}`;
      if (!long && entry.value === undefined && a.length > 2) return `unknown option ${a}`;
      if (name === '-e' || name === '--source') {
        fromOptions = true;
        if (value !== undefined) programs.push(value);
      }
      continue;
    }
    operands++;
    if (!fromOptions && operands === 1) programs.push(a);
  }
  if (programs.length === 0) return 'no awk program given';
  for (const program of programs) {
    const problem = awkProgramProblem(program);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The awk table. */
export const AWK: readonly ProgramTable[] = [
  { family: 'awk', programs: ['awk', 'gawk', 'mawk', 'nawk'], form: { effect: 'read', options: AWK_OPTIONS, check: checkAwk, note: 'programs that only read and print: no system(), |, >, getline, @include' } },
];
