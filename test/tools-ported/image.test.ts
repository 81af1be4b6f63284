/**
 * The image tools (read_image, image_info, resize_image, generate_image) on images the tests
 * make with sharp, a loopback web fixture for URLs (reached through an explicit allowlist) and
 * a loopback stand-in for an OpenAI-compatible images API (test/openai-images-fixture.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { ToolExecutionError, ToolExecutor } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { EMPTY_ALLOWLIST, NET_ALLOW_ENV, parseNetAllowlist } from '../../tools-ported/common/net-policy.js';
import { SafeFetchError } from '../../tools-ported/common/safe-fetch.js';
import {
  GENERATE_IMAGE_UNAVAILABLE,
  GenerateImageError,
  generateImage,
  type GenerateImageFailure,
  type GenerateImageOptions,
} from '../../tools-ported/image/generate-image.tool.js';
import { imageInfo } from '../../tools-ported/image/image-info.tool.js';
import { READ_IMAGE_MAX_BYTES, readImage } from '../../tools-ported/image/read-image.tool.js';
import { resizeImage } from '../../tools-ported/image/resize-image.tool.js';
import { assertTraversal, portedRegistry, tempWorkspace } from '../helpers.js';
import { IMAGE_SCENARIO, IMAGES_KEY, startImagesFixture, type ImagesFixture } from '../openai-images-fixture.js';
import { startWebFixture, type WebFixture } from '../web-fixture.js';

let tmp: ReturnType<typeof tempWorkspace>;
let workspace: Workspace;
let site: WebFixture;
let api: ImagesFixture;
const ALLOW = parseNetAllowlist('127.0.0.1');
const images: Record<string, Buffer> = {};

function solid(width: number, height: number, alpha = false) {
  return sharp({ create: { width, height, channels: alpha ? 4 : 3, background: alpha ? { r: 255, g: 0, b: 0, alpha: 0.5 } : { r: 0, g: 128, b: 255 } } });
}

before(async () => {
  tmp = tempWorkspace();
  workspace = new Workspace(tmp.ws);
  images.png = await solid(40, 30, true).png().toBuffer();
  images.jpeg = await solid(64, 48).jpeg().toBuffer();
  images.gif = await solid(10, 10).gif().toBuffer();
  images.webp = await solid(20, 20).webp().toBuffer();
  images.tiff = await solid(8, 6).tiff().toBuffer();
  const dir = path.join(tmp.ws, 'img');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'a.png'), images.png);
  fs.writeFileSync(path.join(dir, 'photo.jpg'), images.jpeg);
  fs.writeFileSync(path.join(dir, 'still.gif'), images.gif);
  fs.writeFileSync(path.join(dir, 'b.webp'), images.webp);
  fs.writeFileSync(path.join(dir, 'scan.tiff'), images.tiff);
  fs.writeFileSync(path.join(dir, 'disguised.jpg'), images.png); // PNG content, JPEG name
  fs.writeFileSync(path.join(dir, 'fake.png'), 'this is text, not a picture\n');
  const corrupt = Buffer.from(images.png.subarray(0, 60));
  corrupt[18]! ^= 0xff; // the width in the header no longer matches its checksum
  fs.writeFileSync(path.join(dir, 'corrupt.png'), corrupt);
  fs.writeFileSync(path.join(dir, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd"/></svg>');
  fs.writeFileSync(path.join(dir, 'huge.png'), Buffer.concat([images.png, Buffer.alloc(READ_IMAGE_MAX_BYTES, 0)]));
  fs.writeFileSync(path.join(tmp.outside, 'secret.png'), images.png);
  site = await startWebFixture('127.0.0.1');
  site.serve('/pic.webp', 'image/webp', images.webp);
  site.serve('/mislabelled', 'application/octet-stream', images.jpeg);
  site.serve('/page.png', 'image/png', Buffer.from('<html>not a png</html>'));
  api = await startImagesFixture(images.png, `${site.base}/pic.webp`);
});

after(async () => {
  await site?.close();
  await api?.close();
  tmp?.cleanup();
});

async function rejects(promise: Promise<unknown>, code = 'TOOL_ERROR', message?: RegExp): Promise<ToolExecutionError> {
  const error = await promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)?.slice(0, 200)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ToolExecutionError, `expected a ToolExecutionError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  if (message) assert.match(error.message, message);
  return error;
}

describe('read_image', () => {
  test('a workspace image is attached as a data URL of its real type, with format, size and dimensions', async () => {
    for (const [file, format, width, height] of [['img/a.png', 'png', 40, 30], ['img/photo.jpg', 'jpeg', 64, 48], ['img/still.gif', 'gif', 10, 10], ['img/b.webp', 'webp', 20, 20], ['img/disguised.jpg', 'png', 40, 30]] as const) {
      const attached: string[] = [];
      const out = await readImage(workspace, file, (url) => attached.push(url));
      assert.equal(out.format, format, file);
      assert.deepEqual([out.width, out.height, out.frames], [width, height, 1], file);
      assert.equal(out.source, file);
      assert.equal(attached.length, 1);
      assert.ok(attached[0]!.startsWith(`data:image/${format};base64,`), `${file}: ${attached[0]!.slice(0, 30)}`);
      const bytes = Buffer.from(attached[0]!.split(',')[1]!, 'base64');
      assert.deepEqual(bytes, fs.readFileSync(path.join(tmp.ws, file)));
      assert.equal(out.size_bytes, bytes.length);
    }
  });

  test('an http(s) image is fetched through the network guard; the type comes from the bytes, not the header', async () => {
    const attached: string[] = [];
    const webp = await readImage(workspace, `${site.base}/pic.webp`, (u) => attached.push(u), { allow: ALLOW });
    assert.equal(webp.format, 'webp');
    assert.equal(webp.source, `${site.base}/pic.webp`);
    const jpeg = await readImage(workspace, `${site.base}/mislabelled`, (u) => attached.push(u), { allow: ALLOW });
    assert.equal(jpeg.format, 'jpeg');
    assert.ok(attached[1]!.startsWith('data:image/jpeg;base64,'));
    await rejects(readImage(workspace, `${site.base}/page.png`, () => assert.fail('nothing attached'), { allow: ALLOW }), 'TOOL_ERROR', /is not a PNG, JPEG, GIF or WebP image/);
    await rejects(readImage(workspace, `${site.base}/notfound`, () => assert.fail(), { allow: ALLOW }), 'TOOL_ERROR', /HTTP 404/);
    const big = await rejects(readImage(workspace, `${site.base}/bytes?n=${READ_IMAGE_MAX_BYTES + 10}&declare=no`, () => assert.fail(), { allow: ALLOW }));
    assert.ok(big instanceof SafeFetchError && big.reason === 'too_large', big.message);
  });

  test('N1: read_image of a loopback URL without the allowlist is blocked and reaches nothing', async () => {
    const start = site.hits.length;
    for (const url of [`${site.base}/pic.webp`, `http://2130706433:${site.port}/pic.webp`, `http://[::ffff:127.0.0.1]:${site.port}/pic.webp`, 'http://169.254.169.254/latest/meta-data/']) {
      const error = await rejects(readImage(workspace, url, () => assert.fail(), { allow: EMPTY_ALLOWLIST }));
      assert.ok(error instanceof SafeFetchError && error.reason === 'blocked', error.message);
    }
    assert.equal(site.hits.length, start);
  });

  test('bad input: other schemes, outside paths, missing files, text, SVG, TIFF, corrupt, over 5 MiB', async () => {
    for (const source of ['file:///etc/passwd', 'data:image/png;base64,AAAA', 'ftp://127.0.0.1/x.png', '']) {
      await rejects(readImage(workspace, source, () => assert.fail()), 'INVALID_ARGUMENTS');
    }
    await assertTraversal(readImage(workspace, '../outside/secret.png', () => assert.fail()), 'read_image ../');
    await assertTraversal(readImage(workspace, path.join(tmp.outside, 'secret.png'), () => assert.fail()), 'read_image absolute');
    await rejects(readImage(workspace, 'img/missing.png', () => assert.fail()), 'TOOL_ERROR', /does not exist/);
    await rejects(readImage(workspace, 'img/fake.png', () => assert.fail()), 'TOOL_ERROR', /is not a PNG, JPEG, GIF or WebP image \(its content is text or unknown data\)/);
    await rejects(readImage(workspace, 'img/drawing.svg', () => assert.fail()), 'TOOL_ERROR', /is not a PNG/);
    await rejects(readImage(workspace, 'img/scan.tiff', () => assert.fail()), 'TOOL_ERROR', /image\/tiff.*resize_image/);
    await rejects(readImage(workspace, 'img/corrupt.png', () => assert.fail()), 'TOOL_ERROR', /cannot be read/);
    await rejects(readImage(workspace, 'img/huge.png', () => assert.fail()), 'TOOL_ERROR', /at most 5242880 bytes/);
  });
});

describe('image_info', () => {
  test('reports the real format, dimensions, channels, alpha and whether the extension matches', async () => {
    const png = await imageInfo(workspace, 'img/a.png');
    assert.deepEqual(
      { format: png.format, mime: png.mime, width: png.width, height: png.height, channels: png.channels, alpha: png.has_alpha, matches: png.extension_matches, size: png.size_bytes },
      { format: 'png', mime: 'image/png', width: 40, height: 30, channels: 4, alpha: true, matches: true, size: images.png!.length },
    );
    assert.equal(png.color_space, 'srgb');
    assert.equal(png.bit_depth, 'uchar');
    const disguised = await imageInfo(workspace, 'img/disguised.jpg');
    assert.equal(disguised.format, 'png');
    assert.equal(disguised.extension_matches, false);
    const tiff = await imageInfo(workspace, 'img/scan.tiff');
    assert.deepEqual([tiff.format, tiff.width, tiff.height, tiff.has_alpha], ['tiff', 8, 6, false]);
    const jpeg = await imageInfo(workspace, 'img/photo.jpg');
    assert.deepEqual([jpeg.format, jpeg.channels], ['jpeg', 3]);
  });

  test('bad input: text, SVG, corrupt images, URLs, paths outside', async () => {
    await rejects(imageInfo(workspace, 'img/fake.png'), 'TOOL_ERROR', /is not a PNG, JPEG, GIF, WebP, TIFF, AVIF or HEIF image/);
    await rejects(imageInfo(workspace, 'img/drawing.svg'), 'TOOL_ERROR', /is not a PNG/);
    await rejects(imageInfo(workspace, 'img/corrupt.png'), 'TOOL_ERROR', /cannot be read/);
    await rejects(imageInfo(workspace, 'img'), 'TOOL_ERROR', /is a folder/);
    await rejects(imageInfo(workspace, `${site.base}/pic.webp`), 'INVALID_ARGUMENTS');
    await assertTraversal(imageInfo(workspace, '../outside/secret.png'), 'image_info ../');
    await assertTraversal(imageInfo(workspace, '../proj-evil/x'), 'image_info sibling');
  });
});

describe('resize_image', () => {
  test('keeps the aspect ratio by default, converts by extension or format, and writes atomically', async () => {
    const half = await resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/half.png', width: 20 });
    assert.deepEqual([half.format, half.width, half.height, half.overwrote, half.destination], ['png', 20, 15, false, 'out/half.png']);
    const meta = await sharp(fs.readFileSync(path.join(tmp.ws, 'out/half.png'))).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 20, 15]);
    assert.equal(half.size_bytes, fs.statSync(path.join(tmp.ws, 'out/half.png')).size);
    const cover = await resizeImage(workspace, { filepath: 'img/photo.jpg', destination: 'out/square.webp', width: 16, height: 16, fit: 'cover', quality: 50 });
    assert.deepEqual([cover.format, cover.width, cover.height], ['webp', 16, 16]);
    const jpeg = await resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/flat.jpg', height: 60 });
    assert.deepEqual([jpeg.format, jpeg.width, jpeg.height], ['jpeg', 80, 60]);
    assert.equal((await sharp(fs.readFileSync(path.join(tmp.ws, 'out/flat.jpg'))).metadata()).format, 'jpeg');
    const forced = await resizeImage(workspace, { filepath: 'img/b.webp', destination: 'out/forced.img', width: 5, format: 'png' });
    assert.equal((await sharp(fs.readFileSync(path.join(tmp.ws, 'out/forced.img'))).metadata()).format, 'png');
    assert.equal(forced.height, 5);
    assert.deepEqual(fs.readdirSync(path.join(tmp.ws, 'out')).sort(), ['flat.jpg', 'forced.img', 'half.png', 'square.webp'], 'no temporary files');
  });

  test('an existing destination is refused unless overwrite is true', async () => {
    const before = fs.readFileSync(path.join(tmp.ws, 'out/half.png'));
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/half.png', width: 4 }), 'TOOL_ERROR', /already exists; pass overwrite: true/);
    assert.deepEqual(fs.readFileSync(path.join(tmp.ws, 'out/half.png')), before);
    const again = await resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/half.png', width: 4, overwrite: true });
    assert.equal(again.overwrote, true);
    assert.equal((await sharp(fs.readFileSync(path.join(tmp.ws, 'out/half.png'))).metadata()).width, 4);
  });

  test('bad input: no size, sizes out of range, unknown format, the source itself, unreadable source, paths outside', async () => {
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/x.png' }), 'INVALID_ARGUMENTS', /give width, height or both/);
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/x.png', width: 0 }), 'INVALID_ARGUMENTS');
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/x.png', width: 20000 }), 'INVALID_ARGUMENTS');
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'out/x.bmp', width: 10 }), 'INVALID_ARGUMENTS', /cannot tell the output format/);
    await rejects(resizeImage(workspace, { filepath: 'img/a.png', destination: 'img/a.png', width: 10, overwrite: true }), 'INVALID_ARGUMENTS', /the source itself/);
    await rejects(resizeImage(workspace, { filepath: 'img/corrupt.png', destination: 'out/c.png', width: 10 }), 'TOOL_ERROR', /cannot be read/);
    await rejects(resizeImage(workspace, { filepath: 'img/fake.png', destination: 'out/f.png', width: 10 }), 'TOOL_ERROR', /is not a PNG/);
    await assertTraversal(resizeImage(workspace, { filepath: 'img/a.png', destination: '../outside/evil.png', width: 10 }), 'resize_image destination');
    await assertTraversal(resizeImage(workspace, { filepath: '../outside/secret.png', destination: 'out/s.png', width: 10 }), 'resize_image source');
    assert.ok(!fs.existsSync(path.join(tmp.outside, 'evil.png')));
    for (const name of ['x.png', 'x.bmp', 'c.png', 'f.png', 's.png']) assert.ok(!fs.existsSync(path.join(tmp.ws, 'out', name)), name);
  });
});

describe('generate_image against the images API fixture', () => {
  const options = (extra: Partial<GenerateImageOptions> = {}): GenerateImageOptions => ({ apiKey: IMAGES_KEY, baseUrl: api.baseUrl, fetch: { allow: ALLOW }, ...extra });

  async function failsWith(promise: Promise<unknown>, reason: GenerateImageFailure, status?: number): Promise<GenerateImageError> {
    const error = await promise.then(
      (v) => assert.fail(`expected ${reason}, got ${String(v)}`),
      (e: unknown) => e,
    );
    assert.ok(error instanceof GenerateImageError, `expected a GenerateImageError, got ${String(error)}`);
    assert.equal(error.code, 'TOOL_ERROR');
    assert.equal(error.reason, reason, error.message);
    assert.equal(error.status, status, error.message);
    assert.ok(!error.message.includes(IMAGES_KEY), 'the key is never in a message');
    assert.ok(!/[\u0000-\u001f]/.test(error.message), 'no control characters');
    return error;
  }

  test('without a key it answers "unavailable" as a success and calls nothing', async () => {
    const start = api.requests.length;
    for (const apiKey of [undefined, '', '   ']) {
      assert.equal(await generateImage(workspace, { prompt: 'a cat' }, () => assert.fail(), { apiKey, baseUrl: api.baseUrl }), GENERATE_IMAGE_UNAVAILABLE);
    }
    assert.equal(api.requests.length, start);
  });

  test('sends the documented request, attaches the image and saves it when asked', async () => {
    const attached: string[] = [];
    const start = api.requests.length;
    const out = await generateImage(workspace, { prompt: '  a lighthouse at dawn ', size: '1536x1024', filepath: 'gen/lighthouse.png' }, (u) => attached.push(u), options({ model: 'gpt-image-1' }));
    assert.deepEqual(api.requests.slice(start), [
      { method: 'POST', path: '/v1/images/generations', authorization: `Bearer ${IMAGES_KEY}`, body: { model: 'gpt-image-1', prompt: 'a lighthouse at dawn', n: 1, size: '1536x1024' } },
    ]);
    assert.match(out, /^Generated a 40x30 PNG image \(\d+ bytes\) with gpt-image-1\. Saved to gen\/lighthouse\.png\.$/);
    assert.deepEqual(fs.readFileSync(path.join(tmp.ws, 'gen/lighthouse.png')), images.png);
    assert.equal(attached.length, 1);
    assert.equal(attached[0], `data:image/png;base64,${images.png!.toString('base64')}`);
    const only = await generateImage(workspace, { prompt: 'no file' }, () => undefined, options());
    assert.doesNotMatch(only, /Saved to/);
  });

  test('an answer with a url is fetched through the network guard (blocked without the allowlist)', async () => {
    const attached: string[] = [];
    const out = await generateImage(workspace, { prompt: IMAGE_SCENARIO.url }, (u) => attached.push(u), options());
    assert.match(out, /Generated a 20x20 WEBP image/);
    assert.match(out, /Revised prompt: a revised prompt/);
    assert.ok(attached[0]!.startsWith('data:image/webp;base64,'));
    const blocked = await generateImage(workspace, { prompt: IMAGE_SCENARIO.url }, () => assert.fail(), options({ fetch: { allow: EMPTY_ALLOWLIST } })).catch((e: unknown) => e);
    assert.ok(blocked instanceof SafeFetchError && blocked.reason === 'blocked', String(blocked));
  });

  test('documented errors: content policy, bad key, rate limit, quota, server error, unsupported size', async () => {
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.contentPolicy }, () => assert.fail(), options()), 'content_policy', 400);
    await failsWith(generateImage(workspace, { prompt: 'x' }, () => assert.fail(), options({ apiKey: 'sk-wrong' })), 'unauthorized', 401);
    const limited = await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.rateLimited }, () => assert.fail(), options()), 'rate_limited', 429);
    assert.match(limited.message, /Wait 7 s/);
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.quota }, () => assert.fail(), options()), 'quota', 429);
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.serverError }, () => assert.fail(), options()), 'server_error', 500);
    const size = await failsWith(generateImage(workspace, { prompt: 'x', size: '512x512' }, () => assert.fail(), options()), 'bad_request', 400);
    assert.match(size.message, /Supported values are/);
    const echo = await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.echoKey }, () => assert.fail(), options()), 'bad_request', 400);
    assert.match(echo.message, /\[redacted\]/);
  });

  test('answers the API should never give: malformed JSON, no data, not an image, a redirect, no answer (timeout), an abort', async () => {
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.malformed }, () => assert.fail(), options()), 'malformed_response', 200);
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.noData }, () => assert.fail(), options()), 'malformed_response', 200);
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.notImage }, () => assert.fail(), options()), 'malformed_response', 200);
    await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.redirect }, () => assert.fail(), options()), 'unexpected_status', 307);
    const hung = await failsWith(generateImage(workspace, { prompt: IMAGE_SCENARIO.hang, filepath: 'gen/hang.png' }, () => assert.fail(), options({ requestTimeoutMs: 300 })), 'timeout');
    assert.match(hung.message, /did not answer within 300 ms/);
    assert.ok(!fs.existsSync(path.join(tmp.ws, 'gen/hang.png')));
    const controller = new AbortController();
    const pending = generateImage(workspace, { prompt: IMAGE_SCENARIO.hang }, () => assert.fail(), options({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await failsWith(pending, 'aborted');
  });

  test('bad input and configuration: blank prompt, bad size, an existing or badly named file, a non-https base URL', async () => {
    const start = api.requests.length;
    await rejects(generateImage(workspace, { prompt: '   ' }, () => assert.fail(), options()), 'INVALID_ARGUMENTS');
    await rejects(generateImage(workspace, { prompt: 'x', size: 'huge' }, () => assert.fail(), options()), 'INVALID_ARGUMENTS');
    await rejects(generateImage(workspace, { prompt: 'x', filepath: 'gen/lighthouse.png' }, () => assert.fail(), options()), 'TOOL_ERROR', /already exists/);
    await rejects(generateImage(workspace, { prompt: 'x', filepath: 'gen/pic.gif' }, () => assert.fail(), options()), 'INVALID_ARGUMENTS');
    await assertTraversal(generateImage(workspace, { prompt: 'x', filepath: '../outside/x.png' }, () => assert.fail(), options()), 'generate_image filepath');
    await failsWith(generateImage(workspace, { prompt: 'x' }, () => assert.fail(), options({ baseUrl: 'http://images.example/v1' })), 'misconfigured');
    await failsWith(generateImage(workspace, { prompt: 'x' }, () => assert.fail(), options({ apiKey: 'sk bad key' })), 'misconfigured');
    assert.equal(api.requests.length, start, 'nothing was sent');
  });
});

describe('image tools through the executor (worker pool)', () => {
  test('read_image attaches to result.images; resize_image and generate_image ask for confirmation; unavailable without a key', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, base: process.env.TOOLGATE_IMAGE_BASE_URL, allow: process.env[NET_ALLOW_ENV] };
    delete process.env.OPENAI_API_KEY;
    process.env.TOOLGATE_IMAGE_BASE_URL = api.baseUrl;
    process.env[NET_ALLOW_ENV] = '127.0.0.1';
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const read = await executor.execute({ name: 'read_image', arguments: { source: 'img/a.png' } });
      assert.equal(read.success, true, read.output);
      assert.equal(read.images?.length, 1);
      assert.ok(read.images![0]!.startsWith('data:image/png;base64,'));
      assert.match(read.output, /\[image 1 of 1 attached: image\/png/);
      const viaUrl = await executor.execute({ name: 'read_image', arguments: { source: `${site.base}/pic.webp` } });
      assert.equal(viaUrl.success, true, viaUrl.output);
      const info = await executor.execute({ name: 'image_info', arguments: { filepath: 'img/photo.jpg' } });
      assert.deepEqual([(info.structured as { width: number }).width, (info.structured as { format: string }).format], [64, 'jpeg']);
      const ask = await executor.execute({ name: 'resize_image', arguments: { filepath: 'img/a.png', destination: 'ex/r.png', width: 10 } });
      assert.equal(ask.errorCode, 'CONFIRMATION_REQUIRED');
      assert.ok(!fs.existsSync(path.join(tmp.ws, 'ex')));
      const resized = await executor.execute({ name: 'resize_image', arguments: { filepath: 'img/a.png', destination: 'ex/r.png', width: 10 } }, { confirm: true });
      assert.equal(resized.success, true, resized.output);
      const bad = await executor.execute({ name: 'resize_image', arguments: { filepath: 'img/a.png', destination: 'ex/r2.png', width: 'big' } }, { confirm: true });
      assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
      const generate = await executor.execute({ name: 'generate_image', arguments: { prompt: 'a cat' } }, { confirm: true });
      assert.equal(generate.success, true);
      assert.equal(generate.output, GENERATE_IMAGE_UNAVAILABLE);
    } finally {
      await executor.close();
    }
    process.env.OPENAI_API_KEY = IMAGES_KEY; // a new pool's workers copy the environment again
    const second = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const generated = await second.execute({ name: 'generate_image', arguments: { prompt: 'a dog', filepath: 'ex/dog.png' } }, { confirm: true });
      assert.equal(generated.success, true, generated.output);
      assert.equal(generated.images?.length, 1);
      assert.ok(!generated.output.includes(IMAGES_KEY));
      assert.ok(fs.existsSync(path.join(tmp.ws, 'ex/dog.png')));
    } finally {
      await second.close();
      for (const [name, value] of [['OPENAI_API_KEY', saved.key], ['TOOLGATE_IMAGE_BASE_URL', saved.base], [NET_ALLOW_ENV, saved.allow]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
