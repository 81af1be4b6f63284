import type { OutputInfo } from 'sharp';
import { tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { checkWritableTarget } from '../common/stream-inside.js';
import { imageFacts, loadImageBytes, loadSharp, MAX_INPUT_PIXELS, sniffFormat } from '../common/image-data.js';
import { IMAGE_INFO_MAX_BYTES } from './image-info.tool.js';

/** Formats resize_image writes. */
export type ResizeFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' | 'tiff';

/** Arguments of resize_image. */
export interface ResizeImageInput {
  /**
   * The image to resize, relative to the workspace root (or absolute inside it): PNG, JPEG,
   * GIF, WebP, TIFF, AVIF or HEIF, at most 64 MiB.
   * @format workspace-path
   */
  filepath: string;
  /**
   * Where to write the result (the full path of the new file). Its extension chooses the
   * format (.png, .jpg/.jpeg, .webp, .gif, .avif, .tif/.tiff) unless format is given.
   * @format workspace-path
   */
  destination: string;
  /**
   * Width in pixels, 1 to 10000. Give width, height or both; with one, the other follows the
   * aspect ratio.
   * @TJS-type integer
   * @minimum 1
   * @maximum 10000
   */
  width?: number;
  /**
   * Height in pixels, 1 to 10000.
   * @TJS-type integer
   * @minimum 1
   * @maximum 10000
   */
  height?: number;
  /**
   * How to fit both width and height: "inside" keeps the aspect ratio within the box (the
   * result may be smaller on one side), "cover" fills the box and crops the overflow,
   * "contain" keeps the aspect ratio and pads (transparent, or white for JPEG), "fill"
   * stretches to the exact size.
   * @default "inside"
   */
  fit?: 'inside' | 'cover' | 'contain' | 'fill';
  /** Output format; default from the destination's extension. */
  format?: ResizeFormat;
  /**
   * Quality for JPEG, WebP and AVIF, 1 (smallest) to 100 (best).
   * @TJS-type integer
   * @minimum 1
   * @maximum 100
   * @default 85
   */
  quality?: number;
  /**
   * Replace the destination when it exists. Without it an existing destination is refused.
   * @default false
   */
  overwrite?: boolean;
}

/** What resize_image reports. */
export interface ResizeImageOutput {
  /** The source, relative to the workspace root. */
  filepath: string;
  /** The file written, relative to the workspace root. */
  destination: string;
  /** Format written. */
  format: ResizeFormat;
  /** Width of the result in pixels. */
  width: number;
  /** Height of the result in pixels. */
  height: number;
  /** Size of the result in bytes. */
  size_bytes: number;
  /** Whether an existing file was replaced. */
  overwrote: boolean;
}

const FORMAT_OF_EXTENSION: Record<string, ResizeFormat> = {
  png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', gif: 'gif', avif: 'avif', tif: 'tiff', tiff: 'tiff',
};

/**
 * Resize an image to a width and/or height (keeping the aspect ratio unless told otherwise)
 * and write it as PNG, JPEG, WebP, GIF, AVIF or TIFF to a new file, atomically; also converts
 * between those formats. EXIF orientation is applied, and metadata is not copied. Refuses an
 * existing destination unless overwrite is true. Use image_info to learn the current size.
 */
@tool({ name: 'resize_image', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, tags: ['image', 'ported'], timeoutMs: 60_000 })
export class ResizeImageTool implements Tool<ResizeImageInput, ResizeImageOutput> {
  run(args: ResizeImageInput, ctx: ToolContext): Promise<ResizeImageOutput> {
    return resizeImage(ctx.workspace, args);
  }
}

function checkSide(value: number | undefined, name: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > 10_000) throw new ToolExecutionError(`resize_image: ${name} must be a whole number of pixels from 1 to 10000; got ${value}.`, 'INVALID_ARGUMENTS');
}

/** Most pixels resize_image writes, all frames of an animation together (about 100 megapixels). */
export const MAX_OUTPUT_PIXELS = MAX_INPUT_PIXELS;

/**
 * Refuse a result larger than {@link MAX_OUTPUT_PIXELS} before sharp starts: a tiny input can
 * ask for a huge output (a 1x500 PNG at width 10000 keeps its aspect ratio and becomes
 * 10000x5000000; 30 frames of a 1x1 GIF at 4000x4000 become 480 megapixels), and libvips work,
 * once started, runs on native threads that terminating the worker does not stop: the pool stays
 * busy and the process cannot exit until it ends.
 */
function checkOutputPixels(facts: { width: number; height: number; orientation?: number }, args: ResizeImageInput, frames: number, shown: string): void {
  const turned = (facts.orientation ?? 1) >= 5;
  const sourceWidth = turned ? facts.height : facts.width;
  const sourceHeight = turned ? facts.width : facts.height;
  const width = args.width ?? Math.max(1, Math.round((args.height! * sourceWidth) / sourceHeight));
  const height = args.height ?? Math.max(1, Math.round((args.width! * sourceHeight) / sourceWidth));
  const pixels = width * height * frames;
  if (pixels > MAX_OUTPUT_PIXELS) {
    throw new ToolExecutionError(
      `resize_image: the result would be ${width}x${height} pixels${frames > 1 ? ` in each of ${frames} frames` : ''} (${pixels} pixels), more than the ${MAX_OUTPUT_PIXELS} resize_image writes; ` +
        'give a smaller width or height (or both, to change the aspect ratio). Nothing was written.',
      'INVALID_ARGUMENTS',
    );
  }
}

/**
 * Resize `args.filepath` into `args.destination`.
 * @throws PathTraversalError outside the workspace; ToolExecutionError (`INVALID_ARGUMENTS`)
 *   for missing or out-of-range sizes, a result over {@link MAX_OUTPUT_PIXELS}, an unknown
 *   format or extension; ToolExecutionError for
 *   an unreadable source or an existing destination without overwrite.
 */
export async function resizeImage(workspace: Workspace, args: ResizeImageInput): Promise<ResizeImageOutput> {
  checkSide(args.width, 'width');
  checkSide(args.height, 'height');
  if (args.width === undefined && args.height === undefined) throw new ToolExecutionError('resize_image: give width, height or both (in pixels).', 'INVALID_ARGUMENTS');
  const quality = args.quality ?? 85;
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) throw new ToolExecutionError(`resize_image: quality must be a whole number from 1 to 100; got ${quality}.`, 'INVALID_ARGUMENTS');
  const extension = /\.([^./\\]+)$/.exec(args.destination)?.[1]?.toLowerCase() ?? '';
  const format = args.format ?? FORMAT_OF_EXTENSION[extension];
  if (format === undefined || !Object.values(FORMAT_OF_EXTENSION).includes(format)) {
    throw new ToolExecutionError(`resize_image: cannot tell the output format from ${JSON.stringify(args.destination)}; end it with .png, .jpg, .webp, .gif, .avif or .tiff, or give format.`, 'INVALID_ARGUMENTS');
  }
  const fit = args.fit ?? 'inside';
  if (!['inside', 'cover', 'contain', 'fill'].includes(fit)) throw new ToolExecutionError(`resize_image: fit must be inside, cover, contain or fill; got ${JSON.stringify(fit)}.`, 'INVALID_ARGUMENTS');
  const realSource = workspace.resolve(args.filepath);
  const realDestination = await checkWritableTarget(workspace, args.destination, args.overwrite === true);
  if (realSource === realDestination) throw new ToolExecutionError('resize_image: destination is the source itself; write to a new file (the source is kept).', 'INVALID_ARGUMENTS');
  const { bytes, shown } = await loadImageBytes(workspace, args.filepath, IMAGE_INFO_MAX_BYTES, {}, 'resize_image');
  const sniffed = await sniffFormat(bytes);
  if (sniffed.format === undefined) throw new ToolExecutionError(`resize_image: ${shown} is not a PNG, JPEG, GIF, WebP, TIFF, AVIF or HEIF image (its content is ${sniffed.seen}).`);
  const facts = await imageFacts(bytes, sniffed.format, shown);
  const animated = facts.pages > 1 && (format === 'gif' || format === 'webp');
  checkOutputPixels(facts, args, animated ? facts.pages : 1, shown);
  const sharp = await loadSharp();
  let output: { data: Buffer; info: OutputInfo };
  try {
    let pipeline = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, animated })
      .rotate()
      .resize({ width: args.width, height: args.height, fit, background: format === 'jpeg' ? '#ffffff' : { r: 0, g: 0, b: 0, alpha: 0 } });
    if (format === 'jpeg') pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
    else if (format === 'webp') pipeline = pipeline.webp({ quality });
    else if (format === 'avif') pipeline = pipeline.avif({ quality: Math.max(1, Math.round(quality * 0.6)) });
    else if (format === 'png') pipeline = pipeline.png();
    else if (format === 'gif') pipeline = pipeline.gif();
    else pipeline = pipeline.tiff();
    output = await pipeline.toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new ToolExecutionError(`resize_image: ${shown} could not be resized (${(error as Error).message.slice(0, 200)}); nothing was written.`);
  }
  const written = await writeFileInside(workspace, args.destination, output.data);
  const height = animated && output.info.pageHeight ? output.info.pageHeight : output.info.height;
  return {
    filepath: shown,
    destination: workspace.relative(written.path),
    format,
    width: output.info.width,
    height,
    size_bytes: written.bytes,
    overwrote: written.overwrote,
  };
}
