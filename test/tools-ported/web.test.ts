/**
 * The web tools (web_fetch, download_url, http_request) and their shared network guard
 * (tools-ported/common/safe-fetch.ts, net-policy.ts), against loopback fixture servers
 * (test/web-fixture.ts). The fixtures are reached through an explicit allowlist; case N1 shows
 * that without it every spelling of a local address is refused and a recording server
 * receives nothing, also after a redirect from an allowed host.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ToolExecutionError, ToolExecutor } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { redactSecrets } from '../../src/logging/logger.js';
import { EMPTY_ALLOWLIST, NET_ALLOW_ENV, parseNetAllowlist, blockedRange, type NetAllowlist } from '../../tools-ported/common/net-policy.js';
import { SafeFetchError, shownUrl, type SafeFetchFailure } from '../../tools-ported/common/safe-fetch.js';
import { downloadUrl } from '../../tools-ported/web/download-url.tool.js';
import { httpRequest } from '../../tools-ported/web/http-request.tool.js';
import { webFetch } from '../../tools-ported/web/web-fetch.tool.js';
import { assertTraversal, portedRegistry, tempWorkspace } from '../helpers.js';
import { startWebFixture, type WebFixture } from '../web-fixture.js';

let site: WebFixture; // 127.0.0.1, allowed in most tests
let other: WebFixture; // 127.0.0.2, a second allowed origin
let tmp: ReturnType<typeof tempWorkspace>;
let workspace: Workspace;
const ALLOW: NetAllowlist = parseNetAllowlist('127.0.0.1, 127.0.0.2');

before(async () => {
  site = await startWebFixture('127.0.0.1');
  other = await startWebFixture('127.0.0.2');
  tmp = tempWorkspace();
  workspace = new Workspace(tmp.ws);
});

after(async () => {
  await site?.close();
  await other?.close();
  tmp?.cleanup();
});

/** Await a rejection and check its class, code and (for SafeFetchError) reason. */
async function rejects(promise: Promise<unknown>, expected: { reason?: SafeFetchFailure; code?: string; message?: RegExp }): Promise<ToolExecutionError> {
  const error = await promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)?.slice(0, 300)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ToolExecutionError, `expected a ToolExecutionError, got ${String(error)}`);
  if (expected.reason !== undefined) {
    assert.ok(error instanceof SafeFetchError, `expected a SafeFetchError, got ${error.name}: ${error.message}`);
    assert.equal(error.reason, expected.reason, error.message);
  }
  assert.equal(error.code, expected.code ?? 'TOOL_ERROR', error.message);
  if (expected.message) assert.match(error.message, expected.message);
  return error;
}

function filesIn(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('web_fetch', () => {
  test('an HTML page comes back as Markdown of its main article, links made absolute, scripts and navigation left out', async () => {
    const out = await webFetch({ url: `${site.base}/article` }, { allow: ALLOW });
    assert.match(out, new RegExp(`^URL: ${site.base}/article\n`));
    assert.match(out, /\nTitle: Fixture Article\n/);
    assert.match(out, /Content-Type: text\/html \(markdown, main article\)/);
    assert.match(out, /## Second heading/);
    assert.match(out, /\*\*fixture article\*\*/);
    assert.ok(out.includes(`[relative link](${site.base}/docs/page.html)`), out);
    assert.match(out, /```\s*\nconst answer = 42;\n```/);
    assert.match(out, /-\s+first item/);
    for (const absent of ['SCRIPT-TEXT-MUST-NOT-APPEAR', 'NAVIGATION-MENU', 'FOOTER-TEXT', 'javascript:', 'color:red']) {
      assert.ok(!out.includes(absent), `${absent} must not appear`);
    }
  });

  test('format "text" gives plain text without Markdown marks', async () => {
    const out = await webFetch({ url: `${site.base}/article`, format: 'text' }, { allow: ALLOW });
    assert.match(out, /plain text|text, main article/);
    assert.match(out, /Second heading/);
    assert.ok(!out.includes('## '), 'no Markdown headings');
    assert.ok(!out.includes('**'), 'no Markdown emphasis');
  });

  test('text types come back as served, cleaned of control characters; JSON, latin-1 and gzip are decoded', async () => {
    const plain = await webFetch({ url: `${site.base}/plain` }, { allow: ALLOW });
    assert.match(plain, /Content-Type: text\/plain \(text as served\)/);
    assert.match(plain, /plain text line 1\nline 2 with a bell$/);
    const json = await webFetch({ url: `${site.base}/json` }, { allow: ALLOW });
    assert.match(json, /\{"ok":true,"items":\[1,2,3\]\}$/);
    const latin = await webFetch({ url: `${site.base}/latin1` }, { allow: ALLOW });
    assert.match(latin, /Title: Café/);
    assert.match(latin, /Crème brûlée/);
    const zipped = await webFetch({ url: `${site.base}/gzip` }, { allow: ALLOW });
    assert.match(zipped, /Compressed page body\./);
    const sniffed = await webFetch({ url: `${site.base}/octet-text` }, { allow: ALLOW });
    assert.match(sniffed, /it is text after all$/);
  });

  test('binary content is refused with a pointer to download_url / read_image', async () => {
    const png = await rejects(webFetch({ url: `${site.base}/png` }, { allow: ALLOW }), { message: /binary content \(image\/png/ });
    assert.match(png.message, /download_url/);
    assert.match(png.message, /read_image/);
    await rejects(webFetch({ url: `${site.base}/octet` }, { allow: ALLOW }), { message: /binary content/ });
  });

  test('an HTTP error status is a failure that quotes the start of the page', async () => {
    const error = await rejects(webFetch({ url: `${site.base}/notfound` }, { allow: ALLOW }), { message: /HTTP 404/ });
    assert.match(error.message, /No such page here/);
  });

  test('max_chars cuts the content with a note; a decompression bomb stops at 5 MiB', async () => {
    const out = await webFetch({ url: `${site.base}/long`, max_chars: 1000 }, { allow: ALLOW });
    assert.match(out, /\[content cut at 1000 of 50003 characters/);
    assert.ok(!out.includes('END'));
    const bomb = await webFetch({ url: `${site.base}/bomb`, max_chars: 500 }, { allow: ALLOW });
    assert.match(bomb, /larger than 5242880 bytes; only its first 5242880 bytes were read/);
    assert.match(bomb, /cut at 500 of 5242880 characters/);
  });

  test('redirects are followed and reported; a redirect loop stops at 5', async () => {
    const out = await webFetch({ url: `${site.base}/redirect?to=/article` }, { allow: ALLOW });
    assert.match(out, /Title: Fixture Article/);
    assert.match(out, new RegExp(`Redirected from: ${site.base}/redirect\\?to=/article`));
    const start = site.hits.length;
    await rejects(webFetch({ url: `${site.base}/loop` }, { allow: ALLOW }), { reason: 'too_many_redirects' });
    assert.equal(site.hits.length - start, 6, 'the first request and 5 redirects');
  });

  test('a server that never answers ends in a timeout; an abort ends the request', async () => {
    await rejects(webFetch({ url: `${site.base}/hang` }, { allow: ALLOW, timeoutMs: 300 }), { reason: 'timeout', message: /did not answer within 300 ms/ });
    const controller = new AbortController();
    const pending = webFetch({ url: `${site.base}/hang` }, { allow: ALLOW, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await rejects(pending, { reason: 'aborted' });
    const start = site.hits.length;
    await rejects(webFetch({ url: `${site.base}/article` }, { allow: ALLOW, deadline: Date.now() - 1 }), { reason: 'timeout' });
    assert.equal(site.hits.length, start, 'nothing is requested past the deadline');
  });

  test('bad input: not a URL, other schemes, an empty URL, a bad format', async () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/x', 'file:///etc/passwd', '', '   ', 'data:text/plain,hi', 'javascript:alert(1)']) {
      await rejects(webFetch({ url }, { allow: ALLOW }), { reason: 'bad_url', code: 'INVALID_ARGUMENTS' });
    }
    await rejects(webFetch({ url: `${site.base}/plain`, format: 'pdf' as 'text' }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
  });

  test('credentials in the URL are sent as Basic auth but never shown; secret query values are redacted', async () => {
    const start = site.hits.length;
    const error = await rejects(webFetch({ url: `http://alice:pa55word@127.0.0.1:${site.port}/notfound?token=tok-123&page=2` }, { allow: ALLOW }), { message: /HTTP 404/ });
    assert.ok(!error.message.includes('pa55word') && !error.message.includes('alice') && !error.message.includes('tok-123'), error.message);
    assert.match(error.message, /\[redacted\]@127\.0\.0\.1/);
    assert.match(error.message, /page=2/);
    const hit = site.hits[start]!;
    assert.equal(hit.headers.authorization, `Basic ${Buffer.from('alice:pa55word').toString('base64')}`);
    assert.equal(shownUrl('http://u:p@h.example/?api_key=1&q=x'), 'http://[redacted]@h.example/?api_key=%5Bredacted%5D&q=x');
  });
});

describe('network policy: resolution, rebinding, allowlist', () => {
  test('every resolved address is checked, and the connection goes to the address that was checked', async () => {
    const start = site.hits.length;
    // A name resolving to loopback is blocked without an allowlist, even with a public address beside it.
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    const mixed = async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }];
    await rejects(webFetch({ url: `http://rebind.example:${site.port}/article` }, { allow: EMPTY_ALLOWLIST, resolve: toLoopback }), { reason: 'blocked', message: /rebind\.example resolves to 127\.0\.0\.1/ });
    await rejects(webFetch({ url: `http://mixed.example:${site.port}/article` }, { allow: EMPTY_ALLOWLIST, resolve: mixed }), { reason: 'blocked' });
    assert.equal(site.hits.length, start, 'nothing reached the server');
    // A resolver that answers differently on each query (DNS rebinding): it is asked once per
    // hop, and the request goes to that first, checked answer, not a later one.
    let calls = 0;
    const rebinding = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const out = await webFetch({ url: `http://fixture.test:${site.port}/plain` }, { allow: ALLOW, resolve: rebinding });
    assert.match(out, /plain text line 1/);
    assert.equal(calls, 1);
    assert.equal(site.hits.at(-1)!.host, `fixture.test:${site.port}`);
  });

  test('the allowlist takes addresses, CIDR ranges and host names, and refuses anything else', () => {
    const list = parseNetAllowlist(' 10.0.0.0/8,[::1]  intranet.example ');
    assert.equal(list.ranges.length, 2);
    assert.ok(list.hosts.has('intranet.example'));
    for (const bad of ['10.0.0.0/99', 'http://x', '0x7f.1', '2130706433', 'a b/c']) {
      assert.throws(() => parseNetAllowlist(bad), (e: unknown) => e instanceof ToolExecutionError && /TOOLGATE_NET_ALLOW is misconfigured/.test(e.message), bad);
    }
    assert.equal(blockedRange('8.8.8.8'), undefined);
    assert.equal(blockedRange('100.64.1.1'), 'carrierGradeNat');
    assert.equal(blockedRange('::ffff:8.8.8.8'), 'ipv4Mapped');
  });

  test('a host name in the allowlist is allowed whatever it resolves to; a range allows only its addresses', async () => {
    const byName = parseNetAllowlist('fixture.test');
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    assert.match(await webFetch({ url: `http://fixture.test:${site.port}/plain` }, { allow: byName, resolve }), /plain text/);
    await rejects(webFetch({ url: `${site.base}/plain` }, { allow: parseNetAllowlist('127.0.0.2/32') }), { reason: 'blocked' });
    assert.match(await webFetch({ url: `${site.base}/plain` }, { allow: parseNetAllowlist('127.0.0.0/8') }), /plain text/);
  });
});

describe('N1: local addresses are refused without the allowlist', () => {
  let recorder: WebFixture;
  before(async () => {
    recorder = await startWebFixture('127.0.0.1', { alsoIpv6: true });
  });
  after(async () => {
    await recorder?.close();
  });

  const blockedForms = (port: number): string[] => [
    `http://127.0.0.1:${port}/secret`,
    `http://2130706433:${port}/secret`, // decimal
    `http://0x7f.1:${port}/secret`, // hex, short form
    `http://0x7f000001:${port}/secret`, // hex, one number
    `http://0177.0.0.1:${port}/secret`, // octal
    `http://127.1:${port}/secret`,
    `http://[::1]:${port}/secret`,
    `http://[::ffff:127.0.0.1]:${port}/secret`, // IPv4-mapped IPv6
    `http://[::ffff:7f00:1]:${port}/secret`,
    `http://localhost:${port}/secret`,
    `http://LOCALHOST.:${port}/secret`,
    `http://0.0.0.0:${port}/secret`,
    `http://[::]:${port}/secret`,
    `https://127.0.0.1:${port}/secret`,
    'http://169.254.169.254/latest/meta-data/', // cloud metadata
    'http://[fe80::1]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/', // carrier-grade NAT
    'http://224.0.0.1/',
    'http://[fc00::1]/',
    'http://[64:ff9b::7f00:1]/', // NAT64 form of 127.0.0.1
  ];
  const badSchemes = ['file:///etc/passwd', 'ftp://127.0.0.1/', 'gopher://127.0.0.1:70/', 'data:text/plain,x'];

  test('N1: every spelling of a local address, and every non-http scheme, is refused by all three web tools; the recorder gets nothing', async () => {
    const saved = process.env[NET_ALLOW_ENV];
    delete process.env[NET_ALLOW_ENV]; // the default allowlist comes from the environment: none
    try {
      for (const url of blockedForms(recorder.port)) {
        await rejects(webFetch({ url }), { reason: 'blocked', message: /is blocked: .* address/ });
        await rejects(downloadUrl(workspace, { url, filepath: 'n1/x.bin' }), { reason: 'blocked' });
        await rejects(httpRequest({ method: 'POST', url, body: 'x' }), { reason: 'blocked' });
      }
      for (const url of badSchemes) {
        await rejects(webFetch({ url }), { reason: 'bad_url', code: 'INVALID_ARGUMENTS' });
        await rejects(downloadUrl(workspace, { url, filepath: 'n1/x.bin' }), { reason: 'bad_url', code: 'INVALID_ARGUMENTS' });
        await rejects(httpRequest({ method: 'GET', url }), { reason: 'bad_url', code: 'INVALID_ARGUMENTS' });
      }
    } finally {
      if (saved !== undefined) process.env[NET_ALLOW_ENV] = saved;
    }
    assert.deepEqual(recorder.hits, [], 'the recording server received no request');
    assert.ok(!fs.existsSync(path.join(tmp.ws, 'n1')), 'no file or folder was written');
  });

  test('N1: a redirect from an allowed host to a local address (any spelling, or file:) is refused before it is followed', async () => {
    const allowOther = parseNetAllowlist('127.0.0.2');
    const targets = [...blockedForms(recorder.port).slice(0, 14), 'file:///etc/passwd'];
    const start = other.hits.length;
    for (const target of targets) {
      const url = `${other.base}/redirect?to=${encodeURIComponent(target)}`;
      const error = await rejects(webFetch({ url }, { allow: allowOther }), {});
      assert.ok(error instanceof SafeFetchError && error.reason === 'blocked', `${target}: ${error.message}`);
      await rejects(httpRequest({ method: 'GET', url }, { allow: allowOther }), { reason: 'blocked' });
      await rejects(downloadUrl(workspace, { url, filepath: 'n1/y.bin' }, { allow: allowOther }), { reason: 'blocked' });
    }
    assert.equal(other.hits.length - start, targets.length * 3, 'the allowed host was asked and answered with the redirect');
    assert.deepEqual(recorder.hits, [], 'the recording server received no request');
    assert.ok(!fs.existsSync(path.join(tmp.ws, 'n1')));
  });

  test('N1: through the executor (worker pool) with no allowlist in the environment, web_fetch of a decimal loopback URL fails as a result', async () => {
    const saved = process.env[NET_ALLOW_ENV];
    delete process.env[NET_ALLOW_ENV];
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const result = await executor.execute({ name: 'web_fetch', arguments: { url: `http://2130706433:${recorder.port}/` } });
      assert.equal(result.success, false);
      assert.equal(result.errorCode, 'TOOL_ERROR');
      assert.match(result.output, /is blocked: 127\.0\.0\.1 is a loopback address/);
      const file = await executor.execute({ name: 'web_fetch', arguments: { url: 'file:///etc/passwd' } });
      assert.equal(file.errorCode, 'INVALID_ARGUMENTS');
      assert.ok(!file.output.includes('root:'), 'no file content');
    } finally {
      await executor.close();
      if (saved !== undefined) process.env[NET_ALLOW_ENV] = saved;
    }
    assert.deepEqual(recorder.hits, []);
  });
});

describe('download_url', () => {
  test('streams the body into the file and reports size, type and sha256', async () => {
    const out = await downloadUrl(workspace, { url: `${site.base}/bytes?n=300000`, filepath: 'dl/data.bin' }, { allow: ALLOW });
    const saved = fs.readFileSync(path.join(tmp.ws, 'dl/data.bin'));
    assert.equal(saved.length, 300000);
    const digest = crypto.createHash('sha256').update(saved).digest('hex');
    assert.equal(out, `Downloaded ${site.base}/bytes?n=300000 to dl/data.bin: 300000 bytes, application/octet-stream, sha256 ${digest}.`);
    assert.deepEqual(filesIn(path.join(tmp.ws, 'dl')), ['data.bin'], 'no temporary file left');
  });

  test('an existing file is refused before anything is requested, and replaced with overwrite', async () => {
    fs.writeFileSync(path.join(tmp.ws, 'keep.txt'), 'old');
    const start = site.hits.length;
    await rejects(downloadUrl(workspace, { url: `${site.base}/plain`, filepath: 'keep.txt' }, { allow: ALLOW }), { message: /already exists; pass overwrite: true/ });
    assert.equal(site.hits.length, start);
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'keep.txt'), 'utf8'), 'old');
    const out = await downloadUrl(workspace, { url: `${site.base}/plain`, filepath: 'keep.txt', overwrite: true }, { allow: ALLOW });
    assert.match(out, /\(overwrote an existing file\)/);
    assert.match(fs.readFileSync(path.join(tmp.ws, 'keep.txt'), 'utf8'), /plain text line 1/);
  });

  test('past max_bytes (declared or streamed), on an HTTP error, or on a stalled body nothing is left: no file, no temporary file, no new folder', async () => {
    await rejects(downloadUrl(workspace, { url: `${site.base}/bytes?n=5000`, filepath: 'big/a.bin', max_bytes: 1000 }, { allow: ALLOW }), { message: /more than max_bytes \(1000\)/ });
    await rejects(downloadUrl(workspace, { url: `${site.base}/bytes?n=500000&declare=no`, filepath: 'big/b.bin', max_bytes: 100000 }, { allow: ALLOW }), { message: /larger than max_bytes \(100000 bytes\)/ });
    await rejects(downloadUrl(workspace, { url: `${site.base}/notfound`, filepath: 'big/c.bin' }, { allow: ALLOW }), { message: /HTTP 404.*nothing was saved/ });
    await rejects(downloadUrl(workspace, { url: `${site.base}/hang-body`, filepath: 'big/d.bin' }, { allow: ALLOW, timeoutMs: 300 }), { reason: 'timeout' });
    assert.ok(!fs.existsSync(path.join(tmp.ws, 'big')), `nothing left: ${filesIn(path.join(tmp.ws, 'big')).join(', ')}`);
    fs.mkdirSync(path.join(tmp.ws, 'kept'));
    await rejects(downloadUrl(workspace, { url: `${site.base}/bytes?n=500000&declare=no`, filepath: 'kept/e.bin', max_bytes: 1000 }, { allow: ALLOW }), {});
    assert.deepEqual(filesIn(path.join(tmp.ws, 'kept')), [], 'the existing folder is kept, empty');
  });

  test('bad input: a path outside the workspace, a folder, max_bytes out of range', async () => {
    const start = site.hits.length;
    await assertTraversal(downloadUrl(workspace, { url: `${site.base}/plain`, filepath: '../outside/x.txt' }, { allow: ALLOW }), 'download_url ../');
    await assertTraversal(downloadUrl(workspace, { url: `${site.base}/plain`, filepath: '../proj-evil/x' }, { allow: ALLOW }), 'download_url sibling');
    assert.equal(site.hits.length, start, 'nothing requested');
    assert.ok(!fs.existsSync(path.join(tmp.outside, 'x.txt')));
    fs.mkdirSync(path.join(tmp.ws, 'afolder'), { recursive: true });
    await rejects(downloadUrl(workspace, { url: `${site.base}/plain`, filepath: 'afolder' }, { allow: ALLOW }), { message: /is a folder/ });
    await rejects(downloadUrl(workspace, { url: `${site.base}/plain`, filepath: 'x.bin', max_bytes: 0 }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
  });
});

describe('http_request', () => {
  test('POST sends method, headers and body; the answer has status, selected headers and the body, cookies masked', async () => {
    const out = await httpRequest(
      { method: 'POST', url: `${site.base}/echo`, headers: { 'Content-Type': 'application/json', 'X-Trace': 't-1' }, body: '{"a":1}' },
      { allow: ALLOW },
    );
    assert.equal(out.status, 200);
    const echoed = JSON.parse(out.body) as { method: string; headers: Record<string, string>; body: string };
    assert.equal(echoed.method, 'POST');
    assert.equal(echoed.body, '{"a":1}');
    assert.equal(echoed.headers['x-trace'], 't-1');
    assert.equal(echoed.headers['content-type'], 'application/json');
    assert.equal(out.headers['content-type'], 'application/json');
    assert.equal(out.headers['x-ratelimit-remaining'], '41');
    assert.equal(out.headers.etag, '"v1"');
    assert.equal(out.headers['set-cookie'], '[2 cookies set; values not shown]');
    assert.equal(out.headers['x-internal-secret'], undefined);
    assert.ok(!JSON.stringify(out).includes('SECRET-COOKIE'));
    assert.equal(out.truncated, false);
  });

  test('HEAD has no body; an error status is a result; redirects can be left unfollowed', async () => {
    const head = await httpRequest({ method: 'HEAD', url: `${site.base}/json` }, { allow: ALLOW });
    assert.equal(head.status, 200);
    assert.equal(head.body, '[HEAD request: no body]');
    const error = await httpRequest({ method: 'GET', url: `${site.base}/error` }, { allow: ALLOW });
    assert.equal(error.status, 503);
    assert.equal(error.headers['retry-after'], '30');
    assert.equal(error.body, 'Service Unavailable');
    const moved = await httpRequest({ method: 'GET', url: `${site.base}/redirect?to=/json`, follow_redirects: false }, { allow: ALLOW });
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.location, '/json');
    const binary = await httpRequest({ method: 'GET', url: `${site.base}/png` }, { allow: ALLOW });
    assert.match(binary.body, /^\[binary body: 12 bytes of image\/png/);
  });

  test('redirects: 307 keeps method and body, 303 turns into GET, another origin loses Authorization', async () => {
    const kept = await httpRequest({ method: 'PUT', url: `${site.base}/redirect?status=307&to=/echo`, body: 'payload' }, { allow: ALLOW });
    assert.deepEqual([JSON.parse(kept.body).method, JSON.parse(kept.body).body], ['PUT', 'payload']);
    assert.deepEqual(kept.redirects, [`${site.base}/redirect?status=307&to=/echo`]);
    const seeOther = await httpRequest({ method: 'POST', url: `${site.base}/redirect?status=303&to=/echo`, body: 'payload' }, { allow: ALLOW });
    assert.deepEqual([JSON.parse(seeOther.body).method, JSON.parse(seeOther.body).body], ['GET', '']);
    const cross = await httpRequest(
      { method: 'GET', url: `${site.base}/redirect?to=${encodeURIComponent(`${other.base}/echo`)}`, headers: { Authorization: 'Bearer sekrit', 'X-Keep': '1' } },
      { allow: ALLOW },
    );
    const seen = JSON.parse(cross.body).headers as Record<string, string>;
    assert.equal(seen.authorization, undefined, 'Authorization dropped across origins');
    assert.equal(seen['x-keep'], '1');
    const same = await httpRequest({ method: 'GET', url: `${site.base}/redirect?to=/echo`, headers: { Authorization: 'Bearer sekrit' } }, { allow: ALLOW });
    assert.equal((JSON.parse(same.body).headers as Record<string, string>).authorization, 'Bearer sekrit', 'kept on the same origin');
  });

  test('bad input: refused headers, header values with line breaks (not echoed), a body on GET, an unknown method, a body over 1 MiB', async () => {
    const start = site.hits.length;
    await rejects(httpRequest({ method: 'GET', url: `${site.base}/echo`, headers: { Host: 'evil' } }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS', message: /Host header is set by the tool/ });
    await rejects(httpRequest({ method: 'GET', url: `${site.base}/echo`, headers: { 'Transfer-Encoding': 'chunked' } }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
    const crlf = await rejects(httpRequest({ method: 'GET', url: `${site.base}/echo`, headers: { Authorization: 'Bearer tok\r\nX-Evil: 1' } }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
    assert.ok(!crlf.message.includes('tok'), 'the value is not echoed');
    await rejects(httpRequest({ method: 'GET', url: `${site.base}/echo`, headers: { 'Bad Name': 'x' } }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
    await rejects(httpRequest({ method: 'GET', url: `${site.base}/echo`, body: 'x' }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS', message: /cannot carry a body/ });
    await rejects(httpRequest({ method: 'TRACE' as 'GET', url: `${site.base}/echo` }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
    await rejects(httpRequest({ method: 'POST', url: `${site.base}/echo`, body: 'x'.repeat(1024 * 1024 + 1) }, { allow: ALLOW }), { code: 'INVALID_ARGUMENTS' });
    assert.equal(site.hits.length, start, 'nothing was sent');
  });
});

describe('web tools in the registry and the executor', () => {
  test('flags: web_fetch is read-only; download_url and http_request write or may change data, so they ask for confirmation', async () => {
    const registry = await portedRegistry();
    const flags = (name: string) => {
      const t = registry.resolve(name) as unknown as { readOnly: boolean; requiresConfirmation: boolean };
      return [t.readOnly, t.requiresConfirmation];
    };
    assert.deepEqual(flags('web_fetch'), [true, false]);
    assert.deepEqual(flags('download_url'), [false, true]);
    assert.deepEqual(flags('http_request'), [false, true]);
  });

  test('through the worker pool with the allowlist in the environment: fetch, confirmation, download, schema errors', async () => {
    const saved = process.env[NET_ALLOW_ENV];
    process.env[NET_ALLOW_ENV] = '127.0.0.1'; // workers copy the environment when they start
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const page = await executor.execute({ name: 'web_fetch', arguments: { url: `${site.base}/article`, max_chars: 800 } });
      assert.equal(page.success, true, page.output);
      assert.match(page.output, /Title: Fixture Article/);
      const asked = await executor.execute({ name: 'download_url', arguments: { url: `${site.base}/json`, filepath: 'ex/a.json' } });
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED');
      assert.ok(!fs.existsSync(path.join(tmp.ws, 'ex')));
      const done = await executor.execute({ name: 'download_url', arguments: { url: `${site.base}/json`, filepath: 'ex/a.json' } }, { confirm: true });
      assert.equal(done.success, true, done.output);
      assert.equal(fs.readFileSync(path.join(tmp.ws, 'ex/a.json'), 'utf8'), '{"ok":true,"items":[1,2,3]}');
      const bad = await executor.execute({ name: 'http_request', arguments: { method: 'FETCH', url: `${site.base}/json` } }, { confirm: true });
      assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
      const extra = await executor.execute({ name: 'web_fetch', arguments: { url: `${site.base}/json`, proxy: 'x' } });
      assert.equal(extra.errorCode, 'INVALID_ARGUMENTS');
      const start = site.hits.length;
      const proto = await executor.execute({ name: 'http_request', arguments: `{"method":"GET","url":"${site.base}/json","headers":{"__proto__":"x"}}` }, { confirm: true });
      assert.equal(proto.errorCode, 'INVALID_ARGUMENTS', 'a __proto__ header name is refused by the schema (case A1)');
      assert.equal(site.hits.length, start);
    } finally {
      await executor.close();
      if (saved === undefined) delete process.env[NET_ALLOW_ENV];
      else process.env[NET_ALLOW_ENV] = saved;
    }
  });

  test('credentials in URL arguments and in headers never reach the call log', async () => {
    assert.deepEqual(redactSecrets({ url: 'http://alice:pa55word@h.example/x', note: 'see https://ghp_tok@github.com/r, mail a@b.example' }), {
      url: 'http://[redacted]@h.example/x',
      note: 'see https://[redacted]@github.com/r, mail a@b.example',
    });
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
    const saved = process.env[NET_ALLOW_ENV];
    delete process.env[NET_ALLOW_ENV];
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1, logger: pino({ level: 'debug' }, sink) });
    try {
      const result = await executor.execute(
        { name: 'http_request', arguments: { method: 'GET', url: `http://alice:pa55word@127.0.0.1:${site.port}/json`, headers: { Authorization: 'Bearer hdr-secret', 'X-Api-Key': 'key-secret' } } },
        { confirm: true },
      );
      assert.equal(result.success, false, 'no allowlist in this pool: blocked');
      assert.ok(!result.output.includes('pa55word'));
    } finally {
      await executor.close();
      if (saved !== undefined) process.env[NET_ALLOW_ENV] = saved;
    }
    const log = lines.join('');
    assert.match(log, /http_request/, 'the call was logged with its arguments');
    for (const secret of ['pa55word', 'hdr-secret', 'key-secret']) assert.ok(!log.includes(secret), `${secret} must not be logged`);
  });
});
