import { tool } from './tool.js';

/** An arithmetic expression: a number, or an operation on two expressions. */
export type Expr = { kind: 'number'; value: number } | { kind: 'add' | 'multiply'; left: Expr; right: Expr };

export interface EvaluateInput {
  /** The expression to evaluate. */
  expression: Expr;
}

/** Evaluate an arithmetic expression. */
@tool({ name: 'evaluate_expression', version: '1.0.0' })
export class EvaluateExpressionTool {
  async run(args: EvaluateInput): Promise<number> {
    const ev = (e: Expr): number => (e.kind === 'number' ? e.value : e.kind === 'add' ? ev(e.left) + ev(e.right) : ev(e.left) * ev(e.right));
    return ev(args.expression);
  }
}

export const valid: EvaluateInput[] = [{ expression: { kind: 'add', left: { kind: 'number', value: 1 }, right: { kind: 'number', value: 2 } } }];
export const invalid: unknown[] = [{ expression: { kind: 'add', left: { kind: 'number', value: 1 } } }];
