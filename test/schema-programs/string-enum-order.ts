import { tool } from './tool.js';

/** A T-shirt size, in the order a person reads them. */
export type Size = 'small' | 'medium' | 'large';

export interface OrderShirtInput {
  /** The size. */
  size: Size;
  /** The fit, written inline. */
  fit: 'slim' | 'regular' | 'loose';
  /** Extra sizes, an array of the same union. */
  spares?: Size[];
}

/** Order a T-shirt. */
@tool({ name: 'order_shirt', version: '1.0.0' })
export class OrderShirtTool {
  async run(args: OrderShirtInput): Promise<string> {
    return `${args.size} ${args.fit}`;
  }
}

export const valid: OrderShirtInput[] = [{ size: 'small', fit: 'slim' }, { size: 'large', fit: 'loose', spares: ['medium'] }];
export const invalid: unknown[] = [{ size: 'huge', fit: 'slim' }, { size: 'small' }];
