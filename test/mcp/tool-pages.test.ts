/**
 * `tools/list` pages (`src/mcp/tool-pages.ts`): every tool once across the pages, a cursor
 * that survives a tool added or removed elsewhere in the list, and clear errors for cursors
 * this server did not give or whose tool is gone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BadCursorError, pageOf } from '../../src/mcp/tool-pages.js';

const tools = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${String(i).padStart(4, '0')}` }));

function all(items: { name: string }[], size: number): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = pageOf(items, cursor, size);
    pages.push(page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe('tools/list pages', () => {
  test('2,500 tools in pages of 100: 25 pages, each tool once, no cursor on the last', () => {
    const items = tools(2500);
    const pages = all(items, 100);
    assert.equal(pages.length, 25);
    assert.ok(pages.every((p) => p.length === 100));
    assert.deepEqual(pages.flat(), items.map((t) => t.name));
    assert.equal(pageOf(items, undefined, 5000).nextCursor, undefined, 'one page when it all fits');
    assert.deepEqual(pageOf([], undefined, 100), { tools: [] });
  });

  test('a tool added before the cursor or removed after it shifts nothing', () => {
    const items = tools(10);
    const first = pageOf(items, undefined, 4);
    const changed = [{ name: 'a_new_one' }, ...items.filter((t) => t.name !== 't0006')];
    assert.deepEqual(pageOf(changed, first.nextCursor, 4).tools.map((t) => t.name), ['t0004', 't0005', 't0007', 't0008']);
  });

  test('a cursor whose tool is gone, and anything that is not our cursor, are clear errors', () => {
    const items = tools(10);
    const first = pageOf(items, undefined, 4);
    assert.throws(() => pageOf(items.filter((t) => t.name !== 't0003'), first.nextCursor, 4), (e: Error) => e instanceof BadCursorError && /changed since it was given.*list again without a cursor/.test(e.message));
    for (const bad of ['', 'not a cursor', 'x'.repeat(3000), Buffer.from('{"v":2,"after":"t0001"}').toString('base64url'), Buffer.from('[1]').toString('base64url'), Buffer.from('null').toString('base64url')]) {
      assert.throws(() => pageOf(items, bad, 4), (e: Error) => e instanceof BadCursorError && /^Invalid cursor: it is not a cursor this server gave/.test(e.message), JSON.stringify(bad.slice(0, 40)));
    }
  });
});
