/**
 * A stand-in for an OpenAI-compatible images API on loopback (node:http, 127.0.0.1, a free
 * port), for the generate_image tests. It checks each request as the API does (POST
 * /v1/images/generations, bearer key, JSON body with a string `model`, a non-empty `prompt`,
 * `n` 1 and a WIDTHxHEIGHT or auto `size`), records it, and answers like the API: `{created,
 * data: [{b64_json}]}` on success, `{"error": {message, type, code}}` bodies with the documented
 * statuses (400 content policy, 401, 429 rate limit and quota, 500), plus answers the API should
 * never give (not JSON, no data, not an image, no answer at all).
 *
 * The scenario is chosen by the prompt, so tests can run in any order.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The only key the fixture accepts. */
export const IMAGES_KEY = 'sk-fixture-images-0123456789abcdef';

/** Prompts that select a scenario; any other prompt gets the PNG as b64_json. */
export const IMAGE_SCENARIO = {
  url: 'scenario url',
  contentPolicy: 'scenario content policy',
  rateLimited: 'scenario rate limited',
  quota: 'scenario quota',
  serverError: 'scenario server error',
  echoKey: 'scenario error echoing the key',
  malformed: 'scenario malformed json',
  noData: 'scenario no data',
  notImage: 'scenario not an image',
  hang: 'scenario never answers',
  redirect: 'scenario redirect',
} as const;

/** A request as the fixture saw it. */
export interface ImagesRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A running fixture. */
export interface ImagesFixture {
  /** `http://127.0.0.1:<port>/v1`: the value for TOOLGATE_IMAGE_BASE_URL / OPENAI_BASE_URL. */
  baseUrl: string;
  requests: ImagesRequest[];
  close(): Promise<void>;
}

/**
 * Start the fixture.
 * @param png - the image to return.
 * @param imageUrl - the URL returned in the `url` scenario.
 */
export async function startImagesFixture(png: Uint8Array, imageUrl: string): Promise<ImagesFixture> {
  const requests: ImagesRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
      answer(req, res, body, png, imageUrl, hanging);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function fail(res: http.ServerResponse, status: number, message: string, type: string, code: string | null, headers?: Record<string, string>): void {
  json(res, status, { error: { message, type, param: null, code } }, headers);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, png: Uint8Array, imageUrl: string, hanging: Set<http.ServerResponse>): void {
  if (req.url !== '/v1/images/generations') return fail(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
  if (req.method !== 'POST') return fail(res, 405, 'Method not allowed', 'invalid_request_error', null);
  if (req.headers.authorization !== `Bearer ${IMAGES_KEY}`) return fail(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  const request = body as { model?: unknown; prompt?: unknown; n?: unknown; size?: unknown } | undefined;
  if (typeof request?.model !== 'string' || request.model === '') return fail(res, 400, 'you must provide a model parameter', 'invalid_request_error', null);
  if (typeof request.prompt !== 'string' || request.prompt === '') return fail(res, 400, "Invalid 'prompt': empty string.", 'invalid_request_error', 'empty_string');
  if (request.n !== 1) return fail(res, 400, "Invalid 'n'", 'invalid_request_error', null);
  if (typeof request.size !== 'string' || !/^(auto|\d+x\d+)$/.test(request.size)) return fail(res, 400, "Invalid 'size'", 'invalid_request_error', null);
  if (!['auto', '1024x1024', '1536x1024', '1024x1536'].includes(request.size)) {
    return fail(res, 400, `Invalid value: '${request.size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`, 'invalid_request_error', 'invalid_value');
  }
  const created = 1_760_000_000;
  switch (request.prompt) {
    case IMAGE_SCENARIO.url:
      return json(res, 200, { created, data: [{ url: imageUrl, revised_prompt: 'a revised prompt' }] });
    case IMAGE_SCENARIO.contentPolicy:
      return fail(res, 400, 'Your request was rejected as a result of our safety system.', 'image_generation_user_error', 'content_policy_violation');
    case IMAGE_SCENARIO.rateLimited:
      return fail(res, 429, 'Rate limit reached for images per minute.', 'requests', 'rate_limit_exceeded', { 'Retry-After': '7' });
    case IMAGE_SCENARIO.quota:
      return fail(res, 429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota');
    case IMAGE_SCENARIO.serverError:
      return fail(res, 500, 'The server had an error while processing your request.', 'server_error', null);
    case IMAGE_SCENARIO.echoKey:
      return fail(res, 400, `Bad request from ${req.headers.authorization}\u0000\u001b[2J`, 'invalid_request_error', null);
    case IMAGE_SCENARIO.malformed:
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('{"created": 1, "data": [{"b64_json": "cut');
    case IMAGE_SCENARIO.noData:
      return json(res, 200, { created });
    case IMAGE_SCENARIO.notImage:
      return json(res, 200, { created, data: [{ b64_json: Buffer.from('hello, not an image').toString('base64') }] });
    case IMAGE_SCENARIO.hang:
      hanging.add(res);
      return;
    case IMAGE_SCENARIO.redirect:
      res.writeHead(307, { Location: 'http://127.0.0.2:9/v1/images/generations' });
      return void res.end();
    default:
      return json(res, 200, { created, data: [{ b64_json: Buffer.from(png).toString('base64') }], usage: { total_tokens: 100 } });
  }
}
