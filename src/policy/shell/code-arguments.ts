/**
 * Programs whose own arguments may start commands the analysis does not see: an awk program
 * that calls `system()` or opens a pipe, a sed script with the `e` command, tar, rsync, ssh
 * and vim options that name a program to run. {@link runsCommandsFromText} says why a call of
 * one is uncertain; {@link codeWordIndex} finds where a program takes code (for `xargs -I` and
 * `find -exec`, which paste data there). Words that are not static are `undefined`: they count
 * only where the program reads its code (the text is unknown), not as file operands.
 *
 * @module
 */

import { SHELLS } from './programs.js';

/** Interpreters that run code given with an option (`python3 -c`, `node -e`, `perl -E`). */
const INTERPRETERS: ReadonlySet<string> = new Set(['python', 'python2', 'python3', 'perl', 'ruby', 'node', 'nodejs', 'deno', 'bun', 'php', 'lua', 'tclsh', 'Rscript', 'osascript', 'pwsh']);

/** awk implementations. */
const AWKS: ReadonlySet<string> = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** sed implementations. */
const SEDS: ReadonlySet<string> = new Set(['sed', 'gsed']);

/** An awk call's program texts, and whether it reads code the analysis cannot see (`-f`, `-i`, `-l`, `-E`, an unknown word). */
function awkProgram(args: ReadonlyArray<string | undefined>): { texts: string[]; hidden: boolean; at: number | undefined } {
  const texts: string[] = [];
  let hidden = false;
  let given = false;
  let at: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) {
      if (!given) {
        hidden = true;
        at ??= i;
        given = true;
      }
      continue;
    }
    if (a === '--') {
      if (!given && i + 1 < args.length) {
        at ??= i + 1;
        const text = args[i + 1];
        if (text === undefined) hidden = true;
        else texts.push(text);
      }
      break;
    }
    if (/^--(file|include|load|exec)(=|$)/.test(a) || /^-[filE]/.test(a)) {
      // gawk: -f/-E program files, -i includes, -l loads a library; all code the analysis does not read
      hidden = true;
      given = true;
      if (!a.includes('=') && a.length === 2) i++;
      continue;
    }
    if (/^--source(=|$)/.test(a) || a === '-e') {
      const text = a.startsWith('--source=') ? a.slice('--source='.length) : args[++i];
      at ??= i;
      if (text === undefined) hidden = true;
      else texts.push(text);
      given = true;
      continue;
    }
    if (/^-[Fv]$/.test(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-') && a !== '-') continue;
    if (!given) {
      texts.push(a);
      at ??= i;
      given = true;
    }
  }
  return { texts, hidden: hidden || !given, at };
}

/** Whether awk code may start a command: `system()`, a pipe to or from a command, `@include`/`@load`, an indirect call. */
function awkRuns(code: string): boolean {
  if (/\bsystem\s*\(/.test(code)) return true;
  const bare = awkBare(code);
  return /(^|[^|])\|(?!\|)/.test(bare) || /@(include|load)\b/.test(bare) || /@[A-Za-z_]\w*\s*\(/.test(bare);
}

/** awk code with its strings and regular expressions emptied: they hold `|`, `<` and `>` as data (`FS="|"`, `/a|b/`). */
function awkBare(code: string): string {
  return code.replace(/"(?:[^"\\\n]|\\.)*"/g, '""').replace(/(^|[\s(,;~!&|{}])\/(?:[^/\\\n]|\\.)+\//g, '$1//');
}

/**
 * Whether awk code opens files of its own: it sets `ARGV` or `ARGC` (the files it reads), reads
 * with `getline < FILE`, or prints to `> FILE` / `>> FILE` (a `>` in a `print` statement is a
 * redirection unless parenthesised; a parenthesised comparison is asked about too: fail closed).
 */
function awkNamesFiles(code: string): boolean {
  if (/\bARG[VC]\b/.test(code)) return true;
  const bare = awkBare(code);
  return /\bgetline\b[^;{}\n]*</.test(bare) || /\bprintf?\b[^;{}\n]*>/.test(bare);
}

/** A sed call's scripts, and whether one is hidden (`-f`, an unknown word); `--sandbox` turns `e` off. */
function sedScripts(args: ReadonlyArray<string | undefined>): { scripts: string[]; hidden: boolean; sandbox: boolean; at: number | undefined } {
  const scripts: string[] = [];
  let hidden = false;
  let sandbox = false;
  let fromOptions = false;
  let operand: { text: string | undefined; at: number } | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) {
      operand ??= { text: undefined, at: i };
      continue;
    }
    if (a === '--sandbox') sandbox = true;
    else if (a.startsWith('--expression')) {
      const text = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      fromOptions = true;
      if (text === undefined) hidden = true;
      else scripts.push(text);
    } else if (a.startsWith('--file')) {
      hidden = true;
      fromOptions = true;
      if (!a.includes('=')) i++;
    } else if (a.startsWith('--')) {
      if (a === '--line-length') i++;
    } else if (a.startsWith('-') && a !== '-') {
      // a cluster: -n, -E, -i[SUFFIX] (the rest is the suffix), -e SCRIPT, -f FILE, -l N
      for (let k = 1; k < a.length; k++) {
        const c = a[k]!;
        if (c === 'i') break;
        if (c === 'e' || c === 'f' || c === 'l') {
          const rest = a.slice(k + 1);
          const value = rest !== '' ? rest : args[++i];
          if (c === 'e') {
            fromOptions = true;
            if (value === undefined) hidden = true;
            else scripts.push(value);
          } else if (c === 'f') {
            fromOptions = true;
            hidden = true;
          }
          break;
        }
      }
    } else operand ??= { text: a, at: i };
  }
  if (!fromOptions) {
    if (operand === undefined || operand.text === undefined) hidden = true;
    else scripts.push(operand.text);
  }
  return { scripts, hidden, sandbox, at: fromOptions ? undefined : operand?.at };
}

/**
 * The index of the delimiter that ends a sed regex starting at `j` (or `s.length`). With
 * `brackets`, a bracket expression (`[/]`, `[^]/]`, `[[:alpha:]/]`) is read as GNU sed reads
 * it, the delimiter inside it being literal; without, as a plain scan does. The two readings
 * of one script can differ, so a checker reads it both ways.
 */
export function skipSedRegex(s: string, j: number, delimiter: string, brackets: boolean): number {
  while (j < s.length && s[j] !== delimiter) {
    if (s[j] === '\\') j += 2;
    else if (brackets && s[j] === '[') {
      j++;
      if (s[j] === '^') j++;
      if (s[j] === ']') j++;
      while (j < s.length && s[j] !== ']') {
        const kind = s[j] === '[' ? s[j + 1] : undefined;
        if (kind !== undefined && ':.='.includes(kind)) {
          const close = s.indexOf(`${kind}]`, j + 2);
          j = close === -1 ? s.length : close + 2;
        } else j++;
      }
      j++;
    } else j++;
  }
  return j;
}

/** Skip a sed address (`12`, `$`, `/re/I`, `\\%re%`, `first~step`, ranges, `!`) from `i`; returns the index after it. */
export function skipAddress(s: string, i: number, brackets = false): number {
  const one = (j: number): number => {
    if (/[0-9$]/.test(s[j] ?? '')) {
      while (/[0-9$~+]/.test(s[j] ?? '')) j++;
      return j;
    }
    let delimiter: string | undefined;
    if (s[j] === '/') delimiter = '/';
    else if (s[j] === '\\' && j + 1 < s.length) {
      delimiter = s[j + 1];
      j++;
    }
    if (delimiter === undefined) return j;
    j = skipSedRegex(s, j + 1, delimiter, brackets) + 1;
    while (/[IM]/.test(s[j] ?? '')) j++;
    return j;
  };
  let j = one(i);
  while (/\s/.test(s[j] ?? '')) j++;
  if (s[j] === ',') {
    j++;
    while (/\s/.test(s[j] ?? '')) j++;
    j = one(j);
  }
  while (/[\s!]/.test(s[j] ?? '')) j++;
  return j;
}

/** The index after a sed label (after `b`, `t`, `T`, `:`): GNU sed ends it at a blank, `;` or a newline. */
export function skipSedLabel(s: string, i: number): number {
  while (s[i] === ' ' || s[i] === '\t') i++;
  while (i < s.length && !/[\s;]/.test(s[i]!)) i++;
  return i;
}

/** Whether a sed script runs a command: the `e` command, or the `e` flag of `s` (read with and without bracket expressions). */
function sedRuns(script: string): boolean {
  return sedRunsRead(script, false) || sedRunsRead(script, true);
}

/**
 * Whether a sed script's own commands name files: `r`, `R`, `w`, `W`, or the `w` flag of `s`
 * (read with and without bracket expressions).
 */
function sedNamesFiles(script: string): boolean {
  return sedRunsRead(script, false, 'rRwW') || sedRunsRead(script, true, 'rRwW');
}

/** Whether the script holds one of the command letters `wanted` (`e`: the `e` command, or the `e` flag of `s`; `w` also finds the `w` flag). */
function sedRunsRead(s: string, brackets: boolean, wanted = 'e'): boolean {
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /[\s;{}]/.test(s[i]!)) i++;
    if (i >= s.length) break;
    i = skipAddress(s, i, brackets);
    const command = s[i];
    i++;
    if (command !== undefined && wanted.includes(command)) return true;
    if (command === 's' || command === 'y') {
      const delimiter = s[i];
      if (delimiter === undefined) break;
      i++;
      for (let part = 0; part < 2; part++) i = (command === 's' && part === 0 ? skipSedRegex(s, i, delimiter, brackets) : skipSedRegex(s, i, delimiter, false)) + 1;
      if (command === 's') {
        const flags = /^[^;\n}]*/.exec(s.slice(i))![0];
        // `w FILE` ends the flags: the rest is a file name
        if (wanted.includes('e') && /^[^w]*e/.test(flags)) return true;
        if (wanted.includes('w') && flags.includes('w')) return true;
        i += flags.length;
      }
      continue;
    }
    if (command !== undefined && 'btT:'.includes(command)) i = skipSedLabel(s, i);
    // text or a file name up to the end of the line
    else if (command !== undefined && 'aicrRwW'.includes(command)) {
      const end = s.slice(i).indexOf('\n');
      i = end === -1 ? s.length : i + end;
    }
  }
  return false;
}

/** GNU tar's long options that run a command (abbreviations count: GNU tar takes any unambiguous prefix). */
const TAR_RUNNERS = ['to-command', 'checkpoint-action', 'use-compress-program', 'info-script', 'new-volume-script', 'rsh-command'];
/** ssh settings that run a local command or load a library. */
const SSH_RUNNERS = /^\s*(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|Match|PKCS11Provider|SecurityKeyProvider)\b/i;

/**
 * Why a program's own arguments may start commands the analysis does not see, or undefined
 * (see the module's summary).
 */
export function runsCommandsFromText(program: string, args: ReadonlyArray<string | undefined>): string | undefined {
  if (AWKS.has(program)) {
    const { texts, hidden } = awkProgram(args);
    if (hidden) return `${program} runs a program the analysis cannot read, which may start commands`;
    if (texts.some(awkRuns)) return `${program} runs a program that starts commands (system(), a pipe, @include)`;
    return undefined;
  }
  if (SEDS.has(program)) {
    const { scripts, hidden, sandbox } = sedScripts(args);
    if (sandbox) return undefined;
    if (hidden) return `${program} runs a script the analysis cannot read, which may start commands`;
    if (scripts.some(sedRuns)) return `${program} runs a script with the e command, which starts commands`;
    return undefined;
  }
  if (program === 'tar' || program === 'gtar' || program === 'bsdtar') {
    const first = args[0];
    const runs = args.some((a) => {
      if (a === undefined) return false;
      if (a.startsWith('--')) {
        const name = a.slice(2).split('=')[0]!;
        return name.length >= 4 && TAR_RUNNERS.some((r) => r.startsWith(name));
      }
      return /^-[A-Za-z]*[IF]/.test(a);
    }) || (first !== undefined && /^[A-Za-z]*[IF][A-Za-z]*$/.test(first) && !first.startsWith('-'));
    return runs ? `${program} has an option that runs a command (--to-command, --checkpoint-action=exec, -I, -F...)` : undefined;
  }
  if (program === 'rsync' && args.some((a) => a !== undefined && (/^--(rsh|rsync-path)(=|$)/.test(a) || /^-[A-Za-z]*e/.test(a)))) return 'rsync runs the remote shell command it is given (-e, --rsync-path)';
  if (program === 'ssh' || program === 'scp' || program === 'sftp') {
    const runs = args.some((a, i) => a !== undefined && (
      (/^-[A-Za-z]*o/.test(a) && SSH_RUNNERS.test(a.slice(a.indexOf('o') + 1) || (args[i + 1] ?? 'ProxyCommand')))
      || /^-[A-Za-z]*[FIS]/.test(a)));
    return runs ? `${program} is given an option that runs a local command or loads a library (ProxyCommand, -F config, -I, -S)` : undefined;
  }
  if (['vim', 'vi', 'nvim', 'ex', 'view', 'vimdiff'].includes(program) && args.some((a) => a !== undefined && /^(-[cSusl]|--cmd|\+)/.test(a))) {
    return `${program} runs editor commands or scripts, which may start programs`;
  }
  return undefined;
}

/** Options after which an interpreter or shell takes code as the next word. */
const CODE_OPTION = /^(-\w*[ceEpr]|--eval|--exec|--command|--expression|--source)$/;

/**
 * Where a program that takes code reads it in `args` (its arguments after the program name):
 * the word after a code option (`sh -c CODE`, `python3 -c`, `node -e`, `perl -E`), or an awk
 * program or sed script operand; `undefined` when it takes no code there, and `-1` when the
 * code it needs is missing (what runs it would come from elsewhere: `xargs awk`).
 */
export function codeWordIndex(program: string, args: ReadonlyArray<string | undefined>): number | undefined {
  if (AWKS.has(program)) {
    const { hidden, at } = awkProgram(args);
    return at ?? (hidden ? -1 : undefined);
  }
  if (SEDS.has(program)) {
    const { at, scripts } = sedScripts(args);
    if (at !== undefined) return at;
    return scripts.length === 0 ? -1 : undefined;
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== undefined && CODE_OPTION.test(a)) return i + 1 < args.length ? i + 1 : -1;
  }
  return undefined;
}

/**
 * Whether an interpreter call reads its code from standard input (`python3`, `node -`,
 * `echo 'import os' | python3`): the code is data the analysis cannot see, as for `sh` with
 * no script.
 */
export function readsCodeFromStdin(program: string, args: ReadonlyArray<string | undefined>): boolean {
  return INTERPRETERS.has(program) && (args.length === 0 || (args.length === 1 && args[0] === '-'));
}

/** Whether `program` runs code given in its arguments: a shell's `-c` script, an interpreter's code, an awk or sed program (what `xargs -I` and `find -exec` must not paste data into). */
export function takesCode(program: string): boolean {
  return SHELLS.has(program) || INTERPRETERS.has(program) || AWKS.has(program) || SEDS.has(program);
}

/**
 * Why a program's own code may name files that no word of the line names, or undefined: an
 * interpreter runs code (`python3 -c 'open(".env")'`, `node script.js`), an awk program sets
 * `ARGV` or `ARGC` (the files it reads) or redirects (`getline < FILE`, `print > FILE`), an sed script reads or writes a file (`r`, `R`, `w`,
 * `W`, the `s` flag `w`), or a program or script the analysis cannot read. The policy's path
 * rules judge words; without a sandbox to hide what they withhold, such a line is asked about.
 */
export function namesFilesInCode(program: string, args: ReadonlyArray<string | undefined>): string | undefined {
  // a versioned name is the same interpreter (`python3.11`, `perl5.36`, `lua5.4`, `php8.2`)
  if (INTERPRETERS.has(program) || INTERPRETERS.has(program.replace(/[\d.]+$/, '')) || INTERPRETERS.has(program.replace(/\.[\d.]+$/, ''))) return `${program} runs code that may open files no word names`;
  if (AWKS.has(program)) {
    const { texts, hidden } = awkProgram(args);
    if (hidden) return `${program} runs a program the analysis cannot read`;
    return texts.some(awkNamesFiles) ? `${program}'s program opens files it names (ARGV, ARGC, getline <, print >)` : undefined;
  }
  if (SEDS.has(program)) {
    const { scripts, hidden } = sedScripts(args);
    if (hidden) return `${program} runs a script the analysis cannot read`;
    return scripts.some(sedNamesFiles) ? `${program}'s script reads or writes a file it names (r, R, w, W)` : undefined;
  }
  return undefined;
}
