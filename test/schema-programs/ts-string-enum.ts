import { tool } from './tool.js';

/** A colour, as a TypeScript string enum. */
export enum Colour {
  Red = 'red',
  Green = 'green',
  Blue = 'blue',
}

export interface PaintInput {
  /** The colour to paint with. */
  colour: Colour;
}

/** Paint the wall. */
@tool({ name: 'paint_wall', version: '1.0.0' })
export class PaintWallTool {
  async run(args: PaintInput): Promise<string> {
    return args.colour;
  }
}

export const valid: PaintInput[] = [{ colour: Colour.Green }];
export const invalid: unknown[] = [{ colour: 'Green' }, { colour: 1 }];
