import { tool } from './tool.js';

export interface StoreInput {
  /** A key. */
  key: string;
  /** Any JSON value. */
  value: unknown;
}

/** Store any value: open values have no strict OpenAI form. */
@tool({ name: 'store_value', version: '1.0.0' })
export class StoreValueTool {
  async run(args: StoreInput): Promise<string> {
    return args.key;
  }
}

export const valid: StoreInput[] = [{ key: 'a', value: { any: ['thing'] } }, { key: 'b', value: null }];
export const invalid: unknown[] = [{ value: 1 }];
