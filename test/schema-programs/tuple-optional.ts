import { tool } from './tool.js';

export interface RangeInput {
  /** Start line, and an optional end line. */
  lines: [number, number?];
}

/** Select lines. */
@tool({ name: 'select_lines', version: '1.0.0' })
export class SelectLinesTool {
  async run(args: RangeInput): Promise<string> {
    return args.lines.join('-');
  }
}

export const valid: RangeInput[] = [{ lines: [1] }, { lines: [1, 5] }];
export const invalid: unknown[] = [{ lines: [] }, { lines: [1, 2, 3] }];
