import { tool } from './tool.js';

export const UNITS = ['metre', 'foot', 'inch'] as const;
export type Unit = (typeof UNITS)[number];

export interface Dimensions {
  width: number;
  height: number;
  depth: number;
}

export interface ConvertInput {
  /** A unit from a const array. */
  unit: Unit;
  /** Which dimension: keyof an interface. */
  dimension: keyof Dimensions;
}

/** Convert a length. */
@tool({ name: 'convert_length', version: '1.0.0' })
export class ConvertLengthTool {
  async run(args: ConvertInput): Promise<string> {
    return `${args.dimension} in ${args.unit}`;
  }
}

export const valid: ConvertInput[] = [{ unit: 'foot', dimension: 'depth' }];
export const invalid: unknown[] = [{ unit: 'mile', dimension: 'depth' }, { unit: 'foot', dimension: 'volume' }];
