/**
 * Syntax whose data bash evaluates as code, for the command-line walk (`command-line.ts`):
 * arithmetic over a variable or a substitution (`x='a[$(rm x)]'; echo $((x))` runs `rm x`),
 * array subscripts, `${x@P}`, `${!x}`, `${x:OFFSET}`, and `[[ ]]` operands compared as numbers
 * or named by `-v`. Each finding is a doubt of the walk. (Builtins that evaluate their words are
 * `evaluation.ts`.)
 *
 * @module
 */
import { ARITHMETIC_TESTS, ARITHMETIC_VALUES } from './syntax-tables.js';
import type { CommandWalker } from './walk-context.js';
import { childrenOf, type SyntaxNode } from './words.js';
import { quote } from './command-runners.js';

/** What these checks need of the walk. */
type Walk = Pick<CommandWalker, 'doubt'>;

/**
 * An arithmetic expression (`$((...))`, `((...))`, a C-style for, a subscript): a variable or
 * a substitution in it is evaluated as arithmetic, and a value like `a[$(rm x)]` runs `rm x`.
 */
export function arithmeticDoubt(walk: Walk, node: SyntaxNode, whole: SyntaxNode): void {
  const values = (current: SyntaxNode): boolean =>
    (current.isNamed && ARITHMETIC_VALUES.has(current.type) && !(current.type === 'word' && /^\d+$/.test(current.text))) ||
    childrenOf(current).some(values);
  if (values(node)) walk.doubt(`arithmetic over a variable or a substitution (its value is evaluated as code): ${quote(whole.text)}`);
}

/** `NAME[INDEX]`: INDEX is arithmetic for indexed arrays, so anything but digits, `@` or `*` is evaluated. */
export function subscriptDoubt(walk: Walk, node: SyntaxNode): void {
  for (let i = 0; i < node.childCount; i += 1) {
    const child = node.child(i);
    if (child === null || node.fieldNameForChild(i) !== 'index') continue;
    if (!/^(\d+|@|\*)$/.test(child.text)) walk.doubt(`an array subscript that is evaluated: ${quote(node.text)}`);
  }
}

/** `${...}`: `${x@P}` runs the substitutions in x's value, `${!x}` evaluates x's value as a name, `${x:OFFSET}` is arithmetic. */
export function expansionDoubts(walk: Walk, node: SyntaxNode): void {
  const children = childrenOf(node);
  const operators = children.filter((child) => !child.isNamed).map((child) => child.type);
  const at = operators.indexOf('@');
  if (at >= 0 && operators.slice(at + 1).some((operator) => /P/.test(operator))) walk.doubt(`\${x@P} runs the substitutions in a variable's value: ${quote(node.text)}`);
  if (/^\$\{!/.test(node.text) && !/^\$\{![A-Za-z_][A-Za-z0-9_]*([*@]|\[[@*]\])\}$/.test(node.text)) {
    walk.doubt(`an indirect expansion evaluates a variable's value as a name: ${quote(node.text)}`);
  }
  const colon = children.findIndex((child) => !child.isNamed && child.type === ':');
  if (colon >= 0) for (const child of children.slice(colon + 1)) if (child.isNamed) arithmeticDoubt(walk, child, node);
}

/** `[[ ]]` and `[ ]`: arithmetic comparisons and `-v NAME` evaluate their operands; `[ ]` splits unquoted expansions. */
export function testCommandDoubts(walk: Walk, node: SyntaxNode): void {
  const single = node.child(0)?.type === '[';
  const visit = (current: SyntaxNode): void => {
    const children = childrenOf(current);
    const operator = children.find((child) => child.type === 'test_operator')?.text;
    if (current.type === 'binary_expression' && operator !== undefined && ARITHMETIC_TESTS.has(operator) && !single) {
      for (const child of children) if (child.type !== 'test_operator') arithmeticDoubt(walk, child, node);
    }
    if (current.type === 'unary_expression' && (operator === '-v' || operator === '-R')) {
      const operand = children[children.length - 1];
      if (operand === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(operand.text)) walk.doubt(`${operator} with a name that is evaluated: ${quote(node.text)}`);
    }
    if (single && ['simple_expansion', 'expansion', 'command_substitution'].includes(current.type)) {
      walk.doubt(`an unquoted expansion in [ ] may split into -v NAME: ${quote(node.text)}`);
    }
    if (current.type !== 'string') for (const child of children) visit(child);
  };
  for (const child of childrenOf(node)) visit(child);
}
