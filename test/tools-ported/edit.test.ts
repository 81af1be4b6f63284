/**
 * The ported edit tools (tools-ported/edit/) through the library: the ported registry, a real
 * ToolExecutor (worker pool), and a temporary workspace laid out as `/tmp/x/proj` with
 * siblings `proj-evil`, `proj_backup` and `outside/sentinel.txt`.
 *
 * Every tool: its success path, each documented error (with the file byte for byte unchanged),
 * and paths outside the workspace (cases P1 to P6 and P8 of the security checklist, T5 of the
 * tool-call cases); CRLF, BOM and UTF-16/32 files keep their bytes' form after every edit; in
 * explore mode with a scoped write folder every edit tool works inside it and is denied
 * outside it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { assertFailed as failed, assertTraversal, callsTo, type CliRun, closePortedWorkspace, existsIn, portedWorkspace, putFile, runCli, type TempWorkspace, assertOutsideUnchanged } from '../helpers.js';
import { joinLines, spliceLines, splitLines } from '../../tools-ported/common/lines.js';
import { decodeText, detectEol, encodeText } from '../../tools-ported/common/text-codec.js';
import { nearestCandidates } from '../../tools-ported/common/nearest.js';
import { sectionPaths } from '../../tools-ported/edit/apply-diff.tool.js';

const EDIT_TOOLS = [
  'append_to_file', 'apply_diff', 'copy_file', 'delete_file', 'edit_file_line',
  'insert_lines', 'make_directory', 'move_file', 'remove_line_range', 'replace_in_file',
];

let tmp: TempWorkspace;
let ws: string;
let executor: ToolExecutor;

before(async () => {
  ({ tmp, ws, executor } = await portedWorkspace());
});

after(() => closePortedWorkspace({ tmp, executor }));

const call = callsTo(() => executor, { confirm: true });
/** One call in explore mode with `out` as the scoped write folder. */
const explore = callsTo(() => executor, { mode: 'explore', scopedWriteDirs: ['out'], confirm: true });

function put(rel: string, content: string | Uint8Array): string {
  return putFile(ws, rel, content);
}

function read(rel: string): string {
  return fs.readFileSync(path.join(ws, rel), 'utf8');
}

function exists(rel: string): boolean {
  return existsIn(ws, rel);
}

function ok(result: ToolExecutionResult, label = result.tool): void {
  assert.equal(result.success, true, `${label}: ${result.output}`);
}

/** Run `action` and assert that the file `rel` holds exactly the same bytes afterwards. */
async function unchanged<T>(rel: string, action: () => Promise<T>): Promise<T> {
  const before = fs.readFileSync(path.join(ws, rel));
  const statBefore = fs.statSync(path.join(ws, rel));
  const result = await action();
  assert.deepEqual(fs.readFileSync(path.join(ws, rel)), before, `${rel} must be byte-for-byte unchanged`);
  assert.equal(fs.statSync(path.join(ws, rel)).ino, statBefore.ino, `${rel} must not have been rewritten`);
  return result;
}

/** A unified diff of one file, from lines of hunk body. */
function diffOf(file: string, hunk: string, body: string[]): string {
  return `--- a/${file}\n+++ b/${file}\n${hunk}\n${body.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
describe('replace_in_file', () => {
  test('replaces exactly one occurrence and shows the edited lines with numbers', async () => {
    put('r/one.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const result = await call('replace_in_file', { filepath: 'r/one.ts', old_text: 'const b = 2;', new_text: 'const b = 20;' });
    ok(result);
    assert.equal(read('r/one.ts'), 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
    assert.match(result.output, /Replaced 1 occurrence in r\/one\.ts at line 2/);
    assert.match(result.output, /2 \| const b = 20;/);
  });

  test('expected_occurrences replaces every occurrence when the count matches', async () => {
    put('r/many.txt', 'x = 1\ny = x\nz = x\n');
    ok(await call('replace_in_file', { filepath: 'r/many.txt', old_text: 'x', new_text: 'w', expected_occurrences: 3 }));
    assert.equal(read('r/many.txt'), 'w = 1\ny = w\nz = w\n');
  });

  test('multi-line old_text and an empty new_text delete a block', async () => {
    put('r/block.txt', 'keep\ndrop 1\ndrop 2\nkeep too\n');
    ok(await call('replace_in_file', { filepath: 'r/block.txt', old_text: 'drop 1\ndrop 2\n', new_text: '' }));
    assert.equal(read('r/block.txt'), 'keep\nkeep too\n');
  });

  test('zero matches: an error that shows the nearest lines with their numbers; the file is unchanged', async () => {
    put('r/fuzzy.py', 'def main():\n    print("hello world")\n    return 0\n\ndef other():\n    pass\n');
    const result = await unchanged('r/fuzzy.py', () => call('replace_in_file', { filepath: 'r/fuzzy.py', old_text: 'print("helo world")', new_text: 'print("bye")' }));
    failed(result, /old_text was not found in r\/fuzzy\.py; nothing was changed/);
    assert.match(result.output, /line 2 \(\d+% similar\):\n2 \|     print\("hello world"\)/);
  });

  test('zero matches that differ only in indentation are named as such', async () => {
    put('r/indent.py', 'if x:\n    call(1)\n    call(2)\n');
    const result = await unchanged('r/indent.py', () => call('replace_in_file', { filepath: 'r/indent.py', old_text: 'call(1)\ncall(2)', new_text: 'done()' }));
    failed(result, /lines 2-3 \(the same apart from whitespace or indentation\):\n2 \|     call\(1\)\n3 \|     call\(2\)/);
  });

  test('ambiguous matches: an error listing where old_text occurs; the file is unchanged', async () => {
    put('r/twice.txt', 'item\nother\nitem\n');
    const result = await unchanged('r/twice.txt', () => call('replace_in_file', { filepath: 'r/twice.txt', old_text: 'item', new_text: 'thing' }));
    failed(result, /occurs 2 times in r\/twice\.txt \(at lines 1 and 3\), but expected_occurrences is 1; nothing was changed/);
    assert.match(result.output, /set expected_occurrences to 2/);
    const fewer = await unchanged('r/twice.txt', () => call('replace_in_file', { filepath: 'r/twice.txt', old_text: 'item', new_text: 'thing', expected_occurrences: 3 }));
    failed(fewer, /occurs 2 times .* expected_occurrences is 3/);
  });

  test('an empty old_text, a no-op edit, a missing file, a folder and a binary file are clear errors', async () => {
    put('r/same.txt', 'abc\n');
    failed(await unchanged('r/same.txt', () => call('replace_in_file', { filepath: 'r/same.txt', old_text: '', new_text: 'x' })), /old_text is empty/);
    failed(await unchanged('r/same.txt', () => call('replace_in_file', { filepath: 'r/same.txt', old_text: 'abc', new_text: 'abc' })), /are the same/);
    failed(await call('replace_in_file', { filepath: 'r/missing.txt', old_text: 'a', new_text: 'b' }), /does not exist/);
    assert.equal(exists('r/missing.txt'), false);
    failed(await call('replace_in_file', { filepath: 'r', old_text: 'a', new_text: 'b' }), /is a folder/);
    put('r/bin.dat', Buffer.from([0x61, 0x00, 0x62, 0x0a]));
    failed(await unchanged('r/bin.dat', () => call('replace_in_file', { filepath: 'r/bin.dat', old_text: 'a', new_text: 'b' })), /binary/);
    put('r/latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    failed(await unchanged('r/latin1.txt', () => call('replace_in_file', { filepath: 'r/latin1.txt', old_text: 'caf', new_text: 'tea' })), /not valid UTF-8/);
  });

  test('invalid arguments (a count below 1, a missing field) are rejected before the tool runs', async () => {
    put('r/args.txt', 'abc\n');
    failed(await unchanged('r/args.txt', () => call('replace_in_file', { filepath: 'r/args.txt', old_text: 'a', new_text: 'b', expected_occurrences: 0 })), /expected_occurrences/, 'INVALID_ARGUMENTS');
    failed(await unchanged('r/args.txt', () => call('replace_in_file', { filepath: 'r/args.txt', old_text: 'a' })), /new_text/, 'INVALID_ARGUMENTS');
  });
});

// ---------------------------------------------------------------------------------------------
describe('insert_lines', () => {
  test('inserts after a line, at the top (0) and at the end', async () => {
    put('i/list.txt', 'one\ntwo\nthree\n');
    ok(await call('insert_lines', { filepath: 'i/list.txt', after_line: 1, content: 'one and a half\n' }));
    assert.equal(read('i/list.txt'), 'one\none and a half\ntwo\nthree\n');
    ok(await call('insert_lines', { filepath: 'i/list.txt', after_line: 0, content: 'zero' }));
    const result = await call('insert_lines', { filepath: 'i/list.txt', after_line: 5, content: 'four\nfive' });
    ok(result);
    assert.equal(read('i/list.txt'), 'zero\none\none and a half\ntwo\nthree\nfour\nfive\n');
    assert.match(result.output, /Inserted 2 lines into i\/list\.txt after line 5 \(now lines 6-7; the file has 7 lines\)/);
  });

  test('a file without a final newline keeps having none', async () => {
    put('i/nofinal.txt', 'a\nb');
    ok(await call('insert_lines', { filepath: 'i/nofinal.txt', after_line: 2, content: 'c' }));
    assert.equal(read('i/nofinal.txt'), 'a\nb\nc');
    ok(await call('insert_lines', { filepath: 'i/nofinal.txt', after_line: 1, content: 'a2\n' }));
    assert.equal(read('i/nofinal.txt'), 'a\na2\nb\nc');
  });

  test('T5: a line past the end, and empty content, are errors with the file unchanged', async () => {
    put('i/short.txt', 'only\n');
    failed(await unchanged('i/short.txt', () => call('insert_lines', { filepath: 'i/short.txt', after_line: 2, content: 'x' })), /after_line is 2, but i\/short\.txt has 1 line; use 0 \(the top\) to 1/);
    failed(await unchanged('i/short.txt', () => call('insert_lines', { filepath: 'i/short.txt', after_line: 1, content: '' })), /content is empty/);
    failed(await unchanged('i/short.txt', () => call('insert_lines', { filepath: 'i/short.txt', after_line: -1, content: 'x' })), /after_line/, 'INVALID_ARGUMENTS');
    failed(await call('insert_lines', { filepath: 'i/none.txt', after_line: 0, content: 'x' }), /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('edit_file_line', () => {
  test('replaces one line, or one line with several', async () => {
    put('e/lines.txt', 'a\nb\nc\n');
    const result = await call('edit_file_line', { filepath: 'e/lines.txt', line_number: 2, new_text: 'B' });
    ok(result);
    assert.equal(read('e/lines.txt'), 'a\nB\nc\n');
    assert.match(result.output, /Replaced line 2 of e\/lines\.txt/);
    ok(await call('edit_file_line', { filepath: 'e/lines.txt', line_number: 3, new_text: 'c1\nc2\n', old_text: 'c' }));
    assert.equal(read('e/lines.txt'), 'a\nB\nc1\nc2\n');
  });

  test('a line past the end, a stale old_text and a no-op edit are errors with the file unchanged', async () => {
    put('e/guard.txt', 'first\nsecond\n');
    failed(await unchanged('e/guard.txt', () => call('edit_file_line', { filepath: 'e/guard.txt', line_number: 3, new_text: 'x' })), /line_number is 3, but e\/guard\.txt has 2 lines/);
    const stale = await unchanged('e/guard.txt', () => call('edit_file_line', { filepath: 'e/guard.txt', line_number: 2, new_text: 'x', old_text: 'first' }));
    failed(stale, /line 2 of e\/guard\.txt does not read as old_text; nothing was changed/);
    assert.match(stale.output, /2 \| second/);
    failed(await unchanged('e/guard.txt', () => call('edit_file_line', { filepath: 'e/guard.txt', line_number: 1, new_text: 'first' })), /already reads as new_text/);
    put('e/empty.txt', '');
    failed(await unchanged('e/empty.txt', () => call('edit_file_line', { filepath: 'e/empty.txt', line_number: 1, new_text: 'x' })), /is empty/);
    failed(await call('edit_file_line', { filepath: 'e/line0.txt', line_number: 0, new_text: 'x' }), /line_number/, 'INVALID_ARGUMENTS');
  });
});

// ---------------------------------------------------------------------------------------------
describe('remove_line_range', () => {
  test('removes an inclusive range and shows what was removed and what is around the cut', async () => {
    put('d/five.txt', '1\n2\n3\n4\n5\n');
    const result = await call('remove_line_range', { filepath: 'd/five.txt', start_line: 2, end_line: 4 });
    ok(result);
    assert.equal(read('d/five.txt'), '1\n5\n');
    assert.match(result.output, /Removed lines 2-4 \(3 lines\) from d\/five\.txt; it now has 2 lines/);
    assert.match(result.output, /Removed:\n2 \| 2\n3 \| 3\n4 \| 4/);
  });

  test('removing the last lines of a file without a final newline keeps it without one', async () => {
    put('d/nofinal.txt', 'a\nb\nc');
    ok(await call('remove_line_range', { filepath: 'd/nofinal.txt', start_line: 3, end_line: 3 }));
    assert.equal(read('d/nofinal.txt'), 'a\nb');
    ok(await call('remove_line_range', { filepath: 'd/nofinal.txt', start_line: 1, end_line: 2 }));
    assert.equal(read('d/nofinal.txt'), '');
  });

  test('T5: an end before the start is a clear tool error and nothing changes on disk', async () => {
    put('d/t5.txt', '1\n2\n3\n');
    const result = await unchanged('d/t5.txt', () => call('remove_line_range', { filepath: 'd/t5.txt', start_line: 3, end_line: 2 }));
    failed(result, /end_line \(2\) is before start_line \(3\)/);
    failed(await unchanged('d/t5.txt', () => call('remove_line_range', { filepath: 'd/t5.txt', start_line: 2, end_line: 9 })), /has 3 lines; lines 2 to 9 are not all in it \(use 1 to 3\)/);
    failed(await unchanged('d/t5.txt', () => call('remove_line_range', { filepath: 'd/t5.txt', start_line: 0, end_line: 1 })), /start_line/, 'INVALID_ARGUMENTS');
  });
});

// ---------------------------------------------------------------------------------------------
describe('append_to_file', () => {
  test('appends, adding a line break first when the file lacks a final one', async () => {
    put('a/log.txt', 'first\n');
    ok(await call('append_to_file', { filepath: 'a/log.txt', content: 'second\n' }));
    assert.equal(read('a/log.txt'), 'first\nsecond\n');
    put('a/open.txt', 'no newline');
    const result = await call('append_to_file', { filepath: 'a/open.txt', content: 'next\n' });
    ok(result);
    assert.equal(read('a/open.txt'), 'no newline\nnext\n');
    assert.match(result.output, /after adding a line break/);
  });

  test('creates a missing file and its folders', async () => {
    const result = await call('append_to_file', { filepath: 'a/new/dir/notes.md', content: '# Notes\n' });
    ok(result);
    assert.equal(read('a/new/dir/notes.md'), '# Notes\n');
    assert.match(result.output, /Created a\/new\/dir\/notes\.md/);
  });

  test('empty content, a folder and a binary file are errors with nothing changed', async () => {
    put('a/keep.txt', 'keep\n');
    failed(await unchanged('a/keep.txt', () => call('append_to_file', { filepath: 'a/keep.txt', content: '' })), /content is empty/);
    failed(await call('append_to_file', { filepath: 'a/new', content: 'x' }), /is a folder/);
    put('a/bin.dat', Buffer.from([0, 1, 2, 3]));
    failed(await unchanged('a/bin.dat', () => call('append_to_file', { filepath: 'a/bin.dat', content: 'x' })), /binary/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('move_file', () => {
  test('moves a file (creating the destination folder) and renames a folder', async () => {
    put('m/src.txt', 'moving\n');
    const result = await call('move_file', { source: 'm/src.txt', destination: 'm/deep/dst.txt' });
    ok(result);
    assert.equal(result.output, 'Moved the file m/src.txt to m/deep/dst.txt.');
    assert.equal(exists('m/src.txt'), false);
    assert.equal(read('m/deep/dst.txt'), 'moving\n');
    ok(await call('move_file', { source: 'm/deep', destination: 'm/renamed' }));
    assert.equal(read('m/renamed/dst.txt'), 'moving\n');
  });

  test('refuses an existing destination, a missing source, the same path and a folder into itself; nothing moves', async () => {
    put('m/a.txt', 'A\n');
    put('m/b.txt', 'B\n');
    const taken = await unchanged('m/a.txt', () => unchanged('m/b.txt', () => call('move_file', { source: 'm/a.txt', destination: 'm/b.txt' })));
    failed(taken, /m\/b\.txt already exists; move_file never replaces anything/);
    failed(await call('move_file', { source: 'm/none.txt', destination: 'm/c.txt' }), /does not exist; nothing was moved/);
    assert.equal(exists('m/c.txt'), false);
    failed(await unchanged('m/a.txt', () => call('move_file', { source: 'm/a.txt', destination: './m/a.txt' })), /the same/);
    put('m/tree/leaf.txt', 'leaf\n');
    failed(await call('move_file', { source: 'm/tree', destination: 'm/tree/sub' }), /into itself/);
    assert.equal(read('m/tree/leaf.txt'), 'leaf\n');
  });
});

// ---------------------------------------------------------------------------------------------
describe('copy_file', () => {
  test('copies bytes exactly and keeps the permission bits', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x0d, 0x0a, 0x00, 0x80]);
    const source = put('c/blob.bin', bytes);
    fs.chmodSync(source, 0o755);
    const result = await call('copy_file', { source: 'c/blob.bin', destination: 'c/copy/blob.bin' });
    ok(result);
    assert.deepEqual(fs.readFileSync(path.join(ws, 'c/copy/blob.bin')), bytes);
    assert.equal(fs.statSync(path.join(ws, 'c/copy/blob.bin')).mode & 0o777, 0o755);
    assert.equal(read('c/blob.bin').length > 0, true, 'the source stays');
  });

  test('a private source gives a private copy from the start, also over a readable file', async () => {
    const source = put('c/secret.txt', 'token\n');
    fs.chmodSync(source, 0o600);
    put('c/public.txt', 'old\n');
    fs.chmodSync(path.join(ws, 'c/public.txt'), 0o644);
    // Every temporary file seen while the copy is written must already be private.
    const seen: number[] = [];
    const watcher = fs.watch(path.join(ws, 'c'), (_event, name) => {
      if (typeof name === 'string' && name.endsWith('.tmp')) {
        try {
          seen.push(fs.statSync(path.join(ws, 'c', name)).mode & 0o777);
        } catch {
          // renamed already
        }
      }
    });
    try {
      ok(await call('copy_file', { source: 'c/secret.txt', destination: 'c/public.txt', overwrite: true }));
      ok(await call('copy_file', { source: 'c/secret.txt', destination: 'c/new-copy.txt' }));
    } finally {
      watcher.close();
    }
    assert.equal(fs.statSync(path.join(ws, 'c/public.txt')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(ws, 'c/new-copy.txt')).mode & 0o777, 0o600);
    for (const mode of seen) assert.equal(mode & 0o077, 0, `a temporary copy was readable by others (${mode.toString(8)})`);
  });

  test('refuses an existing destination unless overwrite is true', async () => {
    put('c/one.txt', 'one\n');
    put('c/two.txt', 'two\n');
    failed(await unchanged('c/two.txt', () => call('copy_file', { source: 'c/one.txt', destination: 'c/two.txt' })), /c\/two\.txt already exists; pass overwrite: true/);
    const result = await call('copy_file', { source: 'c/one.txt', destination: 'c/two.txt', overwrite: true });
    ok(result);
    assert.match(result.output, /overwrote an existing file/);
    assert.equal(read('c/two.txt'), 'one\n');
  });

  test('a missing source, a folder source, a folder destination and the same file are errors', async () => {
    put('c/x.txt', 'x\n');
    failed(await call('copy_file', { source: 'c/none.txt', destination: 'c/y.txt' }), /does not exist; nothing was copied/);
    assert.equal(exists('c/y.txt'), false);
    failed(await call('copy_file', { source: 'c', destination: 'c2' }), /is a folder; copy_file copies files only/);
    failed(await call('copy_file', { source: 'c/x.txt', destination: 'c/copy', overwrite: true }), /c\/copy is a folder; give the full path of the copy/);
    failed(await unchanged('c/x.txt', () => call('copy_file', { source: 'c/x.txt', destination: 'c/x.txt', overwrite: true })), /the same file/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('delete_file', () => {
  test('deletes a file', async () => {
    put('del/gone.txt', 'bye\n');
    const result = await call('delete_file', { filepath: 'del/gone.txt' });
    ok(result);
    assert.equal(result.output, 'Deleted del/gone.txt (4 bytes).');
    assert.equal(exists('del/gone.txt'), false);
  });

  test('a missing file, a folder and the workspace root are errors; nothing is deleted', async () => {
    put('del/stay/keep.txt', 'keep\n');
    failed(await call('delete_file', { filepath: 'del/none.txt' }), /does not exist; nothing was deleted/);
    failed(await call('delete_file', { filepath: 'del/stay' }), /is a folder; delete_file deletes files only/);
    failed(await call('delete_file', { filepath: '.' }), /the workspace folder itself/);
    assert.equal(read('del/stay/keep.txt'), 'keep\n');
  });
});

// ---------------------------------------------------------------------------------------------
describe('make_directory', () => {
  test('creates a folder with its parents, and says when it already exists', async () => {
    const result = await call('make_directory', { directory: 'mk/a/b/c' });
    ok(result);
    assert.equal(result.output, 'Created mk/a/b/c (4 folders, parents included).');
    assert.ok(fs.statSync(path.join(ws, 'mk/a/b/c')).isDirectory());
    const again = await call('make_directory', { directory: 'mk/a/b' });
    ok(again);
    assert.equal(again.output, 'mk/a/b already exists; nothing was created.');
  });

  test('a file in the way is an error and stays as it was', async () => {
    put('mk/file.txt', 'file\n');
    failed(await unchanged('mk/file.txt', () => call('make_directory', { directory: 'mk/file.txt' })), /is a file, not a folder/);
    failed(await unchanged('mk/file.txt', () => call('make_directory', { directory: 'mk/file.txt/sub' })), /is a file, not a folder/);
    failed(await call('make_directory', { directory: '.' }), /the workspace folder itself/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('apply_diff', () => {
  test('applies a multi-file diff: modify (hunk at a shifted line), create and delete', async () => {
    put('p/main.txt', 'header\nalpha\nbeta\ngamma\n');
    put('p/old.txt', 'obsolete\n');
    const diff = [
      diffOf('p/main.txt', '@@ -1,3 +1,3 @@', [' alpha', '-beta', '+BETA', ' gamma']),
      '--- /dev/null\n+++ b/p/new.txt\n@@ -0,0 +1,2 @@\n+fresh\n+file\n',
      '--- a/p/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-obsolete\n',
    ].join('');
    const result = await call('apply_diff', { diff, filepaths: ['p/main.txt', 'p/new.txt', 'p/old.txt'] });
    ok(result);
    assert.equal(read('p/main.txt'), 'header\nalpha\nBETA\ngamma\n');
    assert.equal(read('p/new.txt'), 'fresh\nfile\n');
    assert.equal(exists('p/old.txt'), false);
    assert.match(result.output, /Applied the diff to 3 files:\n- modified p\/main\.txt \(\+1 -1\)\n- created p\/new\.txt \(\+2 -0\)\n- deleted p\/old\.txt/);
  });

  test('a git rename with a change', async () => {
    put('p/before.txt', 'x\ny\n');
    const diff = 'diff --git a/p/before.txt b/p/after.txt\nsimilarity index 50%\nrename from p/before.txt\nrename to p/after.txt\n--- a/p/before.txt\n+++ b/p/after.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n';
    ok(await call('apply_diff', { diff, filepaths: ['p/before.txt', 'p/after.txt'] }));
    assert.equal(exists('p/before.txt'), false);
    assert.equal(read('p/after.txt'), 'x\nz\n');
  });

  test('a failed hunk changes nothing, in any file of the diff, and shows the nearest lines', async () => {
    put('p/f1.txt', 'one\ntwo\nthree\n');
    put('p/f2.txt', 'red\ngreen\nblue\n');
    const diff = diffOf('p/f1.txt', '@@ -1,2 +1,2 @@', [' one', '-two', '+TWO']) + diffOf('p/f2.txt', '@@ -1,2 +1,2 @@', [' red', '-grean', '+GREEN']);
    const result = await unchanged('p/f1.txt', () => unchanged('p/f2.txt', () => call('apply_diff', { diff, filepaths: ['p/f1.txt', 'p/f2.txt'] })));
    failed(result, /hunk 1 of 1 for p\/f2\.txt \(@@ -1,2 \+1,2 @@\) does not match the file/);
    assert.match(result.output, /lines 1-2 \(\d+% similar\):\n1 \| red\n2 \| green/);
    assert.match(result.output, /Nothing was changed/);
  });

  test('filepaths must be exactly the files the diff names; malformed diffs are refused; nothing changes', async () => {
    put('p/g.txt', 'g\n');
    put('p/h.txt', 'h\n');
    const diff = diffOf('p/g.txt', '@@ -1 +1 @@', ['-g', '+G']);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff, filepaths: ['p/h.txt'] })), /the diff changes p\/g\.txt, not listed in filepaths; filepaths lists p\/h\.txt, which the diff does not change/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff, filepaths: ['p/g.txt', 'p/h.txt'] })), /filepaths lists p\/h\.txt/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff: 'just some prose\n', filepaths: ['p/g.txt'] })), /no file sections/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff: '--- a/p/g.txt\n+++ b/p/g.txt\n@@ -1,3 +1,3 @@\n-g\n+G\n', filepaths: ['p/g.txt'] })), /does not parse/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff: diffOf('p/g.txt', '@@ -1 +1 @@', ['-g', '+G']) + diffOf('p/g.txt', '@@ -1 +1 @@', ['-G', '+H']), filepaths: ['p/g.txt'] })), /more than one file section/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff: '--- /dev/null\n+++ b/p/g.txt\n@@ -0,0 +1 @@\n+new\n', filepaths: ['p/g.txt'] })), /creates p\/g\.txt, which already exists/);
    failed(await unchanged('p/g.txt', () => call('apply_diff', { diff: '--- a/p/g.txt\n+++ b/p/h.txt\n@@ -1 +1 @@\n-g\n+G\n', filepaths: ['p/g.txt', 'p/h.txt'] })), /names two different files/);
    failed(await call('apply_diff', { diff, filepaths: [] }), /filepaths/, 'INVALID_ARGUMENTS');
    assert.equal(read('p/h.txt'), 'h\n');
  });

  test('P6: a header that climbs out (a/../../tmp/evil) or is absolute rejects the whole patch before any hunk', async () => {
    put('p/safe.txt', 'safe\n');
    const evil = (name: string) => diffOf('p/safe.txt', '@@ -1 +1 @@', ['-safe', '+CHANGED']) + `--- a/${name}\n+++ b/${name}\n@@ -1 +1 @@\n-SENTINEL CONTENT\n+PWNED\n`;
    const rel = path.relative(ws, tmp.sentinel); // ../outside/sentinel.txt
    for (const name of [rel, `p/../../outside/sentinel.txt`, `../proj-evil/x`]) {
      await unchanged('p/safe.txt', () => assertTraversal(call('apply_diff', { diff: evil(name), filepaths: ['p/safe.txt'] }), `apply_diff header ${name}`));
    }
    // The literal form of the case: a/../../tmp/evil, and absolute headers (outside, and inside).
    await unchanged('p/safe.txt', () => assertTraversal(call('apply_diff', { diff: evil('../../tmp/evil'), filepaths: ['p/safe.txt'] }), 'apply_diff a/../../tmp/evil'));
    const absolute = (file: string) => diffOf('p/safe.txt', '@@ -1 +1 @@', ['-safe', '+CHANGED']) + `--- ${file}\n+++ ${file}\n@@ -1 +1 @@\n-SENTINEL CONTENT\n+PWNED\n`;
    await unchanged('p/safe.txt', () => assertTraversal(call('apply_diff', { diff: absolute(tmp.sentinel), filepaths: ['p/safe.txt'] }), 'apply_diff absolute outside'));
    await unchanged('p/safe.txt', () => assertTraversal(call('apply_diff', { diff: absolute('/tmp/evil'), filepaths: ['p/safe.txt'] }), 'apply_diff /tmp/evil'));
    put('p/inside.txt', 'SENTINEL CONTENT\n');
    const inside = await unchanged('p/safe.txt', () => unchanged('p/inside.txt', () => call('apply_diff', { diff: absolute(path.join(ws, 'p/inside.txt')), filepaths: ['p/safe.txt', 'p/inside.txt'] })));
    failed(inside, /absolute path .* must use paths relative to the workspace root/);
    // And the path given in filepaths is refused by the executor before the tool runs.
    await assertTraversal(call('apply_diff', { diff: evil(rel), filepaths: ['p/safe.txt', rel] }), 'apply_diff filepaths outside');
    assert.equal(fs.existsSync('/tmp/evil'), false);
    assertOutsideUnchanged(tmp);
  });
});

// ---------------------------------------------------------------------------------------------
describe('line endings and encodings are kept by every text edit', () => {
  const BASE = ['alpha', 'beta', 'gamma'];
  /** Encodings as bytes, built here independently of the tools' codec. */
  const FORMATS: Record<string, { eol: string; encode: (text: string) => Buffer }> = {
    'UTF-8 CRLF': { eol: '\r\n', encode: (t) => Buffer.from(t, 'utf8') },
    'UTF-8 with BOM LF': { eol: '\n', encode: (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')]) },
    'UTF-16 LE with BOM CRLF': { eol: '\r\n', encode: (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]) },
    'UTF-16 BE with BOM LF': { eol: '\n', encode: (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]) },
    'UTF-32 LE with BOM CRLF': {
      eol: '\r\n',
      encode: (t) => {
        const cps = [...t].map((c) => c.codePointAt(0)!);
        const out = Buffer.alloc(4 + cps.length * 4);
        out.writeUInt32LE(0x0000feff, 0);
        cps.forEach((cp, i) => out.writeUInt32LE(cp, 4 + i * 4));
        return out;
      },
    },
  };
  const text = (lines: string[], eol: string) => lines.map((l) => l + eol).join('');
  const EDITS: Array<{ tool: string; args: (f: string) => Record<string, unknown>; expected: string[] }> = [
    { tool: 'replace_in_file', args: (f) => ({ filepath: f, old_text: 'beta\ngamma', new_text: 'BÉTA ✓\ngamma' }), expected: ['alpha', 'BÉTA ✓', 'gamma'] },
    { tool: 'insert_lines', args: (f) => ({ filepath: f, after_line: 1, content: 'ünï\ncødé\n' }), expected: ['alpha', 'ünï', 'cødé', 'beta', 'gamma'] },
    { tool: 'edit_file_line', args: (f) => ({ filepath: f, line_number: 3, new_text: 'GAMMA 😀' }), expected: ['alpha', 'beta', 'GAMMA 😀'] },
    { tool: 'remove_line_range', args: (f) => ({ filepath: f, start_line: 1, end_line: 2 }), expected: ['gamma'] },
    { tool: 'append_to_file', args: (f) => ({ filepath: f, content: 'delta\nepsilon\n' }), expected: ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] },
    { tool: 'apply_diff', args: (f) => ({ diff: diffOf(f, '@@ -1,3 +1,3 @@', [' alpha', '-beta', '+bêta', ' gamma']), filepaths: [f] }), expected: ['alpha', 'bêta', 'gamma'] },
  ];
  for (const [name, format] of Object.entries(FORMATS)) {
    for (const edit of EDITS) {
      test(`${edit.tool} keeps ${name}`, async () => {
        const file = `enc/${edit.tool}-${name.replace(/\W+/g, '-')}.txt`;
        put(file, format.encode(text(BASE, format.eol)));
        const result = await call(edit.tool, edit.args(file));
        ok(result, `${edit.tool} on ${name}`);
        assert.deepEqual(fs.readFileSync(path.join(ws, file)), format.encode(text(edit.expected, format.eol)), `${edit.tool} on ${name}: bytes`);
        assert.match(result.output, new RegExp(`kept .*${format.eol === '\r\n' ? 'CRLF' : 'LF'}|Applied`));
      });
    }
  }

  test('a file with mixed line endings keeps each untouched line as it was', async () => {
    put('enc/mixed.txt', 'a\r\nb\nc\r\nd\n');
    ok(await call('edit_file_line', { filepath: 'enc/mixed.txt', line_number: 2, new_text: 'B' }));
    assert.equal(read('enc/mixed.txt'), 'a\r\nB\r\nc\r\nd\n');
    ok(await call('apply_diff', { diff: diffOf('enc/mixed.txt', '@@ -2,2 +2,2 @@', [' B', '-c', '+C']), filepaths: ['enc/mixed.txt'] }));
    assert.equal(read('enc/mixed.txt'), 'a\r\nB\r\nC\r\nd\n');
  });

  test('UTF-16 with an odd number of bytes is refused as binary, unchanged', async () => {
    put('enc/odd16.txt', Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42]));
    failed(await unchanged('enc/odd16.txt', () => call('append_to_file', { filepath: 'enc/odd16.txt', content: 'x' })), /not a whole number/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('paths outside the workspace (P1-P5) for every edit tool', () => {
  /** Argument builders, one per path argument of each tool. */
  const BUILDERS: Array<{ label: string; tool: string; args: (p: string) => Record<string, unknown> }> = [
    { label: 'append_to_file', tool: 'append_to_file', args: (p) => ({ filepath: p, content: 'PWNED\n' }) },
    { label: 'insert_lines', tool: 'insert_lines', args: (p) => ({ filepath: p, after_line: 0, content: 'PWNED' }) },
    { label: 'replace_in_file', tool: 'replace_in_file', args: (p) => ({ filepath: p, old_text: 'SENTINEL', new_text: 'PWNED' }) },
    { label: 'edit_file_line', tool: 'edit_file_line', args: (p) => ({ filepath: p, line_number: 1, new_text: 'PWNED' }) },
    { label: 'remove_line_range', tool: 'remove_line_range', args: (p) => ({ filepath: p, start_line: 1, end_line: 1 }) },
    { label: 'delete_file', tool: 'delete_file', args: (p) => ({ filepath: p }) },
    { label: 'make_directory', tool: 'make_directory', args: (p) => ({ directory: p }) },
    { label: 'move_file source', tool: 'move_file', args: (p) => ({ source: p, destination: 'pp/moved-here.txt' }) },
    { label: 'move_file destination', tool: 'move_file', args: (p) => ({ source: 'pp/inside.txt', destination: p }) },
    { label: 'copy_file source', tool: 'copy_file', args: (p) => ({ source: p, destination: 'pp/copied-here.txt' }) },
    { label: 'copy_file destination', tool: 'copy_file', args: (p) => ({ source: 'pp/inside.txt', destination: p, overwrite: true }) },
    { label: 'apply_diff header', tool: 'apply_diff', args: (p) => ({ diff: `--- ${p}\n+++ ${p}\n@@ -1 +1 @@\n-SENTINEL CONTENT\n+PWNED\n`, filepaths: ['pp/inside.txt'] }) },
    { label: 'apply_diff filepaths', tool: 'apply_diff', args: (p) => ({ diff: `--- ${p}\n+++ ${p}\n@@ -1 +1 @@\n-SENTINEL CONTENT\n+PWNED\n`, filepaths: [p] }) },
  ];

  before(() => {
    put('pp/inside.txt', 'inside\n');
    fs.symlinkSync(tmp.sentinel, path.join(ws, 'pp-link.txt'));
    fs.symlinkSync(path.relative(ws, tmp.sentinel), path.join(ws, 'pp-rel-link.txt'));
    fs.symlinkSync(tmp.outside, path.join(ws, 'pp-dir-link'));
    fs.symlinkSync(path.join(tmp.outside, 'created-through-dangling-link.txt'), path.join(ws, 'pp-dangling.txt'));
  });

  const outsidePaths = () => [
    // P1: siblings whose names start with the workspace's
    '../proj-evil/x', '../proj_backup/x', path.join(tmp.root, 'proj-evil', 'x'), `${ws}_backup/x`,
    // P2/P3: links inside that lead outside (file, relative, folder, dangling)
    'pp-link.txt', 'pp-rel-link.txt', 'pp-dir-link/sentinel.txt', 'pp-dangling.txt',
    // P4: climbing, absolute, home
    'pp/../../outside/sentinel.txt', tmp.sentinel, '/etc/passwd', '~/.ssh/id_rsa',
  ];

  for (const builder of BUILDERS) {
    test(`P1-P4: ${builder.label} refuses every outside path with PATH_TRAVERSAL; the sentinel is unchanged`, async () => {
      for (const p of outsidePaths()) {
        await unchanged('pp/inside.txt', () => assertTraversal(call(builder.tool, builder.args(p)), `${builder.label} ${p}`));
      }
      assertOutsideUnchanged(tmp);
      assert.ok(fs.lstatSync(path.join(ws, 'pp-link.txt')).isSymbolicLink(), 'the link itself is left as it was');
      assert.equal(exists('pp/moved-here.txt') || exists('pp/copied-here.txt'), false);
    });

    test(`P4/P5: ${builder.label} turns the empty path and a NUL byte into INVALID_PATH results`, async () => {
      for (const p of ['', 'notes.md\u0000.sh']) {
        const result = await unchanged('pp/inside.txt', () => call(builder.tool, builder.args(p)));
        assert.equal(result.success, false);
        if (builder.label === 'apply_diff header') assert.ok(result.errorCode === 'INVALID_PATH' || result.errorCode === 'TOOL_ERROR', result.output);
        else assert.equal(result.errorCode, 'INVALID_PATH', `${builder.label} ${JSON.stringify(p)}: ${result.output}`);
      }
    });
  }

  test('P4: names that merely contain dots (..test, te..st) are inside and may be edited', async () => {
    put('..test', 'dots\n');
    ok(await call('replace_in_file', { filepath: '..test', old_text: 'dots', new_text: 'DOTS' }));
    ok(await call('append_to_file', { filepath: 'te..st', content: 'x\n' }));
    ok(await call('apply_diff', { diff: diffOf('..test', '@@ -1 +1 @@', ['-DOTS', '+dots']), filepaths: ['..test'] }));
    assert.equal(read('..test'), 'dots\n');
  });

  test('P3: a link inside the workspace to a file inside is followed: the file it points to is edited', async () => {
    put('pp/target.txt', 'target\n');
    fs.symlinkSync('target.txt', path.join(ws, 'pp/alias.txt'));
    ok(await call('replace_in_file', { filepath: 'pp/alias.txt', old_text: 'target', new_text: 'edited' }));
    assert.equal(read('pp/target.txt'), 'edited\n');
    assert.ok(fs.lstatSync(path.join(ws, 'pp/alias.txt')).isSymbolicLink());
  });
});

// ---------------------------------------------------------------------------------------------
describe('explore mode with a scoped write folder (P8)', () => {
  before(() => {
    for (const dir of ['out', 'out-evil', 'outside-scope']) put(`${dir}/file.txt`, 'one\ntwo\n');
    put('notes.txt', 'one\ntwo\n');
    put('out/src.txt', 'source\n');
    put('out/gone.txt', 'gone\n');
    put('out/diff.txt', 'one\ntwo\n');
    fs.symlinkSync('../notes.txt', path.join(ws, 'out/link-to-notes.txt'));
  });

  /** `outside(file, dir)`: arguments aimed at an existing `file` ("one\ntwo\n") outside the scoped folder, or at new names under `dir`. */
  const CALLS: Array<{ tool: string; inside: Record<string, unknown>; check: () => void; outside: (file: string, dir: string) => Record<string, unknown> }> = [
    { tool: 'append_to_file', inside: { filepath: 'out/file.txt', content: 'three\n' }, check: () => assert.equal(read('out/file.txt'), 'one\ntwo\nthree\n'), outside: (f) => ({ filepath: f, content: 'x\n' }) },
    { tool: 'insert_lines', inside: { filepath: 'out/file.txt', after_line: 0, content: 'zero' }, check: () => assert.equal(read('out/file.txt'), 'zero\none\ntwo\nthree\n'), outside: (f) => ({ filepath: f, after_line: 0, content: 'x' }) },
    { tool: 'replace_in_file', inside: { filepath: 'out/file.txt', old_text: 'zero', new_text: 'ZERO' }, check: () => assert.equal(read('out/file.txt'), 'ZERO\none\ntwo\nthree\n'), outside: (f) => ({ filepath: f, old_text: 'one', new_text: 'x' }) },
    { tool: 'edit_file_line', inside: { filepath: 'out/file.txt', line_number: 1, new_text: 'zero' }, check: () => assert.equal(read('out/file.txt'), 'zero\none\ntwo\nthree\n'), outside: (f) => ({ filepath: f, line_number: 1, new_text: 'x' }) },
    { tool: 'remove_line_range', inside: { filepath: 'out/file.txt', start_line: 1, end_line: 1 }, check: () => assert.equal(read('out/file.txt'), 'one\ntwo\nthree\n'), outside: (f) => ({ filepath: f, start_line: 1, end_line: 1 }) },
    { tool: 'apply_diff', inside: { diff: diffOf('out/diff.txt', '@@ -1,2 +1,2 @@', [' one', '-two', '+TWO']), filepaths: ['out/diff.txt'] }, check: () => assert.equal(read('out/diff.txt'), 'one\nTWO\n'), outside: (f) => ({ diff: diffOf(f, '@@ -1,2 +1,2 @@', [' one', '-two', '+TWO']), filepaths: [f] }) },
    { tool: 'copy_file', inside: { source: 'out/src.txt', destination: 'out/copy.txt' }, check: () => assert.equal(read('out/copy.txt'), 'source\n'), outside: (_f, d) => ({ source: 'out/src.txt', destination: `${d}copy.txt` }) },
    { tool: 'move_file', inside: { source: 'out/copy.txt', destination: 'out/sub/moved.txt' }, check: () => assert.equal(read('out/sub/moved.txt'), 'source\n'), outside: (_f, d) => ({ source: 'out/src.txt', destination: `${d}moved.txt` }) },
    { tool: 'delete_file', inside: { filepath: 'out/gone.txt' }, check: () => assert.equal(exists('out/gone.txt'), false), outside: (f) => ({ filepath: f }) },
    { tool: 'make_directory', inside: { directory: 'out/made/deep' }, check: () => assert.ok(fs.statSync(path.join(ws, 'out/made/deep')).isDirectory()), outside: (_f, d) => ({ directory: `${d}made` }) },
  ];
  /** Outside the scoped folder `out/`: a sibling whose name starts with it (P8), another folder, the root. */
  const OUTSIDE = [
    { file: 'out-evil/file.txt', dir: 'out-evil/' },
    { file: 'outside-scope/file.txt', dir: 'outside-scope/' },
    { file: 'notes.txt', dir: '' },
  ];

  test('the table covers every edit tool', () => {
    assert.deepEqual(CALLS.map((c) => c.tool).sort(), EDIT_TOOLS);
  });

  for (const c of CALLS) {
    test(`${c.tool} works inside the scoped folder, and is MODE_DENIED outside it, in out-evil/ (P8) and at the root`, async () => {
      const result = await explore(c.tool, c.inside);
      ok(result, `${c.tool} inside out/`);
      c.check();
      for (const { file, dir } of OUTSIDE) {
        const denied = await unchanged(file, () => unchanged('out/src.txt', () => explore(c.tool, c.outside(file, dir))));
        assert.equal(denied.success, false, `${c.tool} on ${file}: ${denied.output}`);
        assert.equal(denied.errorCode, 'MODE_DENIED', `${c.tool} on ${file}: ${denied.output}`);
      }
      assert.equal(exists('made') || exists('copy.txt') || exists('moved.txt'), false, 'nothing is created at the root');
      assert.deepEqual(fs.readdirSync(path.join(ws, 'out-evil')), ['file.txt'], 'nothing is created in out-evil/');
    });
  }

  test('a link inside the scoped folder that points elsewhere in the workspace is denied (checked on the real path)', async () => {
    const denied = await unchanged('notes.txt', () => explore('replace_in_file', { filepath: 'out/link-to-notes.txt', old_text: 'one', new_text: 'ONE' }));
    assert.equal(denied.errorCode, 'MODE_DENIED', denied.output);
  });

  test('apply_diff: a diff that names a file outside the scoped folder is refused even when filepaths lie inside', async () => {
    const diff = diffOf('notes.txt', '@@ -1,2 +1,2 @@', [' one', '-two', '+TWO']);
    const result = await unchanged('notes.txt', () => explore('apply_diff', { diff, filepaths: ['out/diff.txt'] }));
    failed(result, /notes\.txt leads outside the folders this mode may write to/, 'MODE_DENIED');
    assert.equal(read('out/diff.txt'), 'one\nTWO\n');
  });

  test('the scoped folder itself cannot be deleted, moved or made (a write must be strictly inside it)', async () => {
    for (const [tool, args] of [['make_directory', { directory: 'out' }], ['move_file', { source: 'out', destination: 'out-moved' }], ['delete_file', { filepath: 'out' }]] as const) {
      const denied = await explore(tool, args);
      assert.equal(denied.errorCode, 'MODE_DENIED', `${tool}: ${denied.output}`);
    }
    assert.ok(fs.statSync(path.join(ws, 'out')).isDirectory());
  });
});

// ---------------------------------------------------------------------------------------------
describe('toolgate list --tag edit', () => {
  test('lists the ten edit tools, each writing and asking for confirmation', async () => {
    const run: CliRun = await runCli(['list', '--tag', 'edit', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const rows = JSON.parse(run.stdout) as Array<{ name: string; version: string; readOnly: boolean; requiresConfirmation: boolean; tags: string[] }>;
    assert.deepEqual(rows.map((r) => r.name), EDIT_TOOLS);
    for (const row of rows) {
      assert.equal(row.version, '1.0.0');
      assert.equal(row.readOnly, false);
      assert.equal(row.requiresConfirmation, true);
      assert.deepEqual(row.tags, ['edit', 'ported']);
    }
    const text = await runCli(['list', '--tag', 'edit']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.trimEnd().split('\n').length, 1 + EDIT_TOOLS.length);
  });
});

// ---------------------------------------------------------------------------------------------
describe('plain functions behind the tools', () => {
  test('splitLines / spliceLines / joinLines keep every ending and the final-newline convention', () => {
    const model = splitLines('a\r\nb\nc');
    assert.deepEqual(model, { lines: ['a', 'b', 'c'], endings: ['\r\n', '\n', ''] });
    assert.equal(joinLines(spliceLines(model, 3, 0, ['d'], '\r\n')), 'a\r\nb\nc\r\nd');
    assert.equal(joinLines(spliceLines(splitLines('x\n'), 0, 1, [], '\n')), '');
    assert.equal(joinLines(spliceLines(splitLines(''), 0, 0, ['new'], '\n')), 'new\n');
  });

  test('decodeText / encodeText round-trip the supported encodings and refuse the rest', () => {
    for (const bytes of [
      Buffer.from('plain\n'),
      Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\r\n', 'utf16le')]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hé\n', 'utf16le').swap16()]),
    ]) {
      const { text, format } = decodeText(bytes, 'f');
      assert.deepEqual(Buffer.from(encodeText(text, format)), bytes);
    }
    assert.throws(() => decodeText(Buffer.from([0x61, 0x00]), 'f'), /binary/);
    assert.throws(() => decodeText(Buffer.from([0xc3]), 'f'), /not valid UTF-8/);
    assert.equal(detectEol('a\r\nb\r\nc\n'), '\r\n');
    assert.equal(detectEol('a\nb\r\nc\n'), '\n');
    assert.equal(detectEol('no breaks'), '\n');
  });

  test('nearestCandidates ranks the most similar window first', () => {
    const lines = ['function add(a, b) {', '  return a + b;', '}', 'function sub(a, b) {', '  return a - b;', '}'];
    const [best] = nearestCandidates(lines, 'function sub(a, b) {\n  return a-b;\n');
    assert.deepEqual(best && [best.startLine, best.endLine], [4, 5]);
  });

  test('nearestCandidates stays cheap on a minified file (one line of megabytes): it reads at most 10,000 characters of a line', () => {
    // The work is counted, not timed: the long line is a String object that records each read
    // of it, by a slice or whole (any other string method reads it whole, through toString).
    const reads: number[] = [];
    // The text itself, without a read counted (String.prototype.slice reads `this` through toString).
    const text = (line: string): string => String.prototype.valueOf.call(line);
    class CountedLine extends String {
      override slice(start?: number, end?: number): string {
        const part = text(this as unknown as string).slice(start, end);
        reads.push(part.length);
        return part;
      }
      override toString(): string {
        reads.push(this.length);
        return text(this as unknown as string);
      }
      override valueOf(): string {
        return this.toString();
      }
    }
    const minified = new CountedLine('a'.repeat(4_000_000)) as unknown as string;
    const [best] = nearestCandidates([minified, 'function x() {}'], 'function y() {}');
    assert.equal(best?.startLine, 2);
    // Read as its window gains it and again as the window drops it: twice, 10,000 characters each.
    assert.ok(reads.length > 0 && reads.length <= 2, `the long line was read ${reads.length} times`);
    assert.ok(reads.every((n) => n <= 10_000), `characters of the 4,000,000-character line read: ${reads.join(', ')}`);
  });

  test('sectionPaths strips git prefixes only when both sides use them', () => {
    assert.deepEqual(sectionPaths({ oldFileName: 'a/x.txt', newFileName: 'b/x.txt' }), { oldPath: 'x.txt', newPath: 'x.txt' });
    assert.deepEqual(sectionPaths({ oldFileName: '/dev/null', newFileName: 'b/new.txt' }), { oldPath: undefined, newPath: 'new.txt' });
    assert.deepEqual(sectionPaths({ oldFileName: 'x.txt', newFileName: 'x.txt' }), { oldPath: 'x.txt', newPath: 'x.txt' });
    assert.deepEqual(sectionPaths({ oldFileName: 'a/../../tmp/evil', newFileName: 'b/../../tmp/evil' }), { oldPath: '../../tmp/evil', newPath: '../../tmp/evil' });
  });
});
