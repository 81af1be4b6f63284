/**
 * sed: an allow rule for `sed` covers scripts whose commands only print or edit the stream
 * (`s` without the `w` and `e` flags, `p`, `d`, `y`, `a`/`i`/`c`, labels and branches...)
 * and the read options (`-n`, `-E`, `-e SCRIPT`, `-s`, `-z`). Not covered: `-i` (edits files
 * in place), `-f FILE` (a script the analysis cannot read), and the script commands `w`, `W`
 * and the `w` flag (write a file), `e` and the `e` flag (run a command), `v` (unknown use),
 * and any command letter not known.
 *
 * @module
 */
import { skipAddress, skipSedLabel, skipSedRegex } from '../code-arguments.js';
import { opts, runs, writes } from './options.js';
import type { OptionEntry, ProgramTable } from './types.js';

/** Script commands that only print, edit the pattern/hold space, branch, or read a file (`r`, `R`). */
const STREAM_COMMANDS = new Set(['p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'l', 'q', 'Q', 'z', 'F', 'r', 'R', 'a', 'i', 'c', 'b', 't', 'T', ':', '#', 'y', 's']);

/**
 * Why an sed script is not covered (its first command that writes or runs), or undefined.
 * Reads the script the way GNU sed does: addresses, then one command letter; text commands
 * (`a`, `i`, `c`), file commands (`r`, `R`, `w`, `W`) run to the end of the line; a label ends at a blank,
 * `;` or the line's end.
 */
export function sedScriptProblem(script: string): string | undefined {
  // GNU sed reads a delimiter inside a bracket expression as literal (its reading decides), a
  // plain scan does not: a write or run that only the plain reading finds still counts
  const gnu = sedScriptRead(script, true);
  if (gnu !== undefined) return gnu;
  const plain = sedScriptRead(script, false);
  return plain !== undefined && WRITES_OR_RUNS.test(plain) ? plain : undefined;
}

/** The problems of {@link sedScriptRead} that are a write or a run, not a syntax sed would refuse. */
const WRITES_OR_RUNS = /writes a file|runs (a|the pattern space as a) command/;

function sedScriptRead(s: string, brackets: boolean): string | undefined {
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /[\s;{}]/.test(s[i]!)) i++;
    if (i >= s.length) break;
    i = skipAddress(s, i, brackets);
    const command = s[i];
    if (command === undefined) break;
    i++;
    if (command === 'w' || command === 'W') return `the sed command \`${command}\` writes a file`;
    if (command === 'e') return 'the sed command `e` runs a command';
    if (!STREAM_COMMANDS.has(command)) return `the sed command \`${command}\` is not known to only read`;
    if (command === 's' || command === 'y') {
      const delimiter = s[i];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return `an unfinished sed \`${command}\` command`;
      i++;
      for (let part = 0; part < 2; part++) {
        i = skipSedRegex(s, i, delimiter, brackets && command === 's' && part === 0);
        if (i >= s.length) return `an unfinished sed \`${command}\` command`;
        i++;
      }
      if (command === 's') {
        const flags = /^[^;\n}]*/.exec(s.slice(i))![0];
        for (const flag of flags.trim()) {
          if (flag === 'w') return 'the `w` flag of sed\'s `s` writes a file';
          if (flag === 'e') return 'the `e` flag of sed\'s `s` runs the pattern space as a command';
          if (!/[gpiImM0-9]/.test(flag)) return `the sed \`s\` flag \`${flag}\` is not known`;
        }
        i += flags.length;
      }
      continue;
    }
    if ('btT:'.includes(command)) i = skipSedLabel(s, i);
    else if ('aicrR#'.includes(command)) {
      const end = s.slice(i).indexOf('\n');
      i = end === -1 ? s.length : i + end;
    }
  }
  return undefined;
}

const SED_OPTIONS: readonly OptionEntry[] = [
  ...opts('-n --quiet --silent', '-E -r --regexp-extended', '-s --separate', '-u --unbuffered', '-z --null-data', '--posix', '--debug',
    '-l= --line-length=', '-e= --expression=', '--sandbox', '--follow-symlinks', '-b --binary'),
  ...writes('-i[=] --in-place[=]'),
  // a script file the analysis does not read
  ...runs('-f= --file='),
];

/**
 * sed's arguments: options, then the script (the first operand, unless `-e` gave one), then
 * input files. Every script must pass {@link sedScriptProblem}.
 */
function checkSed(args: readonly string[], allowed: (word: string, index: number) => boolean): string | undefined {
  const scripts: string[] = [];
  let fromOptions = false;
  let operands = 0;
  const known = new Map(SED_OPTIONS.flatMap((o) => o.names.map((n) => [n, o] as const)));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      if (!fromOptions && i + 1 < args.length) scripts.push(args[i + 1]!);
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      const entry = known.get(name);
      const value = eq > 0 ? a.slice(eq + 1) : entry?.value === 'required' ? args[++i] : undefined;
      if (allowed(name, i)) continue;
      if (entry === undefined) return `unknown option ${name}`;
      if (entry.effect !== undefined) return `${name} ${entry.effect === 'write' ? 'writes files' : 'runs a script the analysis cannot read'}`;
      if (name === '--expression') {
        fromOptions = true;
        if (value !== undefined) scripts.push(value);
      }
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      for (let k = 1; k < a.length; k++) {
        const name = `-${a[k]}`;
        const entry = known.get(name);
        if (!allowed(name, i)) {
          if (entry === undefined) return `unknown option ${name}`;
          if (entry.effect !== undefined) return `${name} ${entry.effect === 'write' ? 'edits files in place' : 'runs a script the analysis cannot read'}`;
        }
        if (entry?.value === 'required' || entry?.value === 'optional') {
          const rest = a.slice(k + 1);
          const value = rest !== '' || entry.value === 'optional' ? rest : args[++i];
          if (name === '-e') {
            fromOptions = true;
            if (value !== undefined) scripts.push(value);
          }
          break;
        }
      }
      continue;
    }
    operands++;
    if (!fromOptions && operands === 1) scripts.push(a);
  }
  if (scripts.length === 0) return 'no sed script given';
  for (const script of scripts) {
    const problem = sedScriptProblem(script);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The sed table. */
export const SED: readonly ProgramTable[] = [
  { family: 'sed', programs: ['sed', 'gsed'], form: { effect: 'read', options: SED_OPTIONS, check: checkSed, note: 'scripts that only print or edit the stream; not -i, -f, w/W, e, s///w, s///e' } },
];
