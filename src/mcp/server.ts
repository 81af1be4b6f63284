/**
 * Serving the registry as an MCP server (`toolgate mcp`), over stdio or streamable HTTP, with
 * the official SDK's low-level `Server`.
 *
 * - `tools/list`: the visible tools in the MCP shape of `src/formats/mcp.ts` (input schema,
 *   output schema for object results, annotations from our flags).
 * - `tools/call`: through the `ToolSystem` facade (or a bare `ToolExecutor`), so every decision applies. Following the
 *   specification 2025-11-25 (SEP-1303): an unknown (or hidden) tool and a malformed request
 *   are protocol errors (JSON-RPC `-32602` / the SDK's request validation); arguments that
 *   fail the input schema, gate denials and failures inside a tool are results with
 *   `isError: true`, which the model can read and correct.
 * - Confirmation: with `yes`, calls are approved; otherwise a tool that requires confirmation
 *   is asked about through MCP elicitation when the client supports it, and denied with a
 *   message naming `--yes` (or a policy) when it does not.
 * - Tasks (2025-11-25, experimental), with a ledger: the `tasks` capability and every tool's
 *   `execution.taskSupport: 'optional'`; a `tools/call` with a `task` field is answered at once
 *   with a task, its call runs in the background (ledger session `mcp-tasks`, the task id as
 *   call id), and the SDK's `Protocol` answers `tasks/get|result|list|cancel` from a
 *   {@link LedgerTaskStore} (`tasks.ts`). A task's question to the person is put through
 *   elicitation while the client is there, and otherwise waits in the ledger for
 *   `toolgate approvals allow|deny` (status `input_required`).
 *
 * @module
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, ElicitResultSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, SetLevelRequestSchema, JSONRPCMessageSchema, type CallToolResult, type CreateTaskResult, type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { PathTraversalError, ToolgateOptionError } from '../errors/errors.js';
import { ERROR_CODES } from '../errors/error-codes.js';
import type { ToolExecutor } from '../executor/executor.js';
import type { ApprovalAnswer, ConfirmationHandler, ConfirmationRequest } from '../decisions/approval.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isOfferedInMode, isSelected } from '../registry/visibility.js';
import { resolveMode } from '../modes/modes.js';
import { toCallToolResult, toMcpTool, type McpTool } from '../formats/mcp.js';
import { LedgerTaskStore, TASK_SESSION } from './tasks.js';
import { checkLocalBind, hostHeadersFor, isLoopbackAddress } from '../util/loopback.js';
import { clip } from '../util/values.js';
import { callClient, type SessionLogLevel } from './call-client.js';
import { HttpSessions, type HttpSessionLimits } from './http-sessions.js';
import { BoundedEventStore } from './event-store.js';
import { replayInitialize, serverIdentity, type InitializeRequest, type answerInitialize } from './early-initialize.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import { checkLazyDomainsOptions, REQUEST_TOOLS_NAME, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import { McpLazyTools } from './lazy-domains.js';
import { MODES } from '../modes/modes.js';

/** A `tools/call` request of any shape; the SDK validates it strictly before our handler runs. */
const LOOSE_CALL_TOOL_REQUEST = z.looseObject({ method: z.literal('tools/call'), params: z.unknown().optional() });

/** Options of {@link createMcpServer}; every option documents its default. */
export interface McpServeOptions {
  /**
   * The tool system calls go through (its tag selection, version pins and deprecation notes
   * apply, as for agents); its executor's registry is what is served. Give this or `executor`.
   */
  system?: ToolSystem;
  /** Runs the calls when no `system` is given; its registry is what is served. */
  executor?: ToolExecutor;
  /** Workspace root of every call. Default: the executor's. */
  workspaceRoot?: string;
  /** Agent mode of every call (`default`, `explore`, `plan`). Default `default`. */
  mode?: string;
  /** Scoped write folders for read-only modes (workspace-relative). Default none. */
  scopedWriteDirs?: string[];
  /** Serve only these tool names. Default: every tool (narrowed by `tags`). */
  tools?: string[];
  /** Serve only tools carrying at least one of these tags. Default: every tool. */
  tags?: string[];
  /**
   * A question the client cannot be asked (no elicitation) waits in the ledger for an answer
   * given elsewhere (the cockpit, `toolgate approvals`) instead of being refused at once.
   * Default false.
   */
  waitForAnswers?: boolean;
  /** Approve every call that requires confirmation (`--yes`). Default false: ask through elicitation, or deny. */
  yes?: boolean;
  /** pino logger. Default: silent. */
  logger?: Logger;
  /** Name and version the server reports. Default `{ name: 'toolgate', version: '0.1.0' }`. */
  serverInfo?: { name: string; version: string };
  /**
   * Where MCP tasks are kept: a {@link LedgerTaskStore} (share one between the servers of one
   * process, so that a client reconnecting finds the tasks this process runs), or `false` for
   * no task support. Default: a new store over the executor's ledger; none without a ledger.
   */
  tasks?: LedgerTaskStore | false;
  /**
   * Streamable HTTP only: a call still running after this many milliseconds has its SSE
   * stream closed; the client reconnects (after the `retry` hint) with `Last-Event-ID` and
   * gets the result, and any progress meanwhile, from the session's event store (SSE polling,
   * SEP-1699; for clients of protocol 2025-11-25 or later, which can resume). Keeps long calls
   * from holding a connection that a proxy would cut. Default: never (the stream stays open).
   */
  pollAfterMs?: number;
  /**
   * Lazy visibility (`--lazy-domains`; `true` or `{ tagDomains }`): tools with a domain are left
   * out of `tools/list` until this session's client calls `request_tools` for the domain; the
   * server then sends `notifications/tools/list_changed` and lists them. A call of a hidden tool
   * is a tool result with `isError` (`TOOL_HIDDEN`) naming `request_tools` and the domain.
   * Default: off (every tool listed).
   */
  lazyDomains?: boolean | LazyDomainsOptions;
}

/**
 * The task store `options` ask for: theirs, else one over the executor's ledger (none without one).
 */
function taskStoreFor(options: McpServeOptions): LedgerTaskStore | undefined {
  if (options.tasks !== undefined) return options.tasks === false ? undefined : options.tasks;
  const executor = options.system?.executor ?? options.executor;
  const ledger = executor?.ledger;
  if (executor === undefined || ledger === undefined) return undefined;
  return new LedgerTaskStore(ledger, (name) => executor.registry.get(name));
}

/** The message of a denied confirmation when the client cannot be asked. */
function cannotAskMessage(tool: string): string {
  return `${tool} requires confirmation, and this MCP client cannot be asked (it does not support elicitation). `
    + 'To allow it, restart `toolgate mcp` with --yes (approves every call that needs confirmation), or allow the call with a policy.';
}

/**
 * One MCP server over the registry of `options.system` (or `options.executor`). Connect it to
 * one transport; for several sessions (HTTP), create one per session.
 * @throws ToolgateOptionError when neither `system` nor `executor` is given.
 */
export function createMcpServer(options: McpServeOptions): Server {
  const { system } = options;
  const executor = system?.executor ?? options.executor;
  if (executor === undefined) throw ToolgateOptionError.fromBadOption('executor', 'createMcpServer needs options.system (a ToolSystem) or options.executor');
  const logger = options.logger ?? createLogger('silent');
  const lazyOptions = options.lazyDomains === true ? {} : options.lazyDomains === false ? undefined : options.lazyDomains;
  const lazyProblem = lazyOptions === undefined ? undefined : checkLazyDomainsOptions(lazyOptions);
  if (lazyProblem !== undefined) throw ToolgateOptionError.fromBadOption('lazyDomains', lazyProblem);
  const tasks = taskStoreFor(options);
  const { serverInfo, capabilities, instructions } = serverIdentity(tasks !== undefined, options.serverInfo);
  const server = new Server(serverInfo, { capabilities, instructions, taskStore: tasks });
  const selection = { names: options.tools, tags: options.tags };
  const registry = executor.registry;
  const visible = (name: string): RegisteredTool | undefined => {
    const tool = registry.get(name);
    return tool !== undefined && isSelected(tool, selection) ? tool : undefined;
  };
  // Listed: the selected tools the mode would ever let run (a read-only mode hides the
  // writing tools it always denies, as agents do). A call still reaches the mode decider.
  const offered = (anyMode = false): RegisteredTool[] => {
    if (system !== undefined) {
      const choice = { mode: anyMode ? MODES.default : options.mode, scopedWriteDirs: options.scopedWriteDirs };
      return system.tools(choice).filter((t) => isSelected(t, selection));
    }
    const mode = anyMode ? MODES.default : resolveMode(options.mode);
    return registry.list().filter((t) => isSelected(t, selection) && isOfferedInMode(t, mode, options.scopedWriteDirs, executor.scopedWriteTools));
  };
  // Lazy visibility: this session's domains (one server per session).
  const lazy = lazyOptions === undefined ? undefined : new McpLazyTools(lazyOptions, () => offered(true), () => offered());
  const listed = (): McpTool[] => {
    const tools = offered().filter((t) => lazy === undefined || lazy.visibility.shows(t)).map((t) => (system !== undefined ? system.spec(t, 'mcp') : toMcpTool(t)));
    const request = lazy?.requestTool();
    return request === undefined ? tools : [...tools, request];
  };

  // logging/setLevel: the lowest level of the log messages tools send this session (ctx.log).
  const logLevel: SessionLogLevel = { level: undefined };
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    logLevel.level = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    // request_tools is answered at once, never as a task.
    tools: tasks === undefined ? listed() : listed().map((t) => (t.name === REQUEST_TOOLS_NAME && lazy !== undefined ? t : { ...t, execution: { taskSupport: 'optional' as const } })),
  }));

  // Registered with a loose schema so that the SDK's own check of a tools/call request (in
  // Server.setRequestHandler) answers a malformed one with -32602 Invalid params, as the
  // specification asks; with the strict schema, the parse failure would surface as -32603.
  /** This server's connection, for the ledger's sessions when the transport has no session id (stdio). */
  const connection = crypto.randomUUID();
  server.setRequestHandler(LOOSE_CALL_TOOL_REQUEST, async (raw, extra): Promise<CallToolResult | CreateTaskResult> => {
    const request = CallToolRequestSchema.parse(raw);
    const { name } = request.params;
    if (lazy !== undefined && name === REQUEST_TOOLS_NAME) {
      const session = `mcp_${extra.sessionId ?? connection}`;
      const { result, changed } = await lazy.answer(system ?? executor, request.params.arguments ?? {}, `mcp_${String(extra.requestId)}`, {
        mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, signal: extra.signal, workspaceRoot: options.workspaceRoot, turnId: session, session,
      });
      // On the request's own stream (streamable HTTP), so the client gets it without a GET stream.
      if (changed) await extra.sendNotification({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
      return result;
    }
    const tool = visible(name);
    if (tool === undefined) throw unknownToolError(`Unknown tool: ${JSON.stringify(name.slice(0, 200))}. tools/list shows the tools this server offers.`);
    const caps = server.getClientCapabilities();
    const canAsk = caps?.elicitation !== undefined && (caps.elicitation.form !== undefined || caps.elicitation.url === undefined);
    if (request.params.task !== undefined && tasks !== undefined) {
      const task = await tasks.createTask(request.params.task, extra.requestId, raw as never, extra.sessionId);
      const args = request.params.arguments ?? {};
      // Asked while the client is there; else (or once it is gone) the question waits in the
      // ledger for `toolgate approvals allow|deny` (the task reads input_required meanwhile).
      const askOrWait = (signal: AbortSignal): ConfirmationHandler => async (req) => {
        if (canAsk) {
          try {
            return await elicitConfirmation(server, req, signal);
          } catch {
            // the client went away: wait for an answer given elsewhere
          }
        }
        return new Promise<ApprovalAnswer>(() => undefined);
      };
      await tasks.start(
        task.taskId,
        { tool: tool.name, version: tool.version, arguments: args, workspace: options.workspaceRoot ?? process.cwd(), turn: '' },
        (signal) => (system ?? executor).execute(
          { name, arguments: args, callId: task.taskId },
          {
            mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, confirm: options.yes === true, confirmationHandler: askOrWait(signal),
            signal, workspaceRoot: options.workspaceRoot, session: TASK_SESSION, client: lazy?.client(undefined),
          },
        ),
        () => {
          void tasks.getTask(task.taskId).then((now) => (now === null ? undefined : server.notification({ method: 'notifications/tasks/status', params: now }))).catch(() => undefined);
        },
      );
      return { task };
    }
    let asked = false;
    // Never answers: the ledger's question is answered elsewhere, or the request is cancelled.
    const waitForAnswer: ConfirmationHandler = () => new Promise<ApprovalAnswer>(() => undefined);
    let askFailed: string | undefined;
    const ask: ConfirmationHandler = async (req) => {
      asked = true;
      try {
        return await elicitConfirmation(server, req, extra.signal);
      } catch (error) {
        // With a cockpit, the question waits in the ledger for an answer given there (or by
        // toolgate approvals), as a task's does.
        if (options.waitForAnswers === true) return waitForAnswer(req);
        // The client declared elicitation but could not ask anyone (a bridge with no person
        // behind it, say): a no, with a message that says how to allow the call instead.
        askFailed = (error as Error)?.message ?? String(error);
        return 'deny';
      }
    };
    let result: ToolExecutionResult;
    const letGo = options.pollAfterMs !== undefined && extra.closeSSEStream !== undefined ? setTimeout(extra.closeSSEStream, options.pollAfterMs) : undefined;
    try {
      const call = { name, arguments: request.params.arguments ?? {}, callId: `mcp_${String(extra.requestId)}` };
      result = await (system ?? executor).execute(
        call,
        {
          mode: options.mode,
          scopedWriteDirs: options.scopedWriteDirs,
          confirm: options.yes === true,
          confirmationHandler: canAsk ? ask : options.waitForAnswers === true ? waitForAnswer : null,
          signal: extra.signal,
          workspaceRoot: options.workspaceRoot,
          // MCP has no turns: an answer `for this turn` lasts as long as the client's session
          // (its connection over stdio).
          turnId: `mcp_${extra.sessionId ?? connection}`,
          // ctx.progress / ctx.log / ctx.elicit / ctx.sample reach this client.
          client: lazy === undefined ? callClient(server, extra, request.params._meta?.progressToken, logLevel) : lazy.client(callClient(server, extra, request.params._meta?.progressToken, logLevel)),
          // Request ids start again on every connection: they name a call within one only
          // (the ledger's idempotency key is call id and session).
          session: `mcp_${extra.sessionId ?? connection}`,
        },
      );
    } catch (error) {
      if (error instanceof PathTraversalError) {
        logger.warn({ event: 'mcp_path_traversal', tool: name, path: error.path }, 'path traversal refused');
        return { content: [{ type: 'text', text: `Error: ${error.message}` }], isError: true, _meta: { 'toolgate/errorCode': 'PATH_TRAVERSAL' } };
      }
      throw error;
    } finally {
      clearTimeout(letGo);
    }
    if (result.errorCode !== undefined && ERROR_CODES[result.errorCode].mcp === 'invalid_params') throw unknownToolError(result.error ?? `Unknown tool: ${name}`);
    if (result.errorCode === 'CONFIRMATION_REQUIRED' && !canAsk && !asked) {
      return { content: [{ type: 'text', text: `Error: ${cannotAskMessage(tool.name)}` }], isError: true, _meta: { 'toolgate/errorCode': 'CONFIRMATION_REQUIRED' } };
    }
    if (result.errorCode === 'CONFIRMATION_DENIED' && askFailed !== undefined) {
      const text = `Error: ${tool.name} requires confirmation, and asking through this MCP client failed (${askFailed.slice(0, 300)}). `
        + 'To allow it, restart `toolgate mcp` with --yes (approves every call that needs confirmation), or allow the call with a policy.';
      return { content: [{ type: 'text', text }], isError: true, _meta: { 'toolgate/errorCode': 'CONFIRMATION_REQUIRED' } };
    }
    return toCallToolResult(tool, result);
  });
  return server;
}

/**
 * The protocol error for an unknown tool (JSON-RPC -32602). A plain error with a code, not the
 * SDK's `McpError`: that one's message already starts "MCP error -32602: ", and the client's
 * `McpError` adds the prefix again ("MCP error -32602: MCP error -32602: ...").
 */
function unknownToolError(message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/**
 * Ask the client, through form elicitation, whether a call may run, and for how long the
 * answer counts (the request's `offers`; MCP 2025-11-25 form mode: a boolean and a string enum).
 */
async function elicitConfirmation(server: Server, request: ConfirmationRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  const args = JSON.stringify(request.arguments);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}... (${args.length} characters)` : args;
  const targets = request.paths.length ? `\nTargets: ${request.paths.join(', ')}` : '';
  const remembered: readonly ApprovalAnswer[] = request.offers.filter((o) => o !== 'deny');
  const properties: Record<string, unknown> = { approve: { type: 'boolean', title: 'Allow this call', description: `Run ${request.tool} with these arguments.`, default: false } };
  if (remembered.length > 1) {
    properties.remember = { type: 'string', title: 'Remember the answer', enum: remembered, description: 'allow_once: this call only; allow_for_turn: this exact request for the rest of this session; always: saved in the user policy file.', default: 'allow_once' };
  }
  const answer = await server.request(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `toolgate: allow ${request.tool} ${request.version} to run? It asks because ${request.ask.reason}${targets}\nArguments: ${shown}`,
        requestedSchema: { type: 'object', properties, required: ['approve'] } as never,
      },
    },
    ElicitResultSchema,
    { signal },
  );
  const content = answer.content as { approve?: unknown; remember?: unknown } | undefined;
  if (answer.action !== 'accept' || content?.approve !== true) return 'deny';
  return remembered.includes(content.remember as ApprovalAnswer) ? content.remember as ApprovalAnswer : 'allow_once';
}

/** A running MCP server. */
export interface McpServerHandle {
  /** Send `notifications/tools/list_changed` to every connected client (after the registry changed). */
  notifyToolsChanged(): void;
  /** Stop serving; closes every session. */
  close(): Promise<void>;
}

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
  const server = createMcpServer({ ...options, tasks: tasks ?? false });
  // The SDK's transport writes the answers; stdin is read by pipeCheckedLines, which hands it
  // each message parsed and checked once (the transport's own input stays empty).
  const transport = new StdioServerTransport(new PassThrough(), streams?.stdout as never);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopReading = () => {};
  server.onclose = () => {
    stopReading();
    resolveClosed();
  };
  const input = (streams?.stdin ?? process.stdin) as NodeJS.ReadableStream;
  input.once('end', () => void server.close().catch(() => undefined));
  // A client that closes its end of our stdout (it exited, or closed the pipe after
  // initialize) makes the next write fail with EPIPE: the client is gone, so the server ends
  // as it does when stdin closes, instead of dying of an unhandled 'error' event.
  const output = (streams?.stdout ?? process.stdout) as NodeJS.WritableStream;
  const logger = options.logger ?? createLogger('silent');
  const onOutputError = (error: NodeJS.ErrnoException) => {
    const gone = error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || error.code === 'ECONNRESET';
    logger[gone ? 'info' : 'error']({ event: 'mcp_stdout_closed', code: error.code, err: error.message }, gone ? 'the MCP client closed its end of stdout; stopping' : 'writing to stdout failed; stopping');
    void server.close().catch(() => undefined);
  };
  output.on('error', onOutputError);
  const answered = options.answered;
  await server.connect(answered === undefined ? transport : replayInitialize(transport, answered, serverIdentity(tasks !== undefined, options.serverInfo), (detail) => {
    logger.error({ event: 'mcp_early_initialize_mismatch', detail }, 'the early answer to initialize differs from the MCP SDK\'s');
  }));
  stopReading = pipeCheckedLines(input, transport, logger, () => void server.close().catch(() => undefined));
  // Paused by an early read of the first line (readFirstMessage): flowing again into the
  // line check's listener, which pauses it again when the server closes.
  if (input.isPaused()) input.resume();
  return {
    closed,
    tasksIdle: () => tasks?.idle() ?? Promise.resolve(),
    notifyToolsChanged: () => void server.sendToolListChanged().catch(() => undefined),
    close: async () => {
      await server.close();
      // Late write errors of a closed pipe stay handled.
      if (typeof (output as NodeJS.WriteStream).once === 'function') output.once('error', () => undefined);
      output.off('error', onOutputError);
    },
  };
}

/**
 * Read stdin's lines and hand each JSON-RPC message to the SDK's transport (`onmessage`, as
 * its own reader would), answering the lines that are not JSON-RPC as JSON-RPC 2.0 asks
 * instead of dropping them in silence (the SDK's reader only reports them to `onerror`, and a
 * client waited for an answer that never came):
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
      answer(ErrorCode.ParseError, `Parse error: a line of input is not JSON (${clip((error as Error).message, 200)}); it was ignored`, undefined);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (message.success) {
      transport.onmessage?.(message.data);
      return;
    }
    const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    if (object !== undefined && !('method' in object) && ('result' in object || 'error' in object)) {
      logger.warn({ event: 'mcp_malformed_line', code: ErrorCode.InvalidRequest }, 'a malformed response from the client was ignored');
      return;
    }
    answer(ErrorCode.InvalidRequest, 'Invalid Request: a line of input is JSON but not a JSON-RPC 2.0 request or notification of MCP; it was ignored', object?.id);
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
      answer(ErrorCode.InvalidRequest, `Invalid Request: a line of input is longer than ${MAX_LINE_CHARACTERS} characters; it was ignored`, undefined);
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

/** Options of {@link serveHttp}. */
export interface McpHttpOptions extends McpServeOptions, HttpSessionLimits {
  /** The `retry` hint of SSE streams, in ms: how long a client waits before it reconnects to a stream that ended. Default 1000. */
  retryMs?: number;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Address to bind. Default `127.0.0.1` (loopback only). Any other address needs `token`:
   * without it, everyone on the network could call every served tool.
   * @throws (from serveHttp) ToolgateOptionError when a non-loopback host is given without a token.
   */
  host?: string;
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`, RFC 6750); a
   * request without it gets 401. At least 16 characters. Default none (loopback binds only).
   */
  token?: string;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
}

/** Longest line read from stdin, in characters: the MCP SDK's own stdio limit (10 MiB). */
const MAX_LINE_CHARACTERS = 10 * 1024 * 1024;

/** Largest request body accepted, in bytes (4 MiB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serve over MCP streamable HTTP (stateful sessions, one {@link createMcpServer} each), bound
 * to loopback by default, with the SDK's DNS-rebinding protection on every bind address (the
 * `Host` header must be one of {@link hostHeadersFor}).
 *
 * Sessions are bounded ({@link HttpSessions}): at most `maxSessions` (default 100); one idle
 * for `sessionIdleMs` (default 30 minutes, no request open) is closed; at the cap, the one
 * idle for longest makes room, and when every session has a request open a new one gets 503.
 * Every session's SSE streams are resumable: messages are kept in a bounded event store
 * (1,000 per session), streams start with a priming event carrying `retry: retryMs` (for
 * clients of protocol 2025-11-25 or later), and a client that reconnects with
 * `Last-Event-ID` gets what it missed.
 * @returns the endpoint URL and a handle.
 * @throws ToolgateOptionError for a bad `token`, a non-loopback `host` without one, or limits out of range.
 */
export async function serveHttp(options: McpHttpOptions): Promise<McpServerHandle & { url: string; port: number }> {
  // The HTTP transport (and its web server) loads only here: stdio serving never needs it.
  const { StreamableHTTPServerTransport: HttpTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const logger = options.logger ?? createLogger('silent');
  const host = options.host ?? '127.0.0.1';
  const token = options.token;
  checkLocalBind(host, token, 'serving tools to the network needs a token (TOOLGATE_MCP_TOKEN) that every request must carry');
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  const endpoint = options.path ?? '/mcp';
  let sessions: HttpSessions<{ server: Server; transport: StreamableHTTPServerTransport; close(): Promise<void> }>;
  try {
    sessions = new HttpSessions(options, (id, why) => logger.info({ event: 'mcp_session_evicted', session: id, why }, why === 'idle' ? 'MCP session closed after being idle' : 'MCP session closed to stay within maxSessions'));
  } catch (error) {
    const message = (error as Error).message;
    throw ToolgateOptionError.fromBadOption(message.split(' ')[0]!, message.slice(message.indexOf(' ') + 1));
  }
  const retryMs = options.retryMs ?? 1000;
  if (!Number.isInteger(retryMs) || retryMs < 0) throw ToolgateOptionError.fromBadOption('retryMs', `must be an integer of at least 0; got ${retryMs}`);
  // One task store for every session: a client that reconnects (a new session) finds its tasks.
  const tasks = taskStoreFor(options) ?? false;
  let allowedHosts: string[] = [];
  let allowedOrigins = new Set<string>();

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ event: 'mcp_http_error', err: (error as Error)?.stack ?? String(error) }, 'MCP HTTP request failed');
      if (!res.headersSent) jsonRpcError(res, 500, ErrorCode.InternalError, 'internal error');
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      logger.warn({ event: 'mcp_origin_refused', origin: clip(origin, 200) }, 'refused a request from a web page of another origin');
      return jsonRpcError(res, 403, ErrorCode.InvalidRequest, `Origin ${clip(origin, 200)} may not call this server: a web page of another site must not drive local tools`);
    }
    if (expected !== undefined) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized: send Authorization: Bearer <token>\n');
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== endpoint) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found; the MCP endpoint is ${endpoint}\n`);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req);
      if (read === undefined) return jsonRpcError(res, 413, ErrorCode.InvalidRequest, `request body over ${MAX_BODY_BYTES} bytes`);
      try {
        body = JSON.parse(read);
      } catch {
        return jsonRpcError(res, 400, ErrorCode.ParseError, 'Parse error: the body is not JSON');
      }
    }
    if (existing !== undefined) {
      const done = sessions.begin(sessionId as string);
      res.once('close', done);
      try {
        await existing.transport.handleRequest(req, res, body);
      } finally {
        if (res.writableEnded) done();
      }
      return;
    }
    if (sessionId !== undefined) return jsonRpcError(res, 404, ErrorCode.InvalidRequest, 'unknown or expired session; initialize again');
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, ErrorCode.InvalidRequest, 'no session: the first request must be initialize (without an mcp-session-id header)');
    }
    if (!sessions.makeRoom()) {
      res.setHeader('retry-after', '5');
      return jsonRpcError(res, 503, ErrorCode.InvalidRequest, `too many sessions: all ${sessions.maxSessions} have a request open; retry later`);
    }
    const transport = new HttpTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      eventStore: new BoundedEventStore(),
      retryInterval: retryMs,
      onsessioninitialized: (id) => {
        sessions.makeRoom();
        sessions.add(id, { server, transport, close: () => server.close() });
      },
    });
    const server = createMcpServer({ ...options, tasks });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowedHosts = hostHeadersFor(host, port);
  // A browser page of this server's own address (nothing is served to browsers, so in effect
  // none); every other page is refused. Clients that are not browsers send no Origin.
  allowedOrigins = new Set(allowedHosts.map((h) => `http://${h.toLowerCase()}`));
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${endpoint}`,
    port,
    notifyToolsChanged: () => {
      for (const { server } of sessions.values()) void server.sendToolListChanged().catch(() => undefined);
    },
    close: async () => {
      await sessions.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  // No id: none could be read (MCP 2025-11-25 lets an error response leave it out; null is not a RequestId).
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message } }));
}
