/**
 * Attacks found by the security pass over the tools that landed together (web, image, MCP,
 * agents): each test names the case family it extends and runs against the compiled product.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { serveHttp, ToolExecutor, ToolSystem } from 'toolgate';
import { EMPTY_ALLOWLIST, blockedRange } from '../tools-ported/common/net-policy.js';
import { SafeFetchError } from '../tools-ported/common/safe-fetch.js';
import { webFetch } from '../tools-ported/web/web-fetch.tool.js';
import { portedRegistry, runCli, tempWorkspace } from './helpers.js';
import { startWebFixture, type WebFixture } from './web-fixture.js';

let tmp: ReturnType<typeof tempWorkspace>;

before(() => {
  tmp = tempWorkspace();
});
after(() => {
  tmp?.cleanup();
});

describe('N1 family: IPv4-compatible IPv6 addresses', () => {
  let recorder: WebFixture;
  before(async () => {
    recorder = await startWebFixture('127.0.0.1', { alsoIpv6: true });
  });
  after(async () => {
    await recorder?.close();
  });

  test('N1: [::127.0.0.1] and [::7f00:1] (deprecated IPv4-compatible, ::/96) are refused like the IPv4 address they carry', async () => {
    for (const address of ['::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::a00:1']) {
      assert.notEqual(blockedRange(address), undefined, address);
    }
    for (const url of [`http://[::127.0.0.1]:${recorder.port}/secret`, `http://[::7f00:1]:${recorder.port}/`, 'http://[::a9fe:a9fe]/latest/meta-data/']) {
      await assert.rejects(webFetch({ url }, { allow: EMPTY_ALLOWLIST }), (e: unknown) => e instanceof SafeFetchError && e.reason === 'blocked', url);
    }
    // The public IPv6 internet stays reachable in principle (checked without a request).
    assert.equal(blockedRange('2606:4700::1111'), undefined);
    assert.deepEqual(recorder.hits, []);
  });
});

describe('image decompression by request: a tiny source asking for a huge result', () => {
  test('resize_image refuses an output over 100 megapixels (aspect ratio, or frames of an animation) before sharp starts; the pool stays usable', async () => {
    const dir = path.join(tmp.ws, 'bomb');
    fs.mkdirSync(dir);
    // 1x500 pixels, about 100 bytes: width 10000 keeps the ratio, so the result would be 10000x5000000.
    fs.writeFileSync(path.join(dir, 'tall.png'), await sharp({ create: { width: 1, height: 500, channels: 3, background: '#888888' } }).png().toBuffer());
    // 30 frames of 1x1 pixel (alternating, so that no frame is merged): at 4000x4000, 480 megapixels.
    const raw = Buffer.alloc(30 * 4);
    for (let i = 0; i < 30; i++) raw.fill(i % 2 ? 255 : 0, i * 4, i * 4 + 3).fill(255, i * 4 + 3, i * 4 + 4);
    fs.writeFileSync(path.join(dir, 'frames.gif'), await sharp(raw, { raw: { width: 1, height: 30, channels: 4, pageHeight: 1 } }).gif().toBuffer());
    fs.writeFileSync(path.join(dir, 'note.txt'), 'still here\n');
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const tall = await executor.execute({ name: 'resize_image', arguments: { filepath: 'bomb/tall.png', destination: 'bomb/big.png', width: 10000 } }, { confirm: true, timeoutMs: 10_000 });
      assert.equal(tall.errorCode, 'INVALID_ARGUMENTS', tall.output);
      assert.match(tall.output, /10000x5000000/);
      const frames = await executor.execute({ name: 'resize_image', arguments: { filepath: 'bomb/frames.gif', destination: 'bomb/big.gif', width: 4000, height: 4000, fit: 'fill' } }, { confirm: true, timeoutMs: 10_000 });
      assert.equal(frames.errorCode, 'INVALID_ARGUMENTS', frames.output);
      assert.match(frames.output, /30 frames/);
      const next = await executor.execute({ name: 'read_file', arguments: { filepath: 'bomb/note.txt' } });
      assert.equal(next.success, true, next.output);
      // A reasonable resize of the same files still works.
      const small = await executor.execute({ name: 'resize_image', arguments: { filepath: 'bomb/frames.gif', destination: 'bomb/small.gif', width: 20, height: 20, fit: 'fill' } }, { confirm: true });
      assert.equal(small.success, true, small.output);
    } finally {
      await executor.close();
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), ['frames.gif', 'note.txt', 'small.gif', 'tall.png']);
  });
});

describe('toolgate mcp --http: the Host header is checked on every bind address', () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  const post = (url: URL, host: string, authorization?: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (authorization !== undefined) headers.authorization = authorization;
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });

  test('bound to another loopback address (127.0.0.2), a request naming a foreign host (DNS rebinding) is refused; its own address is served', async () => {
    const system = new ToolSystem({ registry: await portedRegistry(), workspace: tmp.ws, executor: { poolSize: 1 } });
    const server = await serveHttp({ system, host: '127.0.0.2', port: 0, token: false });
    try {
      const url = new URL(server.url);
      assert.equal(url.hostname, '127.0.0.2');
      assert.equal(await post(url, `evil.example:${url.port}`), 403);
      assert.equal(await post(url, `127.0.0.2:${url.port}`), 200);
    } finally {
      await server.close();
      await system.close();
    }
  });

  test('a non-loopback bind needs a token, and then every request must carry it (401 otherwise)', async () => {
    const system = new ToolSystem({ registry: await portedRegistry(), workspace: tmp.ws, executor: { poolSize: 1 } });
    try {
      await assert.rejects(serveHttp({ system, host: '0.0.0.0', port: 0 }), { code: 'INVALID_OPTIONS', message: /not a loopback address: serving tools to the network needs a token/ });
      await assert.rejects(serveHttp({ system, host: '127.0.0.1', port: 0, token: 'short' }), { code: 'INVALID_OPTIONS', message: /at least 16 characters/ });
      const token = 'a-test-token-0123456789';
      const server = await serveHttp({ system, host: '0.0.0.0', port: 0, token });
      try {
        const url = new URL(server.url.replace('0.0.0.0', '127.0.0.1'));
        assert.equal(await post(url, `127.0.0.1:${url.port}`), 401, 'no token');
        assert.equal(await post(url, `127.0.0.1:${url.port}`, 'Bearer wrong-token-0123456789'), 401, 'a wrong token');
        assert.equal(await post(url, `127.0.0.1:${url.port}`, `Bearer ${token}`), 200, 'the token');
        assert.equal(await post(url, `evil.example:${url.port}`, `Bearer ${token}`), 403, 'the Host check still applies');
      } finally {
        await server.close();
      }
    } finally {
      await system.close();
    }
  });

  test('toolgate mcp --http --host on a non-loopback address without TOOLGATE_MCP_TOKEN is a usage error', async () => {
    const env = { ...process.env };
    delete env.TOOLGATE_MCP_TOKEN;
    const r = await runCli(['mcp', '--http', '--host', '0.0.0.0', '--port', '0'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--host 0\.0\.0\.0 serves the tools to the network: set TOOLGATE_MCP_TOKEN/);
  });
});
