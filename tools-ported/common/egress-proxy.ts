/**
 * The egress proxy: a forward HTTP proxy (absolute-form requests, `CONNECT` tunnels, and
 * `Upgrade` requests) owned by toolgate, through which computer_use's browser makes every
 * connection, so that each one is judged by the network policy (net-policy.ts, case N1) when it
 * is made, not only the first URL a tool was given. A page can send the browser anywhere after
 * that check: an HTTP redirect, a meta refresh, a script's `location =`, a form POST, a
 * `fetch()`, an image, a WebSocket, or a name whose DNS answer changes between the check and
 * the connection (DNS rebinding).
 *
 * For each connection the proxy:
 * - takes the destination host and port from the request (`CONNECT host:port`, or the
 *   absolute URL of a plain `http://` request); the WHATWG URL parser reads every spelling of
 *   an IPv4 address (`2130706433`, `0x7f.1`, `127.1`) as the address it means;
 * - resolves the host once (`dns.lookup`, all addresses; a test may inject the resolver), and
 *   refuses when any address is not allowed ({@link addressVerdict}: loopback, private,
 *   link-local with 169.254.169.254, unique-local, multicast, unspecified `0.0.0.0` and `::`,
 *   IPv4-mapped and -compatible IPv6... unless `TOOLGATE_NET_ALLOW` allows that address, range,
 *   name, or address and port), with 403 and a message saying why;
 * - connects to exactly the address it judged (never to the name again), trying the judged
 *   addresses in order.
 *
 * It is small and home-made on purpose (about 250 lines over node:http and node:net): it is
 * the security core of the browser's network, and the libraries that fit (proxy-chain and the
 * like) open their upstream connections by host name themselves, resolving it a second time
 * after any check of ours, which is the rebinding window this proxy exists to close.
 *
 * It listens on a Unix socket (for a browser in a network namespace of its own, which reaches
 * it through a forwarder: see virtual-display.ts) or on a loopback TCP port (a browser on the
 * host, the sandbox off). It speaks plain HTTP to the browser; TLS stays end to end inside
 * `CONNECT` tunnels (the proxy sees host names and ports, never content).
 *
 * @module
 */
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { addressVerdict, NET_ALLOW_ENV, netAllowlistFromEnv, normalHost, type NetAllowlist } from './net-policy.js';

/** One resolved address. */
interface Resolved {
  address: string;
  family: number;
}

/** A connection the proxy refused. */
export interface EgressRefusal {
  /** The host as the browser asked for it (a name or an address). */
  host: string;
  port: number;
  /** Why, in words (also sent to the browser). */
  reason: string;
}

/** Options of {@link EgressProxy.start}. */
export interface EgressProxyOptions {
  /** The allowlist, asked at each connection. Default: {@link netAllowlistFromEnv} (`TOOLGATE_NET_ALLOW`). */
  allow?: () => NetAllowlist;
  /** Name resolution, for tests (a name that resolves to loopback); default `dns.lookup`, all addresses. */
  resolve?: (host: string) => Promise<Resolved[]>;
  /** When set, every connection is refused with this reason (the call's sandbox allows no network). */
  refuseAll?: string;
  /** Milliseconds a connection to one address may take. Default 15 000. */
  connectTimeoutMs?: number;
}

/** Where {@link EgressProxy.start} listens: a Unix socket path, or a TCP port on a loopback address (0: any free port). */
export type EgressListen = { path: string } | { host: string; port: number };

/** Refusals kept for {@link EgressProxy.refusals}. */
const MAX_REFUSALS = 100;
/** Connections the proxy holds at once (browser side). */
const MAX_CONNECTIONS = 256;
/** Headers that belong to one hop (RFC 9110 §7.6.1) or to the proxy, never forwarded. */
const HOP_HEADERS = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** A refused destination; the message says why. */
class Refused extends Error {
  constructor(message: string, readonly status = 403) {
    super(message);
  }
}

const defaultResolve = (host: string): Promise<Resolved[]> => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * The judged addresses of `host`:`port`, every one allowed by `allow`.
 * @throws Refused (403) when one is not, or (502) when the name does not resolve.
 */
export async function judgeDestination(host: string, port: number, allow: NetAllowlist, resolve: (host: string) => Promise<Resolved[]> = defaultResolve): Promise<Resolved[]> {
  const name = normalHost(host);
  let addresses: Resolved[];
  if (net.isIP(name) !== 0) addresses = [{ address: name, family: net.isIP(name) }];
  else {
    try {
      addresses = await resolve(name);
    } catch (error) {
      throw new Refused(`${name} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'}).`, 502);
    }
    if (addresses.length === 0) throw new Refused(`${name} has no address.`, 502);
  }
  for (const { address } of addresses) {
    const verdict = addressVerdict(name, address, allow, port);
    if (verdict !== undefined) {
      const via = net.isIP(name) === 0 ? ` (${name} resolves to ${address})` : '';
      throw new Refused(`toolgate refused a connection to ${name}:${port}: ${address} is a ${verdict} address${via}; the browser may reach public internet addresses only. (An operator can allow hosts, ranges or address:port in ${NET_ALLOW_ENV}.)`);
    }
  }
  return addresses;
}

/** `host:port` of a CONNECT request, or undefined when it is not exactly that. */
function connectTarget(authority: string | undefined): { host: string; port: number } | undefined {
  if (authority === undefined || !/^(\[[0-9a-fA-F:.]+\]|[^\s:/@[\]?#]+):\d{1,5}$/.test(authority)) return undefined;
  try {
    const url = new URL(`http://${authority}`);
    const port = Number(authority.slice(authority.lastIndexOf(':') + 1));
    if (port < 1 || port > 65535) return undefined;
    return { host: url.hostname, port };
  } catch {
    return undefined;
  }
}

/** `rawHeaders` without hop-by-hop headers and those the `Connection` header names. */
function forwardedHeaders(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_HEADERS.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** A forward proxy that judges every connection; see the module comment. Start with {@link EgressProxy.start}, {@link EgressProxy.close} after. */
export class EgressProxy {
  /** The latest refusals (at most 100), oldest first: what the browser was kept from. */
  readonly refusals: EgressRefusal[] = [];
  private readonly sockets = new Set<Duplex>();
  private readonly server: http.Server;
  private readonly listenOn: EgressListen;

  private constructor(listen: EgressListen, private readonly options: EgressProxyOptions) {
    this.listenOn = listen;
    this.server = http.createServer((req, res) => void this.onRequest(req, res));
    this.server.maxConnections = MAX_CONNECTIONS;
    this.server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.onUpgrade(req, socket, head));
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
    this.server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /**
   * Listen on `listen` (a Unix socket is made readable and writable by this user only; a stale
   * file at its path is replaced).
   * @throws the listen error (an address in use, a folder that does not exist).
   */
  static async start(listen: EgressListen, options: EgressProxyOptions = {}): Promise<EgressProxy> {
    const proxy = new EgressProxy(listen, options);
    if ('path' in listen) fs.rmSync(listen.path, { force: true });
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      if ('path' in listen) proxy.server.listen(listen.path, () => resolve());
      else proxy.server.listen(listen.port, listen.host, () => resolve());
    });
    if ('path' in listen) fs.chmodSync(listen.path, 0o600);
    return proxy;
  }

  /** The proxy's address: its Unix socket's path, or `host:port`. */
  get address(): string {
    if ('path' in this.listenOn) return this.listenOn.path;
    const info = this.server.address() as net.AddressInfo;
    return `${info.address}:${info.port}`;
  }

  /** Stop listening and end every connection and tunnel. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if ('path' in this.listenOn) fs.rmSync(this.listenOn.path, { force: true });
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** The judged addresses, or a Refused (recorded). */
  private async judge(host: string, port: number): Promise<Resolved[]> {
    try {
      if (this.options.refuseAll !== undefined) throw new Refused(`toolgate refused a connection to ${host}:${port}: ${this.options.refuseAll}`);
      let allow: NetAllowlist;
      try {
        allow = (this.options.allow ?? netAllowlistFromEnv)();
      } catch (error) {
        throw new Refused(`toolgate refused a connection to ${host}:${port}: ${(error as Error).message}`);
      }
      return await judgeDestination(host, port, allow, this.options.resolve);
    } catch (error) {
      if (error instanceof Refused) {
        this.refusals.push({ host, port, reason: error.message });
        if (this.refusals.length > MAX_REFUSALS) this.refusals.shift();
      }
      throw error;
    }
  }

  /** A TCP connection to the first judged address that answers. */
  private async connect(addresses: Resolved[], port: number): Promise<net.Socket> {
    let last: unknown;
    for (const { address, family } of addresses) {
      try {
        return await new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ host: address, family, port });
          socket.setTimeout(this.options.connectTimeoutMs ?? 15_000, () => socket.destroy(new Error('connect timeout')));
          socket.once('connect', () => {
            socket.setTimeout(0);
            socket.off('error', reject);
            resolve(socket);
          });
          socket.once('error', reject);
        });
      } catch (error) {
        last = error;
      }
    }
    throw new Refused(`could not connect (${(last as NodeJS.ErrnoException)?.code ?? 'error'}).`, 502);
  }

  private async onConnect(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const reply = (status: number, text: string, message: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`);
    };
    const target = connectTarget(req.url);
    if (target === undefined) return reply(400, 'Bad Request', 'CONNECT needs host:port.');
    let upstream: net.Socket;
    try {
      upstream = await this.connect(await this.judge(target.host, target.port), target.port);
    } catch (error) {
      return error instanceof Refused ? reply(error.status, error.status === 403 ? 'Forbidden' : 'Bad Gateway', error.message) : reply(502, 'Bad Gateway', 'proxy error');
    }
    if (socket.destroyed) return void upstream.destroy();
    this.track(upstream);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    this.pipeBoth(socket, upstream);
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const fail = (status: number, message: string) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(message);
      else res.destroy();
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return fail(400, 'This is a forward proxy: it takes absolute http:// URLs and CONNECT.');
    }
    if (url.protocol !== 'http:') return fail(400, `Only http:// is proxied as a request (https goes through CONNECT); got ${url.protocol}`);
    const port = url.port === '' ? 80 : Number(url.port);
    let addresses: Resolved[];
    try {
      addresses = await this.judge(url.hostname, port);
    } catch (error) {
      return fail(error instanceof Refused ? error.status : 502, error instanceof Refused ? error.message : 'proxy error');
    }
    // One connection per request, to the judged address (no pool: a pooled socket is one judged for another request).
    let socket: net.Socket;
    try {
      socket = await this.connect(addresses, port);
    } catch (error) {
      return fail(502, error instanceof Refused ? error.message : 'proxy error');
    }
    this.track(socket);
    const upstream = http.request({ createConnection: () => socket, method: req.method, path: `${url.pathname}${url.search}`, headers: [...forwardedHeaders(req.rawHeaders), 'Connection', 'close'] as unknown as http.OutgoingHttpHeaders, setHost: false });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders) as unknown as http.OutgoingHttpHeaders);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', () => fail(502, 'the server closed the connection.'));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** An `Upgrade` request in absolute form (a WebSocket without CONNECT): judged, then relayed raw. */
  private async onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const reply = (status: number, message: string): void => void socket.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`);
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return reply(400, 'absolute URL required');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'ws:') return reply(400, `unsupported scheme ${url.protocol}`);
    const port = url.port === '' ? 80 : Number(url.port);
    let upstream: net.Socket;
    try {
      upstream = await this.connect(await this.judge(url.hostname, port), port);
    } catch (error) {
      return reply(error instanceof Refused ? error.status : 502, error instanceof Refused ? error.message : 'proxy error');
    }
    this.track(upstream);
    const raw = req.rawHeaders;
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.toLowerCase().startsWith('proxy-')) lines.push(`${raw[i]}: ${raw[i + 1]}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    this.pipeBoth(socket, upstream);
  }

  private pipeBoth(a: Duplex, b: Duplex): void {
    const end = () => {
      a.destroy();
      b.destroy();
    };
    a.on('error', end).on('close', end);
    b.on('error', end).on('close', end);
    a.pipe(b);
    b.pipe(a);
  }
}
