import { tool } from './tool.js';

export interface MoveInput {
  /** Target position, [x, y] in pixels. */
  to: [number, number];
  /** Named elements: [latitude, longitude]. */
  where?: [latitude: number, longitude: number];
}

/** Move the cursor. */
@tool({ name: 'move_cursor', version: '1.0.0' })
export class MoveCursorTool {
  async run(args: MoveInput): Promise<string> {
    return args.to.join(',');
  }
}

export const valid: MoveInput[] = [{ to: [1, 2] }, { to: [0, 0], where: [51.5, -0.1] }];
export const invalid: unknown[] = [{ to: [1] }, { to: [1, 2, 3] }, { to: ['1', 2] }];
