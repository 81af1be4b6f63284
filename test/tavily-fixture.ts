/**
 * A stand-in for the Tavily search API on loopback (node:http, 127.0.0.1, a free port), for the
 * web_search tests. It checks each request the way the real API would (POST /search, bearer
 * key, JSON body with a string `query` and an integer `max_results`), records it, and answers
 * like the API: results on success, `{"detail": {"error": ...}}` bodies with the documented
 * statuses (401, 429, 432, 433, 500), plus answers the API should never give (malformed JSON,
 * no `results`, an oversized body, no answer at all).
 *
 * The scenario is chosen by the query text, so tests can run in any order and at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The only key the fixture accepts. */
export const FIXTURE_KEY = 'tvly-fixture-5ecret-0123456789';

/** Queries that select a scenario; any other query gets `max_results` generated results. */
export const SCENARIO = {
  rateLimited: 'scenario rate limited',
  planLimit: 'scenario plan limit',
  paygoLimit: 'scenario paygo limit',
  serverError: 'scenario server error',
  htmlGatewayError: 'scenario html 502',
  badRequestEchoingKey: 'scenario 400 echoing the key',
  malformedJson: 'scenario malformed json',
  noResults: 'scenario no results list',
  empty: 'scenario empty',
  messy: 'scenario messy results',
  tooMany: 'scenario more results than asked',
  oversized: 'scenario oversized body',
  hang: 'scenario never answers',
  redirect: 'scenario redirect',
} as const;

/** A request as the fixture saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

/** A running fixture server. */
export interface TavilyFixture {
  /** `http://127.0.0.1:<port>`: the value for `TAVILY_BASE_URL`. */
  baseUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests to a scenario still waiting for an answer (the `hang` scenario). */
  pending(): number;
  /** Close the server and every open connection. */
  close(): Promise<void>;
}

/** The long snippet of the `messy` scenario (over 400 characters, control characters inside). */
export const LONG_CONTENT = `Start\u0007 of a long\r\nsnippet\u001b[31m with \u202eevil\u202c text. ${'word '.repeat(120)}END`;

/** Start the fixture on 127.0.0.1, port 0. */
export async function startTavilyFixture(): Promise<TavilyFixture> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
      });
      answer(req, res, body, hanging);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    pending: () => [...hanging].filter((r) => !r.destroyed && !r.writableEnded).length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function json(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function fail(res: http.ServerResponse, status: number, error: string, headers?: Record<string, string>): void {
  json(res, status, { detail: { error } }, headers);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, hanging: Set<http.ServerResponse>): void {
  if (req.url !== '/search') return fail(res, 404, `Not Found: ${req.url}`);
  if (req.method !== 'POST') return fail(res, 405, 'Method Not Allowed');
  if (req.headers.authorization !== `Bearer ${FIXTURE_KEY}`) return fail(res, 401, 'Unauthorized: missing or invalid API key.');
  if (!String(req.headers['content-type']).startsWith('application/json')) return fail(res, 400, 'Content-Type must be application/json');
  const request = body as { query?: unknown; max_results?: unknown } | undefined;
  if (typeof request?.query !== 'string' || request.query === '') return fail(res, 400, 'query is required');
  const max = request.max_results;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > 20) return fail(res, 400, 'max_results must be an integer from 0 to 20');
  const query = request.query;

  switch (query) {
    case SCENARIO.rateLimited:
      return fail(res, 429, 'Your request has been blocked due to excessive requests. Please reduce rate of requests.', { 'Retry-After': '42' });
    case SCENARIO.planLimit:
      return fail(res, 432, "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com");
    case SCENARIO.paygoLimit:
      return fail(res, 433, 'This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.');
    case SCENARIO.serverError:
      return fail(res, 500, 'Internal Server Error');
    case SCENARIO.htmlGatewayError:
      res.writeHead(502, { 'Content-Type': 'text/html' });
      return void res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    case SCENARIO.badRequestEchoingKey:
      return fail(res, 400, `Invalid request from ${req.headers.authorization}\u0000\u001b[2J`);
    case SCENARIO.malformedJson:
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('{"query": "x", "results": [{"title": "cut off');
    case SCENARIO.noResults:
      return json(res, 200, { query, answer: null, images: [], response_time: 0.1 });
    case SCENARIO.empty:
      return json(res, 200, { query, answer: null, images: [], results: [], response_time: 0.1 });
    case SCENARIO.oversized: {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const filler = 'x'.repeat(64 * 1024);
      res.write('{"results": [], "padding": "');
      for (let i = 0; i < 80; i++) res.write(filler); // 5 MiB, over the tool's 4 MiB limit
      return void res.end('"}');
    }
    case SCENARIO.hang:
      hanging.add(res);
      return; // never answer
    case SCENARIO.redirect:
      res.writeHead(307, { Location: 'http://127.0.0.2:9/search' });
      return void res.end();
    case SCENARIO.messy:
      return json(res, 200, {
        query,
        results: [
          { title: 'Title\u0000 with\ncontrol\tcharacters\u009b', url: 'https://example.com/a\u200b', content: LONG_CONTENT, score: 0.9 },
          { url: 'https://example.com/no-title', content: 'Has no title.', score: 0.8 },
          { title: 'No URL here', content: 'Has no url.', score: 0.7 },
          { title: 'No content here', url: 'https://example.com/no-content', score: 0.6 },
          { score: 0.5 },
          'not an object',
          null,
          { title: 42, url: ['https://example.com/array'], content: { text: 'object' }, score: 0.4 },
        ],
        response_time: 0.2,
      });
    case SCENARIO.tooMany:
      return json(res, 200, { query, results: results(query, 15), response_time: 0.1 });
    default:
      return json(res, 200, {
        query,
        answer: null,
        images: [],
        results: results(query, max),
        response_time: 0.42,
        request_id: 'req-fixture-1',
      });
  }
}

function results(query: string, count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://example.com/${i + 1}`,
    content: `Snippet ${i + 1} about ${query}.`,
    score: 1 - i / 100,
    raw_content: null,
  }));
}
