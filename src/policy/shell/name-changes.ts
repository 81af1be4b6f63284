/**
 * Which shell variables a piece of a command line may change, read from its syntax tree
 * (tree-sitter-bash 0.25) before the walk (`command-line.ts`) judges its words. The walk needs
 * it where a word's meaning rests on a variable it does not see assigned by `NAME=value`:
 *
 * - `~` is the value of `HOME`, so a line that may change `HOME` (`read HOME`,
 *   `for HOME in ...`, `unset HOME`, `printf -v HOME`, `env HOME=... bash -c`) makes its `~`
 *   words unseen (`home-words.ts`);
 * - a variable that changes what a program name runs (`PATH`) or that programs read from their
 *   environment (`PAGER`, `GIT_DIR`) changed by one of those builtins is a doubt, like an
 *   assignment statement of it;
 * - a `for` loop's variable is judged as each of the loop's words only when its body provably
 *   never changes it (`loop-bindings.ts`).
 *
 * Fail closed: every construct bash may assign a variable with counts, in subshells and
 * substitutions too; one whose name is computed when the line runs (`read "$n"`, arithmetic
 * over a variable, whose value may hold `x=1`; `eval`, `source`, `let`) makes the names
 * unknown ({@link NameChanges.any}).
 *
 * @module
 */
import { childrenOf, resolveWord, type SyntaxNode } from './words.js';

/** Where a name may be changed. */
interface NameChange {
  /** The construct's source text, for messages. */
  readonly text: string;
  /** Whether it is a `NAME=value` node of the grammar (which the walk checks itself), not a builtin's operand or a loop variable. */
  readonly assignment: boolean;
}

/** What a piece of a command line may change. */
export interface NameChanges {
  /** The variables it may assign or unset (their names), with where. */
  readonly names: Map<string, NameChange>;
  /** Variables given to, or taken from, a program's environment (`env NAME=v`, `make NAME=v`, `env -u NAME`; `HOME` for `env -i`): they change for that program and what it runs. */
  readonly environment: Set<string>;
  /** Why it may change variables whose names the analysis cannot tell, or undefined when it may not. */
  any: string | undefined;
  /** Why it installs code that runs at other points of the line (`trap`, `alias`, a nameref, `eval`, `source`), or undefined. */
  deferred: string | undefined;
  /** The static program names its simple commands run (a function defined in the line runs its body there). */
  readonly calls: Set<string>;
  /** The functions it defines, each with what its body may change. */
  readonly functions: Map<string, NameChanges>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Options of `read` that take a value (the next word); other words not starting with `-` are names. */
const READ_VALUE_OPTIONS = new Set(['-d', '-i', '-n', '-N', '-p', '-t', '-u']);

/** Declaration builtins: their operands are names or `NAME=value`. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** Builtins whose text or code runs later or in place, so that any variable may change. */
const RUNS_TEXT = new Set(['eval', 'source', '.', 'let', 'enable', 'coproc']);

/** Operators of `[[ ]]` that evaluate their operands as arithmetic (where `x=1` assigns). */
const ARITHMETIC_TEST = /\s-(eq|ne|lt|le|gt|ge)\s/;

function empty(): NameChanges {
  return { names: new Map(), environment: new Set(), any: undefined, deferred: undefined, calls: new Set(), functions: new Map() };
}

/** What the syntax tree below `root` (itself included) may change. Never throws. */
export function nameChanges(root: SyntaxNode): NameChanges {
  const out = empty();
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node, out);
    if (node.type === 'function_definition') {
      const body = fieldOf(node, 'body');
      const name = fieldOf(node, 'name')?.text;
      if (body !== undefined && name !== undefined) out.functions.set(name, nameChanges(body));
    }
    for (const child of childrenOf(node)) if (child.isNamed) stack.push(child);
  }
  return out;
}

/**
 * What `body` may change when it runs: its own changes and those of every function defined in
 * `functions` (the line's) that it calls, and that those call in turn.
 */
export function changesWhenRun(body: SyntaxNode, functions: ReadonlyMap<string, NameChanges>): NameChanges {
  const own = nameChanges(body);
  const merged = empty();
  const pending = [own];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const part = pending.pop()!;
    for (const [name, where] of part.names) if (!merged.names.has(name)) merged.names.set(name, where);
    for (const name of part.environment) merged.environment.add(name);
    merged.any ??= part.any;
    merged.deferred ??= part.deferred;
    for (const call of part.calls) {
      const called = functions.get(call) ?? own.functions.get(call);
      if (called === undefined || seen.has(call)) continue;
      seen.add(call);
      pending.push(called);
    }
  }
  return merged;
}

function fieldOf(node: SyntaxNode, field: string): SyntaxNode | undefined {
  for (let i = 0; i < node.childCount; i += 1) if (node.fieldNameForChild(i) === field) return node.child(i) ?? undefined;
  return undefined;
}

function add(out: NameChanges, word: string, text: string, assignment = false): void {
  const name = NAME.exec(word)?.[0];
  if (name !== undefined && !out.names.has(name)) out.names.set(name, { text, assignment });
}

/** One node's own contribution (its children are visited by the caller). */
function visit(node: SyntaxNode, out: NameChanges): void {
  switch (node.type) {
    case 'ERROR':
      out.any ??= `a part the parser cannot read: ${node.text}`;
      return;
    case 'variable_assignment':
      return add(out, node.text, node.text, true);
    case 'for_statement': {
      const variable = fieldOf(node, 'variable');
      if (variable !== undefined) add(out, variable.text, node.text.slice(0, 80));
      return;
    }
    case 'declaration_command':
    case 'unset_command':
      return operands(childrenOf(node).filter((child) => child.isNamed), node.child(0)?.text ?? '', node.text, out);
    case 'command':
      return command(node, out);
    case 'expansion': {
      const operator = childrenOf(node).find((child) => !child.isNamed && /^:?=$|^:$/.test(child.type));
      if (operator === undefined) return;
      if (operator.type === ':') {
        // `${x:OFFSET}` is arithmetic: `${x:y=1}` assigns y
        if (/[A-Za-z_$`]/.test(node.text.slice(node.text.indexOf(':') + 1))) out.any ??= `arithmetic in ${node.text}`;
        return;
      }
      if (node.text.startsWith('${!')) out.any ??= `an indirect assignment in ${node.text}`;
      else add(out, node.text.slice(2), node.text);
      return;
    }
    case 'arithmetic_expansion':
    case 'c_style_for_statement':
      if (/[A-Za-z_$`]/.test(node.text.replace(/^for\b/, ''))) out.any ??= `arithmetic over names in ${node.text.slice(0, 80)}`;
      return;
    case 'compound_statement':
      if (node.child(0)?.type === '((' && /[A-Za-z_$`]/.test(node.text)) out.any ??= `arithmetic over names in ${node.text.slice(0, 80)}`;
      return;
    case 'subscript': {
      const index = fieldOf(node, 'index');
      if (index !== undefined && !/^(\d+|@|\*)$/.test(index.text)) out.any ??= `an array subscript that is evaluated: ${node.text}`;
      return;
    }
    case 'test_command':
      if (node.child(0)?.type === '[[' && (ARITHMETIC_TEST.test(node.text) || /\s-[vR]\s/.test(node.text))) out.any ??= `[[ ]] evaluating names: ${node.text.slice(0, 80)}`;
      return;
    default:
      return;
  }
}

/** The operands of a declaration builtin or `unset`: names, `NAME=value` words; a nameref flag runs assignments elsewhere. */
function operands(words: readonly SyntaxNode[], keyword: string, text: string, out: NameChanges): void {
  for (const word of words) {
    if (word.type === 'variable_assignment') continue; // visited on its own
    if (word.type === 'variable_name') {
      add(out, word.text, text);
      continue;
    }
    const resolved = resolveWord(word);
    if (!resolved.isStatic) {
      out.any ??= `${keyword} with a name that is not static: ${text}`;
      continue;
    }
    if (/^[-+]/.test(resolved.text)) {
      if (keyword !== 'unset' && /[nf]/.test(resolved.text)) out.deferred ??= `${keyword} ${resolved.text} makes a nameref (which assigns another variable) or passes functions on: ${text}`;
      continue;
    }
    add(out, resolved.text, text);
  }
}

/** A simple command: a builtin that assigns (read, printf -v, mapfile...), text run in place (eval, source), a call. */
function command(node: SyntaxNode, out: NameChanges): void {
  const words: SyntaxNode[] = [];
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child === null) continue;
    const field = node.fieldNameForChild(i);
    if (field === 'name') words.push(child.childCount === 1 ? child.child(0)! : child);
    else if (field === 'argument') words.push(child);
  }
  const resolved = words.map((word) => resolveWord(word));
  // `command read x`, `builtin read x` run the builtin
  let at = 0;
  while (resolved[at]?.isStatic === true && (resolved[at]!.text === 'command' || resolved[at]!.text === 'builtin')) {
    at += 1;
    while (resolved[at]?.isStatic === true && resolved[at]!.text.startsWith('-')) at += 1;
  }
  const head = resolved[at];
  if (head === undefined) return;
  if (!head.isStatic) {
    out.any ??= `a program name that is not static (it may be a builtin that assigns): ${node.text}`;
    return;
  }
  const program = head.text;
  out.calls.add(program);
  const args = resolved.slice(at + 1);
  const text = node.text;
  const dynamic = (): void => { out.any ??= `${program} with a word that is not static: ${text}`; };
  switch (program) {
    case 'read': {
      let named = false;
      for (let i = 0; i < args.length; i += 1) {
        const word = args[i]!;
        if (!word.isStatic) return dynamic();
        if (READ_VALUE_OPTIONS.has(word.text)) { i += 1; continue; }
        if (word.text === '-a') { add(out, args[i + 1]?.text ?? '', text); named = true; i += 1; continue; }
        if (word.text.startsWith('-')) {
          // `-aNAME`: every name the cluster may end with (fail closed)
          for (let k = 2; k < word.text.length; k += 1) add(out, word.text.slice(k), text);
          continue;
        }
        add(out, word.text, text);
        named = true;
      }
      if (!named) add(out, 'REPLY', text);
      return;
    }
    case 'printf': {
      // `printf -v NAME`, `-vNAME`; a first word that is not static may be `-v`
      if (args[0]?.isStatic === false) return dynamic();
      for (let i = 0; i < args.length && args[i]!.isStatic && args[i]!.text.startsWith('-') && args[i]!.text !== '--'; i += 1) {
        if (args[i]!.text === '-v') { if (args[i + 1]?.isStatic !== true) return dynamic(); add(out, args[i + 1]!.text, text); i += 1; }
        else if (args[i]!.text.startsWith('-v')) add(out, args[i]!.text.slice(2), text);
      }
      return;
    }
    case 'mapfile':
    case 'readarray':
    case 'getopts':
    case 'wait': {
      // every static word that may be a name counts, and every name an option cluster may end
      // with (`wait -pNAME`, `mapfile -tNAME`): fail closed; a callback (`mapfile -C`) runs code
      if (args.some((word) => !word.isStatic) || ((program === 'mapfile' || program === 'readarray') && args.some((word) => /^-[^-]*C/.test(word.text)))) return dynamic();
      for (const word of args) {
        if (!word.text.startsWith('-')) add(out, word.text, text);
        else for (let k = 2; k < word.text.length; k += 1) add(out, word.text.slice(k), text);
      }
      if (program === 'getopts') for (const name of ['OPTIND', 'OPTARG']) add(out, name, text);
      if (program === 'mapfile' || program === 'readarray') add(out, 'MAPFILE', text);
      return;
    }
    case 'unset':
      return operands(words.slice(at + 1), program, text, out);
    case 'trap':
    case 'alias':
      out.deferred ??= `${program} installs code that runs elsewhere in the line: ${text}`;
      return;
    case 'env':
      for (let i = 0; i < args.length; i += 1) {
        const word = args[i]!;
        if (!word.isStatic) return dynamic();
        if (word.text === '-' || word.text === '--ignore-environment' || /^-[^-]*i/.test(word.text)) out.environment.add('HOME');
        else if (word.text === '-u' || word.text === '--unset') out.environment.add(NAME.exec(args[i + 1]?.text ?? '')?.[0] ?? 'HOME');
        else if (/^-u./.test(word.text) || word.text.startsWith('--unset=')) out.environment.add(NAME.exec(word.text.replace(/^(-u|--unset=)/, ''))?.[0] ?? 'HOME');
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)) out.environment.add(NAME.exec(word.text)![0]);
        else if (!word.text.startsWith('-')) break;
      }
      return;
    default:
      if (DECLARATIONS.has(program)) return operands(words.slice(at + 1), program, text, out);
      if (RUNS_TEXT.has(program)) {
        out.any ??= `${program} runs text or arithmetic that may assign any variable: ${text}`;
        if (program !== 'let') out.deferred ??= `${program} runs text that may install code: ${text}`;
        return;
      }
      // `make HOME=x`, `sudo HOME=x cmd`: given to that program's environment
      for (const word of args) if (word.isStatic && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)) out.environment.add(NAME.exec(word.text)![0]);
  }
}
