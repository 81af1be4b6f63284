import { tool } from './tool.js';

export interface BigInput {
  /** A bigint, which JSON cannot carry. */
  amount: bigint;
}

/** Refused: bigint has no JSON form. */
@tool({ name: 'add_big', version: '1.0.0' })
export class AddBigTool {
  async run(args: BigInput): Promise<string> {
    return String(args.amount);
  }
}
