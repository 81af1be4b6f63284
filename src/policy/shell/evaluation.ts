/**
 * Text that bash evaluates as code although it does not look like a command: command
 * substitutions the grammar left inside a plain word, and data that a builtin or an
 * arithmetic context later evaluates (`x='a[$(rm x)]'; echo $((x))` runs `rm x`, as do
 * `${x@P}`, `${!x}`, `printf -v "$x"`, `read "$x"`, `[[ $x -eq 1 ]]`, `declare -n`). The walk
 * in `command-line.ts` asks these questions; each `string` answer is a reason for `uncertain`.
 *
 * @module
 */
import type { Word } from './words.js';

/**
 * Source text that starts a substitution bash would run: a backtick, `$(`, `$[`, `${`, `<(`
 * or `>(`. Used on text the grammar gave no substitution node for (a backtick inside
 * `${x:-...}`, an unquoted heredoc line), after backslash escapes are removed.
 */
const SUBSTITUTION_START = /`|\$[([{]|[<>]\(/;

/** Whether unparsed source text (escapes included) holds a substitution that bash would run. */
export function holdsSubstitution(text: string): boolean {
  return SUBSTITUTION_START.test(text.replace(/\\[\s\S]/g, ''));
}

/**
 * Whether the value of a static word is code if bash ever evaluates it again (arithmetic on a
 * variable holding it, `${x@P}`, an array subscript in a name): it holds a backtick or `$(`.
 */
export function holdsCode(value: string): boolean {
  return value.includes('`') || value.includes('$(');
}

/** A variable name bash reads without evaluating anything: no subscript, no expansion. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A static word that is a plain variable name. */
function plainName(word: Word | undefined): boolean {
  return word !== undefined && word.isStatic && PLAIN_NAME.test(word.text);
}

/**
 * Options of name-taking builtins that take a value, per builtin; the other words that do not
 * start with `-` are variable names (read, mapfile) or the builtin's own operands.
 */
const READ_VALUE_OPTIONS = new Set(['-d', '-i', '-n', '-N', '-p', '-t', '-u']);

/**
 * Why a builtin would evaluate one of its words as code, or undefined. `argv[0]` is the
 * program's basename. A name that is not a static plain name (`"$x"`, `a[$i]`) is evaluated
 * as an array subscript, so arithmetic, so code; `declare -n`/`-i`, `let` and `mapfile -C`
 * evaluate by design.
 */
export function evaluatedWords(program: string, argv: readonly Word[]): string | undefined {
  const args = argv.slice(1);
  switch (program) {
    case 'printf': {
      const i = args.findIndex((word) => word.isStatic && word.text.startsWith('-v'));
      if (i < 0 && args.every((word) => word.isStatic)) return undefined;
      if (i < 0) return args[0]?.isStatic === true ? undefined : 'printf with a first word that is not static (it may be -v)';
      const name = args[i]!.text === '-v' ? args[i + 1] : { text: args[i]!.text.slice(2), isStatic: true };
      return plainName(name) ? undefined : 'printf -v into a name that is not a plain static name (its subscript is evaluated)';
    }
    case 'read': {
      for (let i = 0; i < args.length; i += 1) {
        const word = args[i]!;
        if (!word.isStatic) return 'read into a name that is not static (its subscript is evaluated)';
        if (word.text === '--') continue;
        if (READ_VALUE_OPTIONS.has(word.text)) { i += 1; continue; }
        if (word.text === '-a') { if (!plainName(args[i + 1])) return 'read -a into a name that is not a plain static name'; i += 1; continue; }
        if (word.text.startsWith('-')) continue;
        if (!PLAIN_NAME.test(word.text)) return `read into \`${word.text}\`, which is not a plain name (its subscript is evaluated)`;
      }
      return undefined;
    }
    case 'mapfile':
    case 'readarray':
    case 'wait':
    case 'getopts':
    case 'unset':
      if (program === 'mapfile' || program === 'readarray') {
        if (args.some((word) => !word.isStatic || /^-[^-]*C/.test(word.text))) return `${program} with a callback or a name that is not static`;
      }
      if (args.some((word) => !word.isStatic)) return `${program} with a name that is not static (its subscript is evaluated)`;
      if (args.some((word) => /\[/.test(word.text) && !/^[A-Za-z_][A-Za-z0-9_]*\[(\d+|@|\*)\]$/.test(word.text))) {
        return `${program} with a subscript that is evaluated`;
      }
      return undefined;
    case 'test':
    case '[': {
      // an unquoted expansion may split into `-v NAME` (`test -f $f` with f='x -o -v a[$(rm x)]')
      if (args.some((word) => !word.isStatic && word.node?.type !== 'string')) return `${program} with an unquoted expansion (it may split into -v NAME)`;
      const i = args.findIndex((word) => word.isStatic && (word.text === '-v' || word.text === '-R'));
      if (i < 0) return undefined;
      return plainName(args[i + 1]) ? undefined : `${program} -v with a name that is not a plain static name (its subscript is evaluated)`;
    }
    case 'hash':
      // `hash -p FILE NAME` makes NAME run FILE, like a PATH change
      return args.some((word) => !word.isStatic || /^-[^-]*p/.test(word.text)) ? 'hash -p makes a program name run another file' : undefined;
    case 'enable':
      // `enable -f LIB NAME` loads a builtin from a shared object
      return args.some((word) => !word.isStatic || /^-[^-]*f/.test(word.text)) ? 'enable -f loads code from a shared object' : undefined;
    case 'let':
      return args.every((word) => word.isStatic && /^[\d\s+*/%()<>=!&|^~-]*$/.test(word.text)) ? undefined : 'let evaluates arithmetic over variables';
    default:
      return undefined;
  }
}

/**
 * Why a declaration builtin (`declare`, `typeset`, `local`, `export`, `readonly`) would
 * evaluate or export something the analysis cannot vouch for, or undefined. `words` are its
 * arguments (the keyword excluded): static flags, `NAME=value` words and names.
 */
export function evaluatedDeclaration(keyword: string, flags: readonly string[], dynamicNames: boolean): string | undefined {
  if (flags.some((flag) => flag.startsWith('-') && /[ni]/.test(flag.slice(1)))) return `${keyword} ${flags.join(' ')} makes a nameref or an integer (evaluated) variable`;
  if (dynamicNames) return `${keyword} with a name that is not static (its subscript is evaluated)`;
  return undefined;
}
