import { tool } from './tool.js';

export interface LastInput {
  /** Any number of names, then a count: a rest element before the end. */
  items: [...string[], number];
}

/** Refused: JSON Schema can only leave the end of a tuple open. */
@tool({ name: 'take_last', version: '1.0.0' })
export class TakeLastTool {
  async run(args: LastInput): Promise<number> {
    return args.items.length;
  }
}
