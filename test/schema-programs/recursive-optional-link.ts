import { tool } from './tool.js';

/** A linked list. */
export interface ListNode {
  /** The value. */
  value: number;
  /** The next node, absent at the end. */
  next?: ListNode;
}

export interface SumInput {
  /** The list to sum. */
  list: ListNode;
}

/** Sum a linked list. */
@tool({ name: 'sum_list', version: '1.0.0' })
export class SumListTool {
  async run(args: SumInput): Promise<number> {
    let total = 0;
    for (let node: ListNode | undefined = args.list; node; node = node.next) total += node.value;
    return total;
  }
}

export const valid: SumInput[] = [{ list: { value: 1, next: { value: 2 } } }];
export const invalid: unknown[] = [{ list: { value: 1, next: { value: 'two' } } }];
