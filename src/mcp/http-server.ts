/**
 * `toolgate mcp --http`: MCP streamable HTTP for both protocol eras on one endpoint, and the
 * checks every request passes first (its `Origin`, its bearer token, its `Host`).
 *
 * - 2026-07-28 requests (a `_meta` envelope, the `MCP-Protocol-Version`, `Mcp-Method` and
 *   `Mcp-Name` headers) go to SDK v2's `createMcpHandler` (`legacy: 'reject'`), which makes one
 *   {@link createMcpServer} (era `modern`) per request and checks the headers against the body.
 * - Everything else (the SDK's `isLegacyRequest`: `initialize`, requests with an
 *   `Mcp-Session-Id`, GET and DELETE of a session) is served as before by 2025-11-25 sessions:
 *   one {@link createMcpServer} (era `legacy`) and one SDK `WebStandardStreamableHTTPServerTransport`
 *   per session, bounded by {@link HttpSessions}, with resumable SSE streams.
 *
 * Why the Node-to-fetch bridge here ({@link toWebRequest}, {@link sendWebResponse}): SDK v2's
 * HTTP transports are fetch-shaped (`Request` in, `Response` out), and its Node adapter
 * (`@modelcontextprotocol/node`) is not a dependency; the bridge is two small functions.
 *
 * @module
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, isInitializeRequest, ProtocolErrorCode, WebStandardStreamableHTTPServerTransport, type Server } from '@modelcontextprotocol/server';
import { ToolgateOptionError } from '../errors/errors.js';
import { createLogger } from '../logging/logger.js';
import { checkLocalBind, hostHeadersFor } from '../util/loopback.js';
import { clip } from '../util/values.js';
import { HttpSessions, type HttpSessionLimits } from './http-sessions.js';
import { BoundedEventStore } from './event-store.js';
import { createMcpServer, taskStoreFor, type McpServeOptions, type McpServerHandle } from './server.js';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-server.js';
import { httpRequestor } from './tasks.js';
import { tokenRequestor } from './task-extension.js';

/** Options of {@link serveHttp}. */
export interface McpHttpOptions extends McpServeOptions, HttpSessionLimits {
  /** The `retry` hint of SSE streams, in ms: how long a client waits before it reconnects to a stream that ended. Default 1000. */
  retryMs?: number;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Address to bind. Default `127.0.0.1` (loopback only). Any other address needs a token
   * given in `token`: without one, everyone on the network could call every served tool.
   * @throws (from serveHttp) ToolgateOptionError when a non-loopback host is given without a token.
   */
  host?: string;
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`, RFC 6750); a
   * request without it gets 401. At least 16 characters, no spaces. Default: a new random
   * one on every bind (the handle's `token`): a loopback port is reachable by every local
   * process, sandboxed commands with the network included. `false`: no token, for loopback
   * binds only (every local process may then call the tools and read this server's
   * sessions' answers).
   */
  token?: string | false;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
}

/** Largest request body accepted, in bytes (4 MiB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serve over MCP streamable HTTP (stateful sessions, one {@link createMcpServer} each), bound
 * to loopback by default, with the SDK's DNS-rebinding protection on every bind address (the
 * `Host` header must be one of {@link hostHeadersFor}).
 *
 * Sessions are bounded ({@link HttpSessions}): at most `maxSessions` (default 100); one idle
 * for `sessionIdleMs` (default 30 minutes, no request open) is closed; at the cap, the one
 * idle for longest makes room, and when every session has a request open a new one gets 503.
 * Every session's SSE streams are resumable: messages are kept in a bounded event store
 * (1,000 per session), streams start with a priming event carrying `retry: retryMs` (for
 * clients of protocol 2025-11-25 or later), and a client that reconnects with
 * `Last-Event-ID` gets what it missed. Every request must carry the token (one is made
 * unless given or turned off), and MCP tasks are bound to the session (and token) that
 * created them.
 * @returns the endpoint URL, the token requests must carry (`undefined` with `token: false`), and a handle.
 * @throws ToolgateOptionError for a bad `token`, a non-loopback `host` without one, or limits out of range.
 */
export async function serveHttp(options: McpHttpOptions): Promise<McpServerHandle & { url: string; port: number; token: string | undefined }> {
  const logger = options.logger ?? createLogger('silent');
  const host = options.host ?? '127.0.0.1';
  // A token given here is checked, and is what lets a bind leave loopback; one made here is not.
  checkLocalBind(host, options.token === false ? undefined : options.token, 'serving tools to the network needs a token (TOOLGATE_MCP_TOKEN) that every request must carry');
  const token = options.token === false ? undefined : options.token ?? crypto.randomBytes(24).toString('base64url');
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  const endpoint = options.path ?? '/mcp';
  let sessions: HttpSessions<{ server: Server; transport: WebStandardStreamableHTTPServerTransport; close(): Promise<void> }>;
  try {
    sessions = new HttpSessions(options, (id, why) => logger.info({ event: 'mcp_session_evicted', session: id, why }, why === 'idle' ? 'MCP session closed after being idle' : 'MCP session closed to stay within maxSessions'));
  } catch (error) {
    const message = (error as Error).message;
    throw ToolgateOptionError.fromBadOption(message.split(' ')[0]!, message.slice(message.indexOf(' ') + 1));
  }
  const retryMs = options.retryMs ?? 1000;
  if (!Number.isInteger(retryMs) || retryMs < 0) throw ToolgateOptionError.fromBadOption('retryMs', `must be an integer of at least 0; got ${retryMs}`);
  // One task store for every session: a client that reconnects (a new session) finds its tasks.
  const tasks = taskStoreFor(options) ?? false;
  let allowedHosts: string[] = [];
  let allowedOrigins = new Set<string>();
  // 2026-07-28: one server per request, from the same options as the sessions' servers.
  // Its tasks (the tasks extension) are bound to the bearer token (or to the principal of an
  // authInfo): a 2026-07-28 request has no session, and any instance given the same token
  // serves the same client.
  const modern = createMcpHandler(({ era }) => createMcpServer({ ...options, tasks, taskRequestor: tokenRequestor(token) }, { era }), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => logger.debug({ event: 'mcp_http_modern', err: error.message }, 'MCP 2026-07-28 request'),
  });

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ event: 'mcp_http_error', err: (error as Error)?.stack ?? String(error) }, 'MCP HTTP request failed');
      if (!res.headersSent) jsonRpcError(res, 500, ProtocolErrorCode.InternalError, 'internal error');
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      logger.warn({ event: 'mcp_origin_refused', origin: clip(origin, 200) }, 'refused a request from a web page of another origin');
      return jsonRpcError(res, 403, ProtocolErrorCode.InvalidRequest, `Origin ${clip(origin, 200)} may not call this server: a web page of another site must not drive local tools`);
    }
    if (expected !== undefined) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized: send Authorization: Bearer <token>\n');
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== endpoint) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found; the MCP endpoint is ${endpoint}\n`);
      return;
    }
    // DNS rebinding: the Host header must name this server (what SDK v1's transport checked).
    const hostHeader = req.headers.host;
    if (hostHeader === undefined || !allowedHosts.includes(hostHeader)) {
      return jsonRpcError(res, 403, -32000, `Invalid Host header: ${clip(String(hostHeader), 200)}`);
    }
    let body: unknown;
    let raw: string | undefined;
    if (req.method === 'POST') {
      raw = await readBody(req);
      if (raw === undefined) return jsonRpcError(res, 413, ProtocolErrorCode.InvalidRequest, `request body over ${MAX_BODY_BYTES} bytes`);
      try {
        body = JSON.parse(raw);
      } catch {
        return jsonRpcError(res, 400, ProtocolErrorCode.ParseError, 'Parse error: the body is not JSON');
      }
    }
    const aborted = new AbortController();
    res.once('close', () => aborted.abort());
    const request = toWebRequest(req, raw, aborted.signal);
    if (!(await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY_BYTES }))) {
      await sendWebResponse(res, await modern.fetch(request, { parsedBody: body }));
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing !== undefined) {
      const done = sessions.begin(sessionId as string);
      res.once('close', done);
      try {
        await sendWebResponse(res, await existing.transport.handleRequest(request, { parsedBody: body }));
      } finally {
        if (res.writableEnded) done();
      }
      return;
    }
    if (sessionId !== undefined) return jsonRpcError(res, 404, ProtocolErrorCode.InvalidRequest, 'unknown or expired session; initialize again');
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, ProtocolErrorCode.InvalidRequest, 'no session: the first request must be initialize (without an mcp-session-id header), or a 2026-07-28 request carrying _meta["io.modelcontextprotocol/protocolVersion"]');
    }
    if (!sessions.makeRoom()) {
      res.setHeader('retry-after', '5');
      return jsonRpcError(res, 503, ProtocolErrorCode.InvalidRequest, `too many sessions: all ${sessions.maxSessions} have a request open; retry later`);
    }
    // The session id is made here, so that the session's server knows its task requestor.
    const id = crypto.randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new BoundedEventStore(),
      retryInterval: retryMs,
      supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
      onsessioninitialized: () => {
        sessions.makeRoom();
        sessions.add(id, { server, transport, close: () => server.close() });
      },
    });
    const server = createMcpServer({ ...options, tasks, taskRequestor: httpRequestor(id, token) }, { era: 'legacy' });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await sendWebResponse(res, await transport.handleRequest(request, { parsedBody: body }));
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowedHosts = hostHeadersFor(host, port);
  // A browser page of this server's own address (nothing is served to browsers, so in effect
  // none); every other page is refused. Clients that are not browsers send no Origin.
  allowedOrigins = new Set(allowedHosts.map((h) => `http://${h.toLowerCase()}`));
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${endpoint}`,
    port,
    token,
    notifyToolsChanged: () => {
      for (const { server } of sessions.values()) void server.sendToolListChanged().catch(() => undefined);
      modern.notify.toolsChanged();
    },
    close: async () => {
      await sessions.close();
      await modern.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  // No id: none could be read (MCP 2025-11-25 lets an error response leave it out; null is not a RequestId).
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message } }));
}
/** The fetch `Request` of a Node request whose body (`raw`) was read already. */
function toWebRequest(req: http.IncomingMessage, raw: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers, body: raw, signal });
}

/** Write a fetch `Response` to a Node response, streaming its body (SSE) until it ends or the client goes. */
async function sendWebResponse(res: http.ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => { headers[name] = value; });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.writableEnded && !res.destroyed) res.write(value);
    }
  } catch {
    // the client went away, or the stream was cancelled
  } finally {
    res.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}
