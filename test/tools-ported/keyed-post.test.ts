/**
 * postJson, the one request path of the keyed-API tools (describe_image, generate_image):
 * every way of getting no answer is a KeyedRequestError naming it; any HTTP status is an answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyedRequestError, postJson } from '../../tools-ported/common/keyed-api.js';

async function withServer(handler: http.RequestListener, body: (url: URL) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`));
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const request = (url: URL, extra: Partial<Parameters<typeof postJson>[0]> = {}) => postJson({ url, apiKey: 'sk-test', body: { a: 1 }, timeoutMs: 5000, signal: undefined, maxBytes: 1000, ...extra });
const failure = async (promise: Promise<unknown>): Promise<KeyedRequestError> => {
  const error = await promise.then(() => assert.fail('expected a KeyedRequestError'), (e: unknown) => e);
  assert.ok(error instanceof KeyedRequestError, String(error));
  return error;
};

test('an answer of any status is returned parsed, with Retry-After; the key goes as a bearer token and a redirect is not followed', async () => {
  let seen: http.IncomingHttpHeaders | undefined;
  let sent = '';
  await withServer((req, res) => {
    seen = req.headers;
    req.on('data', (c: Buffer) => (sent += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/x') res.writeHead(429, { 'Retry-After': '7', 'Content-Type': 'application/json' }).end('{"error":{"message":"slow down"}}');
    });
  }, async (url) => {
    const answer = await request(url);
    assert.deepEqual(answer, { status: 429, retryAfter: '7', data: { error: { message: 'slow down' } } });
    assert.equal(seen?.authorization, 'Bearer sk-test');
    assert.equal(sent, '{"a":1}');
  });
  await withServer((_req, res) => res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' }).end('not json'), async (url) => {
    assert.deepEqual(await request(url), { status: 302, retryAfter: null, data: undefined });
  });
});

test('no answer to read: too large (with its status), a timeout, an abort, an unreachable host', async () => {
  await withServer((_req, res) => res.writeHead(200).end('x'.repeat(5000)), async (url) => {
    const big = await failure(request(url));
    assert.equal(big.failure, 'too_large');
    assert.equal(big.status, 200);
  });
  await withServer(() => undefined, async (url) => {
    assert.equal((await failure(request(url, { timeoutMs: 200 }))).failure, 'timeout');
    const controller = new AbortController();
    const pending = request(url, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    assert.equal((await failure(pending)).failure, 'aborted');
  });
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const unreachable = await failure(request(new URL(`http://127.0.0.1:${port}/v1/x`)));
  assert.equal(unreachable.failure, 'unreachable');
  assert.equal(unreachable.detail, 'ECONNREFUSED');
});
