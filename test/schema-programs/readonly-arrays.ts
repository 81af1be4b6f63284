import { tool } from './tool.js';

export interface JoinInput {
  /** Parts, a readonly array. */
  parts: readonly string[];
  /** Weights, a ReadonlyArray. */
  weights?: ReadonlyArray<number>;
  /** A matrix: arrays of arrays. */
  matrix?: number[][];
}

/** Join strings. */
@tool({ name: 'join_parts', version: '1.0.0' })
export class JoinPartsTool {
  async run(args: JoinInput): Promise<string> {
    return args.parts.join('');
  }
}

export const valid: JoinInput[] = [{ parts: ['a'], weights: [1], matrix: [[1, 2], [3]] }];
export const invalid: unknown[] = [{ parts: [1] }, { parts: [], matrix: [1] }];
