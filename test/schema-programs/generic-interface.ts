import { tool } from './tool.js';

/** One page of results. */
export interface Page<T> {
  /** The items of this page. */
  items: T[];
  /** Cursor of the next page, if any. */
  next?: string;
}

export interface Book {
  /** Title. */
  title: string;
  /** Year of publication. */
  year: number;
}

export interface ShelveInput {
  /** Books to shelve, as a page. */
  books: Page<Book>;
  /** Labels, as a page of strings. */
  labels: Page<string>;
}

/** Shelve books. */
@tool({ name: 'shelve_books', version: '1.0.0' })
export class ShelveBooksTool {
  async run(args: ShelveInput): Promise<Page<string>> {
    return { items: args.books.items.map((b) => b.title) };
  }
}

export const valid: ShelveInput[] = [{ books: { items: [{ title: 'T', year: 2000 }] }, labels: { items: ['x'], next: 'c' } }];
export const invalid: unknown[] = [{ books: { items: [{ title: 'T' }] }, labels: { items: [] } }];
