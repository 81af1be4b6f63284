/**
 * A `for` loop's variable read as each of the loop's words, for the command-line walk
 * (`command-line.ts`): in `for f in a.txt b.txt; do echo x > "$f"; done` the analysis records
 * `echo x > a.txt` and `echo x > b.txt`, so that the deciders judge the paths the loop really
 * names instead of a word computed when the line runs.
 *
 * Only when it is certain (fail closed; anything else leaves `$f` as it is, unseen):
 * - a `for` loop (not `select`: a bad answer leaves the variable empty) with a variable whose
 *   name holds a lower-case letter (bash's own variables are upper case) and at most
 *   {@link MAX_LOOP_WORDS} words, each static or a plain glob (`*.txt`, `~/.ssh/*`: each value
 *   is then one of its matches);
 * - a body that provably never changes the variable (`name-changes.ts`): no assignment of it in
 *   any form, no `read`/`mapfile`/`printf -v`/`getopts`/`declare`/`unset` of it, no nested loop
 *   on it, no construct that may change a name computed when the line runs (`eval`, `source`,
 *   arithmetic over names, `read "$n"`), no call of a function of the line that could, and a
 *   line with no `trap`, `alias`, nameref or `eval` (code that may run inside the body);
 * - a use that is `$f` or `${f}` alone, in a word: quoted (`"$f"`, `"$f.bak"`, `dir/"$f"`),
 *   or unquoted with a value bash would neither split nor glob; a glob's matches only quoted and
 *   as whole path components (`"$f"`, `"$f"/x`), the rest of the word without glob characters.
 *
 * @module
 */
import { changesWhenRun, type NameChanges } from './name-changes.js';
import type { Context, LoopBindings, LoopValue } from './walk-context.js';
import { childrenOf, hasGlob, resolveWord, staticText, type SyntaxNode, type Word } from './words.js';

/** The most words a loop may have for its variable to be read as each of them. */
const MAX_LOOP_WORDS = 32;

/** The most ways one command may be read (the product of its loop variables' word counts). */
const MAX_READINGS = 64;

/** One reading of a command: each loop variable it uses, with one of its values. */
export type LoopReading = ReadonlyMap<string, LoopValue>;

/** A value bash neither splits nor globs when unquoted. */
const SAFE_UNQUOTED = /^[A-Za-z0-9_./:=,%+@-]+$/;

function fieldOf(node: SyntaxNode, field: string): SyntaxNode | undefined {
  for (let i = 0; i < node.childCount; i += 1) if (node.fieldNameForChild(i) === field) return node.child(i) ?? undefined;
  return undefined;
}

/**
 * `bindings` with the variable of the `for` loop `node` bound to its words, when its body
 * provably never changes it (see the module); `bindings` as given otherwise, without the
 * variable (an outer loop's binding of the same name no longer holds inside).
 */
export function bindLoop(node: SyntaxNode, bindings: LoopBindings | undefined, line: { readonly deferred: string | undefined; readonly functions: ReadonlyMap<string, NameChanges> }): LoopBindings | undefined {
  const variable = fieldOf(node, 'variable')?.text;
  const body = fieldOf(node, 'body');
  if (variable === undefined) return bindings;
  const without = bindings?.has(variable) === true ? new Map([...bindings].filter(([name]) => name !== variable)) : bindings;
  if (node.child(0)?.type !== 'for' || body === undefined || !/[a-z]/.test(variable) || line.deferred !== undefined) return without;
  const values: LoopValue[] = [];
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child === null || node.fieldNameForChild(i) !== 'value') continue;
    const word = resolveWord(child);
    if (word.isStatic) values.push({ text: word.text, glob: false });
    else if (child.type === 'word' && hasGlob(child.text) && /^(~\/)?[^\\$`{}'"~]*$/.test(child.text)) values.push({ text: child.text, glob: true });
    else return without;
  }
  if (values.length === 0 || values.length > MAX_LOOP_WORDS) return without;
  const changes = changesWhenRun(body, line.functions);
  if (changes.any !== undefined || changes.deferred !== undefined || changes.names.has(variable)) return without;
  return new Map([...(without ?? []), [variable, values]]);
}

/** The bound variable a `$f` or `${f}` node reads, if it is one. */
function boundName(node: SyntaxNode, bindings: LoopBindings): string | undefined {
  if (node.type !== 'simple_expansion' && node.type !== 'expansion') return undefined;
  const parts = childrenOf(node);
  const names = parts.filter((part) => part.isNamed);
  if (names.length !== 1 || names[0]!.type !== 'variable_name' || parts.length !== (node.type === 'expansion' ? 3 : 2)) return undefined;
  return bindings.has(names[0]!.text) ? names[0]!.text : undefined;
}

/**
 * The readings of `node` (a command, a redirected statement): one per combination of the
 * values of the bound variables it uses outside substitutions; `[undefined]` when it uses none
 * or has more than {@link MAX_READINGS} (its uses are then left as they are).
 */
export function readingsOf(node: SyntaxNode, bindings: LoopBindings | undefined): (LoopReading | undefined)[] {
  if (bindings === undefined || bindings.size === 0) return [undefined];
  const used = new Set<string>();
  const stack = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const name = boundName(current, bindings);
    if (name !== undefined) used.add(name);
    else if (current.type !== 'command_substitution' && current.type !== 'process_substitution') stack.push(...childrenOf(current));
  }
  let readings: Map<string, LoopValue>[] = [new Map()];
  for (const name of used) {
    const values = bindings.get(name)!;
    if (readings.length * values.length > MAX_READINGS) return [undefined];
    readings = readings.flatMap((reading) => values.map((value) => new Map([...reading, [name, value]])));
  }
  return used.size === 0 ? [undefined] : readings;
}

/** One piece of a word read with loop values. */
interface Piece {
  readonly text: string;
  /** A loop value (its text as given), quoted or not; else literal text or, unquoted, a glob pattern. */
  readonly kind: 'literal' | 'pattern' | 'value';
  readonly value?: LoopValue;
  readonly quoted?: boolean;
}

/** The pieces of `node` with `reading`'s values, or undefined when a part is neither static nor a bound use. */
function piecesOf(node: SyntaxNode, reading: LoopReading, quoted: boolean): Piece[] | undefined {
  const name = boundName(node, new Map([...reading].map(([n, v]) => [n, [v]])));
  if (name !== undefined) return [{ text: reading.get(name)!.text, kind: 'value', value: reading.get(name)!, quoted }];
  if (node.type === 'word' && !quoted && hasGlob(node.text)) return /\\/.test(node.text) ? undefined : [{ text: node.text, kind: 'pattern' }];
  if (node.type === 'string' && !quoted) {
    const out: Piece[] = [];
    for (const child of childrenOf(node)) {
      if (child.type === '"') continue;
      const inner = child.type === 'string_content' ? [{ text: child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)), kind: 'literal' as const }] : piecesOf(child, reading, true);
      if (inner === undefined) return undefined;
      out.push(...inner);
    }
    return out;
  }
  if (node.type === 'concatenation') {
    const out: Piece[] = [];
    for (const child of childrenOf(node)) {
      const inner = piecesOf(child, reading, quoted);
      if (inner === undefined) return undefined;
      out.push(...inner);
    }
    return out;
  }
  const text = staticText(node);
  return text === undefined ? undefined : [{ text, kind: 'literal' }];
}

/**
 * The word `node` stands for when the loop variables take `reading`'s values: static text
 * when every value is static and used where bash takes it as it is; a glob (not static, its
 * matches judged) when a glob value fills whole path components of a quoted use; else the
 * word as written, not static (see the module).
 */
export function readWord(node: SyntaxNode, reading: LoopReading | undefined): Word {
  if (reading === undefined) return resolveWord(node);
  const pieces = piecesOf(node, reading, false);
  if (pieces === undefined || !pieces.some((piece) => piece.kind === 'value')) return resolveWord(node);
  const text = pieces.map((piece) => piece.text).join('');
  const patterns = pieces.some((piece) => piece.kind === 'pattern');
  const globs = pieces.filter((piece) => piece.value?.glob === true);
  for (const [i, piece] of pieces.entries()) {
    if (piece.kind !== 'value') continue;
    if (piece.quoted !== true && (piece.value!.glob || !SAFE_UNQUOTED.test(piece.text))) return resolveWord(node);
    // a value read as a pattern: a literal `[x]` in it would match `x`, not itself
    if (patterns && hasGlob(piece.text)) return resolveWord(node);
    if (piece.value!.glob && (!(i === 0 || pieces[i - 1]!.text.endsWith('/')) || !(i === pieces.length - 1 || pieces[i + 1]!.text.startsWith('/')))) return resolveWord(node);
  }
  if (globs.length > 0 && pieces.some((piece) => piece.value?.glob !== true && hasGlob(piece.text))) return resolveWord(node);
  return { text, isStatic: !patterns && globs.length === 0, node };
}

/**
 * `context` with the words a `for`/`select` loop iterates over, or a `case` statement's subject
 * (its `value` fields; a case item's patterns are not), added to `loopWords`: a static word
 * without its quotes, any other as written.
 */
export function withLoopWords(node: SyntaxNode, context: Context): Context {
  const words: string[] = [];
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child !== null && node.fieldNameForChild(i) === 'value') words.push(resolveWord(child).text);
  }
  return words.length === 0 ? context : { ...context, loopWords: [...(context.loopWords ?? []), ...words] };
}
