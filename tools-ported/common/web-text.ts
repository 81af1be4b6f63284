/**
 * Turning fetched bytes into text a model can read: decoding by charset (iconv-lite), telling
 * text media types from binary ones, and extracting the readable part of an HTML page
 * (linkedom for the DOM, Mozilla's Readability for the article, turndown for Markdown).
 *
 * linkedom rather than jsdom: jsdom's current major needs Node 22, and linkedom is a small
 * pure-JavaScript DOM that parses quickly in every worker; Readability and turndown only need
 * the standard DOM methods it implements. The three are optional peer dependencies, loaded
 * when the first HTML page is read ({@link readableHtml}).
 *
 * @module
 */
import type { Readability } from '@mozilla/readability';
import iconv from 'iconv-lite';
import type { parseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import { loadOptional } from '../../src/internal.js';
import { looksBinary } from './inspect-fs.js';

/** The packages that read an HTML page, optional peer dependencies of toolgate, named together when one is missing. */
const PAGE_PACKAGES = ['linkedom', '@mozilla/readability', 'turndown'];

interface PageReaders {
  parseHTML: typeof parseHTML;
  Readability: typeof Readability;
  TurndownService: typeof TurndownService;
}

let readersLoaded: Promise<PageReaders> | undefined;

/**
 * linkedom, Readability and turndown, loaded on first use.
 * @throws PackageUnavailableError naming the three when one is not installed.
 */
function pageReaders(): Promise<PageReaders> {
  readersLoaded ??= Promise.all([
    loadOptional<typeof import('linkedom')>('linkedom', 'web_fetch (reading HTML pages)', PAGE_PACKAGES),
    loadOptional<typeof import('@mozilla/readability')>('@mozilla/readability', 'web_fetch (reading HTML pages)', PAGE_PACKAGES),
    loadOptional<{ default: typeof TurndownService }>('turndown', 'web_fetch (reading HTML pages)', PAGE_PACKAGES),
  ]).then(([linkedom, readability, turndown]) => ({ parseHTML: linkedom.parseHTML, Readability: readability.Readability, TurndownService: turndown.default }));
  readersLoaded.catch(() => (readersLoaded = undefined));
  return readersLoaded;
}

/** linkedom's document type (the project builds without the DOM library types). */
type Document = ReturnType<typeof parseHTML>['document'];

/** Media types outside `text/*` that are text all the same. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/json', 'application/xml', 'application/javascript', 'application/x-javascript', 'application/ecmascript',
  'application/yaml', 'application/x-yaml', 'application/toml', 'application/x-toml', 'application/x-ndjson', 'application/csv',
  'application/sql', 'application/graphql', 'application/x-sh', 'application/x-httpd-php', 'application/xhtml+xml',
  'application/x-www-form-urlencoded', 'application/problem+json', 'image/svg+xml',
]);

/** Is `type` (a media type without parameters) text? `undefined` when unknown or absent: sniff the bytes. */
export function isTextMediaType(type: string): boolean | undefined {
  if (type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream') return undefined;
  if (type.startsWith('text/')) return true;
  if (TEXT_APPLICATION_TYPES.has(type) || /\+(json|xml|yaml)$/.test(type)) return true;
  return false;
}

/** Is `type` HTML (or XHTML)? */
export function isHtmlMediaType(type: string): boolean {
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** Does the content look binary (a NUL byte in its first 8 KiB, no UTF-16/32 byte-order mark)? */
export function bytesLookBinary(bytes: Uint8Array): boolean {
  return looksBinary(bytes);
}

/** The charset named by a `<meta charset>` or `<meta http-equiv=content-type>` in the first 2 KiB. */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}

/**
 * Decode bytes as text: a byte-order mark first, then the header's charset, then (for HTML) a
 * meta charset, else UTF-8. Unknown charsets fall back to UTF-8; undecodable bytes become U+FFFD.
 */
export function decodeText(bytes: Uint8Array, headerCharset: string | undefined, html: boolean): { text: string; charset: string } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) return { text: buffer.subarray(3).toString('utf8'), charset: 'utf-8' };
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return { text: iconv.decode(buffer.subarray(2), 'utf-16le'), charset: 'utf-16le' };
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return { text: iconv.decode(buffer.subarray(2), 'utf-16be'), charset: 'utf-16be' };
  let charset = headerCharset ?? (html ? metaCharset(buffer) : undefined) ?? 'utf-8';
  if (!iconv.encodingExists(charset)) charset = 'utf-8';
  return { text: iconv.decode(buffer, charset), charset };
}

/** Control characters other than tab and newline, zero-width and bidirectional-formatting characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Text cleaned for a model: unsafe characters removed, CRLF to LF, at most two blank lines in a row. */
export function cleanPageText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(UNSAFE_CHARS, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{4,}/g, '\n\n\n')
    .trim();
}

/** What {@link readableHtml} extracted. */
export interface ReadablePage {
  /** The page's title ('' when it has none). */
  title: string;
  /** The readable content, Markdown or plain text. */
  content: string;
  /** True when Readability found an article; false when the whole body was converted. */
  article: boolean;
}

/** Elements never worth showing a model. */
const REMOVED = 'script, style, noscript, template, iframe, frame, frameset, object, embed, svg, canvas, link, meta';

/** Make links and image sources absolute against the page's URL (or its `<base href>`). */
function absolutize(document: Document, pageUrl: URL): void {
  let base = pageUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl);
    } catch {
      base = pageUrl;
    }
  }
  for (const [selector, attribute] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute) ?? '';
      if (/^\s*(javascript|vbscript|data):/i.test(value)) {
        element.setAttribute(attribute, attribute === 'src' && /^\s*data:/i.test(value) ? '#inline-image' : '#');
        continue;
      }
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}

function turndown({ TurndownService }: PageReaders): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  service.remove(['script', 'style', 'noscript', 'template'] as TurndownService.TagName[]);
  return service;
}

/**
 * The readable part of an HTML page: Readability's article when it finds one (the main text
 * without navigation, footers and sidebars), else the whole body, as Markdown (turndown) or
 * plain text. Scripts, styles and embedded frames are dropped; links and image sources are
 * made absolute; `javascript:` links and inline `data:` images are neutralised.
 */
export async function readableHtml(html: string, pageUrl: URL, format: 'markdown' | 'text'): Promise<ReadablePage> {
  const readers = await pageReaders();
  const { parseHTML, Readability } = readers;
  const { document } = parseHTML(html);
  for (const element of document.querySelectorAll(REMOVED)) element.remove();
  absolutize(document, pageUrl);
  const pageTitle = (document.querySelector('title')?.textContent ?? '').trim();
  let article: { title?: string | null; content?: string | null; textContent?: string | null } | null = null;
  try {
    article = new Readability(document.cloneNode(true) as never, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const title = cleanPageText((article?.title || pageTitle).replace(/\s+/g, ' '));
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    if (format === 'text') return { title, content: cleanPageText(article.textContent ?? ''), article: true };
    const { document: fragment } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
    return { title, content: cleanPageText(turndown(readers).turndown(fragment.body as unknown as TurndownService.Node)), article: true };
  }
  const body = document.body ?? document.documentElement;
  if (!body) return { title, content: '', article: false };
  if (format === 'text') return { title, content: cleanPageText(body.textContent ?? ''), article: false };
  return { title, content: cleanPageText(turndown(readers).turndown(body as unknown as TurndownService.Node)), article: false };
}
