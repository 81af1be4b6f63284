import { tool } from './tool.js';

export interface Address {
  /** Street and number. */
  street: string;
  /** Postal code. */
  postcode?: string;
}

export interface ShipInput {
  /** The order. */
  order: {
    /** Order lines. */
    lines: Array<{
      /** Product code. */
      sku: string;
      /** How many. */
      quantity: number;
    }>;
    /** Where it goes. */
    address: Address;
  };
}

/** Ship an order. */
@tool({ name: 'ship_order', version: '1.0.0' })
export class ShipOrderTool {
  async run(args: ShipInput): Promise<number> {
    return args.order.lines.length;
  }
}

export const valid: ShipInput[] = [{ order: { lines: [{ sku: 'a', quantity: 1 }], address: { street: 's' } } }];
export const invalid: unknown[] = [{ order: { lines: [{ sku: 'a' }], address: { street: 's' } } }];
