import type { MathJsInstance } from 'mathjs';
import { loadOptional } from '../../src/internal.js';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';

/** Arguments of calculate. */
export interface CalculateInput {
  /**
   * A mathjs expression, e.g. `sqrt(2) * 3^2`, `5 cm + 2 inch to mm`, `det([1, 2; 3, 4])`,
   * `x = 3; x^2 + 1` (statements separated by `;` or new lines; the last result is returned).
   * @minLength 1
   * @maxLength 2000
   */
  expression: string;
  /**
   * Significant digits shown for numbers.
   * @minimum 1
   * @maximum 64
   * @default 14
   * @TJS-type integer
   */
  precision?: number;
}

/** What calculate reports. */
export interface CalculateOutput {
  /** The expression as given. */
  expression: string;
  /** The result as text (the last statement's when there are several). */
  result: string;
  /** The mathjs type of the result (`number`, `Unit`, `DenseMatrix`, `Complex`, `Fraction`...). */
  type: string;
}

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 2000;
/** Longest result text returned, in characters. */
export const MAX_RESULT_LENGTH = 10_000;
/** Most elements a matrix result may have (matrices built on the way are bounded by the tool's 256 MB memory cap). */
export const MAX_MATRIX_ELEMENTS = 100_000;

/**
 * Functions an expression may not call. Following the mathjs security guidance
 * (https://mathjs.org/docs/expressions/security.html): everything that parses or evaluates
 * further text, changes the instance (`import`, `createUnit`, `config`, `typed`), or works on
 * expressions symbolically is replaced by a function that throws.
 */
const DISABLED = [
  'import', 'createUnit', 'reviver', 'evaluate', 'parse', 'parser', 'compile', 'simplify', 'simplifyConstant', 'simplifyCore',
  'derivative', 'resolve', 'rationalize', 'symbolicEqual', 'leafCount', 'chain', 'help', 'config',
] as const;

/**
 * Names mathjs uses itself, so they cannot be replaced in the instance; an expression sees
 * them shadowed by throwing functions in its scope instead (a scope name wins over the
 * instance's, and each call gets a new scope).
 */
const SHADOWED = ['typed', 'factory', 'create', 'all'] as const;

function blockedFunction(name: string): () => never {
  return () => {
    throw new ToolExecutionError(`the function ${name} is disabled in calculate (no parsing, evaluation or changes of the calculator from inside an expression).`);
  };
}

const shadows = new Map<string, unknown>();

/** A new scope for one evaluation, with the shadowed names in it. */
function newScope(): Map<string, unknown> {
  return new Map(shadows);
}

let instance: { evaluate: MathJsInstance['evaluate']; math: MathJsInstance } | undefined;

/**
 * The limited mathjs instance of this thread, made on first use. mathjs is an optional peer
 * dependency: without it the call ends `PACKAGE_UNAVAILABLE`, naming it.
 */
async function limitedMath(): Promise<{ evaluate: MathJsInstance['evaluate']; math: MathJsInstance }> {
  if (instance === undefined) {
    const { all, create } = await loadOptional<typeof import('mathjs')>('mathjs', 'calculate');
    const math = create(all!, { number: 'number', matrix: 'Matrix' });
    const evaluate = math.evaluate.bind(math);
    const blocked: Record<string, () => never> = {};
    for (const name of DISABLED) blocked[name] = blockedFunction(name);
    math.import(blocked, { override: true });
    for (const name of SHADOWED) shadows.set(name, blockedFunction(name));
    instance = { evaluate, math };
  }
  return instance;
}

/**
 * Evaluate a mathematical expression with mathjs: arithmetic, functions (sqrt, sin, log,
 * factorial...), units and conversions (`5 km to mile`), complex numbers, fractions, matrices
 * and statistics. Variables may be assigned within one call. No code is executed: only the
 * mathjs expression language, with parsing, evaluation and configuration functions disabled.
 * Use it for any arithmetic instead of computing in your head.
 */
@tool({ name: 'calculate', version: '1.0.0', kind: 'internal', readOnly: true, tags: ['misc', 'ported'], timeoutMs: 10_000, memoryMb: 256 })
export class CalculateTool implements Tool<CalculateInput, CalculateOutput> {
  run(args: CalculateInput): Promise<CalculateOutput> {
    return calculate(args.expression, args.precision ?? 14);
  }
}

function sizeOf(value: unknown): number {
  const v = value as { size?: () => number[] } | null;
  if (v !== null && typeof v === 'object' && typeof v.size === 'function' && (value as { isMatrix?: boolean }).isMatrix === true) return v.size().reduce((a, b) => a * b, 1);
  if (Array.isArray(value)) return value.length;
  return 1;
}

/**
 * Evaluate `expression`.
 * @throws ToolExecutionError for an empty or too long expression, a
 *   syntax error (with its position), an unknown symbol or function, a disabled function, or a
 *   result too large to show.
 */
export async function calculate(expression: string, precision = 14): Promise<CalculateOutput> {
  if (typeof expression !== 'string' || expression.trim() === '') throw new ToolExecutionError('the expression is empty; give something to calculate, e.g. "2 * (3 + 4)".');
  if (expression.length > MAX_EXPRESSION_LENGTH) throw new ToolExecutionError(`the expression is ${expression.length} characters; at most ${MAX_EXPRESSION_LENGTH} are accepted.`);
  const { evaluate, math } = await limitedMath();
  let value: unknown;
  try {
    value = evaluate(expression, newScope());
  } catch (error) {
    throw explain(error, expression);
  }
  // Several statements give a ResultSet: keep the last value.
  const entries = (value as { entries?: unknown[] } | null)?.entries;
  if (value !== null && typeof value === 'object' && (value as { isResultSet?: boolean }).isResultSet === true && Array.isArray(entries)) {
    value = entries.length === 0 ? undefined : entries[entries.length - 1];
  }
  if (value === undefined) throw new ToolExecutionError('the expression has no result (only assignments or empty statements); end it with the value to compute.');
  if (typeof value === 'function') throw new ToolExecutionError('the result is a function, not a value; call it, e.g. "f(x) = x^2; f(3)".');
  if (sizeOf(value) > MAX_MATRIX_ELEMENTS) throw new ToolExecutionError(`the result has more than ${MAX_MATRIX_ELEMENTS} elements; compute something smaller (a sum, a size, one element).`);
  const result = math.format(value, { precision });
  if (result.length > MAX_RESULT_LENGTH) throw new ToolExecutionError(`the result is ${result.length} characters long, more than ${MAX_RESULT_LENGTH}; compute something smaller.`);
  return { expression, result, type: math.typeOf(value) };
}

function explain(error: unknown, expression: string): ToolExecutionError {
  if (error instanceof ToolExecutionError) return error;
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof SyntaxError) {
    const at = /\(char (\d+)\)/.exec(message);
    const where = at ? ` at character ${at[1]}: ${JSON.stringify(expression.slice(Math.max(0, Number(at[1]) - 11), Number(at[1]) + 9))}` : '';
    return new ToolExecutionError(`syntax error in the expression${where} (${message}).`);
  }
  const undefinedSymbol = /^Undefined (symbol|function) (.+)$/.exec(message);
  if (undefinedSymbol) {
    return new ToolExecutionError(`unknown ${undefinedSymbol[1]} "${undefinedSymbol[2]}": it is not a mathjs ${undefinedSymbol[1]} or unit, and it was not assigned earlier in the expression (assign it first, e.g. "x = 2; x^2").`);
  }
  return new ToolExecutionError(`cannot evaluate the expression: ${message}`);
}
