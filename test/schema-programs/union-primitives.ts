import { tool } from './tool.js';

export interface LookupInput {
  /** A numeric id or a slug. */
  key: string | number;
  /** Yes, no, or explicitly unknown. */
  answer: boolean | null;
}

/** Look something up. */
@tool({ name: 'look_up', version: '1.0.0' })
export class LookUpTool {
  async run(args: LookupInput): Promise<string> {
    return String(args.key);
  }
}

export const valid: LookupInput[] = [{ key: 'a', answer: null }, { key: 2, answer: true }];
export const invalid: unknown[] = [{ key: true, answer: null }, { key: 'a', answer: 'yes' }];
