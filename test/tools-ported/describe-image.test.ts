/**
 * describe_image against a loopback vision-model fixture (test/openai-vision-fixture.ts): the
 * request it sends (model, question, the image as an image_url data URL, the key only when
 * configured), "unavailable" without configuration, the documented errors, a fixture that
 * never answers (timeout) or is aborted, the path safety of read_image, and the tool through
 * the executor with its configuration in the environment.
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
  DESCRIBE_IMAGE_DEFAULT_MODEL,
  DESCRIBE_IMAGE_DEFAULT_PROMPT,
  DESCRIBE_IMAGE_UNAVAILABLE,
  DescribeImageError,
  describeImage,
  describeImageEnv,
  type DescribeImageFailure,
  type DescribeImageOptions,
} from '../../tools-ported/image/describe-image.tool.js';
import { assertTraversal, portedRegistry, tempWorkspace } from '../helpers.js';
import { startVisionFixture, VISION_KEY, VISION_SCENARIO, type VisionFixture } from '../openai-vision-fixture.js';
import { startWebFixture, type WebFixture } from '../web-fixture.js';

let tmp: ReturnType<typeof tempWorkspace>;
let workspace: Workspace;
let api: VisionFixture;
let keyless: VisionFixture;
let site: WebFixture;
let png: Buffer;
let jpeg: Buffer;

before(async () => {
  tmp = tempWorkspace();
  workspace = new Workspace(tmp.ws);
  png = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 0, g: 128, b: 255 } } }).jpeg().toBuffer();
  fs.mkdirSync(path.join(tmp.ws, 'img'));
  fs.writeFileSync(path.join(tmp.ws, 'img/a.png'), png);
  fs.writeFileSync(path.join(tmp.ws, 'img/notes.png'), 'this is text, not a picture\n');
  fs.writeFileSync(path.join(tmp.outside, 'secret.png'), png);
  api = await startVisionFixture(true);
  keyless = await startVisionFixture(false);
  site = await startWebFixture('127.0.0.1');
  site.serve('/photo', 'application/octet-stream', jpeg);
});

after(async () => {
  await api?.close();
  await keyless?.close();
  await site?.close();
  tmp?.cleanup();
});

const options = (extra: Partial<DescribeImageOptions> = {}): DescribeImageOptions => ({ apiKey: VISION_KEY, baseUrl: api.baseUrl, model: 'vision-fixture-model', ...extra });

async function failsWith(promise: Promise<unknown>, reason: DescribeImageFailure, status?: number): Promise<DescribeImageError> {
  const error = await promise.then(
    (v) => assert.fail(`expected ${reason}, got ${String(v)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DescribeImageError, `expected a DescribeImageError, got ${String(error)}`);
  assert.equal(error.code, 'TOOL_ERROR');
  assert.equal(error.reason, reason, error.message);
  assert.equal(error.status, status, error.message);
  assert.ok(!error.message.includes(VISION_KEY), 'the key is never in a message');
  return error;
}

describe('describe_image against the vision model fixture', () => {
  test('without a base URL or a key it answers "unavailable" as a success and sends nothing', async () => {
    const start = api.requests.length;
    for (const configuration of [{}, { apiKey: '  ', baseUrl: '' }, describeImageEnv({ OPENAI_BASE_URL: api.baseUrl, TOOLGATE_VISION_MODEL: 'm' })]) {
      assert.equal(await describeImage(workspace, { source: 'img/a.png' }, configuration), DESCRIBE_IMAGE_UNAVAILABLE);
    }
    assert.equal(api.requests.length, start);
  });

  test('the environment: a vision base URL alone enables it; a key alone uses OPENAI_BASE_URL; the vision key comes first', () => {
    assert.deepEqual(describeImageEnv({}), { apiKey: undefined, baseUrl: undefined, model: undefined });
    assert.deepEqual(describeImageEnv({ TOOLGATE_VISION_BASE_URL: ' http://127.0.0.1:1/v1 ' }), { apiKey: undefined, baseUrl: 'http://127.0.0.1:1/v1', model: undefined });
    assert.deepEqual(describeImageEnv({ OPENAI_API_KEY: 'sk-a', OPENAI_BASE_URL: 'https://gw.example/v1' }), { apiKey: 'sk-a', baseUrl: 'https://gw.example/v1', model: undefined });
    assert.deepEqual(
      describeImageEnv({ OPENAI_API_KEY: 'sk-a', TOOLGATE_VISION_API_KEY: 'sk-v', TOOLGATE_VISION_BASE_URL: 'https://v.example/v1', OPENAI_BASE_URL: 'https://gw.example/v1', TOOLGATE_VISION_MODEL: 'llava' }),
      { apiKey: 'sk-v', baseUrl: 'https://v.example/v1', model: 'llava' },
    );
  });

  test('sends the model, the question and the image as an image_url data URL, and returns the answer', async () => {
    const start = api.requests.length;
    const out = await describeImage(workspace, { source: 'img/a.png', prompt: '  What colour is it? ' }, options());
    assert.deepEqual(api.requests.slice(start), [{
      method: 'POST',
      path: '/v1/chat/completions',
      authorization: `Bearer ${VISION_KEY}`,
      body: {
        model: 'vision-fixture-model',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What colour is it?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] }],
      },
    }]);
    assert.equal(out, 'Vision model vision-fixture-model on img/a.png (40x30 PNG):\n\nvision-fixture-model sees a image/png image.\nQuestion: What colour is it?');
  });

  test('without a prompt it asks for a detailed description; the default model; an answer in parts; a keyless local server', async () => {
    const start = api.requests.length;
    const out = await describeImage(workspace, { source: 'img/a.png' }, options({ model: undefined }));
    const sent = api.requests[start]!.body as { model: string; messages: Array<{ content: Array<{ text?: string }> }> };
    assert.equal(sent.model, DESCRIBE_IMAGE_DEFAULT_MODEL);
    assert.equal(sent.messages[0]!.content[0]!.text, DESCRIBE_IMAGE_DEFAULT_PROMPT);
    assert.match(out, new RegExp(`Question: ${DESCRIBE_IMAGE_DEFAULT_PROMPT.slice(0, 30)}`));
    assert.match(await describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.partsAnswer }, options()), /\n\nFirst part\. Second part\.$/);
    const local = await describeImage(workspace, { source: 'img/a.png', prompt: 'what is it?' }, { baseUrl: keyless.baseUrl, model: 'llava' });
    assert.match(local, /llava sees a image\/png image/);
    assert.equal(keyless.requests.at(-1)!.authorization, undefined, 'no Authorization header without a key');
  });

  test('an http(s) image goes through the network guard; its type comes from the bytes', async () => {
    const out = await describeImage(workspace, { source: `${site.base}/photo`, prompt: 'what?' }, options({ fetch: { allow: parseNetAllowlist('127.0.0.1') } }));
    assert.match(out, /\(64x48 JPEG\)/);
    assert.match(out, /sees a image\/jpeg image/);
    const start = api.requests.length;
    const blocked = await describeImage(workspace, { source: `${site.base}/photo` }, options({ fetch: { allow: EMPTY_ALLOWLIST } })).catch((e: unknown) => e);
    assert.ok(blocked instanceof SafeFetchError && blocked.reason === 'blocked', String(blocked));
    assert.equal(api.requests.length, start);
  });

  test('documented errors: wrong key, a model that takes no images, rate limit, server error, refusal, no choices', async () => {
    await failsWith(describeImage(workspace, { source: 'img/a.png' }, options({ apiKey: 'sk-wrong' })), 'unauthorized', 401);
    const noImages = await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.noImages }, options()), 'bad_request', 400);
    assert.match(noImages.message, /image_url is only supported by certain models/);
    const limited = await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.rateLimited }, options()), 'rate_limited', 429);
    assert.match(limited.message, /Wait 3 s/);
    await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.serverError }, options()), 'server_error', 500);
    const refused = await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.refusal }, options()), 'refused', 200);
    assert.match(refused.message, /declined: "I can't help with that image\."/);
    await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.noChoices }, options()), 'malformed_response', 200);
  });

  test('a vision model that never answers ends in a timeout result; an abort ends it too', async () => {
    const hung = await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.hang }, options({ requestTimeoutMs: 300 })), 'timeout');
    assert.match(hung.message, /did not answer within 300 ms/);
    const nearDeadline = await failsWith(describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.hang }, options({ deadline: Date.now() + 500 })), 'timeout');
    assert.match(nearDeadline.message, /no time is left/);
    const controller = new AbortController();
    const pending = describeImage(workspace, { source: 'img/a.png', prompt: VISION_SCENARIO.hang }, options({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await failsWith(pending, 'aborted');
  });

  test('the path safety of read_image: outside paths, other schemes, text, a non-https base URL; nothing is sent', async () => {
    const start = api.requests.length;
    await assertTraversal(describeImage(workspace, { source: '../outside/secret.png' }, options()), 'describe_image source');
    await assertTraversal(describeImage(workspace, { source: path.join(tmp.outside, 'secret.png') }, options()), 'describe_image absolute source');
    for (const source of ['file:///etc/passwd', `data:image/png;base64,${png.toString('base64')}`, '']) {
      const error = await describeImage(workspace, { source }, options()).catch((e: unknown) => e);
      assert.ok(error instanceof ToolExecutionError && error.code === 'INVALID_ARGUMENTS', `${source.slice(0, 20)}: ${String(error)}`);
    }
    const text = await describeImage(workspace, { source: 'img/notes.png' }, options()).catch((e: unknown) => e);
    assert.ok(text instanceof ToolExecutionError && /not a PNG, JPEG, GIF or WebP image/.test(text.message), String(text));
    await failsWith(describeImage(workspace, { source: 'img/a.png' }, options({ baseUrl: 'http://vision.example/v1' })), 'misconfigured');
    await failsWith(describeImage(workspace, { source: 'img/a.png' }, options({ apiKey: 'sk bad key' })), 'misconfigured');
    // A request the test before aborted can reach the fixture only now, on a loaded machine: not this test's.
    const late = (r: (typeof api.requests)[number]) => JSON.stringify(r.body ?? '').includes(VISION_SCENARIO.hang);
    assert.deepEqual(api.requests.slice(start).filter((r) => !late(r)), [], 'nothing was sent');
  });
});

describe('describe_image through the executor', () => {
  test('configured from the environment it answers with the vision model\'s text; unconfigured it answers "unavailable"', async () => {
    const names = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TOOLGATE_VISION_API_KEY', 'TOOLGATE_VISION_BASE_URL', 'TOOLGATE_VISION_MODEL', NET_ALLOW_ENV] as const;
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    for (const name of names) delete process.env[name];
    const registry = await portedRegistry();
    const bare = new ToolExecutor(registry, { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const unavailable = await bare.execute({ name: 'describe_image', arguments: { source: 'img/a.png' } });
      assert.equal(unavailable.success, true, unavailable.output);
      assert.equal(unavailable.output, DESCRIBE_IMAGE_UNAVAILABLE);
    } finally {
      await bare.close();
    }
    Object.assign(process.env, { TOOLGATE_VISION_BASE_URL: api.baseUrl, TOOLGATE_VISION_API_KEY: VISION_KEY, TOOLGATE_VISION_MODEL: 'env-vision-model' });
    const configured = new ToolExecutor(registry, { workspaceRoot: tmp.ws, poolSize: 1 });
    try {
      const start = api.requests.length;
      const result = await configured.execute({ name: 'describe_image', arguments: { source: 'img/a.png', prompt: 'Is there text?' } });
      assert.equal(result.success, true, result.output);
      assert.match(result.output, /^Vision model env-vision-model on img\/a\.png \(40x30 PNG\):\n\nenv-vision-model sees a image\/png image\.\nQuestion: Is there text\?/);
      assert.equal(result.images, undefined, 'nothing is attached: the model cannot see images');
      assert.equal(api.requests.length, start + 1);
      await assertTraversal(configured.execute({ name: 'describe_image', arguments: { source: '../outside/secret.png' } }), 'describe_image through the executor');
      assert.equal(api.requests.length, start + 1);
    } finally {
      await configured.close();
      for (const name of names) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});
