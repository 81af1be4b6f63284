import { fileURLToPath } from 'node:url';
import { loadOptional } from '../src/internal.js';
import { readFileInside, tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../src/tool.js';

/** Defaults of read_pdf's arguments. */
export const READ_PDF_DEFAULTS = Object.freeze({ startPage: 1, maxPages: 40, maxChars: 20_000 });

/** Largest `max_chars` accepted; also the tool's output cap, so a pass is never cut by the executor. */
export const READ_PDF_MAX_CHARS = 100_000;

/** Largest PDF read_pdf opens, in bytes (100 MiB): the whole file is held in memory while it is read. */
export const READ_PDF_MAX_BYTES = 100 * 1024 * 1024;

/** Arguments of read_pdf. */
export interface ReadPdfInput {
  /**
   * Path of the PDF file, relative to the workspace root (or absolute inside the workspace).
   * @format workspace-path
   */
  filepath: string;
  /**
   * First page to read, counting from 1 (physical pages, not printed page labels). To go on
   * after a pass that stopped early, use the start_page its closing note names.
   * @TJS-type integer
   * @minimum 1
   * @default 1
   */
  start_page?: number;
  /**
   * Most pages to read in this pass, 1 to 500.
   * @TJS-type integer
   * @minimum 1
   * @maximum 500
   * @default 40
   */
  max_pages?: number;
  /**
   * Most characters of text to return in this pass, page headers included, 100 to 100000.
   * Pages are returned whole: the pass stops before a page that does not fit, except that a
   * first page longer than this is cut to it.
   * @TJS-type integer
   * @minimum 100
   * @maximum 100000
   * @default 20000
   */
  max_chars?: number;
}

/**
 * Read the text of a PDF file in the workspace, page by page, each page under a
 * "--- page N of M ---" header. Use it for PDF documents (papers, reports, manuals); use
 * read_file for plain text files. Long PDFs are read in passes: when a pass stops at max_pages
 * or max_chars, its last line names the start_page to call again with. Only the text layer is
 * read: scanned or image-only pages have no extractable text (there is no OCR), and layout,
 * tables and images are not reproduced. Encrypted PDFs open only when their user password is
 * empty.
 */
@tool({
  name: 'read_pdf',
  version: '1.0.0',
  kind: 'file_read',
  readOnly: true,
  tags: ['fs', 'builtin'],
  timeoutMs: 30_000,
  maxOutputLength: READ_PDF_MAX_CHARS,
})
export class ReadPdfTool implements Tool<ReadPdfInput, string> {
  run(args: ReadPdfInput, ctx: ToolContext): Promise<string> {
    return readPdf(
      ctx.workspace,
      args.filepath,
      { startPage: args.start_page, maxPages: args.max_pages, maxChars: args.max_chars, outputChars: ctx.maxOutputLength, signal: ctx.signal },
      (text) => ctx.note(text),
    );
  }
}

/** Options of {@link readPdf}; each defaults as read_pdf's argument of the same name. */
export interface ReadPdfOptions {
  /** First page, from 1. Default 1. */
  startPage?: number | undefined;
  /** Most pages in this pass. Default 40. */
  maxPages?: number | undefined;
  /** Most characters of output in this pass, page headers included. Default 20000. */
  maxChars?: number | undefined;
  /** Characters the model will see (the tool's output cap; `<= 0`: no cap). Lowers `maxChars` when smaller. */
  outputChars?: number | undefined;
  /** Stops reading between pages when aborted. */
  signal?: AbortSignal | undefined;
}

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<Pdfjs['getDocument']>['promise']>;

/** pdf.js and the folders of its data files, loaded once per thread on first use. */
let pdfjsLoaded: Promise<{ pdfjs: Pdfjs; standardFontDataUrl: string; cMapUrl: string }> | undefined;

/**
 * Load pdf.js on first use, not when the module loads: every worker thread loads every tool
 * module, and pdf.js takes a few hundred milliseconds to import.
 *
 * The legacy build is the one pdf.js supports on Node (the modern build needs DOMMatrix and
 * newer built-ins than Node 20 has). On Node pdf.js never starts a worker of its own; it runs
 * its worker code in this thread (its "fake worker"). Importing that code here and handing it
 * over as `globalThis.pdfjsWorker` (pdf.js's documented hook) loads it once, up front, from
 * the same package, instead of by a relative URL when the first document opens. pdfjs-dist
 * is an optional peer dependency: without it the call ends `PACKAGE_UNAVAILABLE`, naming it.
 */
function loadPdfjs(): Promise<{ pdfjs: Pdfjs; standardFontDataUrl: string; cMapUrl: string }> {
  pdfjsLoaded ??= (async () => {
    const [pdfjs, worker] = await Promise.all([
      loadOptional<Pdfjs>('pdfjs-dist/legacy/build/pdf.mjs', 'read_pdf'),
      // pdfjs-dist ships no types for its worker module
      loadOptional<{ WorkerMessageHandler: unknown }>('pdfjs-dist/legacy/build/pdf.worker.mjs', 'read_pdf'),
    ]);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
    // On Node pdf.js reads these data files with fs; the paths must end with a slash.
    const dataDir = (name: string) => fileURLToPath(new URL(`../../${name}/`, import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs')));
    return { pdfjs, standardFontDataUrl: dataDir('standard_fonts'), cMapUrl: dataDir('cmaps') };
  })();
  pdfjsLoaded.catch(() => (pdfjsLoaded = undefined));
  return pdfjsLoaded;
}

/** A whole number of at least `min` (and at most `max`), or the default; otherwise an error naming the argument. */
function countArgument(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ToolExecutionError(`${name} must be a whole number from ${min} to ${max}; got ${value}.`, 'INVALID_ARGUMENTS');
  }
  return value;
}

/** Remove control characters (pdf.js passes on what broken font encodings map to), trailing blanks and runs of blank lines. */
function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/[ \t\u00A0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The text of one page, lines joined where pdf.js saw a line end; `''` when the page has no text layer. */
async function pageText(doc: PdfDocument, pageNumber: number): Promise<string> {
  const page = await doc.getPage(pageNumber);
  try {
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if ('str' in item) text += item.hasEOL ? `${item.str}\n` : item.str;
    }
    return cleanText(text);
  } finally {
    page.cleanup();
  }
}

/** Do not end a cut between the two halves of a surrogate pair. */
function cutAt(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/** The error the model sees when pdf.js cannot open the file. */
function openError(filepath: string, hasHeader: boolean, error: unknown): ToolExecutionError {
  // pdf.js rebuilds its errors from plain data; they are told apart by name, not class.
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown };
  const detail = typeof message === 'string' ? message : String(error);
  if (name === 'PasswordException') {
    return new ToolExecutionError(
      `${filepath} is encrypted and needs a password (it does not open with an empty user password); ` +
        'read_pdf cannot read it. Ask the user for an unencrypted copy.',
      'TOOL_ERROR',
      { cause: error },
    );
  }
  if (!hasHeader) {
    return new ToolExecutionError(
      `${filepath} is not a PDF (it has no %PDF- header); if it is text, read it with read_file.`,
      'TOOL_ERROR',
      { cause: error },
    );
  }
  return new ToolExecutionError(
    `${filepath} is damaged or truncated and cannot be read as a PDF (${detail}).`,
    'TOOL_ERROR',
    { cause: error },
  );
}

/** Page numbers as "page 3" or "pages 3-7". */
function pageRange(first: number, last: number): string {
  return first === last ? `page ${first}` : `pages ${first}-${last}`;
}

/**
 * Read the text of a PDF, one pass of at most `maxPages` pages and `maxChars` characters,
 * each page under a `--- page N of M ---` header.
 *
 * Pages are returned whole. A pass stops before the first page that would take the output past
 * the character budget (the smaller of `maxChars` and `outputChars`), so the next pass starts
 * exactly at that page; the one exception is the first page of a pass, which is cut to the
 * budget when it alone is longer (otherwise a long page could never be read), and the next
 * pass starts after it. Whenever a pass stops before the last page, `note` receives
 * "[read_pdf: stopped after page P of M (...); call again with start_page=P+1]".
 *
 * A page without text (a scan, an image) is shown as such; a pass in which no page has text
 * returns one line that says so (read_pdf does no OCR). A page pdf.js fails on is shown with
 * the failure and the pass goes on.
 *
 * Encrypted PDFs open when their user password is empty (pdf.js tries the empty password
 * itself); others are refused.
 *
 * @throws ToolExecutionError (code `TOOL_ERROR`) for missing, empty, oversized, encrypted,
 *   damaged and non-PDF files and a start page past the end; (code `INVALID_ARGUMENTS`) for
 *   counts out of range.
 * @throws PathTraversalError for paths outside the workspace.
 */
export async function readPdf(
  workspace: Workspace,
  filepath: string,
  options: ReadPdfOptions,
  note: (text: string) => void,
): Promise<string> {
  const startPage = countArgument('start_page', options.startPage, READ_PDF_DEFAULTS.startPage, 1, Number.MAX_SAFE_INTEGER);
  const maxPages = countArgument('max_pages', options.maxPages, READ_PDF_DEFAULTS.maxPages, 1, 500);
  const maxChars = countArgument('max_chars', options.maxChars, READ_PDF_DEFAULTS.maxChars, 100, READ_PDF_MAX_CHARS);
  const outputChars = options.outputChars !== undefined && options.outputChars > 0 ? options.outputChars : Number.POSITIVE_INFINITY;
  const budget = Math.min(maxChars, outputChars);
  const budgetName = budget < maxChars ? `the output limit of ${budget} characters` : `max_chars=${maxChars}`;
  const signal = options.signal;

  const { bytes, size } = await readFileInside(workspace, filepath, READ_PDF_MAX_BYTES);
  if (size > READ_PDF_MAX_BYTES) {
    throw new ToolExecutionError(`${filepath} is ${Math.ceil(size / 2 ** 20)} MiB; read_pdf opens PDFs of up to ${READ_PDF_MAX_BYTES / 2 ** 20} MiB.`);
  }
  if (size === 0) throw new ToolExecutionError(`${filepath} is empty (0 bytes); it is not a PDF.`);
  // Looked at now: pdf.js may take the bytes over (detach them) once it has them.
  const hasHeader = new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).includes('%PDF-');
  signal?.throwIfAborted();

  const { pdfjs, standardFontDataUrl, cMapUrl } = await loadPdfjs();
  const task = pdfjs.getDocument({
    // pdf.js refuses a Buffer; this view shares its memory.
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    standardFontDataUrl,
    cMapUrl,
    cMapPacked: true,
  });
  const stop = () => void task.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let doc: PdfDocument;
    try {
      doc = await task.promise;
    } catch (error) {
      signal?.throwIfAborted();
      throw openError(filepath, hasHeader, error);
    }
    const total = doc.numPages;
    if (startPage > total) {
      throw new ToolExecutionError(`start_page=${startPage} is past the end: ${filepath} has ${total} ${total === 1 ? 'page' : 'pages'}.`);
    }
    const lastWanted = Math.min(total, startPage + maxPages - 1);

    let output = '';
    let lastRead = startPage - 1;
    let withText = 0;
    let stoppedBy: string | undefined;
    for (let n = startPage; n <= lastWanted; n++) {
      signal?.throwIfAborted();
      let text: string;
      try {
        text = await pageText(doc, n);
      } catch (error) {
        signal?.throwIfAborted();
        text = `[page ${n} could not be read: ${error instanceof Error ? error.message : String(error)}]`;
      }
      if (text) withText++;
      const block = `${output ? '\n\n' : ''}--- page ${n} of ${total} ---\n${text || '[no extractable text on this page: it may be a scanned image; read_pdf does no OCR]'}`;
      if (output.length + block.length > budget) {
        if (n === startPage) {
          output = cutAt(block, budget);
          lastRead = n;
          const next = n < total ? `call again with start_page=${n + 1} to go on, or ` : '';
          note(
            `[read_pdf: page ${n} alone is longer than ${budgetName} (${block.length} characters with its header); ` +
              `showed its first ${output.length}; ${next}call again with a larger max_chars (at most ${READ_PDF_MAX_CHARS}) to see all of page ${n}]`,
          );
          stoppedBy = 'cut';
        } else {
          stoppedBy = budgetName;
        }
        break;
      }
      output += block;
      lastRead = n;
    }
    if (stoppedBy === undefined && lastRead < total) stoppedBy = 'max_pages';
    if (stoppedBy !== undefined && stoppedBy !== 'cut') {
      note(`[read_pdf: stopped after page ${lastRead} of ${total} (${stoppedBy}); call again with start_page=${lastRead + 1}]`);
    }
    if (withText === 0 && stoppedBy !== 'cut') {
      const range = pageRange(startPage, lastRead);
      return (
        `${filepath}: ${range} of ${total} ${startPage === lastRead ? 'has' : 'have'} no extractable text ` +
        '(no text layer: probably scanned or image-only). read_pdf does no OCR, so it cannot read them.'
      );
    }
    return output;
  } finally {
    signal?.removeEventListener('abort', stop);
    await task.destroy();
  }
}
