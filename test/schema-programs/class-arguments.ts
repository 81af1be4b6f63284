import { tool } from './tool.js';

/** Arguments declared as a class. */
export class ResizeInput {
  /** Width in pixels. */
  width = 0;
  /** Height in pixels. */
  height!: number;
  /** Keep the aspect ratio. */
  keepAspect?: boolean;
}

/** Resize an image. */
@tool({ name: 'resize_picture', version: '1.0.0' })
export class ResizePictureTool {
  async run(args: ResizeInput): Promise<string> {
    return `${args.width}x${args.height}`;
  }
}

export const valid: ResizeInput[] = [{ width: 1, height: 2 }, { width: 1, height: 2, keepAspect: true }];
export const invalid: unknown[] = [{ width: 1 }];
