import { tool } from './tool.js';

/** A node of a tree: a name and its children. */
export interface TreeNode {
  /** The node's name. */
  name: string;
  /** The node's children (none for a leaf). */
  children: TreeNode[];
}

/** Count the nodes of a tree. */
@tool({ name: 'count_nodes', version: '1.0.0' })
export class CountNodesTool {
  async run(args: TreeNode): Promise<number> {
    return 1 + args.children.reduce((n, c) => n + new CountNodesTool().runSync(c), 0);
  }
  runSync(node: TreeNode): number {
    return 1 + node.children.reduce((n, c) => n + this.runSync(c), 0);
  }
}

export const valid: TreeNode[] = [{ name: 'root', children: [{ name: 'leaf', children: [] }] }];
export const invalid: unknown[] = [{ name: 'root', children: [{ name: 'leaf' }] }, { name: 1, children: [] }];
