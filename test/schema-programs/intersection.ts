import { tool } from './tool.js';

export interface Paging {
  /** Page number, from 1. */
  page: number;
}

export interface Query {
  /** Words to search for. */
  text: string;
}

/** Search, one page at a time. */
@tool({ name: 'search_pages', version: '1.0.0' })
export class SearchPagesTool {
  async run(args: Query & Paging): Promise<string[]> {
    return [args.text];
  }
}

export const valid: Array<Query & Paging> = [{ text: 'a', page: 1 }];
export const invalid: unknown[] = [{ text: 'a' }, { text: 'a', page: 1, extra: 1 }];
