import { tool } from './tool.js';

/** A circle. */
export interface Circle {
  kind: 'circle';
  /** Radius in metres. */
  radius: number;
}

/** A rectangle. */
export interface Rectangle {
  kind: 'rectangle';
  /** Width in metres. */
  width: number;
  /** Height in metres. */
  height: number;
}

export type Shape = Circle | Rectangle;

export interface AreaInput {
  /** The shape to measure. */
  shape: Shape;
}

/** Compute the area of a shape. */
@tool({ name: 'compute_area', version: '1.0.0' })
export class ComputeAreaTool {
  async run(args: AreaInput): Promise<number> {
    return args.shape.kind === 'circle' ? Math.PI * args.shape.radius ** 2 : args.shape.width * args.shape.height;
  }
}

export const valid: AreaInput[] = [{ shape: { kind: 'circle', radius: 1 } }, { shape: { kind: 'rectangle', width: 2, height: 3 } }];
export const invalid: unknown[] = [{ shape: { kind: 'circle', width: 2 } }, { shape: { kind: 'triangle' } }];
