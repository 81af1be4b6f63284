/**
 * web_search against a local stand-in for the Tavily API (test/tavily-fixture.ts, loopback
 * only): the plain function with explicit options for every path, then a few calls through a
 * real ToolExecutor (worker pool) and the CLI, with the environment set before they start.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ToolExecutionError, ToolExecutor } from 'toolgate';
import { cleanText } from '../../tools-ported/common/keyed-api.js';
import {
  WEB_SEARCH_SNIPPET_CHARS,
  WEB_SEARCH_UNAVAILABLE,
  WebSearchError,
  webSearch,
  type WebSearchFailure,
  type WebSearchOptions,
} from '../../tools/web-search.tool.js';
import { fixtureRegistry, runCli } from '../helpers.js';
import { FIXTURE_KEY, LONG_CONTENT, SCENARIO, startTavilyFixture, type TavilyFixture } from '../tavily-fixture.js';
import { waitFor } from '../wait.js';

let fixture: TavilyFixture;

before(async () => {
  fixture = await startTavilyFixture();
});

after(async () => {
  await fixture?.close();
});

/** Options that reach the fixture with the right key. */
function options(extra: Partial<WebSearchOptions> = {}): WebSearchOptions {
  return { apiKey: FIXTURE_KEY, baseUrl: fixture.baseUrl, ...extra };
}

/** The requests the fixture received while `fn` ran. */
async function recording<T>(fn: () => Promise<T>): Promise<{ value: T; requests: TavilyFixture['requests'] }> {
  const start = fixture.requests.length;
  const value = await fn();
  return { value, requests: fixture.requests.slice(start) };
}

/** Await a rejection and check it is a WebSearchError with this reason (and status), and no key in it. */
async function failsWith(promise: Promise<unknown>, reason: WebSearchFailure, status?: number): Promise<WebSearchError> {
  const error = await promise.then(
    (value) => assert.fail(`expected a ${reason} failure, got: ${String(value)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WebSearchError, `expected a WebSearchError, got ${String(error)}`);
  assert.ok(error instanceof ToolExecutionError, 'a WebSearchError is a ToolExecutionError');
  assert.equal(error.code, 'TOOL_ERROR');
  assert.equal(error.name, 'WebSearchError');
  assert.equal(error.reason, reason, error.message);
  assert.equal(error.status, status, error.message);
  assert.ok(!error.message.includes(FIXTURE_KEY), 'the message never carries the key');
  assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(error.message), 'no control characters in the message');
  return error;
}

describe('webSearch against the fixture server', () => {
  test('sends the documented request and numbers title, URL and snippet of each result', async () => {
    const { value, requests } = await recording(() => webSearch('  node test runner  ', 3, options()));
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.path, '/search');
    assert.equal(request!.authorization, `Bearer ${FIXTURE_KEY}`);
    assert.match(request!.contentType ?? '', /^application\/json/);
    assert.deepEqual(request!.body, {
      query: 'node test runner',
      max_results: 3,
      search_depth: 'basic',
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    });
    assert.equal(
      value,
      [
        'Web results for "node test runner":',
        '',
        '1. Result 1 for node test runner',
        '   URL: https://example.com/1',
        '   Snippet 1 about node test runner.',
        '',
        '2. Result 2 for node test runner',
        '   URL: https://example.com/2',
        '   Snippet 2 about node test runner.',
        '',
        '3. Result 3 for node test runner',
        '   URL: https://example.com/3',
        '   Snippet 3 about node test runner.',
      ].join('\n'),
    );
  });

  test('top_k defaults to 5 and is held to 1..10 when the function is called directly', async () => {
    const maxResults = async (topK: number | undefined) => {
      const { requests } = await recording(() => webSearch('bounds', topK, options()));
      return (requests[0]!.body as { max_results: number }).max_results;
    };
    assert.equal(await maxResults(undefined), 5);
    assert.equal(await maxResults(50), 10);
    assert.equal(await maxResults(0), 1);
    assert.equal(await maxResults(2.7), 2);
  });

  test('shows at most top_k results when the service sends more', async () => {
    const text = await webSearch(SCENARIO.tooMany, 4, options());
    assert.match(text, /^4\. /m);
    assert.doesNotMatch(text, /^5\. /m);
  });

  test('a base URL with a path and a trailing slash still posts to <base>/search', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ results: [{ title: 'Proxied', url: `https://example.com${req.url}`, content: 'ok' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const text = await webSearch('proxy', 1, options({ baseUrl: `http://127.0.0.1:${port}/tavily/?x=1` }));
      assert.match(text, /URL: https:\/\/example\.com\/tavily\/search$/m);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('results with missing or odd fields are shown with placeholders or left out, and cleaned', async () => {
    const text = await webSearch(SCENARIO.messy, 10, options());
    const entries = text.split('\n\n');
    assert.equal(entries[0], `Web results for "${SCENARIO.messy}":`);
    assert.equal(entries[1]!.split('\n')[0], '1. Title with control characters');
    assert.equal(entries[1]!.split('\n')[1], '   URL: https://example.com/a');
    const snippet = entries[1]!.split('\n')[2]!.slice(3);
    assert.ok(snippet.startsWith('Start of a long snippet [31m with evil text. word word'), snippet);
    assert.ok(snippet.length <= WEB_SEARCH_SNIPPET_CHARS && snippet.length > WEB_SEARCH_SNIPPET_CHARS - 5, `cut at 400 characters, "…" included: ${snippet.length}`);
    assert.ok(snippet.endsWith('…') && !snippet.includes('END'));
    assert.ok(LONG_CONTENT.length > WEB_SEARCH_SNIPPET_CHARS);
    assert.equal(entries[2], '2. (no title)\n   URL: https://example.com/no-title\n   Has no title.');
    assert.equal(entries[3], '3. No URL here\n   URL: (no URL)\n   Has no url.');
    assert.equal(entries[4], '4. No content here\n   URL: https://example.com/no-content\n   (no snippet)');
    assert.equal(entries[5], '5. 42\n   URL: (no URL)\n   (no snippet)', 'a number title is shown; an array URL and an object content are not');
    assert.equal(entries[6], '(3 results without title, URL or text left out)');
    assert.equal(entries.length, 7);
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u202a-\u202e]/.test(text), 'no control, zero-width or bidi characters');
  });

  test('no results is a plain answer, not a failure', async () => {
    assert.equal(await webSearch(SCENARIO.empty, 5, options()), `No web results for "${SCENARIO.empty}".`);
  });

  test('without a key it says unavailable and sends nothing', async () => {
    for (const apiKey of [undefined, '', '   ']) {
      const { value, requests } = await recording(() => webSearch('anything', 5, options({ apiKey })));
      assert.equal(value, WEB_SEARCH_UNAVAILABLE);
      assert.match(value, /^web_search unavailable: set TAVILY_API_KEY/);
      assert.equal(requests.length, 0);
    }
  });

  test('a blank query is an INVALID_ARGUMENTS error', async () => {
    const error = await webSearch('  \n ', 5, options()).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolExecutionError);
    assert.equal(error.code, 'INVALID_ARGUMENTS');
  });
});

describe('cleanText', () => {
  test('redacts the key, removes unsafe characters, and never cuts a surrogate pair', () => {
    assert.equal(cleanText('key=sk-1 and sk-1 again', 'sk-1', 100), 'key=[redacted] and [redacted] again');
    assert.equal(cleanText('a\u0000b\r\n\tc\u202ed\ufeffe', undefined, 100), 'a b c d e');
    assert.equal(cleanText('lone \ud800 half', undefined, 100), 'lone \ufffd half');
    assert.equal(cleanText('abcd😀😀', undefined, 6), 'abcd…', 'the emoji at the cut is dropped whole');
    assert.equal(cleanText('abcdefgh', undefined, 8), 'abcdefgh');
    assert.equal(cleanText('abcdefghi', undefined, 8), 'abcdefg…');
  });
});

describe('webSearch failures: each a WebSearchError a model can act on, never with the key', () => {
  test('401: a refused key', async () => {
    const error = await failsWith(webSearch('x', 5, options({ apiKey: 'tvly-wrong-key' })), 'unauthorized', 401);
    assert.match(error.message, /the TAVILY_API_KEY was refused/);
    assert.ok(!error.message.includes('tvly-wrong-key'));
  });

  test('429: rate limited, with the Retry-After wait', async () => {
    const error = await failsWith(webSearch(SCENARIO.rateLimited, 5, options()), 'rate_limited', 429);
    assert.match(error.message, /rate limited by Tavily \(HTTP 429/);
    assert.match(error.message, /Wait 42 s before searching again/);
  });

  test('432 and 433: plan and pay-as-you-go limits', async () => {
    const plan = await failsWith(webSearch(SCENARIO.planLimit, 5, options()), 'plan_limit', 432);
    assert.match(plan.message, /plan's usage limit is used up \(HTTP 432\)/);
    const paygo = await failsWith(webSearch(SCENARIO.paygoLimit, 5, options()), 'plan_limit', 433);
    assert.match(paygo.message, /pay-as-you-go limit is reached \(HTTP 433\)/);
  });

  test('500 and a 502 HTML page: a service error to retry later', async () => {
    const error = await failsWith(webSearch(SCENARIO.serverError, 5, options()), 'server_error', 500);
    assert.match(error.message, /service had an error \(HTTP 500\)\. Tavily said: "Internal Server Error"\. Try again/);
    const gateway = await failsWith(webSearch(SCENARIO.htmlGatewayError, 5, options()), 'server_error', 502);
    assert.doesNotMatch(gateway.message, /html|Tavily said/i, 'a body that is not Tavily JSON is not quoted');
  });

  test('400 whose text echoes the key: quoted with the key redacted and control characters removed', async () => {
    const error = await failsWith(webSearch(SCENARIO.badRequestEchoingKey, 5, options()), 'bad_request', 400);
    assert.match(error.message, /Tavily said: "Invalid request from Bearer \[redacted\] \[2J"/);
  });

  test('malformed JSON, a missing results list, an oversized body', async () => {
    const bad = await failsWith(webSearch(SCENARIO.malformedJson, 5, options()), 'malformed_response', 200);
    assert.match(bad.message, /not valid JSON/);
    const none = await failsWith(webSearch(SCENARIO.noResults, 5, options()), 'malformed_response', 200);
    assert.match(none.message, /no "results" list/);
    const big = await failsWith(webSearch(SCENARIO.oversized, 5, options()), 'malformed_response', 200);
    assert.match(big.message, /larger than 4194304 bytes/);
  });

  test('a redirect is not followed (the key stays with the configured host)', async () => {
    const error = await failsWith(webSearch(SCENARIO.redirect, 5, options()), 'unexpected_status', 307);
    assert.match(error.message, /unexpected HTTP status 307/);
  });

  test('a server that never answers ends in a timeout error of the request timeout, not before it', async () => {
    const started = Date.now();
    const error = await failsWith(webSearch(SCENARIO.hang, 5, options({ requestTimeoutMs: 300 })), 'timeout');
    const elapsed = Date.now() - started;
    // Ended by its timeout (the error says which), never before it; the fixture never answers.
    assert.ok(elapsed >= 250, `ended after ${elapsed} ms, before the 300 ms timeout`);
    assert.match(error.message, /did not answer within 0\.3 s/);
  });

  test("the call's signal aborts the request", async () => {
    const controller = new AbortController();
    const ended = failsWith(webSearch(SCENARIO.hang, 5, options({ signal: controller.signal })), 'aborted');
    // Aborted once the fixture holds the request: ended by the abort, since the fixture never answers.
    await waitFor(() => fixture.pending() > 0, { what: 'the fixture to hold the request' });
    controller.abort();
    const error = await ended;
    assert.match(error.message, /cancelled/);
    // The fixture sees the connection go away.
    await waitFor(() => fixture.pending() === 0, { what: 'the aborted request to let go of its connection' });

    const { requests } = await recording(() => failsWith(webSearch('x', 5, options({ signal: AbortSignal.abort() })), 'aborted'));
    assert.equal(requests.length, 0, 'an already aborted call sends nothing');
  });

  test('a service that cannot be reached', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await failsWith(webSearch('x', 5, options({ baseUrl: `http://127.0.0.1:${port}` })), 'unreachable');
    assert.match(error.message, new RegExp(`could not reach the search service at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  });

  test('bad configuration: a base URL that is not https (or loopback http), a key that cannot be a header', async () => {
    for (const baseUrl of ['http://api.example.com', 'not a url', 'ftp://127.0.0.1/', 'https://user:pw@api.example.com']) {
      const { requests } = await recording(() => failsWith(webSearch('x', 5, options({ baseUrl })), 'misconfigured'));
      assert.equal(requests.length, 0);
    }
    const badKey = 'tvly-line\nbreak';
    const error = await failsWith(webSearch('x', 5, options({ apiKey: badKey })), 'misconfigured');
    assert.match(error.message, /TAVILY_API_KEY holds spaces, control or non-ASCII characters/);
    assert.ok(!error.message.includes('tvly-line'));
  });
});

describe('web_search through the executor and the CLI', () => {
  const saved = { key: process.env.TAVILY_API_KEY, base: process.env.TAVILY_BASE_URL };
  after(() => {
    for (const [name, value] of [['TAVILY_API_KEY', saved.key], ['TAVILY_BASE_URL', saved.base]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  // Workers copy process.env when they start: each executor here is created after the
  // environment it should see is set, and closed before it changes.

  test('says unavailable without the key (a successful result)', async () => {
    delete process.env.TAVILY_API_KEY;
    process.env.TAVILY_BASE_URL = fixture.baseUrl;
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2 });
    try {
      const before = fixture.requests.length;
      const result = await executor.execute({ name: 'web_search', arguments: { query: 'anything' } });
      assert.equal(result.success, true, result.output);
      assert.equal(result.output, WEB_SEARCH_UNAVAILABLE);
      assert.equal(result.errorCode, undefined);
      assert.equal(fixture.requests.length, before);
    } finally {
      await executor.close();
    }
  });

  test('searches the fixture with the key from the environment, reports failures, logs no key', async () => {
    process.env.TAVILY_API_KEY = FIXTURE_KEY;
    process.env.TAVILY_BASE_URL = fixture.baseUrl;
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2, logger: pino({ level: 'debug' }, sink) });
    try {
      const ok = await executor.execute({ name: 'web_search', arguments: '{"query":"toolgate executor","top_k":2}' });
      assert.equal(ok.success, true, ok.output);
      assert.equal(ok.tool, 'web_search');
      assert.equal(ok.version, '1.0.0');
      assert.match(ok.output, /^Web results for "toolgate executor":\n\n1\. Result 1 for toolgate executor\n {3}URL: https:\/\/example\.com\/1\n/);
      assert.match(ok.output, /^2\. /m);
      assert.doesNotMatch(ok.output, /^3\. /m);
      const sent = fixture.requests.at(-1)!;
      assert.equal(sent.authorization, `Bearer ${FIXTURE_KEY}`);
      assert.deepEqual([(sent.body as { query: string }).query, (sent.body as { max_results: number }).max_results], ['toolgate executor', 2]);

      const limited = await executor.execute({ name: 'web_search', arguments: { query: SCENARIO.planLimit } });
      assert.equal(limited.success, false);
      assert.equal(limited.errorCode, 'TOOL_ERROR');
      assert.match(limited.error ?? '', /plan's usage limit is used up \(HTTP 432\)/);
      assert.match(limited.output, /^Error: /);

      for (const args of [{ query: 'x', top_k: 11 }, { query: 'x', top_k: 0 }, { query: 'x', top_k: 2.5 }, { query: '' }, {}]) {
        const refused = await executor.execute({ name: 'web_search', arguments: args });
        assert.equal(refused.errorCode, 'INVALID_ARGUMENTS', `${JSON.stringify(args)}: ${refused.output}`);
      }
    } finally {
      await executor.close();
    }
    assert.ok(lines.some((l) => l.includes('"web_search"')), 'the calls were logged');
    assert.ok(!lines.join('').includes(FIXTURE_KEY), 'the key is in no log line');
  });

  test('toolgate list shows web_search as a read-only tool', async () => {
    const run = await runCli(['list']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^web_search\s+1\.0\.0\s+network\s+read\s+no\s+/m);
  });

  test('toolgate call web_search: unavailable without the key, results with it', async () => {
    const env = { ...process.env };
    delete env.TAVILY_API_KEY;
    env.TAVILY_BASE_URL = fixture.baseUrl;
    const without = await runCli(['call', 'web_search', '{"query":"cli"}'], { env });
    assert.equal(without.code, 0, without.stderr);
    assert.equal(without.stdout.trim(), WEB_SEARCH_UNAVAILABLE);

    const withKey = await runCli(['call', 'web_search', '{"query":"cli","top_k":1}'], { env: { ...env, TAVILY_API_KEY: FIXTURE_KEY } });
    assert.equal(withKey.code, 0, withKey.stderr);
    assert.match(withKey.stdout, /^1\. Result 1 for cli$/m);
    assert.ok(!(withKey.stdout + withKey.stderr).includes(FIXTURE_KEY));
  });
});
