/**
 * A stand-in for an OpenAI-compatible chat completions server on loopback (node:http,
 * 127.0.0.1, a free port), for the agent tests. It replays a script of model turns, one per
 * `POST /v1/chat/completions`, and records every request body, so tests can check the exact
 * conversation an agent sends.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A scripted tool call: `arguments` is sent as given (JSON text, possibly malformed). */
export interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
}

/** One scripted answer: an assistant turn, or a request left unanswered until the client gives up. */
export type ScriptStep = { content?: string | null; toolCalls?: ScriptedCall[] } | { hang: true };

/** A request body as the fixture received it. */
export interface RecordedChatRequest {
  model: string;
  messages: Array<Record<string, unknown>>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  [key: string]: unknown;
}

/** A running fixture. */
export interface OpenAIFixture {
  /** `http://127.0.0.1:<port>/v1`: the value for `OPENAI_BASE_URL`. */
  baseUrl: string;
  /** Every request body, in order. */
  requests: RecordedChatRequest[];
  /** Authorization headers received, in order. */
  authorizations: Array<string | undefined>;
  /** Close the server and every open connection. */
  close(): Promise<void>;
}

/** Build an assistant turn. */
export function turn(content: string | null, toolCalls?: ScriptedCall[]): ScriptStep {
  return toolCalls ? { content, toolCalls } : { content };
}

/** Start the fixture with a script; a request past the end of the script gets a 500. */
export async function startOpenAIFixture(script: ScriptStep[]): Promise<OpenAIFixture> {
  const requests: RecordedChatRequest[] = [];
  const authorizations: Array<string | undefined> = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedChatRequest;
      requests.push(body);
      authorizations.push(req.headers.authorization);
      const step = script[next++];
      if (step === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the fixture script has no more turns' } }));
        return;
      }
      if ('hang' in step) return; // never answered; the client's abort or close() ends it
      const message: Record<string, unknown> = { role: 'assistant', content: step.content ?? null };
      if (step.toolCalls?.length) {
        message.tool_calls = step.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      const completion = {
        id: `chatcmpl-fixture-${next}`, object: 'chat.completion', created: 1_700_000_000, model: body.model,
        choices: [{ index: 0, message, finish_reason: step.toolCalls?.length ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
