import path from 'node:path';
import chardet from 'chardet';
import { fileTypeFromBuffer } from 'file-type';
import mimeTypes from 'mime-types';
import { readFileInside, tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { looksBinary } from '../common/inspect-fs.js';

/** Arguments of detect_file_type. */
export interface DetectFileTypeInput {
  /**
   * Path of the file, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
}

/** What detect_file_type reports. */
export interface DetectFileTypeOutput {
  /** The file, relative to the workspace root. */
  filepath: string;
  /** "text", "binary", or "empty" (0 bytes). */
  kind: 'text' | 'binary' | 'empty';
  /**
   * The best guess of the MIME type: the content's magic number, else the extension's type
   * when it agrees with the kind (text or binary), else "text/plain" or
   * "application/octet-stream" ("inode/x-empty" for an empty file).
   */
  mime: string;
  /** The MIME type the content's magic number says (file-type), when it says one. */
  mime_from_content?: string;
  /** The usual extension of that content type (file-type), such as "png". */
  extension_from_content?: string;
  /** The MIME type of the file's extension (mime-types), when it has a known one. */
  mime_from_extension?: string;
  /** For text: the character encoding, such as "UTF-8", "ASCII", "UTF-16LE" or "ISO-8859-1". */
  encoding?: string;
  /** For text: confidence of the encoding, 0 to 100 (100 for a byte-order mark or valid UTF-8). */
  encoding_confidence?: number;
  /** For text: whether the file starts with a byte-order mark. */
  bom?: boolean;
  /** For text: the line endings seen ("lf", "crlf", "cr", "mixed", or "none" for a single line). */
  line_endings?: 'lf' | 'crlf' | 'cr' | 'mixed' | 'none';
  /** Size of the file in bytes. */
  size_bytes: number;
  /** Bytes examined from the start of the file. */
  sampled_bytes: number;
}

/** Bytes read from the start of a file to decide. */
export const DETECT_SAMPLE_BYTES = 64 * 1024;

/**
 * Tell whether a file is text or binary, and its MIME type and, for text, its character
 * encoding, byte-order mark and line endings, from its first 64 KiB: magic numbers through
 * file-type, encodings through chardet, and the extension through mime-types. Use it before
 * reading an unknown file, or to choose how to handle it; use file_info for size and times.
 */
@tool({ name: 'detect_file_type', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 30_000 })
export class DetectFileTypeTool implements Tool<DetectFileTypeInput, DetectFileTypeOutput> {
  run(args: DetectFileTypeInput, ctx: ToolContext): Promise<DetectFileTypeOutput> {
    return detectFileType(ctx.workspace, args.filepath);
  }
}

/** Is a MIME type one whose content is text? */
export function isTextMime(mime: string): boolean {
  return (
    mime.startsWith('text/') ||
    /\+(xml|json)$/.test(mime) ||
    ['application/json', 'application/xml', 'application/javascript', 'application/x-sh', 'application/x-httpd-php', 'application/toml', 'application/yaml', 'application/x-yaml', 'application/sql', 'image/svg+xml'].includes(mime)
  );
}

/** The byte-order mark at the start of `bytes`: its encoding and length. */
function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'UTF-8', length: 3 };
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { encoding: 'UTF-32LE', length: 4 };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { encoding: 'UTF-32BE', length: 4 };
  if (a === 0xff && b === 0xfe) return { encoding: 'UTF-16LE', length: 2 };
  if (a === 0xfe && b === 0xff) return { encoding: 'UTF-16BE', length: 2 };
  return undefined;
}

/** Is `bytes` valid UTF-8, allowing a character cut at the end of a partial sample? */
function isUtf8(bytes: Uint8Array, partial: boolean): boolean {
  let end = bytes.length;
  if (partial) {
    // Drop an incomplete last character (at most 3 bytes of a 4-byte sequence).
    let back = 0;
    while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
    const lead = bytes[end - back - 1];
    if (lead !== undefined && lead >= 0xc0) {
      const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
      if (back + 1 < need) end = end - back - 1;
    }
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/** Share of bytes that are control characters other than the usual whitespace and ESC. */
function controlShare(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let n = 0;
  for (const byte of bytes) if ((byte < 0x20 && ![9, 10, 12, 13, 27, 8, 11].includes(byte)) || byte === 0x7f) n++;
  return n / bytes.length;
}

/** Line endings of decoded text. */
function lineEndings(text: string): DetectFileTypeOutput['line_endings'] {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length - crlf;
  const cr = (text.match(/\r/g) ?? []).length - crlf;
  const kinds = [lf > 0, crlf > 0, cr > 0].filter(Boolean).length;
  if (kinds === 0) return 'none';
  if (kinds > 1) return 'mixed';
  return lf > 0 ? 'lf' : crlf > 0 ? 'crlf' : 'cr';
}

/**
 * Detect the kind, MIME type and encoding of a file from its first
 * {@link DETECT_SAMPLE_BYTES} bytes.
 * @throws ToolExecutionError for a missing file, a folder or a special file.
 * @throws PathTraversalError for a path outside the workspace.
 */
export async function detectFileType(workspace: Workspace, filepath: string): Promise<DetectFileTypeOutput> {
  const { bytes, size } = await readFileInside(workspace, filepath, DETECT_SAMPLE_BYTES);
  const real = workspace.resolve(filepath);
  const byExtension = mimeTypes.lookup(path.basename(real)) || undefined;
  const base = { filepath: workspace.relative(real) };
  const extension = byExtension ? { mime_from_extension: byExtension } : {};
  if (size === 0) return { filepath: base.filepath, kind: 'empty', mime: 'inode/x-empty', ...extension, size_bytes: 0, sampled_bytes: 0 };

  const bom = byteOrderMark(bytes);
  let magic = await fileTypeFromBuffer(bytes).catch(() => undefined);
  // A byte-order mark is the stronger sign: "FF FE" also passes for an MPEG audio frame.
  if (bom && magic && !isTextMime(magic.mime)) magic = undefined;
  const fromContent = magic ? { mime_from_content: magic.mime, extension_from_content: magic.ext } : {};
  const partial = bytes.length < size;

  let encoding: string | undefined;
  let confidence = 100;
  if (bom) encoding = bom.encoding;
  else if (magic && !isTextMime(magic.mime)) encoding = undefined;
  else if (!looksBinary(bytes) && isUtf8(bytes, partial)) encoding = bytes.every((b) => b < 0x80) ? 'ASCII' : 'UTF-8';
  else if (!looksBinary(bytes) && controlShare(bytes) < 0.05) {
    const guess = chardet.analyse(bytes)[0];
    if (guess && guess.confidence >= 10) {
      encoding = guess.name;
      confidence = guess.confidence;
    }
  }

  if (encoding === undefined) {
    const mime = magic?.mime ?? (byExtension && !isTextMime(byExtension) ? byExtension : 'application/octet-stream');
    return { filepath: base.filepath, kind: 'binary', mime, ...fromContent, ...extension, size_bytes: size, sampled_bytes: bytes.length };
  }
  let text: string;
  try {
    text = new TextDecoder(encoding === 'ASCII' ? 'utf-8' : encoding.toLowerCase()).decode(bytes.subarray(bom?.length ?? 0));
  } catch {
    text = new TextDecoder('latin1').decode(bytes); // an encoding TextDecoder does not know: count endings on bytes
  }
  const mime = magic?.mime ?? (byExtension && isTextMime(byExtension) ? byExtension : 'text/plain');
  return {
    filepath: base.filepath,
    kind: 'text',
    mime,
    encoding,
    encoding_confidence: confidence,
    bom: bom !== undefined,
    line_endings: lineEndings(text),
    ...fromContent,
    ...extension,
    size_bytes: size,
    sampled_bytes: bytes.length,
  };
}
