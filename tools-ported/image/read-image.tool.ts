import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { dataUrlOf, imageFacts, loadImageBytes, sniffFormat, VISION_FORMATS, type VisionFormat } from '../common/image-data.js';
import type { SafeFetchOptions } from '../common/safe-fetch.js';

/** Arguments of read_image. */
export interface ReadImageInput {
  /**
   * The image: a workspace path (relative to the workspace root, or absolute inside it) or a
   * full http:// or https:// URL of a public address. PNG, JPEG, GIF or WebP, at most 5 MiB.
   * @format workspace-path-or-url
   * @minLength 1
   * @maxLength 8000
   */
  source: string;
}

/** What read_image reports besides the attached image. */
export interface ReadImageOutput {
  /** The workspace path (relative) or the URL (without credentials) the image came from. */
  source: string;
  /** The format found in the content (not the name): png, jpeg, gif or webp. */
  format: VisionFormat;
  /** MIME type of that format. */
  mime: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels (of one frame for an animation). */
  height: number;
  /** Frames: more than 1 for an animated GIF or WebP (the model may see only the first). */
  frames: number;
  /** Size in bytes. */
  size_bytes: number;
}

/** Largest image read, in bytes (5 MiB). */
export const READ_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Look at an image: load a PNG, JPEG, GIF or WebP (at most 5 MiB) from a workspace path or a
 * public http(s) URL and attach it to the result, so that a vision model sees it; the text
 * result gives its format, dimensions and size. The format is read from the content, not the
 * file name. Use image_info for facts about an image without looking at it, and resize_image
 * to shrink an image that is too large. Offered to vision models; text-only models get
 * describe_image instead.
 */
@tool({ name: 'read_image', version: '1.0.0', kind: 'network', readOnly: true, tags: ['image', 'ported'], timeoutMs: 45_000, forModel: 'vision' })
export class ReadImageTool implements Tool<ReadImageInput, ReadImageOutput> {
  run(args: ReadImageInput, ctx: ToolContext): Promise<ReadImageOutput> {
    return readImage(ctx.workspace, args.source, (dataUrl) => ctx.attachImage(dataUrl), { signal: ctx.signal, deadline: ctx.deadline });
  }
}

/**
 * Load `source`, check it is a vision format, and hand its data URL to `attach`.
 * @throws PathTraversalError for a path outside the workspace; SafeFetchError for refused URLs
 *   and network failures; ToolExecutionError for a missing file, a file over 5 MiB, content
 *   that is not PNG, JPEG, GIF or WebP, or an image that cannot be decoded.
 */
export async function readImage(
  workspace: Workspace,
  source: string,
  attach: (dataUrl: string) => void,
  fetchOptions: Omit<SafeFetchOptions, 'method' | 'body' | 'label'> = {},
): Promise<ReadImageOutput> {
  const { bytes, shown } = await loadImageBytes(workspace, source, READ_IMAGE_MAX_BYTES, fetchOptions, 'read_image');
  const { format, seen } = await sniffFormat(bytes);
  if (format === undefined || !(VISION_FORMATS as readonly string[]).includes(format)) {
    throw new ToolExecutionError(
      `read_image: ${shown} is not a PNG, JPEG, GIF or WebP image (its content is ${seen}). ` +
        (format ? 'Convert it with resize_image (for example to a .png destination) and read that.' : 'Use read_file for text.'),
    );
  }
  const facts = await imageFacts(bytes, format, shown);
  attach(dataUrlOf(bytes, facts.mime));
  return { source: shown, format: format as VisionFormat, mime: facts.mime, width: facts.width, height: facts.height, frames: facts.pages, size_bytes: bytes.length };
}
