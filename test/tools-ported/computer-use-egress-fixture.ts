/**
 * The sites of the computer_use egress tests: an allowed site that serves a page trying every
 * way a page can make the browser connect somewhere (fetch, WebSocket, an image, and frames
 * that reach their target by a 302 redirect, a meta refresh, a script's `location =` and a form
 * POST), first against a forbidden loopback server (standing for the cockpit or another local
 * service), by address and by a name that resolves to loopback (`localhost`), then against the
 * allowed site itself (the control: the same ways do connect where allowed). Both servers
 * record every request and WebSocket upgrade that reaches them.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The ways a page makes the browser connect that the page below tries, in order. */
export const VECTORS = ['fetch', 'ws', 'img', 'redirect', 'meta', 'jsnav', 'form'] as const;

/** A recording loopback HTTP server. */
export interface RecordingServer {
  port: number;
  /** `METHOD /path` of every request and upgrade that reached it, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** The page: every vector against `targets`, one after the other, then `GET /done` on its own site. */
function page(targets: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>egress test</title></head><body>
<script>
const A = location.origin;
const wait = (p) => Promise.race([p, new Promise((r) => setTimeout(r, 8000))]);
const frame = (src, loads) => wait(new Promise((r) => { const f = document.createElement('iframe'); let n = 0; f.onload = () => { if (++n >= loads) r(); }; f.src = src; document.body.appendChild(f); }));
const ws = (url) => wait(new Promise((r) => { try { const s = new WebSocket(url); s.onopen = () => { s.close(); r(); }; s.onerror = () => r(); } catch { r(); } }));
const img = (src) => wait(new Promise((r) => { const i = new Image(); i.onload = i.onerror = () => r(); i.src = src; }));
const via = (kind, to) => A + '/' + kind + '?to=' + encodeURIComponent(to);
async function vectors(T) {
  await wait(fetch(T + '/hit/fetch', { mode: 'no-cors' }).catch(() => {}));
  await ws(T.replace('http:', 'ws:') + '/hit/ws');
  await img(T + '/hit/img');
  await frame(via('redirect', T + '/hit/redirect'), 1);
  await frame(via('meta', T + '/hit/meta'), 2);
  // Both helper pages move on from their load event: the frame loads twice.
  await frame(via('jsnav', T + '/hit/jsnav'), 2);
  await frame(via('form', T + '/hit/form'), 2);
}
(async () => {
  for (const T of ${JSON.stringify(targets)}) await vectors(T);
  await vectors(A);
  await fetch(A + '/done').catch(() => {});
  document.title = 'done';
})();
</script></body></html>`;
}

/**
 * Start a recording server on 127.0.0.1. With `forbiddenPort` it is the allowed site: it
 * serves `/page` (the vectors against `forbiddenPort`, then against itself), `/start` (a 302
 * to `/page`) and the helper pages the frames load.
 */
export async function startRecordingServer(forbiddenPort?: number): Promise<RecordingServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(`${req.method} ${url.pathname}`);
    const to = url.searchParams.get('to') ?? '';
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
    if (forbiddenPort !== undefined && url.pathname === '/start') return void res.writeHead(302, { location: '/page' }).end();
    if (forbiddenPort !== undefined && url.pathname === '/page') {
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(page([`http://127.0.0.1:${forbiddenPort}`, `http://localhost:${forbiddenPort}`]));
    }
    if (url.pathname === '/redirect') return void res.writeHead(302, { location: to }).end();
    if (url.pathname === '/meta') return html(`<meta http-equiv="refresh" content="0;url=${to.replaceAll('"', '&quot;')}">`);
    if (url.pathname === '/jsnav') return html(`<script>onload = () => setTimeout(() => { location.href = ${JSON.stringify(to)}; });</script>`);
    if (url.pathname === '/form') return html(`<form method="post" action="${to.replaceAll('"', '&quot;')}"><input name="x" value="1"></form><script>onload = () => setTimeout(() => document.forms[0].submit());</script>`);
    if (url.pathname.endsWith('/img')) return void res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    html('reached');
  });
  const upgraded = new Set<import('node:stream').Duplex>();
  server.on('upgrade', (req, socket) => {
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    hits.push(`UPGRADE ${new URL(req.url ?? '/', 'http://x').pathname}`);
    const key = String(req.headers['sec-websocket-key'] ?? '');
    const accept = crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.on('error', () => undefined);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => {
      for (const socket of upgraded) socket.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The vectors that reached `server` (`fetch`, `ws`...), in {@link VECTORS} order. */
export function vectorsSeen(server: RecordingServer): string[] {
  return VECTORS.filter((v) => server.hits.some((h) => h.endsWith(`/hit/${v}`)));
}
