/**
 * generate_image: an image from a text prompt through an OpenAI-compatible images API
 * (`POST <base>/images/generations`).
 *
 * Configuration, from the environment of the process that runs the tool, read at each call by
 * {@link generateImageEnv} (worker threads copy the environment when they start: set these
 * before the executor's first call):
 * - `OPENAI_API_KEY`: the key, sent as `Authorization: Bearer <key>`. Unset or blank: the tool
 *   answers {@link GENERATE_IMAGE_UNAVAILABLE} as a successful result and calls nothing.
 * - `TOOLGATE_IMAGE_BASE_URL`, else `OPENAI_BASE_URL`: the API base, default
 *   {@link OPENAI_DEFAULT_BASE_URL}. It must be https, or http on a loopback host (a local
 *   server or test fixture). The operator sets it, so it is not subject to the web allowlist.
 * - `TOOLGATE_IMAGE_MODEL`: the model, default {@link GENERATE_IMAGE_DEFAULT_MODEL}.
 *
 * An answer that gives a `url` instead of `b64_json` is fetched through the network guard of
 * the web tools (safe-fetch.ts): that URL comes from outside, so it gets the same checks.
 *
 * @module
 */
import { MAX_IMAGE_DATA_URL_LENGTH, tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { apiEndpoint, cleanText, KeyedRequestError, postJson, type KeyedAnswer } from '../common/keyed-api.js';
import { dataUrlOf, imageFacts, sniffFormat } from '../common/image-data.js';
import { readBounded, safeFetch, type SafeFetchOptions } from '../common/safe-fetch.js';
import { checkWritableTarget } from '../common/stream-inside.js';
import { plural } from '../common/text-file.js';

/** The OpenAI API base used when no base URL is configured. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** The model used when `TOOLGATE_IMAGE_MODEL` is not set. */
export const GENERATE_IMAGE_DEFAULT_MODEL = 'gpt-image-1';
/** Time limit of the API request, in milliseconds (generation is slow; the tool's timeout is 180 s). */
export const GENERATE_IMAGE_REQUEST_TIMEOUT_MS = 150_000;
/** Largest answer read from the API, in bytes (an image as base64 JSON). */
export const GENERATE_IMAGE_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Largest image accepted, in bytes. */
export const GENERATE_IMAGE_MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/**
 * The output of generate_image when `OPENAI_API_KEY` is not set: a successful result (not a
 * failure), so an agent reads why and carries on without images.
 */
export const GENERATE_IMAGE_UNAVAILABLE =
  'generate_image unavailable: set OPENAI_API_KEY (and optionally TOOLGATE_IMAGE_BASE_URL or OPENAI_BASE_URL, TOOLGATE_IMAGE_MODEL) ' +
  'in the environment of the process running toolgate to enable image generation. No image was generated; continue without it.';

/** Arguments of generate_image. */
export interface GenerateImageInput {
  /**
   * What the image should show, in plain words (subject, style, composition), at most 4000
   * characters.
   * @minLength 1
   * @maxLength 4000
   */
  prompt: string;
  /**
   * Size in pixels as WIDTHxHEIGHT, or "auto". gpt-image-1 takes 1024x1024, 1536x1024,
   * 1024x1536 and auto; other models take other sizes.
   * @pattern ^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$
   * @default "1024x1024"
   */
  size?: string;
  /**
   * Where to save the image in the workspace (a .png, .jpg or .webp path); when omitted the
   * image is only attached to the result.
   * @format workspace-path
   */
  filepath?: string;
  /**
   * Replace the file at filepath when it exists. Without it an existing file is refused before
   * anything is generated.
   * @default false
   */
  overwrite?: boolean;
}

/** Options of {@link generateImage}. */
export interface GenerateImageOptions {
  /** API key; blank or undefined: {@link GENERATE_IMAGE_UNAVAILABLE}. */
  apiKey: string | undefined;
  /** API base URL (https, or http on loopback). Default {@link OPENAI_DEFAULT_BASE_URL}. */
  baseUrl?: string;
  /** Model name. Default {@link GENERATE_IMAGE_DEFAULT_MODEL}. */
  model?: string;
  /** Request time limit in milliseconds. Default {@link GENERATE_IMAGE_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** The call's deadline (`Date.now()` scale); the request ends a second before it. */
  deadline?: number;
  /** The call's abort signal. */
  signal?: AbortSignal;
  /** Options for fetching an image URL the API returns (allowlist, for tests). */
  fetch?: Omit<SafeFetchOptions, 'method' | 'body' | 'label'>;
}

/** The options of {@link generateImage} found in an environment. */
export function generateImageEnv(env: NodeJS.ProcessEnv): Pick<GenerateImageOptions, 'apiKey' | 'baseUrl' | 'model'> {
  return {
    apiKey: env.OPENAI_API_KEY,
    baseUrl: env.TOOLGATE_IMAGE_BASE_URL || env.OPENAI_BASE_URL || undefined,
    model: env.TOOLGATE_IMAGE_MODEL || undefined,
  };
}

/** Why a generation failed; {@link GenerateImageError.reason}. */
export type GenerateImageFailure =
  | 'unauthorized'
  | 'forbidden'
  | 'content_policy'
  | 'bad_request'
  | 'rate_limited'
  | 'quota'
  | 'server_error'
  | 'unexpected_status'
  | 'malformed_response'
  | 'unreachable'
  | 'timeout'
  | 'aborted'
  | 'misconfigured';

/** A failed generation (code `TOOL_ERROR`). Messages never carry the API key. */
export class GenerateImageError extends ToolExecutionError {
  /** What went wrong. */
  readonly reason: GenerateImageFailure;
  /** HTTP status of the API's answer, when there was one. */
  readonly status: number | undefined;

  constructor(reason: GenerateImageFailure, message: string, status?: number, cause?: unknown) {
    super(message, 'TOOL_ERROR', cause === undefined ? undefined : { cause });
    this.reason = reason;
    this.status = status;
  }

  /** The API answered with a status other than 2xx; `detail` is its error message, cleaned. */
  static fromStatus(status: number, detail: string | undefined, code: string | undefined, retryAfter: string | null): GenerateImageError {
    const said = detail ? ` The API said: "${detail}".` : '';
    if (status === 400 && (code === 'content_policy_violation' || code === 'moderation_blocked')) {
      return new GenerateImageError('content_policy', `generate_image: the prompt was refused by the service's safety system (HTTP 400).${said} Rephrase the prompt; do not retry it unchanged.`, status);
    }
    if (status === 400 || status === 404 || status === 422) return new GenerateImageError('bad_request', `generate_image: the service rejected the request (HTTP ${status}).${said} Check the size and prompt.`, status);
    if (status === 401) return new GenerateImageError('unauthorized', 'generate_image: the OPENAI_API_KEY was refused (HTTP 401). Retrying will not help until the key is replaced; continue without images.', status);
    if (status === 403) return new GenerateImageError('forbidden', `generate_image: the key may not use this model or region (HTTP 403).${said} Retrying will not help; continue without images.`, status);
    if (status === 429 && code === 'insufficient_quota') return new GenerateImageError('quota', 'generate_image: the account has no quota left (HTTP 429, insufficient_quota). Retrying will not help until billing is fixed; continue without images.', status);
    if (status === 429) {
      const seconds = retryAfter && /^\d{1,6}$/.test(retryAfter.trim()) ? `${Number(retryAfter.trim())} s` : 'a minute';
      return new GenerateImageError('rate_limited', `generate_image is rate limited (HTTP 429). Wait ${seconds} before trying again.`, status);
    }
    if (status >= 500) return new GenerateImageError('server_error', `generate_image: the service had an error (HTTP ${status}).${said} Try again in a little while.`, status);
    return new GenerateImageError('unexpected_status', `generate_image: the service answered with an unexpected HTTP status ${status}.${said}`, status);
  }
}

/**
 * Generate an image from a text prompt with an OpenAI-compatible images API (gpt-image-1 by
 * default), attach it to the result for a vision model, and save it into the workspace when
 * filepath is given. Requires confirmation: each call costs money and may write a file.
 * Without a configured API key it answers "generate_image unavailable" and generates nothing.
 */
@tool({ name: 'generate_image', version: '1.0.0', kind: 'network', requiresConfirmation: true, tags: ['image', 'ported'], timeoutMs: 180_000 })
export class GenerateImageTool implements Tool<GenerateImageInput, string> {
  run(args: GenerateImageInput, ctx: ToolContext): Promise<string> {
    return generateImage(ctx.workspace, args, (dataUrl) => ctx.attachImage(dataUrl), {
      ...generateImageEnv(process.env),
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
  }
}

/** `<base>/images/generations`, after checking the base URL. */
function endpointOf(baseUrl: string): URL {
  const checked = apiEndpoint(baseUrl, 'images/generations');
  if ('problem' in checked) {
    const hint = checked.problem === 'is not a URL' ? 'is not a URL (expected something like https://api.openai.com/v1)' : checked.problem;
    throw new GenerateImageError('misconfigured', `generate_image is misconfigured: the images base URL ${hint}.`);
  }
  return checked.url;
}

/** Text from the API made safe to quote: no key, no control characters, one line, at most 300 characters. */
function clean(text: string, apiKey: string): string {
  return cleanText(text, apiKey, 300);
}

/**
 * Generate one image for `args.prompt`.
 * @returns a summary, or {@link GENERATE_IMAGE_UNAVAILABLE} without a key.
 * @throws GenerateImageError for every failure of the service (statuses, malformed answers,
 *   timeouts, aborts, bad configuration); ToolExecutionError (`INVALID_ARGUMENTS`) for a blank
 *   prompt or bad size; PathTraversalError for a filepath outside the workspace.
 */
export async function generateImage(workspace: Workspace, args: GenerateImageInput, attach: (dataUrl: string) => void, options: GenerateImageOptions): Promise<string> {
  const apiKey = options.apiKey?.trim();
  if (!apiKey) return GENERATE_IMAGE_UNAVAILABLE;
  if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new GenerateImageError('misconfigured', 'generate_image is misconfigured: OPENAI_API_KEY holds spaces or characters that cannot be sent in an HTTP header.');
  const prompt = typeof args.prompt === 'string' ? args.prompt.trim() : '';
  if (prompt === '') throw new ToolExecutionError('generate_image needs a prompt: describe the image in words.', 'INVALID_ARGUMENTS');
  if (prompt.length > 4000) throw new ToolExecutionError(`generate_image: the prompt is ${prompt.length} characters; at most 4000.`, 'INVALID_ARGUMENTS');
  const size = args.size ?? '1024x1024';
  if (!/^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$/.test(size)) throw new ToolExecutionError(`generate_image: size must be WIDTHxHEIGHT (for example 1024x1024) or auto; got ${JSON.stringify(size.slice(0, 40))}.`, 'INVALID_ARGUMENTS');
  if (args.filepath !== undefined) {
    if (!/\.(png|jpe?g|webp)$/i.test(args.filepath)) throw new ToolExecutionError('generate_image: filepath must end with .png, .jpg or .webp.', 'INVALID_ARGUMENTS');
    await checkWritableTarget(workspace, args.filepath, args.overwrite === true);
  }
  const endpoint = endpointOf(options.baseUrl ?? OPENAI_DEFAULT_BASE_URL);
  const model = options.model ?? GENERATE_IMAGE_DEFAULT_MODEL;
  let timeoutMs = options.requestTimeoutMs ?? GENERATE_IMAGE_REQUEST_TIMEOUT_MS;
  if (options.deadline !== undefined) timeoutMs = Math.min(timeoutMs, options.deadline - Date.now() - 1000);
  if (options.signal?.aborted) throw new GenerateImageError('aborted', 'generate_image was cancelled before it started.');
  if (timeoutMs <= 0) throw new GenerateImageError('timeout', "generate_image: no time is left before the call's deadline; nothing was requested.");

  let reply: KeyedAnswer;
  try {
    reply = await postJson({ url: endpoint, apiKey, body: { model, prompt, n: 1, size }, timeoutMs, signal: options.signal, maxBytes: GENERATE_IMAGE_MAX_RESPONSE_BYTES });
  } catch (error) {
    if (!(error instanceof KeyedRequestError)) throw error;
    switch (error.failure) {
      case 'too_large': throw new GenerateImageError('malformed_response', `generate_image: the service's answer is larger than ${GENERATE_IMAGE_MAX_RESPONSE_BYTES} bytes.`);
      case 'timeout': throw new GenerateImageError('timeout', `generate_image timed out: the service did not answer within ${timeoutMs} ms. Try again later.`, undefined, error);
      case 'aborted': throw new GenerateImageError('aborted', 'generate_image was cancelled (the call was aborted) before the service answered.', undefined, error);
      case 'unreachable': throw new GenerateImageError('unreachable', `generate_image could not reach the images service at ${endpoint.origin} (${error.detail}). Try again later.`, undefined, error);
    }
  }
  const { status, retryAfter, data } = reply;
  if (status < 200 || status > 299) {
    const error = (data as { error?: { message?: unknown; code?: unknown } } | undefined)?.error;
    const detail = typeof error?.message === 'string' ? clean(error.message, apiKey) : undefined;
    throw GenerateImageError.fromStatus(status, detail, typeof error?.code === 'string' ? error.code : undefined, retryAfter);
  }
  const first = (data as { data?: unknown } | undefined)?.data;
  const item = Array.isArray(first) ? (first[0] as { b64_json?: unknown; url?: unknown; revised_prompt?: unknown } | undefined) : undefined;
  if (item === undefined || item === null || typeof item !== 'object') throw new GenerateImageError('malformed_response', 'generate_image: the answer has no image in "data"; try again later.', status);
  let bytes: Uint8Array;
  if (typeof item.b64_json === 'string') {
    bytes = Buffer.from(item.b64_json, 'base64');
  } else if (typeof item.url === 'string') {
    bytes = await safeFetch(item.url, { timeoutMs: 30_000, ...options.fetch, signal: options.signal, deadline: options.deadline, label: 'generate_image' }, async (response) => {
      if (response.status < 200 || response.status > 299) {
        response.body.destroy();
        throw new GenerateImageError('malformed_response', `generate_image: the image URL the service gave answered HTTP ${response.status}.`);
      }
      return (await readBounded(response.body, GENERATE_IMAGE_MAX_IMAGE_BYTES, { truncate: false, label: 'generate_image', url: response.url })).bytes;
    });
  } else {
    throw new GenerateImageError('malformed_response', 'generate_image: the answer holds neither b64_json nor url; try again later.', status);
  }
  if (bytes.length > GENERATE_IMAGE_MAX_IMAGE_BYTES) throw new GenerateImageError('malformed_response', `generate_image: the image is ${bytes.length} bytes, over ${GENERATE_IMAGE_MAX_IMAGE_BYTES}.`);
  const { format, seen } = await sniffFormat(bytes);
  if (format !== 'png' && format !== 'jpeg' && format !== 'webp') {
    throw new GenerateImageError('malformed_response', `generate_image: the service returned ${seen}, not a PNG, JPEG or WebP image.`, status);
  }
  const facts = await imageFacts(bytes, format, 'the generated image');
  const parts = [`Generated a ${facts.width}x${facts.height} ${format.toUpperCase()} image (${plural(bytes.length, 'byte')}) with ${model}.`];
  if (args.filepath !== undefined) {
    const written = await writeFileInside(workspace, args.filepath, bytes);
    parts.push(`Saved to ${workspace.relative(written.path)}${written.overwrote ? ' (overwrote an existing file)' : ''}.`);
    const extension = /\.([^.]+)$/.exec(args.filepath)?.[1]?.toLowerCase();
    if ((extension === 'jpg' ? 'jpeg' : extension) !== format) parts.push(`Note: the content is ${format.toUpperCase()} although the name ends in .${extension}.`);
  }
  const dataUrl = dataUrlOf(bytes, facts.mime);
  if (dataUrl.length <= MAX_IMAGE_DATA_URL_LENGTH) attach(dataUrl);
  else parts.push('The image is too large to attach; open the saved file with read_image after resizing it.');
  if (typeof item.revised_prompt === 'string' && item.revised_prompt.trim() !== '') parts.push(`Revised prompt: ${clean(item.revised_prompt, apiKey)}`);
  return parts.join(' ');
}
