/**
 * Helpers for tools that call a hosted API with a key from the environment (web_search's
 * Tavily, generate_image's OpenAI-compatible images endpoint): checking the configured base
 * URL so the key only travels over https (or stays on the machine), posting JSON with a deadline
 * and a size bound on the answer ({@link postJson}), and quoting the service's text without the key or control characters.
 *
 * @module
 */

/** Hosts an http (not https) base URL may name: the key then never leaves the machine. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * `<base>/<path>` for a configured base URL, query and fragment dropped.
 * @param baseUrl - the configured base URL (for example `https://api.openai.com/v1`).
 * @param path - the endpoint below it, without a leading slash (`search`, `images/generations`).
 * @returns the URL, or `problem`: what is wrong with the base URL, as a phrase to follow its
 *   name ("is not a URL", "must be an https URL ...", "must not carry a user name or password").
 */
export function apiEndpoint(baseUrl: string, path: string): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return { problem: 'must be an https URL (http is only allowed for loopback hosts)' };
  }
  if (url.username || url.password) return { problem: 'must not carry a user name or password' };
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.search = '';
  url.hash = '';
  return { url };
}

/**
 * The body of a fetch `Response` as UTF-8 text, reading at most `maxBytes` bytes.
 * @returns the text, or undefined when the body is larger (the rest is not read; the
 *   stream is cancelled).
 */
export async function readResponseText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]+/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Untrusted text made safe to show on one line: the key (if given) replaced by `[redacted]`,
 * control, bidirectional and zero-width characters replaced by spaces, runs of white space
 * collapsed, and the text cut at `max` characters, "…" included (never inside a surrogate pair).
 */
export function cleanText(text: string, apiKey: string | undefined, max: number): string {
  let out = apiKey ? text.split(apiKey).join('[redacted]') : text;
  out = out.replace(UNSAFE_CHARS, ' ').replace(LONE_SURROGATE, '\ufffd').replace(/\s+/g, ' ').trim();
  if (out.length <= max) return out;
  let end = max - 1; // room for the "…"
  const last = out.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${out.slice(0, end).trimEnd()}…`;
}

/** Why a POST to a keyed API got no answer to read: see {@link KeyedRequestError}. */
export type KeyedRequestFailure = 'timeout' | 'aborted' | 'unreachable' | 'too_large';

/**
 * A POST to a keyed API that got no answer: `timeout` (none within the time given), `aborted`
 * (the caller's signal), `unreachable` (a network error; `detail` is its code, such as
 * `ECONNREFUSED`), or `too_large` (the answer passed the byte bound). Each tool words it in
 * its own error.
 */
export class KeyedRequestError extends Error {
  /** @param status - the HTTP status, when an answer came (`too_large`). */
  constructor(readonly failure: KeyedRequestFailure, readonly detail: string, cause?: unknown, readonly status?: number) {
    super(`${failure}: ${detail}`, { cause });
    this.name = 'KeyedRequestError';
  }
}

/** What a keyed API answered: the HTTP status, its `Retry-After` header, and the body parsed as JSON (`undefined` when it is not JSON). */
export interface KeyedAnswer {
  status: number;
  retryAfter: string | null;
  data: unknown;
}

/**
 * POST `body` as JSON to `url` (from {@link apiEndpoint}) with the key as a bearer token (none
 * without one), never following a redirect (the key stays with the host it was meant for),
 * within `timeoutMs` milliseconds and the caller's `signal`, reading at most `maxBytes` bytes of
 * the answer. Any HTTP status is an answer; the caller judges it.
 * @throws KeyedRequestError when there is no answer to read (see {@link KeyedRequestFailure}).
 */
export async function postJson(request: { url: URL; apiKey: string | undefined; body: unknown; timeoutMs: number; signal: AbortSignal | undefined; maxBytes: number }): Promise<KeyedAnswer> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  const onAbort = (): void => controller.abort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (request.apiKey !== undefined) headers.Authorization = `Bearer ${request.apiKey}`;
  try {
    const response = await fetch(request.url, { method: 'POST', headers, body: JSON.stringify(request.body), redirect: 'manual', signal: controller.signal });
    const text = await readResponseText(response, request.maxBytes);
    if (text === undefined) throw new KeyedRequestError('too_large', `the answer is larger than ${request.maxBytes} bytes`, undefined, response.status);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    return { status: response.status, retryAfter: response.headers.get('retry-after'), data };
  } catch (error) {
    if (error instanceof KeyedRequestError) throw error;
    if (timedOut) throw new KeyedRequestError('timeout', `no answer within ${request.timeoutMs} ms`, error);
    if (controller.signal.aborted) throw new KeyedRequestError('aborted', 'the call was aborted', error);
    throw new KeyedRequestError('unreachable', (error as { cause?: { code?: string } }).cause?.code ?? 'network error', error);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}
