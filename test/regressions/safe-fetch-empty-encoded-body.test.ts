// Regression: an answer without a body but with `Content-Encoding: gzip` (a 304 to a
// conditional GET, a 204) was fed to zlib, which fails on an empty stream: http_request
// reported "could not reach ... (Z_BUF_ERROR)" instead of the status.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseNetAllowlist } from '../../tools-ported/common/net-policy.js';
import { httpRequest } from '../../tools-ported/web/http-request.tool.js';

describe('safe-fetch: empty bodies with a Content-Encoding', () => {
  let server: http.Server;
  let base: string;
  const allow = parseNetAllowlist('127.0.0.1');
  before(async () => {
    server = http.createServer((req, res) => {
      const status = req.url === '/not-modified' ? 304 : req.url === '/no-content' ? 204 : 200;
      res.writeHead(status, { 'content-encoding': 'gzip', etag: '"v1"', ...(status === 200 ? { 'content-length': '0' } : {}) });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const [path, status] of [['/not-modified', 304], ['/no-content', 204], ['/empty', 200]] as const) {
    it(`${status} without a body is a result, not a network error`, async () => {
      const result = await httpRequest({ method: 'GET', url: `${base}${path}`, headers: { 'If-None-Match': '"v1"' } }, { allow });
      assert.equal(result.status, status);
      assert.equal(result.body_bytes, 0);
    });
  }
});
