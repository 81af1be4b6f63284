// Regression: a redirect to another origin dropped Authorization, Cookie and
// Proxy-Authorization, but forwarded every other credential header the caller gave
// (X-Api-Key, Private-Token...) to the new origin.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseNetAllowlist } from '../../tools-ported/common/net-policy.js';
import { httpRequest } from '../../tools-ported/web/http-request.tool.js';

describe('safe-fetch: secret headers stay with their origin', () => {
  const received: http.IncomingHttpHeaders[] = [];
  let first: http.Server;
  let second: http.Server;
  const allow = parseNetAllowlist('127.0.0.1, 127.0.0.2');
  const port = (s: http.Server) => (s.address() as AddressInfo).port;
  before(async () => {
    second = http.createServer((req, res) => {
      received.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.2', resolve));
    first = http.createServer((req, res) => {
      received.push(req.headers);
      const to = req.url === '/same' ? `/landing` : `http://127.0.0.2:${port(second)}/landing`;
      if (req.url === '/landing') res.end('ok');
      else res.writeHead(302, { location: to }).end();
    });
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => first.close(() => resolve()));
    await new Promise<void>((resolve) => second.close(() => resolve()));
  });

  const headers = { 'X-Api-Key': 'sk-not-for-you', 'Private-Token': 'glpat-not-for-you', Accept: 'text/plain' };

  it('a cross-origin redirect drops X-Api-Key and Private-Token, keeps Accept', async () => {
    received.length = 0;
    const result = await httpRequest({ method: 'GET', url: `http://127.0.0.1:${port(first)}/away`, headers }, { allow });
    assert.equal(result.status, 200);
    assert.equal(received.length, 2);
    assert.equal(received[0]!['x-api-key'], 'sk-not-for-you');
    assert.equal(received[1]!['x-api-key'], undefined);
    assert.equal(received[1]!['private-token'], undefined);
    assert.equal(received[1]!.accept, 'text/plain');
  });

  it('a same-origin redirect keeps them', async () => {
    received.length = 0;
    await httpRequest({ method: 'GET', url: `http://127.0.0.1:${port(first)}/same`, headers }, { allow });
    assert.equal(received.length, 2);
    assert.equal(received[1]!['x-api-key'], 'sk-not-for-you');
  });
});
