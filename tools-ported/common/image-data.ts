/**
 * Image bytes for the image tools: the real format from the content's magic number (file-type,
 * never the file name), the decoded facts from sharp (libvips), loading from a workspace path
 * or an http(s) URL (through the network guard of safe-fetch.ts), and data URLs for
 * `ctx.attachImage`.
 *
 * sharp is imported here when the module loads on purpose: sharp asks that a process's main
 * thread load it before worker threads use it (so its shared libraries stay loaded until every
 * thread has ended). The image tools run in child processes (the default runner), whose main
 * thread imports the tool module; a registry loaded from a tool manifest imports no tool module
 * on the host's main thread, so these tools must not move to the pool runner. sharp is an
 * optional peer dependency: without it the module still loads, and each image tool's call
 * ends `PACKAGE_UNAVAILABLE`, naming it ({@link loadSharp}).
 *
 * @module
 */
import { fileTypeFromBuffer } from 'file-type';
import type { Metadata } from 'sharp';
import { loadOptional } from '../../src/internal.js';
import { readFileInside, ToolExecutionError, type Workspace } from '../../src/tool.js';
import { readBounded, safeFetch, shownUrl, type SafeFetchOptions } from './safe-fetch.js';

type Sharp = (typeof import('sharp'))['default'];

/** sharp, its import started when this module loads (see above); rejected with a `PackageUnavailableError` when it is not installed. */
const sharpLoaded: Promise<Sharp> = loadOptional<typeof import('sharp')>('sharp', 'the image tools').then((module) => module.default);
sharpLoaded.catch(() => undefined); // reported by the call that needs it, not as an unhandled rejection

/**
 * sharp, for the image tools.
 * @throws PackageUnavailableError when sharp is not installed.
 */
export function loadSharp(): Promise<Sharp> {
  return sharpLoaded;
}

/** Formats a vision model takes (and read_image returns). */
export const VISION_FORMATS = ['png', 'jpeg', 'gif', 'webp'] as const;
/** A format a vision model takes. */
export type VisionFormat = (typeof VISION_FORMATS)[number];
/** Raster formats image_info and resize_image read (SVG is refused: it is text that can reference files). */
const RASTER_FORMATS = ['png', 'jpeg', 'gif', 'webp', 'tiff', 'avif', 'heif'] as const;
/** A raster format the image tools read. */
export type RasterFormat = (typeof RASTER_FORMATS)[number];

/** Most pixels of an image decoded (about 100 megapixels), against decompression bombs. */
export const MAX_INPUT_PIXELS = 100_000_000;

/** The MIME type of each format. */
const MIME_OF: Record<RasterFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heif: 'image/heif',
};

const FORMAT_OF_MIME: Record<string, RasterFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/tiff': 'tiff',
  'image/avif': 'avif',
  'image/heic': 'heif',
  'image/heif': 'heif',
};

/**
 * The raster format of `bytes` by magic number, or `undefined` with what the content looks
 * like instead (a MIME type, or "text or unknown data").
 */
export async function sniffFormat(bytes: Uint8Array): Promise<{ format: RasterFormat | undefined; seen: string }> {
  const type = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (type === undefined) return { format: undefined, seen: 'text or unknown data' };
  return { format: FORMAT_OF_MIME[type.mime], seen: type.mime };
}

/** Facts about a decoded image. */
export interface ImageFacts {
  format: RasterFormat;
  mime: string;
  /** Width in pixels (of one frame, for animations). */
  width: number;
  /** Height in pixels (of one frame, for animations). */
  height: number;
  /** Frames (1 unless animated). */
  pages: number;
  channels: number;
  hasAlpha: boolean;
  /** libvips colour space name (srgb, b-w, cmyk...). */
  space: string;
  /** Bits per sample name (uchar = 8 bits...). */
  depth: string;
  /** Pixels per inch, when the file says. */
  density?: number;
  /** EXIF orientation 1 to 8, when the file says. */
  orientation?: number;
}

/**
 * Read the header of an image whose format was sniffed as `format`.
 * @throws ToolExecutionError when sharp cannot read it (corrupt, truncated) or it is over {@link MAX_INPUT_PIXELS}.
 */
export async function imageFacts(bytes: Uint8Array, format: RasterFormat, shown: string): Promise<ImageFacts> {
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch (error) {
    throw new ToolExecutionError(`${shown} looks like ${format.toUpperCase()} but cannot be read (${(error as Error).message.slice(0, 200)}); the file may be corrupt or cut short.`);
  }
  if (!meta.width || !meta.height) throw new ToolExecutionError(`${shown} has no readable dimensions; the file may be corrupt.`);
  const pages = meta.pages ?? 1;
  const frameHeight = meta.pageHeight && pages > 1 ? meta.pageHeight : meta.height;
  if (meta.width * frameHeight > MAX_INPUT_PIXELS) {
    throw new ToolExecutionError(`${shown} is ${meta.width}x${frameHeight} pixels, more than the ${MAX_INPUT_PIXELS} pixels the image tools decode.`);
  }
  const facts: ImageFacts = {
    format,
    mime: MIME_OF[format],
    width: meta.width,
    height: frameHeight,
    pages,
    channels: meta.channels ?? 0,
    hasAlpha: meta.hasAlpha ?? false,
    space: String(meta.space ?? 'unknown'),
    depth: String(meta.depth ?? 'unknown'),
  };
  if (meta.density !== undefined) facts.density = meta.density;
  if (meta.orientation !== undefined) facts.orientation = meta.orientation;
  return facts;
}

/** A base64 data URL of `bytes` (`data:image/png;base64,...`). */
export function dataUrlOf(bytes: Uint8Array, mime: string): string {
  return `data:${mime};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

/** Is `source` an http(s) URL (as opposed to a workspace path)? */
function isHttpSource(source: string): boolean {
  return /^https?:\/\//i.test(source.trim());
}

/**
 * The bytes of an image from a workspace path or an http(s) URL, at most `maxBytes`.
 * Other URL schemes (`file:`, `data:`, `ftp:`) are refused as bad input.
 * @throws PathTraversalError for a path outside the workspace; SafeFetchError for refused
 *   URLs and network failures; ToolExecutionError for a missing file, an HTTP error status,
 *   or more than `maxBytes`.
 */
export async function loadImageBytes(
  workspace: Workspace,
  source: string,
  maxBytes: number,
  fetchOptions: Omit<SafeFetchOptions, 'method' | 'body' | 'label'>,
  label: string,
): Promise<{ bytes: Uint8Array; shown: string }> {
  if (typeof source !== 'string' || source.trim() === '') throw new ToolExecutionError(`${label}: source is empty; give a workspace path or an http(s) URL.`, 'INVALID_ARGUMENTS');
  if (isHttpSource(source)) {
    return safeFetch(source, { timeoutMs: 30_000, ...fetchOptions, label, headers: { Accept: 'image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8' } }, async (response) => {
      const shown = shownUrl(response.url);
      if (response.status < 200 || response.status > 299) {
        response.body.destroy();
        throw new ToolExecutionError(`${label}: ${shown} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}; no image was read.`);
      }
      const { bytes } = await readBounded(response.body, maxBytes, { truncate: false, label, url: response.url });
      return { bytes, shown };
    });
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(source.trim())) {
    throw new ToolExecutionError(`${label}: ${JSON.stringify(source.slice(0, 60))} is neither a workspace path nor an http(s) URL; only http:// and https:// URLs are fetched.`, 'INVALID_ARGUMENTS');
  }
  const { bytes, size } = await readFileInside(workspace, source, maxBytes + 1);
  if (size > maxBytes) throw new ToolExecutionError(`${label}: ${source} is ${size} bytes; at most ${maxBytes} bytes are read. Make a smaller copy with resize_image first.`);
  return { bytes, shown: workspace.relative(workspace.resolve(source)) };
}
