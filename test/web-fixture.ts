/**
 * A loopback web server for the web and image tool tests (node:http, a free port). Routes
 * serve the content types the tools must handle (an article page, text, JSON, a latin-1 page,
 * gzip, binary), HTTP errors, redirects (to any URL given in `?to=`), bodies of any size, and
 * answers that never come. Every request is recorded, so a test can show that a blocked URL
 * reached nothing.
 *
 * `startWebFixture('127.0.0.1', { alsoIpv6: true })` also listens on [::1] at the same port,
 * so that `http://[::1]:port/` and `http://[::ffff:127.0.0.1]:port/` would reach it too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/** A request as the fixture saw it. */
export interface Hit {
  method: string;
  url: string;
  host: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A running fixture. */
export interface WebFixture {
  /** `http://<host>:<port>`. */
  base: string;
  port: number;
  /** Every request received, in order. */
  hits: Hit[];
  /** Serve `bytes` with `type` at `path` (for images made by the tests). */
  serve(path: string, type: string, bytes: Uint8Array): void;
  close(): Promise<void>;
}

/** The article page: a title, navigation, a main article with a relative link, a script, a footer. */
export const ARTICLE_HTML = `<!doctype html>
<html><head><title>Fixture Article</title><meta charset="utf-8"><style>body{color:red}</style></head>
<body>
<nav><a href="/home">Home</a> | <a href="/about">About us</a> | NAVIGATION-MENU</nav>
<article>
<h1>Fixture Article</h1>
<p>The first paragraph of the <strong>fixture article</strong> explains what toolgate fetches. ${'It keeps going with plain sentences about nothing in particular. '.repeat(8)}</p>
<h2>Second heading</h2>
<p>A <a href="/docs/page.html">relative link</a> and a <a href="javascript:alert(1)">script link</a>.</p>
<ul><li>first item</li><li>second item</li></ul>
<pre><code>const answer = 42;</code></pre>
<p>${'More article text to make Readability confident that this is the main content. '.repeat(6)}</p>
<script>document.write('SCRIPT-TEXT-MUST-NOT-APPEAR')</script>
</article>
<footer>FOOTER-TEXT copyright</footer>
</body></html>`;

/** Start the fixture on `host` (a loopback address), port 0 unless given. */
export async function startWebFixture(host = '127.0.0.1', options: { alsoIpv6?: boolean } = {}): Promise<WebFixture> {
  const hits: Hit[] = [];
  const extra = new Map<string, { type: string; bytes: Uint8Array }>();
  const open = new Set<http.ServerResponse>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      hits.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host, headers: req.headers, body });
      route(req, res, body, extra, open);
    });
  };
  const servers: http.Server[] = [];
  for (let attempt = 0; ; attempt++) {
    const main = http.createServer(handler);
    await new Promise<void>((resolve, reject) => main.once('error', reject).listen(0, host, resolve));
    const port = (main.address() as AddressInfo).port;
    if (!options.alsoIpv6) {
      servers.push(main);
      break;
    }
    const six = http.createServer(handler);
    const ok = await new Promise<boolean>((resolve) => {
      six.once('error', () => resolve(false));
      six.listen(port, '::1', () => resolve(true));
    });
    if (ok) {
      servers.push(main, six);
      break;
    }
    await new Promise<void>((resolve) => main.close(() => resolve()));
    if (attempt > 20) throw new Error('could not listen on 127.0.0.1 and ::1 at the same port');
  }
  const port = (servers[0]!.address() as AddressInfo).port;
  return {
    base: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    hits,
    serve: (path, type, bytes) => void extra.set(path, { type, bytes }),
    close: async () => {
      for (const res of open) res.destroy();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Uint8Array, headers: Record<string, string | string[]> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': bytes.length, ...headers });
  res.end(bytes);
}

function route(req: http.IncomingMessage, res: http.ServerResponse, body: string, extra: Map<string, { type: string; bytes: Uint8Array }>, open: Set<http.ServerResponse>): void {
  const url = new URL(req.url ?? '/', 'http://fixture');
  const served = extra.get(url.pathname);
  if (served) return send(res, 200, served.type, served.bytes);
  switch (url.pathname) {
    case '/article':
      return send(res, 200, 'text/html; charset=utf-8', ARTICLE_HTML);
    case '/plain':
      return send(res, 200, 'text/plain', 'plain text line 1\r\nline 2\u0007 with a bell\n');
    case '/json':
      return send(res, 200, 'application/json', JSON.stringify({ ok: true, items: [1, 2, 3] }));
    case '/latin1':
      return send(res, 200, 'text/html; charset=iso-8859-1', Buffer.from('<html><head><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>', 'latin1'));
    case '/gzip': {
      const bytes = zlib.gzipSync(Buffer.from('<html><head><title>Zipped</title></head><body><p>Compressed page body.</p></body></html>'));
      return send(res, 200, 'text/html', bytes, { 'Content-Encoding': 'gzip' });
    }
    case '/bomb': {
      // 20 MiB of zeros compressed to a few KiB: the byte limit applies after decompression.
      const bytes = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x41));
      return send(res, 200, 'text/plain', bytes, { 'Content-Encoding': 'gzip' });
    }
    case '/long':
      return send(res, 200, 'text/plain', `${'0123456789'.repeat(5000)}END`);
    case '/png':
      return send(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    case '/octet':
      return send(res, 200, 'application/octet-stream', Buffer.from([1, 2, 0, 0, 3, 4]));
    case '/octet-text':
      return send(res, 200, 'application/octet-stream', 'it is text after all');
    case '/notfound':
      return send(res, 404, 'text/html', '<html><body><h1>Not Found</h1><p>No such page here.</p></body></html>');
    case '/error':
      return send(res, 503, 'text/plain', 'Service Unavailable', { 'Retry-After': '30' });
    case '/redirect': {
      const to = url.searchParams.get('to') ?? '/article';
      const status = Number(url.searchParams.get('status') ?? 302);
      res.writeHead(status, { Location: to, 'Content-Length': 0 });
      return void res.end();
    }
    case '/loop':
      res.writeHead(302, { Location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`, 'Content-Length': 0 });
      return void res.end();
    case '/bytes': {
      const size = Number(url.searchParams.get('n') ?? 1000);
      const declare = url.searchParams.get('declare') !== 'no';
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...(declare ? { 'Content-Length': size } : {}) });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let left = size;
      const pump = (): void => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case '/hang':
      open.add(res);
      return; // no answer at all
    case '/hang-body':
      open.add(res);
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.write('first bytes then nothing');
      return;
    case '/echo':
      return send(res, 200, 'application/json', JSON.stringify({ method: req.method, headers: req.headers, body }), {
        'Set-Cookie': ['session=SECRET-COOKIE; HttpOnly', 'other=1'],
        'X-RateLimit-Remaining': '41',
        'X-Internal-Secret': 'not-for-the-model',
        ETag: '"v1"',
      });
    default:
      return send(res, 404, 'text/plain', `no route ${url.pathname}`);
  }
}
