/**
 * `toolgate mcp` over stdio: the server of one client on this process's stdin and stdout, and
 * the line framing of stdin (each line parsed and checked once, lines that are not JSON-RPC
 * answered as JSON-RPC 2.0 asks).
 *
 * The era of the connection (2025 `initialize`, or 2026-07-28 `server/discover` and requests
 * carrying `_meta`) is chosen by SDK v2's `serveStdio` from the first message, which then
 * pins one server from {@link createMcpServer} (built for that era) for the connection.
 *
 * @module
 */
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { ProtocolErrorCode, specTypeSchemas, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import { createLogger, type Logger } from '../logging/logger.js';
import { clip } from '../util/values.js';
import { replayInitialize, serverIdentity, type InitializeRequest, type answerInitialize } from './early-initialize.js';
import { skillFoldersPresent } from '../system/skill-folders.js';
import { createMcpServer, taskStoreFor, type McpServeOptions, type McpServerHandle } from './server.js';

/**
 * Serve over stdio (this process's stdin and stdout; logs must go to stderr).
 * @returns a handle; the server also stops when stdin closes. `tasksIdle` settles once every
 *   task this server started has ended or waits for an answer kept in the ledger (what
 *   `toolgate mcp` waits for after its client went away, so that started tasks finish).
 *   With `answered`, the `initialize` request already answered on `stdout`
 *   ({@link answerInitialize}): the server is handed it first and does not answer it again;
 *   `streams.stdin` is then what followed it.
 */
export async function serveStdio(
  options: McpServeOptions & { answered?: InitializeRequest }, streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<McpServerHandle & { closed: Promise<void>; tasksIdle(): Promise<void> }> {
  const tasks = taskStoreFor(options);
  // The SDK's transport writes the answers; stdin is read by pipeCheckedLines, which hands it
  // each message parsed and checked once (the transport's own input stays empty).
  const transport = new StdioServerTransport(new PassThrough(), (streams?.stdout ?? process.stdout) as never);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopReading = () => {};
  const input = (streams?.stdin ?? process.stdin) as NodeJS.ReadableStream;
  // A client that closes its end of our stdout (it exited, or closed the pipe after
  // initialize) makes the next write fail with EPIPE: the client is gone, so the server ends
  // as it does when stdin closes, instead of dying of an unhandled 'error' event.
  const output = (streams?.stdout ?? process.stdout) as NodeJS.WritableStream;
  const logger = options.logger ?? createLogger('silent');
  let stop = () => {};
  const onOutputError = (error: NodeJS.ErrnoException) => {
    const gone = error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || error.code === 'ECONNRESET';
    logger[gone ? 'info' : 'error']({ event: 'mcp_stdout_closed', code: error.code, err: error.message }, gone ? 'the MCP client closed its end of stdout; stopping' : 'writing to stdout failed; stopping');
    stop();
  };
  output.on('error', onOutputError);
  const answered = options.answered;
  const wire = answered === undefined ? transport : replayInitialize(transport, answered, serverIdentity(tasks !== undefined, options.serverInfo, skillFoldersPresent(options.workspaceRoot ?? options.system.workspace, options.system.configEnv)), (detail) => {
    logger.error({ event: 'mcp_early_initialize_mismatch', detail }, 'the early answer to initialize differs from the MCP SDK\'s');
  });
  // The server the SDK pinned for this connection (made when the first message arrived).
  let current: Server | undefined;
  const handle = sdkServeStdio(({ era }) => {
    current = createMcpServer({ ...options, tasks: tasks ?? false }, { era });
    return current;
  }, {
    transport: wire,
    onerror: (error) => logger.debug({ event: 'mcp_stdio_error', err: error.message }, 'MCP stdio'),
  });
  // The SDK set the transport's onclose (its teardown); ours runs after it.
  const sdkOnClose = wire.onclose;
  wire.onclose = () => {
    sdkOnClose?.();
    stopReading();
    resolveClosed();
  };
  stop = () => void handle.close().catch(() => undefined);
  input.once('end', stop);
  stopReading = pipeCheckedLines(input, transport, logger, stop);
  // Paused by an early read of the first line (readFirstMessage): flowing again into the
  // line check's listener, which pauses it again when the server closes.
  if (input.isPaused()) input.resume();
  return {
    closed,
    tasksIdle: () => tasks?.idle() ?? Promise.resolve(),
    notifyToolsChanged: () => void current?.sendToolListChanged().catch(() => undefined),
    close: async () => {
      await handle.close();
      // Late write errors of a closed pipe stay handled.
      if (typeof (output as NodeJS.WriteStream).once === 'function') output.once('error', () => undefined);
      output.off('error', onOutputError);
    },
  };
}

/**
 * Read stdin's lines and hand each JSON-RPC message to the SDK's transport (`onmessage`, as
 * its own reader would), answering the lines that are not JSON-RPC as JSON-RPC 2.0 asks.
 *
 * Why this layer still exists under SDK v2: v2's `StdioServerTransport` still reports a line
 * that is not JSON-RPC only to `onerror` and answers nothing (a client waits for an answer that
 * never comes), and closes the connection on a line over its 10 MiB buffer. Here instead:
 * - a line that is not JSON: `-32700` (Parse error), without an `id` (none could be read;
 *   MCP 2025-11-25's `JSONRPCErrorResponse` lets it be left out);
 * - JSON that is not a JSON-RPC message (the SDK's own schema): `-32600` (Invalid Request),
 *   with the line's `id` when it has a string or number one, so the client waiting on it
 *   gets its answer; a malformed response (no `method`) is dropped, never answered;
 * - a blank line is skipped.
 * The server reads on after each. Each line is parsed and checked once, with the SDK's schema.
 * A read error of `input` ends the server (`onFailed`) as its end does.
 * @returns a function that stops reading `input` (the server closed): its listener goes, and
 *   it is paused unless something else reads it, so that an open stdin keeps no process alive.
 */
function pipeCheckedLines(input: NodeJS.ReadableStream, transport: StdioServerTransport, logger: Logger, onFailed: () => void): () => void {
  const decoder = new StringDecoder('utf8');
  const answer = (code: number, message: string, id: unknown) => {
    logger.warn({ event: 'mcp_malformed_line', code }, message);
    const reply = { jsonrpc: '2.0', ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}), error: { code, message } };
    transport.send(reply as JSONRPCMessage).catch(() => undefined);
  };
  const check = (line: string) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      answer(ProtocolErrorCode.ParseError, `Parse error: a line of input is not JSON (${clip((error as Error).message, 200)}); it was ignored`, undefined);
      return;
    }
    const message = specTypeSchemas.JSONRPCMessage['~standard'].validate(value) as { value?: JSONRPCMessage; issues?: unknown };
    if (message.issues === undefined) {
      transport.onmessage?.(message.value as JSONRPCMessage);
      return;
    }
    const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    if (object !== undefined && !('method' in object) && ('result' in object || 'error' in object)) {
      logger.warn({ event: 'mcp_malformed_line', code: ProtocolErrorCode.InvalidRequest }, 'a malformed response from the client was ignored');
      return;
    }
    answer(ProtocolErrorCode.InvalidRequest, 'Invalid Request: a line of input is JSON but not a JSON-RPC 2.0 request or notification of MCP; it was ignored', object?.id);
  };
  // The line being read, in parts: each chunk is searched once for a newline (no quadratic
  // rescans of a long line), and a line longer than the SDK's own limit is skipped to its end.
  let parts: string[] = [];
  let partsLength = 0;
  let skipping = false;
  const take = (text: string) => {
    let from = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', from)) >= 0) {
      const piece = text.slice(from, nl);
      if (!skipping) check((parts.length === 0 ? piece : parts.join('') + piece).replace(/\r$/, ''));
      parts = [];
      partsLength = 0;
      skipping = false;
      from = nl + 1;
    }
    if (from >= text.length || skipping) return;
    parts.push(from === 0 ? text : text.slice(from));
    partsLength += text.length - from;
    if (partsLength > MAX_LINE_CHARACTERS) {
      parts = [];
      partsLength = 0;
      skipping = true;
      answer(ProtocolErrorCode.InvalidRequest, `Invalid Request: a line of input is longer than ${MAX_LINE_CHARACTERS} characters; it was ignored`, undefined);
    }
  };
  // A character split between chunks is joined by the decoder.
  const onData = (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  const onEnd = () => {
    const last = decoder.end();
    if (last !== '') take(last);
    if (!skipping && parts.length !== 0) check(parts.join('').replace(/\r$/, ''));
  };
  // A read error of stdin (EIO: the terminal went away) ends the server as the end of stdin does.
  const onError = (error: Error) => {
    logger.error({ event: 'mcp_stdin_error', err: error.message }, 'reading stdin failed; stopping');
    onFailed();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  input.on('error', onError);
  return () => {
    input.off('data', onData);
    input.off('end', onEnd);
    // Late errors of a stdin nobody reads any more stay handled.
    input.off('error', onError);
    input.on('error', () => undefined);
    if (input.listenerCount('data') === 0) input.pause();
  };
}

/** Longest line read from stdin, in characters: the MCP SDK's own stdio limit (10 MiB). */
const MAX_LINE_CHARACTERS = 10 * 1024 * 1024;
