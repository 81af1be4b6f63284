import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { mediaType, safeFetch, shownUrl, type SafeFetchOptions } from '../common/safe-fetch.js';
import { checkWritableTarget, streamToFileInside } from '../common/stream-inside.js';
import { plural } from '../common/text-file.js';

/** Arguments of download_url. */
export interface DownloadUrlInput {
  /**
   * What to download: a full http:// or https:// URL. Addresses on the local network
   * (localhost, private and link-local ranges, cloud metadata) are refused.
   * @minLength 1
   * @maxLength 8000
   */
  url: string;
  /**
   * Where to save it: the full path of the new file, relative to the workspace root (or absolute
   * inside it). Missing parent folders are created.
   * @format workspace-path
   */
  filepath: string;
  /**
   * Largest download accepted, in bytes (1 to 1073741824). A larger one is stopped and nothing
   * is kept.
   * @TJS-type integer
   * @minimum 1
   * @maximum 1073741824
   * @default 104857600
   */
  max_bytes?: number;
  /**
   * Replace the file when it exists. Without it an existing file is refused before anything is
   * downloaded.
   * @default false
   */
  overwrite?: boolean;
}

/** Default of max_bytes: 100 MiB. */
export const DOWNLOAD_DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
/** Highest max_bytes: 1 GiB. */
export const DOWNLOAD_LIMIT_BYTES = 1024 * 1024 * 1024;
/** Time limit of one download, in milliseconds (the tool's timeout is a little longer). */
export const DOWNLOAD_TIMEOUT_MS = 280_000;

/**
 * Download a file from a public http(s) URL into the workspace, byte for byte (any type), and
 * report its size, content type and SHA-256. The file is written atomically: it appears only
 * when the whole download succeeded within max_bytes (default 100 MiB); on any failure nothing
 * is left. Refuses an existing file unless overwrite is true, and HTTP error statuses. Use
 * web_fetch to read a page instead of saving it.
 */
@tool({ name: 'download_url', version: '1.0.0', kind: 'network', requiresConfirmation: true, tags: ['web', 'ported'], timeoutMs: 300_000 })
export class DownloadUrlTool implements Tool<DownloadUrlInput, string> {
  run(args: DownloadUrlInput, ctx: ToolContext): Promise<string> {
    return downloadUrl(ctx.workspace, args, { signal: ctx.signal, deadline: ctx.deadline });
  }
}

/**
 * Download `args.url` to `args.filepath`.
 * @throws PathTraversalError for a path outside the workspace.
 * @throws SafeFetchError for refused URLs and network failures; ToolExecutionError for an HTTP
 *   error status, a download over max_bytes, an existing file without overwrite, a folder.
 */
export async function downloadUrl(workspace: Workspace, args: DownloadUrlInput, options: Omit<SafeFetchOptions, 'method' | 'body' | 'label'> = {}): Promise<string> {
  const maxBytes = args.max_bytes ?? DOWNLOAD_DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > DOWNLOAD_LIMIT_BYTES) {
    throw new ToolExecutionError(`download_url: max_bytes must be a whole number from 1 to ${DOWNLOAD_LIMIT_BYTES}; got ${maxBytes}.`, 'INVALID_ARGUMENTS');
  }
  const overwrite = args.overwrite === true;
  await checkWritableTarget(workspace, args.filepath, overwrite);
  return safeFetch(args.url, { timeoutMs: DOWNLOAD_TIMEOUT_MS, ...options, label: 'download_url' }, async (response) => {
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      throw new ToolExecutionError(`download_url: ${shownUrl(response.url)} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}; nothing was saved.`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes && !response.headers['content-encoding']) {
      response.body.destroy();
      throw new ToolExecutionError(`download_url: ${shownUrl(response.url)} is ${declared} bytes, more than max_bytes (${maxBytes}); nothing was downloaded. Raise max_bytes if the file is expected to be this large.`);
    }
    const saved = await streamToFileInside(workspace, args.filepath, response.body, { maxBytes, overwrite, signal: options.signal, deadline: options.deadline });
    const type = mediaType(response.headers['content-type']) || 'unknown type';
    const via = response.redirects.length ? ` (redirected from ${shownUrl(response.redirects[0]!)})` : '';
    return (
      `Downloaded ${shownUrl(response.url)}${via} to ${workspace.relative(saved.path)}: ${plural(saved.bytes, 'byte')}, ${type}, ` +
      `sha256 ${saved.sha256}${saved.overwrote ? ' (overwrote an existing file)' : ''}.`
    );
  });
}
