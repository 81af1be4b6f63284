/**
 * A stand-in for an OpenAI-compatible vision model on loopback (node:http, 127.0.0.1, a free
 * port), for the describe_image tests. It checks each request as a Chat Completions endpoint
 * with a vision model does (POST /v1/chat/completions, the bearer key when it was started
 * with one, JSON body with a string `model` and one user message whose content has a `text`
 * part and an `image_url` part holding a base64 image data URL), records it, and answers
 * `{choices: [{message: {role, content}}]}` naming the model, the image's MIME type and the
 * question, so a test sees that all three arrived. Errors with the documented statuses and
 * answers the API should never give are chosen by the question.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The key the fixture accepts when started with keys required. */
export const VISION_KEY = 'sk-fixture-vision-0123456789abcdef';

/** Questions that select a scenario; any other question gets an answer. */
export const VISION_SCENARIO = {
  serverError: 'scenario server error',
  rateLimited: 'scenario rate limited',
  noImages: 'scenario model takes no images',
  refusal: 'scenario refusal',
  noChoices: 'scenario no choices',
  partsAnswer: 'scenario answer in parts',
  hang: 'scenario never answers',
} as const;

/** A request as the fixture saw it. */
export interface VisionRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A running fixture. */
export interface VisionFixture {
  /** `http://127.0.0.1:<port>/v1`: the value for TOOLGATE_VISION_BASE_URL. */
  baseUrl: string;
  requests: VisionRequest[];
  close(): Promise<void>;
}

/**
 * Start the fixture.
 * @param requireKey - refuse requests without `Bearer {@link VISION_KEY}` (401); false: a
 *   keyless local server, which ignores the header.
 */
export async function startVisionFixture(requireKey = true): Promise<VisionFixture> {
  const requests: VisionRequest[] = [];
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
      answer(req, res, body, requireKey, hanging);
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

function completion(model: string, message: Record<string, unknown>): unknown {
  return { id: 'chatcmpl-fixture', object: 'chat.completion', created: 1_760_000_000, model, choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }] };
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, requireKey: boolean, hanging: Set<http.ServerResponse>): void {
  if (req.url !== '/v1/chat/completions') return fail(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
  if (req.method !== 'POST') return fail(res, 405, 'Method not allowed', 'invalid_request_error', null);
  if (requireKey && req.headers.authorization !== `Bearer ${VISION_KEY}`) return fail(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  const request = body as { model?: unknown; messages?: unknown } | undefined;
  if (typeof request?.model !== 'string' || request.model === '') return fail(res, 400, 'you must provide a model parameter', 'invalid_request_error', null);
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length !== 1) return fail(res, 400, "Invalid 'messages': expected one user message.", 'invalid_request_error', null);
  const message = messages[0] as { role?: unknown; content?: unknown };
  if (message.role !== 'user' || !Array.isArray(message.content)) return fail(res, 400, "Invalid 'messages[0]': expected a user message with content parts.", 'invalid_request_error', null);
  const parts = message.content as Array<{ type?: unknown; text?: unknown; image_url?: { url?: unknown } }>;
  const text = parts.find((p) => p.type === 'text');
  const image = parts.find((p) => p.type === 'image_url');
  if (typeof text?.text !== 'string' || text.text === '') return fail(res, 400, "Invalid 'messages[0].content': no text part.", 'invalid_request_error', null);
  const url = image?.image_url?.url;
  const mime = typeof url === 'string' ? /^data:(image\/(?:png|jpeg|gif|webp));base64,[A-Za-z0-9+/]+=*$/.exec(url)?.[1] : undefined;
  if (mime === undefined) return fail(res, 400, "Invalid 'messages[0].content': no image_url part with a base64 image data URL.", 'invalid_request_error', 'invalid_image_url');
  switch (text.text) {
    case VISION_SCENARIO.serverError:
      return fail(res, 500, 'The server had an error while processing your request.', 'server_error', null);
    case VISION_SCENARIO.rateLimited:
      return fail(res, 429, 'Rate limit reached for requests.', 'requests', 'rate_limit_exceeded', { 'Retry-After': '3' });
    case VISION_SCENARIO.noImages:
      return fail(res, 400, `Invalid content type. image_url is only supported by certain models; ${request.model} takes text.`, 'invalid_request_error', null);
    case VISION_SCENARIO.refusal:
      return json(res, 200, completion(request.model, { content: null, refusal: "I can't help with that image." }));
    case VISION_SCENARIO.noChoices:
      return json(res, 200, { id: 'chatcmpl-fixture', object: 'chat.completion', choices: [] });
    case VISION_SCENARIO.partsAnswer:
      return json(res, 200, completion(request.model, { content: [{ type: 'text', text: 'First part. ' }, { type: 'text', text: 'Second part.' }] }));
    case VISION_SCENARIO.hang:
      hanging.add(res);
      return;
    default:
      return json(res, 200, completion(request.model, { content: `${request.model} sees a ${mime} image.\nQuestion: ${text.text}` }));
  }
}
