/**
 * Reading a command against the per-program tables: whether an allow rule that matched it
 * covers it ({@link commandCoverage}), and if not, which table entry or which unknown option
 * says so. See `types.ts` for how a form is read.
 *
 * @module
 */
import type { ShellCommand } from '../types.js';
import { programTable, wrapperTable } from './index.js';
import type { FormEntry, OptionEntry, ProgramTable } from './types.js';

/** What a rule covers of one command. */
export interface Coverage {
  /** Whether the allow rule covers the command. */
  readonly covered: boolean;
  /** The table entry that decided (`git log`, `sed`, `timeout`), or `exact words` for a program no table knows. */
  readonly entry: string;
  /** When not covered: the option, operand or form that is not (`--output writes files`). */
  readonly why?: string;
}

/** How a rule matched the command (see `commandMatches` in `policy-rules.ts`). */
export interface CoverageQuery {
  /**
   * How many words of the command's argv the rule names: its `command` words after the
   * wrapper it names first, if any (`"git log"` names 2; `"*"` names none). Named words are
   * covered whatever they are: the person wrote them.
   */
  readonly named: number;
  /**
   * How many words of the argv the rule's words matched, globs included (`"npm run test*"`
   * matches 3): for a program no table knows, the words the rule gives. At least `named`.
   */
  readonly matched: number;
  /** The index in `command.wrappers` of the wrapper the rule's first word names, or -1. */
  readonly namedWrapper: number;
  /** Whether an option (`--output`, `-o`, `of`) or, for a program no table knows, a word is in the rule's `allow_options`. */
  readonly allowOption: (word: string) => boolean;
}

/** A word's effect, for messages. */
const SAYS: Readonly<Record<string, string>> = { write: 'writes files', network: 'reaches another machine', exec: 'runs another program or changes which one runs', read: 'reads' };

/** Option entries of a form by spelling, built once per form. */
const lookups = new WeakMap<readonly OptionEntry[], ReadonlyMap<string, OptionEntry>>();
function lookup(options: readonly OptionEntry[]): ReadonlyMap<string, OptionEntry> {
  let map = lookups.get(options);
  if (map === undefined) {
    map = new Map(options.flatMap((o) => o.names.map((name) => [name, o] as const)));
    lookups.set(options, map);
  }
  return map;
}

/**
 * Why `args` (the words after the program or subcommand) are not covered by `form`, or
 * undefined when they are. `allowed(word, index)` is true for a word the rule names or an
 * option its `allow_options` lists.
 */
function readForm(args: readonly string[], form: FormEntry, allowed: (word: string, index: number) => boolean): string | undefined {
  if (form.check !== undefined) return form.check(args, allowed);
  const operands: string[] = [];
  if (form.noOptions === true) return checkOperands(form, args, args.map((_, i) => i), allowed);
  const known = lookup(form.options);
  const operandIndex: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') {
      for (let j = i + 1; j < args.length; j++) {
        operands.push(args[j]!);
        operandIndex.push(j);
      }
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      operands.push(word);
      operandIndex.push(i);
      continue;
    }
    if (form.numberOption === true && /^-\d+$/.test(word)) continue;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq > 0 ? word.slice(0, eq) : word;
      const entry = known.get(name);
      const takesNext = eq < 0 && entry?.value === 'required';
      if (allowed(name, i) || allowed(word, i)) {
        if (takesNext) i++;
        continue;
      }
      if (entry === undefined) return `unknown option ${name}`;
      if (entry.effect !== undefined && entry.effect !== 'read') return `${name} ${SAYS[entry.effect]}`;
      if (eq > 0 && entry.value === undefined) return `${name} takes no value`;
      if (takesNext) i++;
      continue;
    }
    // a cluster of short options: `-rn`, `-n5`, `-A 3`
    for (let k = 1; k < word.length; k++) {
      const name = `-${word[k]}`;
      const entry = known.get(name);
      if (!allowed(name, i)) {
        if (entry === undefined) return `unknown option ${name}${word.length > 2 ? ` (in ${word})` : ''}`;
        if (entry.effect !== undefined && entry.effect !== 'read') return `${name} ${SAYS[entry.effect]}`;
      }
      if (entry?.value !== undefined) {
        if (k === word.length - 1 && entry.value === 'required') i++;
        break;
      }
    }
  }
  return checkOperands(form, operands, operandIndex, allowed);
}

function checkOperands(form: FormEntry, operands: readonly string[], at: readonly number[], allowed: (word: string, index: number) => boolean): string | undefined {
  const rule = form.operands ?? 'any';
  // operands the rule names are the person's
  const unnamed = operands.filter((_, i) => !allowed(operands[i]!, at[i]!));
  if (rule === 'any') return undefined;
  if (rule === 'none') return unnamed.length === 0 ? undefined : `an operand (${unnamed[0]}) is not covered: ${form.note ?? 'this form takes none'}`;
  if (typeof rule === 'function') return rule(operands);
  return operands.length <= rule.max ? undefined : `more than ${rule.max} operand${rule.max === 1 ? '' : 's'}: ${form.note ?? 'the others are written'}`;
}

/**
 * Why a word that is not static keeps the command from being covered, or undefined: such a
 * word may be anything at run time (`F=--pre=./evil; rg "$F" x`), so it is covered only where
 * it cannot be an option or code: for a program that takes no options (`echo "$x"`), or after
 * a `--` of a form whose operands are plain data (no check, no limit on them).
 */
function dynamicWhy(command: ShellCommand, table: ProgramTable | undefined): string | undefined {
  const at = command.dynamicWords;
  if (at === undefined || at.length === 0) return undefined;
  const argv = command.argv;
  const form = table?.subcommands !== undefined ? table.subcommands[argv[1] ?? ''] : table?.form;
  if (form?.noOptions === true) return undefined;
  const end = argv.indexOf('--', table?.subcommands !== undefined ? 2 : 1);
  const plain = form !== undefined && form.check === undefined && (form.operands ?? 'any') === 'any';
  const loose = at.find((i) => !(plain && end > 0 && i > end));
  return loose === undefined ? undefined : `the word \`${argv[loose]}\` is not static: when the line runs it may be an option, or several words (put it after --, or make it literal)`;
}

/** xargs's replace string (`-I R`, `-IR`, `-i[R]`, `--replace[=R]`, `-J R`), if its own words give one. */
function replaceString(words: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('--replace')) return word.includes('=') ? word.slice(word.indexOf('=') + 1) : '{}';
    const m = /^-[0rtxp]*([IiJ])(.*)$/.exec(word);
    if (m === null) continue;
    if (m[2] !== '') return m[2];
    return m[1] === 'i' ? '{}' : words[i + 1] ?? '{}';
  }
  return undefined;
}

/** The entry name of a table for messages: its first program name. */
function entryOf(table: ProgramTable, sub?: string): string {
  return sub === undefined ? table.programs[0]! : `${table.programs[0]} ${sub}`;
}

/**
 * Whether an allow rule that matched `command` (as `query` says) covers it: the wrappers
 * around it with their own options, then the program's words against its table.
 */
export function commandCoverage(command: ShellCommand, query: CoverageQuery): Coverage {
  const { named, matched, namedWrapper, allowOption } = query;
  const wrappers = command.wrappers;
  for (let i = 0; i < wrappers.length; i++) {
    const name = wrappers[i]!;
    const words = command.wrapperWords?.[i] ?? [name];
    const table = wrapperTable(name);
    if (table === undefined) {
      if (i === namedWrapper && words.length <= 1) continue;
      if (i === namedWrapper && words.slice(1).every((word) => allowOption(word))) continue;
      return { covered: false, entry: name, why: i === namedWrapper ? `${name}'s own options (${words.slice(1).join(' ')}) are not covered` : `no wrapper table covers ${name} (other powers, or files it writes); a rule must name it (command = "${name} ...")` };
    }
    const why = readForm(words.slice(1), table.form!, (word) => allowOption(word));
    if (why !== undefined) return { covered: false, entry: name, why };
  }
  if (namedWrapper >= 0 && matched === 0) {
    return { covered: false, entry: wrappers[namedWrapper]!, why: `a rule for the wrapper ${wrappers[namedWrapper]} covers no command it runs; \`${command.argv.join(' ')}\` is judged on its own` };
  }
  const argv = command.argv;
  const head = argv[0] ?? '';
  const table = head.includes('/') ? undefined : programTable(head);
  // xargs with no command of its own runs echo on its input: a rule for xargs names no echo
  if (head === 'xargs') return { covered: false, entry: 'xargs', why: 'xargs without a command runs echo with its input as words; name the command (xargs ... -- echo)' };
  const xargs = wrappers.indexOf('xargs');
  if (xargs >= 0 && table?.form?.noOptions !== true) {
    const end = argv.indexOf('--', 1);
    const replace = replaceString(command.wrapperWords?.[xargs] ?? []);
    const before = end < 0 ? argv : argv.slice(0, end);
    if (end < 0 || (replace !== undefined && before.some((word) => word.includes(replace)))) {
      return { covered: false, entry: 'xargs', why: `xargs puts its input among \`${head}\`'s words, where it may be an option; end the options with -- before it` };
    }
  }
  const dynamic = dynamicWhy(command, table);
  if (dynamic !== undefined) return { covered: false, entry: table === undefined ? 'exact words' : entryOf(table), why: dynamic };
  if (table === undefined) {
    const extra = argv.slice(Math.max(matched, 1));
    const loose = extra.find((word) => !allowOption(word));
    return loose === undefined ? { covered: true, entry: 'exact words' } : { covered: false, entry: 'exact words', why: `no table knows ${head}, so a rule covers only the words it gives; \`${loose}\` is not one of them` };
  }
  if (table.subcommands !== undefined) return subcommandCoverage(command, table, query);
  const form = table.form!;
  const entry = entryOf(table);
  if (form.effect !== 'read' && named < 1) return { covered: false, entry, why: `${head} ${SAYS[form.effect]}; a rule must name it` };
  const why = readForm(argv.slice(1), form, (word, index) => index < named - 1 || allowOption(word));
  return why === undefined ? { covered: true, entry } : { covered: false, entry, why };
}

/** A program with subcommands (git): its global options, then the subcommand's form. */
function subcommandCoverage(command: ShellCommand, table: ProgramTable, query: CoverageQuery): Coverage {
  const { named, allowOption } = query;
  const argv = command.argv;
  const program = table.programs[0]!;
  if (table.globalOptions !== undefined && command.globalWords !== undefined && command.globalWords.length > 0) {
    const why = readForm(command.globalWords, { effect: 'read', options: table.globalOptions, operands: 'none' }, (word) => allowOption(word));
    if (why !== undefined) return { covered: false, entry: program, why: `${program} ${why}` };
  }
  const sub = argv[1];
  if (sub === undefined) return { covered: true, entry: program };
  const form = table.subcommands![sub];
  const entry = entryOf(table, sub);
  if (form === undefined) {
    const loose = argv.slice(Math.max(named, 2)).find((word) => !allowOption(word));
    if (named >= 2 && loose === undefined) return { covered: true, entry: `${entry} (exact words)` };
    return { covered: false, entry, why: named >= 2 ? `\`${program} ${sub}\` is in no table, so a rule covers only the words it gives; \`${loose}\` is not one of them` : `\`${program} ${sub}\` is not a subcommand known to only read (an alias, or one that writes or runs programs)` };
  }
  if (form.effect !== 'read' && named < 2) return { covered: false, entry, why: `\`${program} ${sub}\` ${SAYS[form.effect]}; a rule must name it (command = "${program} ${sub}")` };
  const why = readForm(argv.slice(2), form, (word, index) => index < named - 2 || allowOption(word));
  return why === undefined ? { covered: true, entry } : { covered: false, entry, why };
}
