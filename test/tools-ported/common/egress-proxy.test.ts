/**
 * The egress proxy (tools-ported/common/egress-proxy.ts) without a browser: plain requests,
 * CONNECT tunnels and Upgrade requests are judged on the address actually connected to. An
 * allowed loopback site (allowed by address and port only) stands for a public one; a second
 * loopback server stands for the cockpit and must never see a connection, whichever spelling,
 * name (an injected resolver answering 127.0.0.1) or mapped form points at it. Also: the
 * allowlist's `address:port` entries, a proxy that refuses everything, and a name resolved once
 * per connection (the connection goes to that answer, never to a second one).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EgressProxy, judgeDestination } from '../../../tools-ported/common/egress-proxy.js';
import { addressVerdict, parseNetAllowlist } from '../../../tools-ported/common/net-policy.js';
import { SafeFetchError, safeFetch } from '../../../tools-ported/common/safe-fetch.js';
import { ToolExecutionError } from '../../../src/tool.js';
import { tempWorkspace } from '../../helpers.js';
import { startRecordingServer, type RecordingServer } from '../computer-use-egress-fixture.js';

/** Send `text` to the proxy, return everything it answers until it closes or `until` matches. */
function raw(proxy: EgressProxy, text: string, until?: RegExp): Promise<string> {
  const [host, port] = [proxy.address.slice(0, proxy.address.lastIndexOf(':')), Number(proxy.address.slice(proxy.address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (s: string) => {
      out += s;
      if (until?.test(out)) socket.destroy();
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe('the egress proxy', () => {
  let site: RecordingServer;
  let cockpit: RecordingServer;
  let proxy: EgressProxy;
  const lookups: string[] = [];
  before(async () => {
    cockpit = await startRecordingServer();
    site = await startRecordingServer(cockpit.port);
    const allow = parseNetAllowlist(`127.0.0.1:${site.port}`);
    const resolve = async (host: string) => {
      lookups.push(host);
      if (host === 'rebind.test') return [{ address: '127.0.0.1', family: 4 }];
      if (host === 'mixed.test') return [{ address: '93.184.216.34', family: 4 }, { address: '169.254.169.254', family: 4 }];
      return [{ address: '203.0.113.9', family: 4 }]; // never connected to in these tests (documentation range: refused too)
    };
    proxy = await EgressProxy.start({ host: '127.0.0.1', port: 0 }, { allow: () => allow, resolve });
  });
  after(async () => {
    await proxy.close();
    await site.close();
    await cockpit.close();
  });

  test('an allowed site is reached by a plain request and through CONNECT', async () => {
    const plain = await raw(proxy, `GET http://127.0.0.1:${site.port}/hit/plain HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`);
    assert.match(plain, /^HTTP\/1\.1 200 /);
    assert.match(plain, /reached/);
    const tunnel = await raw(proxy, `CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\n\r\nGET /hit/tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.match(tunnel, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 /);
    assert.ok(site.hits.includes('GET /hit/plain') && site.hits.includes('GET /hit/tunnel'), JSON.stringify(site.hits));
  });

  test('every spelling of a loopback, link-local or unspecified destination is refused before any connection', async () => {
    const p = cockpit.port;
    const targets = [
      `127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`, `[::ffff:127.0.0.1]:${p}`, `[::ffff:7f00:1]:${p}`, `0.0.0.0:${p}`, `0:${p}`,
      `2130706433:${p}`, `0x7f.1:${p}`, `0177.0.0.1:${p}`, `127.1:${p}`, `rebind.test:${p}`, `169.254.169.254:80`, `[fe80::1]:${p}`,
      `10.0.0.1:${p}`, `mixed.test:80`, `[::]:${p}`,
    ];
    for (const target of targets) {
      const answer = await raw(proxy, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*toolgate refused a connection/, target);
      const plain = await raw(proxy, `GET http://${target}/hit/plain HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      assert.match(plain, /^HTTP\/1\.1 (403|400) /, target);
    }
    // The site's port on another loopback address, and another port of the allowed address: refused too.
    assert.match(await raw(proxy, `CONNECT 127.0.0.2:${site.port} HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 403 /);
    assert.match(await raw(proxy, `CONNECT 127.0.0.1:${site.port + 1 === p ? site.port + 2 : site.port + 1} HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 403 /);
    assert.deepEqual(cockpit.hits, [], 'the cockpit saw nothing');
    assert.ok(proxy.refusals.some((r) => r.host === 'rebind.test' && /rebind\.test resolves to 127\.0\.0\.1/.test(r.reason)), JSON.stringify(proxy.refusals.slice(-3)));
  });

  test('a WebSocket upgrade in absolute form is judged like the rest', async () => {
    const key = 'dGhlIHNhbXBsZSBub25jZQ==';
    const up = (port: number) => `GET http://127.0.0.1:${port}/hit/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
    assert.match(await raw(proxy, up(cockpit.port)), /^HTTP\/1\.1 403 /);
    assert.match(await raw(proxy, up(site.port), /\r\n\r\n/), /^HTTP\/1\.1 101 Switching Protocols/);
    assert.ok(site.hits.includes('UPGRADE /hit/ws'));
    assert.deepEqual(cockpit.hits, []);
  });

  test('a name is resolved once per connection, and the connection goes to that answer', async () => {
    const before = lookups.length;
    const answer = await judgeDestination('rebind.test', 80, parseNetAllowlist('rebind.test'), async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    assert.deepEqual(answer, [{ address: '127.0.0.1', family: 4 }]);
    assert.equal(lookups.length - before, 1);
    const earlier = lookups.length;
    assert.match(await raw(proxy, `CONNECT rebind.test:80 HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 403 /);
    assert.deepEqual(lookups.slice(earlier), ['rebind.test'], 'one lookup for one CONNECT');
  });

  test('bad requests get 400 and the proxy keeps serving', async () => {
    for (const bad of ['CONNECT example.com HTTP/1.1\r\n\r\n', 'CONNECT a@b:80 HTTP/1.1\r\n\r\n', 'CONNECT x:99999 HTTP/1.1\r\n\r\n', 'GET /relative HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'GET ftp://x/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']) {
      assert.match(await raw(proxy, bad), /^HTTP\/1\.1 400 /, bad);
    }
    assert.match(await raw(proxy, `GET http://127.0.0.1:${site.port}/hit/after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 200 /);
  });

  test('a proxy that refuses everything, on a Unix socket only this user may open', async () => {
    const t = tempWorkspace();
    const socketPath = path.join(t.root, 'proxy.sock');
    const closed = await EgressProxy.start({ path: socketPath }, { refuseAll: 'no network for this call.' });
    try {
      const { mode } = await import('node:fs').then((fs) => fs.statSync(socketPath));
      assert.equal(mode & 0o777, 0o600);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(socketPath);
        let out = '';
        socket.setEncoding('utf8').on('data', (s: string) => (out += s)).on('close', () => resolve(out)).on('error', reject);
        socket.write(`CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\n\r\n`);
      });
      assert.match(answer, /^HTTP\/1\.1 403 [\s\S]*no network for this call/);
    } finally {
      await closed.close();
      t.cleanup();
    }
  });
});

describe('address:port entries of TOOLGATE_NET_ALLOW', () => {
  test('allow that address on that port only', () => {
    const allow = parseNetAllowlist('127.0.0.1:5173 [::1]:8080');
    assert.equal(addressVerdict('127.0.0.1', '127.0.0.1', allow, 5173), undefined);
    assert.equal(addressVerdict('127.0.0.1', '127.0.0.1', allow, 5174), 'loopback');
    assert.equal(addressVerdict('127.0.0.1', '127.0.0.1', allow), 'loopback', 'without a port, only ranges and names count');
    assert.equal(addressVerdict('x', '::ffff:127.0.0.1', allow, 5173), undefined, 'an IPv4-mapped address matches as IPv4');
    assert.equal(addressVerdict('x', '::1', allow, 8080), undefined);
    assert.equal(addressVerdict('x', '::1', allow, 5173), 'loopback');
    for (const bad of ['127.0.0.1:0', '127.0.0.1:65536', '[::1]:', 'localhost:80', '127.1:80', '0x7f.0.0.1:80']) {
      assert.throws(() => parseNetAllowlist(bad), (e: unknown) => e instanceof ToolExecutionError && /misconfigured/.test(e.message), bad);
    }
  });

  test('the web tools keep to them too, on every redirect hop', async () => {
    const cockpit = await startRecordingServer();
    const site = await startRecordingServer(cockpit.port);
    try {
      const allow = parseNetAllowlist(`127.0.0.1:${site.port}`);
      const get = (url: string) => safeFetch(url, { allow }, async (r) => r.status);
      assert.equal(await get(`http://127.0.0.1:${site.port}/hit/direct`), 200);
      await assert.rejects(get(`http://127.0.0.1:${cockpit.port}/hit/direct`), (e: unknown) => e instanceof SafeFetchError && e.reason === 'blocked');
      await assert.rejects(get(`http://127.0.0.1:${site.port}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${cockpit.port}/hit/redirect`)}`), (e: unknown) => e instanceof SafeFetchError && e.reason === 'blocked');
      assert.deepEqual(cockpit.hits, []);
    } finally {
      await site.close();
      await cockpit.close();
    }
  });

  test('a plain http server sees requests through the proxy with their own Host header', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(String(req.headers.host));
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const proxy = await EgressProxy.start({ host: '127.0.0.1', port: 0 }, { allow: () => parseNetAllowlist(`127.0.0.1:${port}`) });
    try {
      const answer = await raw(proxy, `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok$/);
      assert.deepEqual(seen, [`127.0.0.1:${port}`]);
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
