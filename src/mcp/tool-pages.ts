/**
 * `tools/list` in pages: a server that bridges thousands of tools must not send them in one
 * multi-megabyte answer. Each page holds at most `pageSize` tools (default
 * {@link DEFAULT_TOOLS_PAGE_SIZE}); a page that is not the last carries `nextCursor`, which the
 * client sends back for the next page.
 *
 * The cursor is opaque to clients: `base64url(JSON {"v":1,"after":"<last tool name>"})`. It
 * names the last tool of the page, not an offset, so a tool added or removed between two pages
 * neither repeats nor skips the tools after it; a cursor whose tool is gone (the list changed
 * under it) and anything that is not a cursor this server made are a JSON-RPC `-32602`
 * ("Invalid cursor: ...") that says to list again without one.
 *
 * @module
 */

/**
 * Tools per `tools/list` page by default. Measured: toolgate's 66 built-in tools average 1.5 KB
 * of JSON each (median 1.4 KB, largest 4 KB), so a page is about 150 KB; 2,000 bridged tools
 * of that size would be about 3 MB in one answer.
 */
export const DEFAULT_TOOLS_PAGE_SIZE = 100;

/** Page sizes accepted (`toolsPageSize`). */
export const MAX_TOOLS_PAGE_SIZE = 10_000;

/** A cursor this server could not read; the caller answers it as `-32602`. */
export class BadCursorError extends Error {}

/** The cursor of the page after the one that ends with tool `name`. */
function cursorAfter(name: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after: name }), 'utf8').toString('base64url');
}

/** The tool name a cursor of {@link cursorAfter} names. @throws BadCursorError for anything else. */
function readCursor(cursor: string): string {
  let value: unknown;
  try {
    if (cursor.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadCursorError('Invalid cursor: it is not a cursor this server gave (send the nextCursor of the previous tools/list page as it is, or list again without a cursor)');
  }
  const after = (value as { v?: unknown; after?: unknown } | null)?.after;
  if ((value as { v?: unknown } | null)?.v !== 1 || typeof after !== 'string') {
    throw new BadCursorError('Invalid cursor: it is not a cursor this server gave (send the nextCursor of the previous tools/list page as it is, or list again without a cursor)');
  }
  return after;
}

/**
 * The page of `items` that `cursor` asks for (the first without one).
 * @throws BadCursorError when the cursor is not one of ours, or its tool is no longer listed.
 */
export function pageOf<T extends { name: string }>(items: readonly T[], cursor: string | undefined, pageSize: number): { tools: T[]; nextCursor?: string } {
  let from = 0;
  if (cursor !== undefined) {
    const after = readCursor(cursor);
    const at = items.findIndex((t) => t.name === after);
    if (at < 0) throw new BadCursorError(`Invalid cursor: the tool list changed since it was given (${JSON.stringify(after.slice(0, 100))} is no longer listed); list again without a cursor`);
    from = at + 1;
  }
  const tools = items.slice(from, from + pageSize);
  return from + pageSize < items.length ? { tools, nextCursor: cursorAfter(tools[tools.length - 1]!.name) } : { tools };
}
