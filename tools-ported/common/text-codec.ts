/**
 * Text files as the edit tools see them: bytes decoded with the file's own encoding, and the
 * encoding and line endings remembered so that an edit writes back exactly the bytes it did
 * not change. Plain functions, no side effects at import (the loader imports every module
 * under tools-ported/).
 *
 * Supported: UTF-8 without a byte-order mark (the default for new files), UTF-8 with one,
 * UTF-16 LE and BE with a byte-order mark, UTF-32 LE and BE with a byte-order mark. Anything
 * else (NUL bytes in a UTF-8 file, invalid UTF-8, an odd UTF-16 length) is refused as binary
 * or unsupported, never guessed: a wrong guess would rewrite bytes the caller did not ask to
 * change.
 *
 * @module
 */
import iconv from 'iconv-lite';
import { ToolExecutionError } from '../../src/tool.js';

/** Encodings the edit tools read and write back unchanged. */
type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

/** A line ending. */
export type Eol = '\n' | '\r\n';

/** How a text file is stored: its encoding and its dominant line ending. */
export interface TextFormat {
  encoding: TextEncodingName;
  /** The line ending most of its lines use (`\n` for a file without line breaks). */
  eol: Eol;
}

/** A new file: UTF-8 without a byte-order mark, LF line endings. */
export const DEFAULT_TEXT_FORMAT: Readonly<TextFormat> = Object.freeze({ encoding: 'utf-8', eol: '\n' });

/** Largest file the edit tools load, in bytes (32 MiB): an edit holds a few copies in memory. */
export const MAX_EDIT_BYTES = 32 * 1024 * 1024;

const BOMS: ReadonlyArray<{ encoding: TextEncodingName; bytes: readonly number[] }> = [
  // UTF-32 LE before UTF-16 LE: FF FE 00 00 starts both.
  { encoding: 'utf-32le', bytes: [0xff, 0xfe, 0x00, 0x00] },
  { encoding: 'utf-32be', bytes: [0x00, 0x00, 0xfe, 0xff] },
  { encoding: 'utf-8-bom', bytes: [0xef, 0xbb, 0xbf] },
  { encoding: 'utf-16le', bytes: [0xff, 0xfe] },
  { encoding: 'utf-16be', bytes: [0xfe, 0xff] },
];

const ICONV_NAMES: Record<Exclude<TextEncodingName, 'utf-8' | 'utf-8-bom'>, string> = {
  'utf-16le': 'utf16le',
  'utf-16be': 'utf16be',
  'utf-32le': 'utf32le',
  'utf-32be': 'utf32be',
};

/** Readable name of an encoding, for tool output ("UTF-16 LE with BOM"). */
function describeEncoding(encoding: TextEncodingName): string {
  switch (encoding) {
    case 'utf-8':
      return 'UTF-8';
    case 'utf-8-bom':
      return 'UTF-8 with BOM';
    default:
      return `${encoding.slice(0, 6).toUpperCase()} ${encoding.slice(6).toUpperCase()} with BOM`;
  }
}

/** Readable name of a text format ("UTF-8, CRLF"). */
export function describeFormat(format: TextFormat): string {
  return `${describeEncoding(format.encoding)}, ${format.eol === '\r\n' ? 'CRLF' : 'LF'}`;
}

/** The encoding a byte-order mark announces, and the mark's length; `undefined` without one. */
function detectBom(bytes: Uint8Array): { encoding: TextEncodingName; length: number } | undefined {
  for (const bom of BOMS) {
    if (bytes.length >= bom.bytes.length && bom.bytes.every((b, i) => bytes[i] === b)) {
      return { encoding: bom.encoding, length: bom.bytes.length };
    }
  }
  return undefined;
}

/**
 * The dominant line ending of `text`: CRLF when at least as many line breaks are CRLF as bare
 * LF (and there is at least one), else LF.
 */
export function detectEol(text: string): Eol {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > 0 && crlf >= lf ? '\r\n' : '\n';
}

/** `text` with every line break (LF or CRLF) written as `eol`. */
export function toEol(text: string, eol: Eol): string {
  return text.replace(/\r?\n/g, eol);
}

/**
 * Decode a file's bytes.
 * @param shown - the path as the caller gave it, for messages.
 * @throws ToolExecutionError for binary content, invalid UTF-8, or bytes that would not be
 *   written back identically.
 */
export function decodeText(bytes: Uint8Array, shown: string): { text: string; format: TextFormat } {
  const bom = detectBom(bytes);
  const encoding = bom?.encoding ?? 'utf-8';
  const body = bytes.subarray(bom?.length ?? 0);
  let text: string;
  if (encoding === 'utf-8' || encoding === 'utf-8-bom') {
    if (encoding === 'utf-8' && body.subarray(0, 65536).includes(0)) {
      throw new ToolExecutionError(`${shown} looks like a binary file (it contains NUL bytes); the edit tools change text files only.`);
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      throw new ToolExecutionError(
        `${shown} is not valid UTF-8 and has no UTF-16 or UTF-32 byte-order mark: it is binary, or in an encoding the edit tools do not support ` +
          '(UTF-8 with or without BOM, UTF-16 or UTF-32 with BOM); it was not changed.',
      );
    }
  } else {
    const unit = encoding.startsWith('utf-16') ? 2 : 4;
    if (body.length % unit !== 0) {
      throw new ToolExecutionError(`${shown} starts with a ${describeEncoding(encoding)} mark but its length is not a whole number of ${unit}-byte units; it looks binary and was not changed.`);
    }
    text = iconv.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), ICONV_NAMES[encoding], { stripBOM: false });
  }
  if (text.includes('\u0000')) {
    throw new ToolExecutionError(`${shown} looks like a binary file (it contains NUL characters); the edit tools change text files only.`);
  }
  const format: TextFormat = { encoding, eol: detectEol(text) };
  // The guarantee the edit tools rest on: what was read is written back byte for byte.
  if (!Buffer.from(encodeText(text, format)).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    throw new ToolExecutionError(`${shown} holds bytes that do not survive decoding as ${describeEncoding(encoding)} (invalid sequences); it looks binary and was not changed.`);
  }
  return { text, format };
}

/** Encode `text` in `format.encoding`, with the byte-order mark the encoding carries. */
export function encodeText(text: string, format: Pick<TextFormat, 'encoding'>): Uint8Array {
  switch (format.encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8');
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    default: {
      const bom = BOMS.find((b) => b.encoding === format.encoding)!;
      return Buffer.concat([Buffer.from(bom.bytes), iconv.encode(text, ICONV_NAMES[format.encoding], { addBOM: false })]);
    }
  }
}
