import { tool } from './tool.js';

export interface RollInput {
  /** Sides of the die, in the order written. */
  sides: 6 | 4 | 20 | 8;
  /** Always true: a boolean literal. */
  fair: true;
}

/** Roll a die. */
@tool({ name: 'roll_die', version: '1.0.0' })
export class RollDieTool {
  async run(args: RollInput): Promise<number> {
    return args.sides;
  }
}

export const valid: RollInput[] = [{ sides: 20, fair: true }];
export const invalid: unknown[] = [{ sides: 12, fair: true }, { sides: 6, fair: false }];
