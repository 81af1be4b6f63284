import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { imageFacts, loadImageBytes, sniffFormat, type RasterFormat } from '../common/image-data.js';

/** Arguments of image_info. */
export interface ImageInfoInput {
  /**
   * Path of the image, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
}

/** What image_info reports. */
export interface ImageInfoOutput {
  /** The file, relative to the workspace root. */
  filepath: string;
  /** The format found in the content (not the name). */
  format: RasterFormat;
  /** MIME type of that format. */
  mime: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels (of one frame for an animation). */
  height: number;
  /** Frames (more than 1 for an animated GIF or WebP, or a multi-page TIFF). */
  frames: number;
  /** Colour channels (3 for RGB, 4 for RGBA, 1 for grey...). */
  channels: number;
  /** Whether the image has an alpha (transparency) channel. */
  has_alpha: boolean;
  /** Colour space as libvips names it (srgb, b-w, cmyk...). */
  color_space: string;
  /** Sample depth as libvips names it (uchar is 8 bits per channel, ushort 16). */
  bit_depth: string;
  /** Pixels per inch, when the file records it. */
  density_ppi?: number;
  /** EXIF orientation (1 to 8), when the file records it. */
  orientation?: number;
  /** Whether the extension of the file name agrees with its content. */
  extension_matches: boolean;
  /** Size of the file in bytes. */
  size_bytes: number;
}

/** Largest file examined, in bytes (64 MiB). */
export const IMAGE_INFO_MAX_BYTES = 64 * 1024 * 1024;

const EXTENSIONS: Record<RasterFormat, string[]> = {
  png: ['png'],
  jpeg: ['jpg', 'jpeg', 'jpe', 'jfif'],
  gif: ['gif'],
  webp: ['webp'],
  tiff: ['tif', 'tiff'],
  avif: ['avif'],
  heif: ['heif', 'heic'],
};

/**
 * Describe an image file without looking at it: its real format (from the content, not the
 * name), dimensions, frames, channels, alpha, colour space, bit depth, density, EXIF
 * orientation and size. Reads PNG, JPEG, GIF, WebP, TIFF, AVIF and HEIF up to 64 MiB. Use
 * read_image to show the image to a vision model.
 */
@tool({ name: 'image_info', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['image', 'ported'], timeoutMs: 30_000 })
export class ImageInfoTool implements Tool<ImageInfoInput, ImageInfoOutput> {
  run(args: ImageInfoInput, ctx: ToolContext): Promise<ImageInfoOutput> {
    return imageInfo(ctx.workspace, args.filepath);
  }
}

/**
 * Describe the image at `filepath`.
 * @throws PathTraversalError outside the workspace; ToolExecutionError for a missing file, a
 *   file over 64 MiB, content that is not a supported image, or an image that cannot be decoded.
 */
export async function imageInfo(workspace: Workspace, filepath: string): Promise<ImageInfoOutput> {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(filepath)) throw new ToolExecutionError(`image_info: give a workspace path, not a URL; use read_image for an http(s) URL.`, 'INVALID_ARGUMENTS');
  const { bytes, shown } = await loadImageBytes(workspace, filepath, IMAGE_INFO_MAX_BYTES, {}, 'image_info');
  const { format, seen } = await sniffFormat(bytes);
  if (format === undefined) throw new ToolExecutionError(`image_info: ${shown} is not a PNG, JPEG, GIF, WebP, TIFF, AVIF or HEIF image (its content is ${seen}).`);
  const facts = await imageFacts(bytes, format, shown);
  const extension = /\.([^./\\]+)$/.exec(filepath)?.[1]?.toLowerCase() ?? '';
  const out: ImageInfoOutput = {
    filepath: shown,
    format,
    mime: facts.mime,
    width: facts.width,
    height: facts.height,
    frames: facts.pages,
    channels: facts.channels,
    has_alpha: facts.hasAlpha,
    color_space: facts.space,
    bit_depth: facts.depth,
    extension_matches: EXTENSIONS[format].includes(extension),
    size_bytes: bytes.length,
  };
  if (facts.density !== undefined) out.density_ppi = facts.density;
  if (facts.orientation !== undefined) out.orientation = facts.orientation;
  return out;
}
