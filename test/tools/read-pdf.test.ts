/**
 * read_pdf: the plain function ({@link readPdf}, no worker) and calls through a real
 * ToolExecutor (worker pool) on PDFs generated here with pdf-lib, plus the committed encrypted
 * fixtures of test/fixtures/pdf (made once with qpdf; see the README there).
 *
 * Case ids (P1, P2, P4) refer to the path-safety cases of the security checklist.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { ToolExecutionError, ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { readPdf, READ_PDF_MAX_CHARS, type ReadPdfOptions } from '../../tools/read-pdf.tool.js';
import { REPO_ROOT, callsTo, fixtureRegistry, runCli, tempWorkspace, assertTraversal } from '../helpers.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/pdf');
/** The closing note of a pass that stopped early; group 1 is the page to start the next pass at. */
const NEXT_PASS = /^\[read_pdf: stopped after page (\d+) of (\d+) \((max_pages|max_chars=\d+)\); call again with start_page=(\d+)\]$/m;

let tmp: ReturnType<typeof tempWorkspace>;
let ws: string;
let workspace: Workspace;
let executor: ToolExecutor;

/** The text drawn on page `n` of the 60-page document: a heading, a marker line and filler. */
function sixtyPageLines(n: number): string[] {
  return [`Report page ${n}`, `marker P${n}-START`, 'The quick brown fox jumps over the lazy dog, again and again.', `marker P${n}-END`];
}

/** Draw `pages` (each a list of lines) as text, one line per drawText, top down. */
async function textPdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font: PDFFont = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 11, size: 8, font }));
  }
  return doc.save();
}

/** CRC-32 of PNG chunks. */
function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A small RGB PNG of a diagonal gradient: enough for pdf-lib to embed. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.fill((x + y) * 4, y * (width * 3 + 1) + 1 + x * 3, y * (width * 3 + 1) + 4 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PDF whose pages are given as text lines, or `'image'` for a page with only an embedded PNG. */
async function mixedPdf(pages: Array<string[] | 'image'>): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const image = await doc.embedPng(png(32, 32));
  for (const content of pages) {
    const page = doc.addPage([300, 400]);
    if (content === 'image') page.drawImage(image, { x: 50, y: 50, width: 200, height: 300 });
    else content.forEach((line, i) => page.drawText(line, { x: 20, y: 360 - i * 14, size: 10, font }));
  }
  return doc.save();
}

/** Write a file inside the workspace (test set-up, not through the tool). */
function put(rel: string, content: string | Uint8Array): string {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** Call the plain function; returns the output and the notes it made. */
async function read(filepath: string, options: ReadPdfOptions = {}): Promise<{ output: string; notes: string[] }> {
  const notes: string[] = [];
  const output = await readPdf(workspace, filepath, options, (text) => notes.push(text));
  return { output, notes };
}

/** Assert that the plain function refuses with a ToolExecutionError of `code` whose message matches. */
async function assertRefused(filepath: string, options: ReadPdfOptions, message: RegExp, code = 'TOOL_ERROR'): Promise<void> {
  await assert.rejects(read(filepath, options), (error: unknown) => {
    assert.ok(error instanceof ToolExecutionError, `${filepath}: expected a ToolExecutionError, got ${String(error)}`);
    assert.equal(error.code, code, `${filepath}: error code`);
    assert.match(error.message, message);
    return true;
  });
}

const callTool = callsTo(() => executor);
/** Run one read_pdf call through the executor. */
function call(args: Record<string, unknown>): Promise<ToolExecutionResult> {
  return callTool('read_pdf', args);
}

/** The page numbers of the `--- page N of M ---` headers, in order. */
function pagesShown(output: string): number[] {
  return [...output.matchAll(/^--- page (\d+) of \d+ ---$/gm)].map((m) => Number(m[1]));
}

/** Assert that a call throws PathTraversalError (code PATH_TRAVERSAL) and carries nothing of the file outside. */
before(async () => {
  tmp = tempWorkspace();
  ws = tmp.ws;
  workspace = new Workspace(ws);
  executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: ws });

  put('docs/three.pdf', await textPdf([
    ['First page heading', 'café, Größe and “quotes” survive'],
    ['Second page heading', 'line two of page two'],
    ['Third page heading'],
  ]));
  put('docs/sixty.pdf', await textPdf(Array.from({ length: 60 }, (_, i) => sixtyPageLines(i + 1))));
  const longLine = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.';
  put('docs/long-page.pdf', await textPdf([['Short page one'], Array.from({ length: 40 }, (_, i) => `${i + 1} ${longLine}`), ['Short page three']]));
  put('docs/scan.pdf', await mixedPdf(['image', 'image']));
  put('docs/mixed.pdf', await mixedPdf([['Text on page one'], 'image', ['Text on page three']]));
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.pdf'))) put(`enc/${name}`, fs.readFileSync(path.join(FIXTURES, name)));
  const three = fs.readFileSync(path.join(ws, 'docs/three.pdf'));
  put('bad/truncated.pdf', three.subarray(0, 300));
  put('bad/header-and-garbage.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x5a)]));
  put('bad/not-a-pdf.pdf', 'Just some text, saved with a .pdf name.\n');
  put('bad/empty.pdf', '');
  fs.mkdirSync(path.join(ws, 'bad/folder.pdf'), { recursive: true });

  // Outside the workspace: a real PDF each in the evil sibling and in outside/.
  const secret = await textPdf([['OUTSIDE SECRET']]);
  fs.writeFileSync(path.join(tmp.root, 'proj-evil', 'x.pdf'), secret);
  fs.writeFileSync(path.join(tmp.outside, 'x.pdf'), secret);
  fs.symlinkSync(path.join(tmp.outside, 'x.pdf'), path.join(ws, 'link-outside.pdf'));
});

after(async () => {
  await executor?.close();
  tmp?.cleanup();
});

describe('read_pdf: reading', () => {
  test('returns page-numbered text of every page, lines as drawn', async () => {
    const { output, notes } = await read('docs/three.pdf');
    assert.equal(
      output,
      '--- page 1 of 3 ---\nFirst page heading\ncafé, Größe and “quotes” survive\n\n' +
        '--- page 2 of 3 ---\nSecond page heading\nline two of page two\n\n' +
        '--- page 3 of 3 ---\nThird page heading',
    );
    assert.deepEqual(notes, [], 'a pass that reaches the last page makes no note');
  });

  test('start_page and max_pages select a range, and the note names the next page', async () => {
    const { output, notes } = await read('docs/three.pdf', { startPage: 2, maxPages: 1 });
    assert.equal(output, '--- page 2 of 3 ---\nSecond page heading\nline two of page two');
    assert.deepEqual(notes, ['[read_pdf: stopped after page 2 of 3 (max_pages); call again with start_page=3]']);
  });

  test('acceptance: reads a 60-page generated PDF in two passes guided by its own note', async () => {
    const first = await call({ filepath: 'docs/sixty.pdf' });
    assert.equal(first.success, true, first.output);
    assert.deepEqual(pagesShown(first.output), Array.from({ length: 40 }, (_, i) => i + 1), 'the first pass shows pages 1-40 (max_pages 40)');
    const note = NEXT_PASS.exec(first.output);
    assert.ok(note, `the first pass ends with a note naming the next start_page:\n${first.output.slice(-300)}`);
    assert.ok(first.output.endsWith(note[0]), 'the note is the last line of the output');
    assert.equal(note[0], '[read_pdf: stopped after page 40 of 60 (max_pages); call again with start_page=41]');

    const second = await call({ filepath: 'docs/sixty.pdf', start_page: Number(note[4]) });
    assert.equal(second.success, true, second.output);
    assert.deepEqual(pagesShown(second.output), Array.from({ length: 20 }, (_, i) => i + 41), 'the second pass shows pages 41-60');
    assert.equal(NEXT_PASS.exec(second.output), null, 'the last pass makes no note');

    const text = `${first.output}\n${second.output}`;
    for (let n = 1; n <= 60; n++) {
      assert.equal(text.split(`--- page ${n} of 60 ---\n${sixtyPageLines(n).join('\n')}`).length, 2, `page ${n} appears whole, exactly once`);
    }
  });

  test('max_chars: pages stay whole, each pass fits, and following the notes reads every page once', async () => {
    const maxChars = 1000;
    const seen: number[] = [];
    let start = 1;
    let passes = 0;
    for (;;) {
      const { output, notes } = await read('docs/sixty.pdf', { startPage: start, maxChars });
      passes++;
      assert.ok(output.length <= maxChars, `pass ${passes}: ${output.length} characters, over max_chars`);
      const shown = pagesShown(output);
      assert.equal(shown[0], start, `pass ${passes} starts at the start_page it was given`);
      for (const n of shown) assert.ok(output.includes(sixtyPageLines(n).join('\n')), `page ${n} is whole`);
      seen.push(...shown);
      if (notes.length === 0) break;
      const note = NEXT_PASS.exec(notes.join('\n'));
      assert.ok(note, `pass ${passes}: ${notes.join('\n')}`);
      assert.equal(note[3], `max_chars=${maxChars}`);
      assert.equal(Number(note[1]), shown.at(-1), 'the note names the last page shown');
      start = Number(note[4]);
      assert.equal(start, Number(note[1]) + 1);
      assert.ok(passes < 60, 'the passes make progress');
    }
    assert.ok(passes > 2, `max_chars=${maxChars} takes more than two passes (took ${passes})`);
    assert.deepEqual(seen, Array.from({ length: 60 }, (_, i) => i + 1), 'every page exactly once, in order');
  });

  test('a page longer than max_chars: stopped before it, then cut when it is the first page of a pass', async () => {
    const before = await read('docs/long-page.pdf', { maxChars: 1000 });
    assert.equal(before.output, '--- page 1 of 3 ---\nShort page one');
    assert.deepEqual(before.notes, ['[read_pdf: stopped after page 1 of 3 (max_chars=1000); call again with start_page=2]']);

    const cut = await read('docs/long-page.pdf', { startPage: 2, maxChars: 1000 });
    assert.equal(cut.output.length, 1000, 'the first page of a pass is cut to max_chars');
    assert.ok(cut.output.startsWith('--- page 2 of 3 ---\n1 Lorem ipsum'));
    assert.equal(cut.notes.length, 1);
    assert.match(cut.notes[0]!, /^\[read_pdf: page 2 alone is longer than max_chars=1000 \(\d+ characters with its header\); showed its first 1000; call again with start_page=3 to go on, or call again with a larger max_chars \(at most 100000\) to see all of page 2\]$/);

    const whole = await read('docs/long-page.pdf', { startPage: 2, maxChars: 10_000 });
    assert.match(whole.output, /\n40 Lorem ipsum[^\n]*\n\n--- page 3 of 3 ---\nShort page three$/);
    assert.deepEqual(whole.notes, []);
  });

  test('image-only PDF: says there is no extractable text and no OCR (a result, not an error)', async () => {
    const { output, notes } = await read('docs/scan.pdf');
    assert.equal(
      output,
      'docs/scan.pdf: pages 1-2 of 2 have no extractable text (no text layer: probably scanned or image-only). ' +
        'read_pdf does no OCR, so it cannot read them.',
    );
    assert.deepEqual(notes, []);

    const one = await read('docs/scan.pdf', { startPage: 2 });
    assert.match(one.output, /^docs\/scan\.pdf: page 2 of 2 has no extractable text .*no OCR/);
  });

  test('a page without text among text pages is marked, the others read', async () => {
    const { output } = await read('docs/mixed.pdf');
    assert.equal(
      output,
      '--- page 1 of 3 ---\nText on page one\n\n' +
        '--- page 2 of 3 ---\n[no extractable text on this page: it may be a scanned image; read_pdf does no OCR]\n\n' +
        '--- page 3 of 3 ---\nText on page three',
    );
  });

  test('encrypted with an empty user password (AES-256 and RC4): opens', async () => {
    for (const name of ['encrypted-empty-user-password.pdf', 'encrypted-empty-user-password-rc4.pdf']) {
      const { output } = await read(`enc/${name}`);
      assert.equal(output, '--- page 1 of 2 ---\nEncrypted fixture page 1\n\n--- page 2 of 2 ---\nEncrypted fixture page 2', name);
    }
  });
});

describe('read_pdf: failures', () => {
  test('encrypted with a user password: a clear "encrypted" error', async () => {
    await assertRefused('enc/encrypted-user-password.pdf', {}, /^enc\/encrypted-user-password\.pdf is encrypted and needs a password .*Ask the user for an unencrypted copy\.$/);
  });

  test('corrupt and truncated files: a clear error, not a crash', async () => {
    await assertRefused('bad/truncated.pdf', {}, /^bad\/truncated\.pdf is damaged or truncated and cannot be read as a PDF/);
    await assertRefused('bad/header-and-garbage.pdf', {}, /^bad\/header-and-garbage\.pdf is damaged or truncated/);
  });

  test('a file that is not a PDF, an empty file, a folder, a missing file', async () => {
    await assertRefused('bad/not-a-pdf.pdf', {}, /^bad\/not-a-pdf\.pdf is not a PDF \(it has no %PDF- header\)/);
    await assertRefused('bad/empty.pdf', {}, /^bad\/empty\.pdf is empty \(0 bytes\)/);
    await assertRefused('bad/folder.pdf', {}, /is a folder/);
    await assertRefused('bad/missing.pdf', {}, /bad\/missing\.pdf does not exist/);
  });

  test('start_page past the last page names the page count', async () => {
    await assertRefused('docs/three.pdf', { startPage: 4 }, /^start_page=4 is past the end: docs\/three\.pdf has 3 pages\.$/);
  });

  test('counts out of range (callers other than the executor): INVALID_ARGUMENTS', async () => {
    await assertRefused('docs/three.pdf', { startPage: 0 }, /start_page must be a whole number/, 'INVALID_ARGUMENTS');
    await assertRefused('docs/three.pdf', { maxPages: 1.5 }, /max_pages must be a whole number/, 'INVALID_ARGUMENTS');
    await assertRefused('docs/three.pdf', { maxChars: READ_PDF_MAX_CHARS + 1 }, /max_chars must be a whole number from 100 to 100000/, 'INVALID_ARGUMENTS');
  });

  test('the output cap, when lower than max_chars, bounds the pass and is named in the note', async () => {
    const { output, notes } = await read('docs/sixty.pdf', { maxChars: 5000, outputChars: 700 });
    assert.ok(output.length <= 700);
    assert.match(notes[0] ?? '', /\(the output limit of 700 characters\); call again with start_page=\d+\]$/);
  });

  test('an aborted signal stops the call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await assert.rejects(read('docs/sixty.pdf', { signal: controller.signal }), /stop now/);
  });
});

describe('read_pdf: through the executor (worker pool)', () => {
  test('success: output with the note after it, read-only, version 1.0.0', async () => {
    const result = await call({ filepath: 'docs/three.pdf', max_pages: 2 });
    assert.equal(result.success, true, result.output);
    assert.equal(result.tool, 'read_pdf');
    assert.equal(result.version, '1.0.0');
    assert.equal(
      result.output,
      '--- page 1 of 3 ---\nFirst page heading\ncafé, Größe and “quotes” survive\n\n--- page 2 of 3 ---\nSecond page heading\nline two of page two\n' +
        '[read_pdf: stopped after page 2 of 3 (max_pages); call again with start_page=3]',
    );
    const tool = executor.registry.get('read_pdf');
    assert.ok(tool, 'read_pdf is registered');
    assert.equal(tool.readOnly, true);
    assert.equal(tool.timeoutMs, 30_000);
  });

  test('every documented failure is a TOOL_ERROR result the model can read', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['encrypted', { filepath: 'enc/encrypted-user-password.pdf' }, /is encrypted and needs a password/],
      ['truncated', { filepath: 'bad/truncated.pdf' }, /is damaged or truncated/],
      ['not a PDF', { filepath: 'bad/not-a-pdf.pdf' }, /is not a PDF/],
      ['empty', { filepath: 'bad/empty.pdf' }, /is empty \(0 bytes\)/],
      ['missing', { filepath: 'bad/missing.pdf' }, /does not exist/],
      ['past the end', { filepath: 'docs/three.pdf', start_page: 9 }, /start_page=9 is past the end/],
    ];
    for (const [label, args, message] of cases) {
      const result = await call(args);
      assert.equal(result.success, false, label);
      assert.equal(result.errorCode, 'TOOL_ERROR', label);
      assert.match(result.error ?? '', message, label);
      assert.match(result.output, /^Error: /, label);
    }
    const scan = await call({ filepath: 'docs/scan.pdf' });
    assert.equal(scan.success, true, 'an image-only PDF is read, and says it has no text');
    assert.match(scan.output, /no extractable text .*no OCR/);
  });

  test('a timeout that ends a worker while it loads pdf.js is a TIMEOUT result; the pool then reads again', async () => {
    // A fresh executor: its workers are cold, so both timeouts land while the worker starts or
    // imports pdf.js (a few hundred milliseconds), whatever the speed of the machine.
    const cold = new ToolExecutor(executor.registry, { workspaceRoot: ws });
    try {
      for (const timeoutMs of [1, 30]) {
        const result = await cold.execute({ name: 'read_pdf', arguments: { filepath: 'docs/sixty.pdf' } }, { timeoutMs });
        assert.equal(result.success, false, `timeoutMs ${timeoutMs}`);
        assert.equal(result.errorCode, 'TIMEOUT', `timeoutMs ${timeoutMs}`);
      }
      const after = await cold.execute({ name: 'read_pdf', arguments: { filepath: 'docs/three.pdf', start_page: 3 } });
      assert.equal(after.success, true, after.output);
      assert.equal(after.output, '--- page 3 of 3 ---\nThird page heading');
    } finally {
      await cold.close();
    }
  });

  test('arguments outside the schema bounds are INVALID_ARGUMENTS', async () => {
    for (const args of [
      { filepath: 'docs/three.pdf', start_page: 0 },
      { filepath: 'docs/three.pdf', max_pages: 0 },
      { filepath: 'docs/three.pdf', max_pages: 501 },
      { filepath: 'docs/three.pdf', max_chars: 99 },
      { filepath: 'docs/three.pdf', max_chars: 100_001 },
      { filepath: 'docs/three.pdf', start_page: 1.5 },
      { filepath: 'docs/three.pdf', password: '' },
      {},
    ]) {
      const result = await call(args);
      assert.equal(result.success, false, JSON.stringify(args));
      assert.equal(result.errorCode, 'INVALID_ARGUMENTS', JSON.stringify(args));
    }
  });

  test('P1: a sibling whose name starts with the workspace name is outside', async () => {
    await assertTraversal(call({ filepath: '../proj-evil/x.pdf' }), 'read_pdf ../proj-evil/x.pdf', 'OUTSIDE SECRET');
    await assertTraversal(call({ filepath: `${ws}-evil/x.pdf` }), 'read_pdf <ws>-evil/x.pdf', 'OUTSIDE SECRET');
    await assertTraversal(read('../proj-evil/x.pdf'), 'readPdf ../proj-evil/x.pdf', 'OUTSIDE SECRET');
  });

  test('P2: a symbolic link inside the workspace to a PDF outside is refused', async () => {
    await assertTraversal(call({ filepath: 'link-outside.pdf' }), 'read_pdf link-outside.pdf', 'OUTSIDE SECRET');
    await assertTraversal(read('link-outside.pdf'), 'readPdf link-outside.pdf', 'OUTSIDE SECRET');
  });

  test('P4: climbing and absolute paths are refused; the empty path is INVALID_PATH', async () => {
    await assertTraversal(call({ filepath: '../outside/x.pdf' }), 'read_pdf ../outside/x.pdf', 'OUTSIDE SECRET');
    await assertTraversal(call({ filepath: 'docs/../../outside/x.pdf' }), 'read_pdf docs/../../outside/x.pdf', 'OUTSIDE SECRET');
    await assertTraversal(call({ filepath: path.join(tmp.outside, 'x.pdf') }), 'read_pdf <outside>/x.pdf', 'OUTSIDE SECRET');
    await assertTraversal(call({ filepath: '/etc/passwd' }), 'read_pdf /etc/passwd', 'OUTSIDE SECRET');
    await assertTraversal(read('../outside/x.pdf'), 'readPdf ../outside/x.pdf', 'OUTSIDE SECRET');
    const empty = await call({ filepath: '' });
    assert.equal(empty.success, false);
    assert.equal(empty.errorCode, 'INVALID_PATH');
  });
});

describe('read_pdf: the toolgate command', { concurrency: true }, () => {
  test('toolgate list shows read_pdf as a read-only builtin', async () => {
    const run = await runCli(['list']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^read_pdf\s+1\.0\.0\s+file_read\s+read\s+no\s+-\s+fs,builtin\s+Read the text of a PDF file/m);
  });

  test('toolgate call read_pdf reads a PDF end to end', async () => {
    const run = await runCli(['call', 'read_pdf', '{"filepath":"docs/three.pdf","start_page":3}', '--workspace', ws]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), '--- page 3 of 3 ---\nThird page heading');
  });
});
