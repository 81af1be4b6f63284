/**
 * describe_image: the text-only model's way of looking at an image. The image (a workspace
 * path or an http(s) URL, loaded and checked as read_image does) and a question go to a
 * configured OpenAI-compatible vision model (`POST <base>/chat/completions`, the image as an
 * `image_url` content part holding a data URL), and its text answer is the tool's output.
 *
 * Configuration, from the environment of the process that runs the tool, read at each call by
 * {@link describeImageEnv} (child processes and worker threads copy the environment when they
 * start: set these before the executor's first call):
 * - `TOOLGATE_VISION_BASE_URL`: the vision endpoint's API base (`https://.../v1`, or http on a
 *   loopback host for a local server such as llama.cpp's `llama-server` with a vision model).
 *   Setting it enables the tool, with or without a key.
 * - `TOOLGATE_VISION_API_KEY`, else `OPENAI_API_KEY`: the key, sent as `Authorization: Bearer
 *   <key>`. A key alone enables the tool against `OPENAI_BASE_URL`, else
 *   {@link OPENAI_DEFAULT_BASE_URL}.
 * - `TOOLGATE_VISION_MODEL`: the vision model, default {@link DESCRIBE_IMAGE_DEFAULT_MODEL}.
 *
 * With neither a vision base URL nor a key the tool answers {@link DESCRIBE_IMAGE_UNAVAILABLE}
 * as a successful result and sends nothing. (`OPENAI_BASE_URL` alone does not enable it: it
 * often names the text-only model's own server, which cannot look at images.)
 *
 * @module
 */
import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { apiEndpoint, cleanText, KeyedRequestError, postJson, type KeyedAnswer } from '../common/keyed-api.js';
import { dataUrlOf, imageFacts, loadImageBytes, sniffFormat, VISION_FORMATS } from '../common/image-data.js';
import type { SafeFetchOptions } from '../common/safe-fetch.js';
import { READ_IMAGE_MAX_BYTES } from './read-image.tool.js';
import { OPENAI_DEFAULT_BASE_URL } from './generate-image.tool.js';

/** The vision model used when `TOOLGATE_VISION_MODEL` is not set. */
export const DESCRIBE_IMAGE_DEFAULT_MODEL = 'gpt-4o-mini';
/** Time limit of the request to the vision model, in milliseconds (the tool's timeout is 90 s). */
export const DESCRIBE_IMAGE_REQUEST_TIMEOUT_MS = 80_000;
/** Largest answer read from the vision endpoint, in bytes. */
export const DESCRIBE_IMAGE_MAX_RESPONSE_BYTES = 1024 * 1024;
/** The question asked when the call gives none. */
export const DESCRIBE_IMAGE_DEFAULT_PROMPT =
  'Describe this image in detail: what it shows, any text in it (quoted exactly), and the layout, colours and other details that matter.';
/**
 * The output of describe_image when no vision model is configured: a successful result (not a
 * failure), so an agent reads why and carries on without looking at the image.
 */
export const DESCRIBE_IMAGE_UNAVAILABLE =
  'describe_image unavailable: no vision model is configured. Set TOOLGATE_VISION_BASE_URL (an OpenAI-compatible API with a vision model) ' +
  'and/or TOOLGATE_VISION_API_KEY or OPENAI_API_KEY, and optionally TOOLGATE_VISION_MODEL, in the environment of the process running toolgate. ' +
  'The image was not looked at; use image_info for its format and size, or continue without it.';

/** Arguments of describe_image. */
export interface DescribeImageInput {
  /**
   * The image: a workspace path (relative to the workspace root, or absolute inside it) or a
   * full http:// or https:// URL of a public address. PNG, JPEG, GIF or WebP, at most 5 MiB.
   * @format workspace-path-or-url
   * @minLength 1
   * @maxLength 8000
   */
  source: string;
  /**
   * What to ask about the image, in plain words (for example "What is the error message in
   * this screenshot?"). Default: a detailed description, text in the image quoted.
   * @maxLength 4000
   */
  prompt?: string;
}

/** Options of {@link describeImage}. */
export interface DescribeImageOptions {
  /** API key, sent as a bearer token; blank or undefined: no `Authorization` header. */
  apiKey?: string | undefined;
  /**
   * API base URL (https, or http on loopback). Default {@link OPENAI_DEFAULT_BASE_URL}. With
   * neither `apiKey` nor `baseUrl` the tool is not configured: {@link DESCRIBE_IMAGE_UNAVAILABLE}.
   */
  baseUrl?: string | undefined;
  /** Vision model name. Default {@link DESCRIBE_IMAGE_DEFAULT_MODEL}. */
  model?: string | undefined;
  /** Request time limit in milliseconds. Default {@link DESCRIBE_IMAGE_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** The call's deadline (`Date.now()` scale); the request ends a second before it. */
  deadline?: number;
  /** The call's abort signal. */
  signal?: AbortSignal;
  /** Options for fetching an http(s) `source` (allowlist, for tests). */
  fetch?: Omit<SafeFetchOptions, 'method' | 'body' | 'label'>;
}

/**
 * The options of {@link describeImage} found in an environment (see the module comment):
 * `OPENAI_BASE_URL` counts only together with a key.
 */
export function describeImageEnv(env: NodeJS.ProcessEnv): Pick<DescribeImageOptions, 'apiKey' | 'baseUrl' | 'model'> {
  const apiKey = env.TOOLGATE_VISION_API_KEY?.trim() || env.OPENAI_API_KEY?.trim() || undefined;
  return {
    apiKey,
    baseUrl: env.TOOLGATE_VISION_BASE_URL?.trim() || (apiKey ? env.OPENAI_BASE_URL?.trim() || undefined : undefined),
    model: env.TOOLGATE_VISION_MODEL?.trim() || undefined,
  };
}

/** Why describing failed; {@link DescribeImageError.reason}. */
export type DescribeImageFailure =
  | 'unauthorized'
  | 'forbidden'
  | 'bad_request'
  | 'rate_limited'
  | 'server_error'
  | 'unexpected_status'
  | 'malformed_response'
  | 'refused'
  | 'unreachable'
  | 'timeout'
  | 'aborted'
  | 'misconfigured';

/** A failed description (code `TOOL_ERROR`). Messages never carry the API key. */
export class DescribeImageError extends ToolExecutionError {
  /** What went wrong. */
  readonly reason: DescribeImageFailure;
  /** HTTP status of the endpoint's answer, when there was one. */
  readonly status: number | undefined;

  constructor(reason: DescribeImageFailure, message: string, status?: number, cause?: unknown) {
    super(message, 'TOOL_ERROR', cause === undefined ? undefined : { cause });
    this.reason = reason;
    this.status = status;
  }

  /** The endpoint answered with a status other than 2xx; `detail` is its error message, cleaned. */
  static fromStatus(status: number, detail: string | undefined, retryAfter: string | null): DescribeImageError {
    const said = detail ? ` The vision endpoint said: "${detail}".` : '';
    if (status === 401) return new DescribeImageError('unauthorized', `describe_image: the vision API key was refused (HTTP 401).${said} Retrying will not help; continue without the image.`, status);
    if (status === 403) return new DescribeImageError('forbidden', `describe_image: the key may not use this model (HTTP 403).${said} Retrying will not help; continue without the image.`, status);
    if (status === 400 || status === 404 || status === 413 || status === 422) {
      return new DescribeImageError('bad_request', `describe_image: the vision endpoint rejected the request (HTTP ${status}).${said} The model may not take images, or the image is too large.`, status);
    }
    if (status === 429) {
      const seconds = retryAfter && /^\d{1,6}$/.test(retryAfter.trim()) ? `${Number(retryAfter.trim())} s` : 'a minute';
      return new DescribeImageError('rate_limited', `describe_image is rate limited (HTTP 429).${said} Wait ${seconds} before trying again.`, status);
    }
    if (status >= 500) return new DescribeImageError('server_error', `describe_image: the vision endpoint had an error (HTTP ${status}).${said} Try again in a little while.`, status);
    return new DescribeImageError('unexpected_status', `describe_image: the vision endpoint answered with an unexpected HTTP status ${status}.${said}`, status);
  }
}

/**
 * Have a vision model look at an image and answer in words, for models that cannot see
 * images: give a PNG, JPEG, GIF or WebP (at most 5 MiB) from a workspace path or a public
 * http(s) URL, and optionally a question about it; the answer of the configured vision model
 * is the result. Without a configured vision model it answers "describe_image unavailable".
 */
@tool({ name: 'describe_image', version: '1.0.0', kind: 'network', readOnly: true, tags: ['image', 'ported'], timeoutMs: 90_000, forModel: 'text-only' })
export class DescribeImageTool implements Tool<DescribeImageInput, string> {
  run(args: DescribeImageInput, ctx: ToolContext): Promise<string> {
    return describeImage(ctx.workspace, args, { ...describeImageEnv(process.env), signal: ctx.signal, deadline: ctx.deadline });
  }
}

/** The text of an assistant message's `content` (a string, or text parts). */
function answerText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((part) => (part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''));
  return texts.join('');
}

/** Control characters other than tab and newline, and the key, out of the model's answer. */
function cleanAnswer(text: string, apiKey: string | undefined): string {
  const redacted = apiKey ? text.split(apiKey).join('[redacted]') : text;
  return redacted.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
}

/**
 * Ask the vision model about one image.
 * @returns `Vision model <model> on <source>:` and the model's answer, or
 *   {@link DESCRIBE_IMAGE_UNAVAILABLE} when neither a key nor a base URL is configured.
 * @throws DescribeImageError for every failure of the vision endpoint (statuses, malformed
 *   answers, refusals, timeouts, aborts, bad configuration); ToolExecutionError for a bad
 *   source or prompt (`INVALID_ARGUMENTS`), a missing file, a file over 5 MiB or not PNG, JPEG,
 *   GIF or WebP; PathTraversalError for a path outside the workspace; SafeFetchError for a
 *   refused URL.
 */
export async function describeImage(workspace: Workspace, args: DescribeImageInput, options: DescribeImageOptions): Promise<string> {
  const apiKey = options.apiKey?.trim() || undefined;
  const baseUrl = options.baseUrl?.trim() || undefined;
  if (apiKey === undefined && baseUrl === undefined) return DESCRIBE_IMAGE_UNAVAILABLE;
  if (apiKey !== undefined && !/^[\x21-\x7e]+$/.test(apiKey)) throw new DescribeImageError('misconfigured', 'describe_image is misconfigured: the vision API key holds spaces or characters that cannot be sent in an HTTP header.');
  const checked = apiEndpoint(baseUrl ?? OPENAI_DEFAULT_BASE_URL, 'chat/completions');
  if ('problem' in checked) throw new DescribeImageError('misconfigured', `describe_image is misconfigured: the vision base URL ${checked.problem}.`);
  const endpoint = checked.url;
  const prompt = args.prompt === undefined ? DESCRIBE_IMAGE_DEFAULT_PROMPT : typeof args.prompt === 'string' ? args.prompt.trim() || DESCRIBE_IMAGE_DEFAULT_PROMPT : undefined;
  if (prompt === undefined) throw new ToolExecutionError('describe_image: prompt must be a string (a question about the image).', 'INVALID_ARGUMENTS');
  if (prompt.length > 4000) throw new ToolExecutionError(`describe_image: the prompt is ${prompt.length} characters; at most 4000.`, 'INVALID_ARGUMENTS');

  const { bytes, shown } = await loadImageBytes(workspace, args.source, READ_IMAGE_MAX_BYTES, { signal: options.signal, deadline: options.deadline, ...options.fetch }, 'describe_image');
  const { format, seen } = await sniffFormat(bytes);
  if (format === undefined || !(VISION_FORMATS as readonly string[]).includes(format)) {
    throw new ToolExecutionError(
      `describe_image: ${shown} is not a PNG, JPEG, GIF or WebP image (its content is ${seen}). ` +
        (format ? 'Convert it with resize_image (for example to a .png destination) and describe that.' : 'Use read_file for text.'),
    );
  }
  const facts = await imageFacts(bytes, format, shown);

  const model = options.model?.trim() || DESCRIBE_IMAGE_DEFAULT_MODEL;
  let timeoutMs = options.requestTimeoutMs ?? DESCRIBE_IMAGE_REQUEST_TIMEOUT_MS;
  if (options.deadline !== undefined) timeoutMs = Math.min(timeoutMs, options.deadline - Date.now() - 1000);
  if (options.signal?.aborted) throw new DescribeImageError('aborted', 'describe_image was cancelled before it asked the vision model.');
  if (timeoutMs <= 0) throw new DescribeImageError('timeout', "describe_image: no time is left before the call's deadline; the vision model was not asked.");

  let reply: KeyedAnswer;
  try {
    reply = await postJson({
      url: endpoint,
      apiKey,
      body: { model, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, { type: 'image_url', image_url: { url: dataUrlOf(bytes, facts.mime) } }] }] },
      timeoutMs,
      signal: options.signal,
      maxBytes: DESCRIBE_IMAGE_MAX_RESPONSE_BYTES,
    });
  } catch (error) {
    if (!(error instanceof KeyedRequestError)) throw error;
    switch (error.failure) {
      case 'too_large': throw new DescribeImageError('malformed_response', `describe_image: the vision endpoint's answer is larger than ${DESCRIBE_IMAGE_MAX_RESPONSE_BYTES} bytes.`, error.status);
      case 'timeout': throw new DescribeImageError('timeout', `describe_image timed out: the vision model did not answer within ${timeoutMs} ms. Try again later, or continue without the image.`, undefined, error);
      case 'aborted': throw new DescribeImageError('aborted', 'describe_image was cancelled (the call was aborted) before the vision model answered.', undefined, error);
      case 'unreachable': throw new DescribeImageError('unreachable', `describe_image could not reach the vision endpoint at ${endpoint.origin} (${error.detail}). Try again later.`, undefined, error);
    }
  }
  const { status, retryAfter, data } = reply;
  if (status < 200 || status > 299) {
    const error = (data as { error?: { message?: unknown } } | undefined)?.error;
    const detail = typeof error?.message === 'string' ? cleanText(error.message, apiKey, 300) : undefined;
    throw DescribeImageError.fromStatus(status, detail, retryAfter);
  }
  const choices = (data as { choices?: unknown } | undefined)?.choices;
  const message = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown; refusal?: unknown } } | undefined)?.message : undefined;
  if (message === undefined || message === null || typeof message !== 'object') {
    throw new DescribeImageError('malformed_response', 'describe_image: the vision endpoint answered without a message in "choices"; try again later.', status);
  }
  if (typeof message.refusal === 'string' && message.refusal.trim() !== '') {
    throw new DescribeImageError('refused', `describe_image: the vision model declined: "${cleanText(message.refusal, apiKey, 300)}". Ask differently, or continue without the image.`, status);
  }
  const answer = cleanAnswer(answerText(message.content) ?? '', apiKey);
  if (answer === '') throw new DescribeImageError('malformed_response', 'describe_image: the vision model answered with no text; try again, perhaps with another prompt.', status);
  return `Vision model ${cleanText(model, apiKey, 100)} on ${shown} (${facts.width}x${facts.height} ${format.toUpperCase()}):\n\n${answer}`;
}
