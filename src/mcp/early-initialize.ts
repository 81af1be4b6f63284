/**
 * The MCP stdio handshake answered before the MCP SDK loads.
 *
 * Loading the SDK (its zod schemas, ajv) and the executor takes several times Node's own
 * start, and clients give a server only a few seconds to answer `initialize` (OpenAI Agents
 * JS: 5 s, which a loaded machine exceeded). The answer to `initialize` depends on nothing
 * that loading provides: it is the server's identity ({@link serverIdentity}) and the protocol
 * revision negotiated by the SDK's rule. So `toolgate mcp` reads the first line of stdin as soon
 * as it starts ({@link readFirstMessage}), answers a well-formed `initialize` at once
 * ({@link answerInitialize}), and then hands the request to the SDK's server
 * ({@link replayInitialize}): the server learns the client's capabilities from it as if it had
 * read it, and its own answer, which must be the same, is not sent twice (a difference is
 * logged as an error; a test holds them equal). Every other first message, and every message
 * after the first, reaches the SDK untouched.
 *
 * Why this layer still exists under SDK v2: loading `@modelcontextprotocol/server` takes as
 * long as SDK v1 did (measured here on 2 shared cores: 170 to 290 ms for v2's entry, 150 to
 * 270 ms for v1's), before the executor loads. It answers only the 2025 handshake: a
 * 2026-07-28 client opens with `server/discover` or a request carrying `_meta`, which reach the
 * SDK's `serveStdio` untouched (the SDK classifies every first message; an `initialize` handed
 * to it here pins the connection to the 2025 era, as it would have read it).
 *
 * This module imports no SDK code at run time (that is its point; its imports are types): the
 * revisions below are the SDK's (`LATEST_PROTOCOL_VERSION`, `SUPPORTED_PROTOCOL_VERSIONS` of
 * `@modelcontextprotocol/server`), and a test fails when the SDK's change.
 *
 * @module
 */
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/** The skills extension's identifier (`SKILLS_EXTENSION_ID` of the SDK; a test holds them equal). */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
/** The newest MCP revision the SDK speaks; answered to a client asking for one it does not know. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
/** Every MCP revision the SDK speaks, newest first; a client asking for one of them gets it. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** What `toolgate mcp` says about itself in its `initialize` answer (MCP 2025-11-25 `InitializeResult`). */
export interface ServerIdentity {
  serverInfo: { name: string; version: string };
  capabilities: Record<string, unknown>;
  instructions: string;
}

/**
 * The server's identity: one source for the early answer and for the SDK server.
 * @param tasks - whether the server keeps MCP tasks (it does with a ledger).
 * @param serverInfo - name and version. Default `{ name: 'toolgate', version: '0.1.0' }`.
 * @param skills - whether it offers the MCP skills extension (`skills-extension.ts`: there
 *   are skill folders). Default false.
 */
export function serverIdentity(tasks: boolean, serverInfo: { name: string; version: string } = { name: 'toolgate', version: '0.1.0' }, skills = false): ServerIdentity {
  const capabilities: Record<string, unknown> = { tools: { listChanged: true }, logging: {} };
  if (tasks) capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  // As the SDK's skills extension declares them when attached (same keys, same order).
  if (skills) Object.assign(capabilities, { resources: { listChanged: true }, extensions: { [SKILLS_EXTENSION_ID]: {} } });
  return {
    serverInfo,
    capabilities,
    instructions: 'toolgate serves its tool registry; every call passes its gates (mode, policy, confirmation, rate limit) and timeouts.',
  };
}

/** The first message read from stdin, and the stream of everything after it. */
export interface FirstMessage {
  /** The first line, parsed, when it is a well-formed `initialize` request; else `undefined`. */
  initialize: InitializeRequest | undefined;
  /**
   * What the SDK reads: stdin itself, with what followed the `initialize` line (or everything
   * read, when the first line was not one) given back to it; a stream of what was read when
   * stdin had already ended.
   */
  rest: NodeJS.ReadableStream;
}

/** A JSON-RPC `initialize` request, as far as the early answer reads it. */
export interface InitializeRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: 'initialize';
  params: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: { name: string; version: string } };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Is `value` an `initialize` request the SDK would accept (its required fields, their types)? */
function asInitialize(value: unknown): InitializeRequest | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0' || value.method !== 'initialize') return undefined;
  if (!(typeof value.id === 'string' || (typeof value.id === 'number' && Number.isInteger(value.id)))) return undefined;
  const params = value.params;
  if (!isObject(params) || typeof params.protocolVersion !== 'string' || !isObject(params.capabilities)) return undefined;
  const client = params.clientInfo;
  if (!isObject(client) || typeof client.name !== 'string' || typeof client.version !== 'string') return undefined;
  return value as unknown as InitializeRequest;
}

/** At most this many bytes are read looking for the first line; a longer one goes to the SDK as it is. */
const MAX_FIRST_LINE = 1 << 20;

/**
 * Read stdin up to its first newline. Resolves when the line is complete, stdin ends, the
 * line passes 1 MiB, or `signal` aborts; nothing read is lost (it is in `rest`, unless it was
 * the `initialize`).
 */
export function readFirstMessage(stdin: NodeJS.ReadableStream, signal?: AbortSignal): Promise<FirstMessage> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (line: Buffer | undefined, after: Buffer, ended: boolean) => {
      if (done) return;
      done = true;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      stdin.pause();
      let initialize: InitializeRequest | undefined;
      if (line !== undefined) {
        try {
          initialize = asInitialize(JSON.parse(line.toString('utf8')));
        } catch {
          initialize = undefined;
        }
      }
      const unread = initialize === undefined ? Buffer.concat(chunks) : after;
      if (ended) {
        // Nothing more comes: what was read is all the SDK gets.
        const rest = new PassThrough();
        rest.end(unread);
        resolve({ initialize, rest });
        return;
      }
      // Given back to stdin itself, which the SDK then reads (and pauses when it closes, so
      // that an idle server still exits on a signal).
      if (unread.length) (stdin as NodeJS.ReadableStream & { unshift(chunk: Buffer): void }).unshift(unread);
      resolve({ initialize, rest: stdin });
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buffer);
      size += buffer.length;
      const newline = buffer.indexOf(10);
      if (newline !== -1) {
        const all = Buffer.concat(chunks);
        const end = size - buffer.length + newline;
        finish(all.subarray(0, end), all.subarray(end + 1), false);
      } else if (size > MAX_FIRST_LINE) finish(undefined, Buffer.alloc(0), false);
    };
    const onEnd = () => finish(undefined, Buffer.alloc(0), true);
    const onAbort = () => finish(undefined, Buffer.alloc(0), false);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The answer to `request`: the negotiated revision (the SDK's rule) and `identity`. */
export function initializeResult(request: InitializeRequest, identity: ServerIdentity): Record<string, unknown> {
  const asked = request.params.protocolVersion;
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
    capabilities: identity.capabilities,
    serverInfo: identity.serverInfo,
    instructions: identity.instructions,
  };
}

/** Write the answer to `request` on `stdout` (one JSON-RPC line, as the SDK's stdio transport writes). */
export function answerInitialize(stdout: NodeJS.WritableStream, request: InitializeRequest, identity: ServerIdentity): void {
  stdout.write(`${JSON.stringify({ result: initializeResult(request, identity), jsonrpc: '2.0', id: request.id })}\n`);
}

/**
 * A transport that hands the SDK server the `initialize` request answered early, before any
 * message of `inner`, and keeps the server's own answer to it from being sent again.
 * @param onMismatch - called when the server's answer differs from the early one.
 */
export function replayInitialize(inner: Transport, request: InitializeRequest, identity: ServerIdentity, onMismatch: (detail: string) => void): Transport {
  const expected = JSON.stringify(initializeResult(request, identity));
  let answered = false;
  const outer: Transport = {
    async start() {
      inner.onmessage = (message, extra) => outer.onmessage?.(message, extra);
      inner.onerror = (error) => outer.onerror?.(error);
      inner.onclose = () => outer.onclose?.();
      outer.onmessage?.(request as unknown as JSONRPCMessage);
      await inner.start();
    },
    async send(message, options) {
      if (!answered && 'id' in message && message.id === request.id && !('method' in message)) {
        answered = true;
        const got = 'result' in message ? JSON.stringify(message.result) : JSON.stringify(message);
        if (got !== expected) onMismatch(`the SDK answered ${got.slice(0, 500)}; the early answer was ${expected.slice(0, 500)}`);
        return;
      }
      await inner.send(message, options);
    },
    close: () => inner.close(),
  };
  return outer;
}
