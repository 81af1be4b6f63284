/**
 * HTTP(S) requests for the web and image tools that cannot be turned against the machine's
 * own network (server-side request forgery, case N1).
 *
 * - Only `http:` and `https:` URLs. The WHATWG URL parser reads every spelling of an IPv4
 *   address (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) as the dotted address it means,
 *   so the check below sees `127.0.0.1` whichever spelling was given.
 * - The host is resolved here, once (`dns.lookup`, all addresses); every address is checked
 *   with {@link addressVerdict} (net-policy.ts) and the request fails if any one is blocked.
 *   The connection is then made to those checked addresses only: the socket's `lookup` is
 *   replaced by one that returns them, so a second DNS answer (DNS rebinding) never reaches it.
 * - Redirects are followed here, one hop at a time (at most `maxRedirects`), each new URL
 *   checked as above before it is requested. A redirect to another origin drops the
 *   `Authorization`, `Cookie` and `Proxy-Authorization` headers, every header whose name looks
 *   secret ({@link isSecretKey}: `X-Api-Key`, `Private-Token`...) and URL credentials; 303, and
 *   301/302 after a POST, turn into a GET without body (as browsers do, RFC 9110 §15.4).
 * - Time is bounded (`timeoutMs`, and the call's deadline less a margin) across connection,
 *   redirects and body; the call's abort signal stops the request at once.
 * - Bodies are read through {@link readBounded} with a byte limit (after decompression of
 *   gzip, deflate and br, so a small compressed answer cannot expand past it).
 * - URLs shown in messages go through {@link shownUrl}: no user name or password, and values of
 *   query parameters with secret-looking names (`token`, `api_key`...) replaced.
 *
 * Proxies from the environment (`HTTP_PROXY`...) are not used: node:http ignores them.
 *
 * @module
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ToolExecutionError, ToolgateError } from '../../src/tool.js';
import { isSecretKey } from '../../src/internal.js';
import { addressVerdict, NET_ALLOW_ENV, netAllowlistFromEnv, normalHost, type NetAllowlist } from './net-policy.js';

/** Redirects followed by default. */
const DEFAULT_MAX_REDIRECTS = 5;
/** Time limit of one request, redirects and body included, by default, in milliseconds. */
const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Milliseconds kept before the call's deadline, so the tool can still report a clean timeout. */
const DEADLINE_MARGIN_MS = 1_000;
/** The User-Agent header sent unless the caller gives one. */
const USER_AGENT = 'toolgate/0.1 (+https://github.com/toolgate; fetch tool for an AI agent)';

/** Why a request failed; {@link SafeFetchError.reason}. */
export type SafeFetchFailure =
  | 'bad_url'
  | 'blocked'
  | 'dns'
  | 'unreachable'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'aborted'
  | 'misconfigured';

/**
 * A failed request. `code` is `INVALID_ARGUMENTS` for a URL that is not http(s) or does not
 * parse, else `TOOL_ERROR`; `reason` says what happened. Messages never carry URL credentials.
 */
export class SafeFetchError extends ToolExecutionError {
  /** What went wrong. */
  readonly reason: SafeFetchFailure;

  constructor(reason: SafeFetchFailure, message: string, cause?: unknown) {
    super(message, reason === 'bad_url' ? 'INVALID_ARGUMENTS' : 'TOOL_ERROR', cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/** Options of {@link safeFetch}. */
export interface SafeFetchOptions {
  /** HTTP method, upper case. Default `GET`. */
  method?: string;
  /** Request headers (the caller checks names and values). `User-Agent` and `Accept-Encoding` are added when absent. */
  headers?: Record<string, string>;
  /** Request body (not sent with GET or HEAD). */
  body?: Uint8Array;
  /** Redirects to follow; 0 returns the 3xx answer itself. Default {@link DEFAULT_MAX_REDIRECTS}. */
  maxRedirects?: number;
  /** Time limit in milliseconds for the whole exchange. Default {@link DEFAULT_FETCH_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** The call's deadline (`Date.now()` scale); the limit ends {@link DEADLINE_MARGIN_MS} before it. */
  deadline?: number;
  /** The call's abort signal. */
  signal?: AbortSignal;
  /** Allowlist; default: read from {@link NET_ALLOW_ENV} at each call. */
  allow?: NetAllowlist;
  /**
   * Name resolution, for tests (a name that resolves to loopback, or to different answers on
   * each call); default `dns.lookup` with all addresses.
   */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
  /** Tool name used in messages. Default `web request`. */
  label?: string;
}

/** The answer {@link safeFetch} hands to its consumer. */
export interface SafeResponse {
  /** The URL that answered (after redirects). */
  url: URL;
  /** Every URL requested before it, in order (the redirect chain). */
  redirects: URL[];
  status: number;
  statusText: string;
  /** Response headers, names lower-case (Node's shape). */
  headers: http.IncomingHttpHeaders;
  /** The body, decompressed when `Content-Encoding` is gzip, deflate or br. */
  body: Readable;
  /** The address the connection went to. */
  remoteAddress: string | undefined;
}

/**
 * `url` for messages: no user name or password, the values of query parameters whose names
 * look secret ({@link isSecretKey}) replaced by `[redacted]`, and at most 300 characters.
 */
export function shownUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    const text = String(url).replace(/\/\/[^/@\s]*@/, '//[redacted]@');
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }
  const hadCredentials = parsed.username !== '' || parsed.password !== '';
  parsed.username = '';
  parsed.password = '';
  for (const key of [...parsed.searchParams.keys()]) {
    if (isSecretKey(key)) parsed.searchParams.set(key, '[redacted]');
  }
  let text = parsed.href;
  if (hadCredentials) text = text.replace('//', '//[redacted]@');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Parse and check a URL argument: http or https only.
 * @throws SafeFetchError (`bad_url`, code INVALID_ARGUMENTS) otherwise.
 */
function parseHttpUrl(input: string, label = 'web request'): URL {
  if (typeof input !== 'string' || input.trim() === '') throw new SafeFetchError('bad_url', `${label}: the url is empty; give an http:// or https:// address.`);
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new SafeFetchError('bad_url', `${label}: ${JSON.stringify(shownUrl(input))} is not a valid URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SafeFetchError('bad_url', `${label}: only http:// and https:// URLs can be fetched, not ${url.protocol} (${shownUrl(url)}). Use read_file or other workspace tools for local files.`);
  }
  if (url.hostname === '') throw new SafeFetchError('bad_url', `${label}: ${shownUrl(url)} has no host name.`);
  return url;
}

const defaultResolve = (host: string): Promise<Array<{ address: string; family: number }>> => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Resolve `url`'s host and check every address; returns the checked addresses.
 * @throws SafeFetchError `blocked` when any address is not allowed, `dns` when the name does not resolve.
 */
async function checkedAddresses(url: URL, allow: NetAllowlist, resolve = defaultResolve, label = 'web request'): Promise<Array<{ address: string; family: number }>> {
  const host = normalHost(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  const family = net.isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new SafeFetchError('dns', `${label}: the host ${host} of ${shownUrl(url)} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'}); check the address.`, error);
    }
    if (addresses.length === 0) throw new SafeFetchError('dns', `${label}: the host ${host} of ${shownUrl(url)} has no address.`);
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  for (const { address } of addresses) {
    const verdict = addressVerdict(host, address, allow, port);
    if (verdict !== undefined) {
      const via = family === 0 ? ` (${host} resolves to ${address})` : '';
      throw new SafeFetchError(
        'blocked',
        `${label}: ${shownUrl(url)} is blocked: ${address} is a ${verdict} address${via}, and only public internet addresses may be fetched. ` +
          `Nothing was requested. (An operator can allow hosts or ranges in ${NET_ALLOW_ENV}.)`,
      );
    }
  }
  return addresses;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];

/** One request to checked addresses; resolves with the response (body unread). */
function requestOnce(
  url: URL,
  addresses: Array<{ address: string; family: number }>,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const host = normalHost(url.hostname);
  const lookup = ((_hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void): void => {
    if (options?.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as net.LookupFunction;
  const isHttps = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method,
    hostname: host,
    port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    agent: false,
    lookup,
    signal,
  };
  if (isHttps && net.isIP(host) === 0) options.servername = host;
  return new Promise((resolve, reject) => {
    const req = (isHttps ? https : http).request(options, resolve);
    req.on('error', reject);
    if (body !== undefined && body.length > 0) req.end(body);
    else req.end();
  });
}

/**
 * The response body, decompressed per `Content-Encoding` (unknown encodings left as they are).
 * Answers that have no body (to HEAD, 1xx, 204, 304, or `Content-Length: 0`) are not decoded:
 * servers send `Content-Encoding` with them too, and an empty gzip stream is an error to zlib.
 */
function decodedBody(res: http.IncomingMessage, method: string): Readable {
  const status = res.statusCode ?? 0;
  if (method === 'HEAD' || status < 200 || status === 204 || status === 304 || res.headers['content-length'] === '0') return res;
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = zlib.createGunzip();
  else if (encoding === 'deflate') decoder = zlib.createInflate();
  else if (encoding === 'br') decoder = zlib.createBrotliDecompress();
  if (decoder === undefined) return res;
  res.on('error', (e) => decoder!.destroy(e));
  return res.pipe(decoder);
}

function networkDetail(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined;
  if (e?.code) return e.code;
  return (e?.message ?? String(error)).replace(/\/\/[^/@\s]*@/g, '//[redacted]@').slice(0, 200);
}

/**
 * Request `input` with the checks described in the module comment, follow redirects, and hand
 * the final response to `consume`, within the time limit. The request is torn down when
 * `consume` settles, or when the time runs out or the signal aborts (the body stream then
 * fails, and the result is a `timeout` or `aborted` error).
 *
 * URL credentials (`user:pass@`) are sent as Basic authentication to that origin only.
 *
 * @throws SafeFetchError for every network failure and refusal (see {@link SafeFetchFailure}),
 *   and whatever `consume` throws.
 */
export async function safeFetch<T>(input: string | URL, options: SafeFetchOptions, consume: (response: SafeResponse) => Promise<T>): Promise<T> {
  const label = options.label ?? 'web request';
  let url = typeof input === 'string' ? parseHttpUrl(input, label) : parseHttpUrl(input.href, label);
  const allow = options.allow ?? netAllowlistFromEnv();
  const resolve = options.resolve ?? defaultResolve;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let limitMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  if (options.deadline !== undefined) limitMs = Math.min(limitMs, options.deadline - Date.now() - DEADLINE_MARGIN_MS);
  if (options.signal?.aborted) throw new SafeFetchError('aborted', `${label} was cancelled before it started.`);
  if (limitMs <= 0) throw new SafeFetchError('timeout', `${label}: no time is left before the call's deadline; nothing was requested.`);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, limitMs);
  const onAbort = (): void => controller.abort(new Error('aborted'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const failure = (error: unknown): unknown => {
    if (timedOut) return new SafeFetchError('timeout', `${label}: ${shownUrl(url)} did not answer within ${limitMs} ms; nothing more was read. Try again later or another address.`, error);
    if (controller.signal.aborted) return new SafeFetchError('aborted', `${label} was cancelled (the call was aborted) while reading ${shownUrl(url)}.`, error);
    // A tool's own failures (and a missing optional package, PACKAGE_UNAVAILABLE) pass as they are.
    if (error instanceof ToolgateError) return error;
    return new SafeFetchError('unreachable', `${label}: could not reach ${shownUrl(url)} (${networkDetail(error)}). Check the address, or try again later.`, error);
  };

  let method = (options.method ?? 'GET').toUpperCase();
  let body = method === 'GET' || method === 'HEAD' ? undefined : options.body;
  const headers: Record<string, string> = { ...options.headers };
  const has = (name: string): boolean => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (!has('user-agent')) headers['User-Agent'] = USER_AGENT;
  if (!has('accept-encoding')) headers['Accept-Encoding'] = 'gzip, deflate, br';
  const redirects: URL[] = [];
  let response: http.IncomingMessage | undefined;
  try {
    for (;;) {
      const addresses = await checkedAddresses(url, allow, resolve, label);
      controller.signal.throwIfAborted();
      const hopHeaders = { ...headers };
      if (url.username !== '' || url.password !== '') {
        const user = decodeURIComponent(url.username);
        const pass = decodeURIComponent(url.password);
        hopHeaders.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
      }
      response = await requestOnce(url, addresses, method, hopHeaders, body, controller.signal);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined || maxRedirects === 0) break;
      response.resume();
      response.destroy();
      if (redirects.length >= maxRedirects) {
        throw new SafeFetchError('too_many_redirects', `${label}: ${shownUrl(redirects[0] ?? url)} redirected more than ${maxRedirects} times; stopped at ${shownUrl(url)}.`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new SafeFetchError('unreachable', `${label}: ${shownUrl(url)} redirected to an invalid address.`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new SafeFetchError('blocked', `${label}: ${shownUrl(url)} redirected to a ${next.protocol} URL; only http and https are followed. Nothing more was requested.`);
      }
      const status = response.statusCode!;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        for (const k of Object.keys(headers)) if (/^content-/i.test(k)) delete headers[k];
      }
      if (next.origin !== url.origin) {
        // Custom credential headers (X-Api-Key, Private-Token...) must not follow to another origin either.
        for (const k of Object.keys(headers)) if (CROSS_ORIGIN_DROPPED.includes(k.toLowerCase()) || isSecretKey(k)) delete headers[k];
      } else if (next.username === '' && next.password === '' && (url.username !== '' || url.password !== '')) {
        next.username = url.username;
        next.password = url.password;
      }
      redirects.push(url);
      url = next;
      response = undefined;
    }
    const final = response;
    return await consume({
      url,
      redirects,
      status: final.statusCode ?? 0,
      statusText: final.statusMessage ?? '',
      headers: final.headers,
      body: decodedBody(final, method),
      remoteAddress: final.socket?.remoteAddress,
    });
  } catch (error) {
    throw failure(error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    response?.destroy();
  }
}

/** What {@link readBounded} read. */
export interface BoundedBody {
  /** The bytes read (at most `maxBytes`). */
  bytes: Buffer;
  /** True when the body was longer than `maxBytes` (only with `truncate`). */
  truncated: boolean;
}

/**
 * Read a body up to `maxBytes` bytes (counted after decompression). Past the limit, with
 * `truncate` the first `maxBytes` are kept and reading stops; without it a `too_large`
 * SafeFetchError is thrown. The stream is destroyed either way.
 */
export async function readBounded(body: Readable, maxBytes: number, options: { truncate: boolean; label?: string; url?: URL }): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        if (!options.truncate) {
          throw new SafeFetchError('too_large', `${options.label ?? 'web request'}: the answer of ${options.url ? shownUrl(options.url) : 'the server'} is larger than ${maxBytes} bytes; nothing was kept.`);
        }
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        return { bytes: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    return { bytes: Buffer.concat(chunks), truncated: false };
  } finally {
    body.destroy();
  }
}

/** The media type of a `Content-Type` header, lower case, without parameters (`''` when absent). */
export function mediaType(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `charset` parameter of a `Content-Type` header, lower case, if any. */
export function charsetOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(value ?? '');
  return match?.[1]?.toLowerCase();
}
