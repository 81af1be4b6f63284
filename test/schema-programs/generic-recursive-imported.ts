import { tool } from './tool.js';
import type { Tree } from './lib/tree.js';

export interface OutlineInput {
  /** The outline, a tree of headings (a generic recursive type from another module). */
  outline: Tree<string>;
  /** Sizes, a tree of numbers. */
  sizes?: Tree<number>;
}

/** Render an outline. */
@tool({ name: 'render_outline', version: '1.0.0' })
export class RenderOutlineTool {
  async run(args: OutlineInput): Promise<string> {
    return args.outline.value;
  }
}

export const valid: OutlineInput[] = [{ outline: { value: 'h1', children: [{ value: 'h2', children: [] }] } }];
export const invalid: unknown[] = [{ outline: { value: 1, children: [] } }, { outline: { value: 'h1', children: [{ value: 'h2' }] } }];
