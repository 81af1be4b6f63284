/**
 * The MCP protocol handlers of `toolgate mcp`: one SDK `Server` (the official SDK v2's
 * low-level one, `@modelcontextprotocol/server`) over a {@link ToolSystem}. The transports
 * are elsewhere: stdio framing in `stdio-server.ts`, streamable HTTP and its sessions in
 * `http-server.ts`. Both serve two protocol eras from this one factory
 * ({@link createMcpServer}`(options, { era })`):
 *
 * - `legacy`: 2025-11-25 and older, negotiated by `initialize`; one server per connection
 *   (stdio) or per `Mcp-Session-Id` session (HTTP).
 * - `modern`: 2026-07-28, every request carrying its protocol version and client capabilities
 *   in `_meta`; `server/discover` answered by the SDK. Over HTTP one server per request.
 *
 * Behind both: the same tools, decisions, ledger and limits.
 *
 * - `tools/list`: the visible tools in the MCP shape of `src/formats/mcp.ts` (input schema,
 *   output schema for object results, annotations from our flags), in pages of `toolsPageSize`
 *   tools with an opaque cursor (`tool-pages.ts`); cacheable on 2026-07-28 (`ttlMs`
 *   {@link TOOLS_LIST_TTL_MS}, `cacheScope: private`).
 * - `tools/call`: through the `ToolSystem` facade, so every decision applies. Following the
 *   specification 2025-11-25 (SEP-1303): an unknown (or hidden) tool and a malformed request
 *   are protocol errors (JSON-RPC `-32602` / the SDK's request validation); arguments that
 *   fail the input schema, gate denials and failures inside a tool are results with
 *   `isError: true`, which the model can read and correct.
 * - Confirmation: with `yes`, calls are approved in advance, but a question only a person
 *   answers (a protected path's, `always_ask`: `Decision.person`, `fresh`) is asked as below,
 *   as every question is without it: a tool that requires confirmation
 *   is asked about through MCP elicitation when a 2025 client supports it; a 2026-07-28
 *   client (no server-initiated requests on that revision) that declares form elicitation in
 *   its request's `_meta` gets an "input required" result and answers in a retry, checked
 *   against the question stored in the ledger (`input-required.ts`). When the client cannot
 *   be asked either way and a ledger keeps questions, the question waits there (`answerWaitMs`, or without bound with
 *   `waitForAnswers`) for `toolgate approvals allow ID` or the cockpit, and the client is told
 *   the question's id at once (a log message, and progress when it sent a token); without a
 *   ledger the call is refused with a message naming `--yes` (with `yes`, the pipeline's own:
 *   --yes does not answer it) (`confirmation.ts`). Every call
 *   names who is asked (a skill read and `request_tools`: elicitation, else nobody), never
 *   leaving it to the executor's own `confirmationHandler`, which the MCP client did not choose.
 * - `ask_user` (the model's question to the person): served when the selection would hold it,
 *   run by the executor like every call and answered through elicitation (2025), input-required
 *   rounds (2026-07-28, with a ledger: the first round's run stores the question and suspends,
 *   the retry's run takes the answer), the cockpit (`waitForAnswers`), or a message that says
 *   how to answer (`ask-user.ts`).
 * - Tasks (2025-11-25, experimental; 2025-era servers only), with a ledger: the `tasks`
 *   capability and every tool's `execution.taskSupport: 'optional'`; a `tools/call` with a
 *   `task` field is answered at once with a task, its call runs in the background (ledger
 *   session `mcp-tasks`, the task id as call id), and `tasks/get|result|list|cancel` are
 *   answered from a {@link LedgerTaskStore} (`tasks.ts`, `task-methods.ts`). A task's question
 *   to the person is put through elicitation while the client is there, and otherwise waits in
 *   the ledger for `toolgate approvals allow|deny` (status `input_required`).
 * - Tasks (2026-07-28, the `io.modelcontextprotocol/tasks` extension), with a ledger: a
 *   `tools/call` whose `_meta` client capabilities declare the extension is answered at once
 *   with `resultType: "task"`; `tasks/get`, `tasks/update` and `tasks/cancel` are answered from
 *   the same store, for the request's principal (`task-extension.ts`).
 *
 * @module
 */
import crypto from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, ProtocolErrorCode, type CallToolResult, type ClientCapabilities, type CreateTaskResult, type LoggingLevel, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import * as z from 'zod/v4';
import { PathTraversalError, refusedBeforeRun, ToolgateOptionError } from '../errors/errors.js';
import { failedResult } from '../closeout/results.js';
import { ERROR_CODES, type ToolErrorCode } from '../errors/error-codes.js';
import { ADVANCE_NOT_ENOUGH, type ApprovalAnswer, type ConfirmationHandler } from '../decisions/approval.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isCallerTool } from '../registry/visibility.js';
import { isCallable, isSelected, offeredCallerTools, type CallerToolOffer, type ToolSelectionFilter } from '../decisions/visibility.decider.js';
import { toCallToolResult, type McpTool } from '../formats/mcp.js';
import { LedgerTaskStore, LOCAL_REQUESTOR, TASK_SESSION } from './tasks.js';
import { callClient, type SessionLogLevel } from './call-client.js';
import { serverIdentity } from './early-initialize.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import type { AgentCallOptions } from '../system/tool-call-handler.js';
import { checkLazyDomainsOptions, REQUEST_TOOLS_NAME, type DomainVisibility, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import { McpLazyTools } from './lazy-domains.js';
import { MODES, resolveMode } from '../modes/modes.js';
import { answerElsewhere, cannotAskMessage, elicitConfirmation, elicitOrNobody, unansweredMessage, type ClientAsker, type ElsewhereWait } from './confirmation.js';
import { bindAsker, checkRetry, inputRequiredFor, isInputSuspension, stateKind, suspendForInput, type CheckedRetry } from './input-required.js';
import { askInNextRound, cannotAsk, cannotAskUserMessage, checkQuestionRetry, elicitQuestion, isAskUser, isQuestionSuspension, questionInputRequired, type QuestionRetry } from './ask-user.js';
import { ASK_USER_TOOL, askUserSpec, type QuestionHandler } from '../builtin/ask-user.js';
import { CallerServices, servicesOf, withServices } from '../builtin/caller-services.js';
import { registerCallerTools } from '../builtin/caller-tools.js';
import { ledgerQuestionHandler } from '../ledger/user-questions.js';
import type { ToolClient } from '../types/tool.js';
import { ProtocolServer, SERVED_PROTOCOL_VERSIONS } from './protocol-server.js';
import { registerTaskMethods } from './task-methods.js';
import { declaresTasks, modernRequestor, registerTaskExtension, TASKS_EXTENSION, wireTask } from './task-extension.js';
import { attachSkills } from './skills-extension.js';
import { skillFoldersPresent } from '../system/skill-folders.js';
import { BadCursorError, DEFAULT_TOOLS_PAGE_SIZE, MAX_TOOLS_PAGE_SIZE, pageOf } from './tool-pages.js';

/** How long a question a client cannot be asked waits for an answer given elsewhere, by default (ms). */
const DEFAULT_ANSWER_WAIT_MS = 45_000;

/** How long a 2026-07-28 client may keep a `tools/list` page (ms): short, since bridged servers and lazy domains change the list. */
const TOOLS_LIST_TTL_MS = 30_000;

/**
 * `logging/setLevel` and `tools/list` params of any shape: the handlers answer a bad level or
 * cursor with -32602 themselves (the SDK's check of a spec method's params answers -32603).
 */
const LOOSE_PARAMS = z.looseObject({});
/** The logging levels of MCP (RFC 5424), lowest first: the SDK's (`@modelcontextprotocol/core`). */
const LOGGING_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

export type { McpEra, McpServeOptions } from './serve-options.js';
import type { McpEra, McpServeOptions } from './serve-options.js';

/**
 * What a server of `options` lists and lets be called, for one session (its lazy domains):
 * `listed` is the list `tools/list` serves (the caller tools, `ask_user`, included), which
 * {@link toolsListed} gives `toolgate mcp` for its count.
 */
function toolView(options: McpServeOptions, lazyOptions: LazyDomainsOptions | undefined) {
  const { system } = options;
  // What is listed and what may be called is the visibility decider's (visibility.decider.ts);
  // this server only says what it answers caller tools with.
  const selections: ToolSelectionFilter[] = [{ names: options.tools, tags: options.tags }];
  const registry = system.registry;
  registerCallerTools(registry);
  const mode = resolveMode(options.mode ?? system.defaultMode);
  // The selected tools the mode would ever let run (with `visibility`, those it shows), as agents are offered them.
  const offered = (anyMode = false, visibility?: DomainVisibility): RegisteredTool[] => {
    const choice = { mode: anyMode ? MODES.default : options.mode, scopedWriteDirs: options.scopedWriteDirs, visibility };
    return system.tools(choice).filter((t) => isSelected(t, ...selections));
  };
  // Lazy visibility: this session's domains (one server per session; per request for a 2026-07-28 HTTP client).
  const lazy = lazyOptions === undefined ? undefined : new McpLazyTools(lazyOptions, () => offered(true), () => offered());
  // ask_user is answered through the client (ask-user.ts) unless a config toolset serves exactly its tools (askUser false).
  const callerOffer = (): CallerToolOffer => ({ askUser: options.askUser !== false, askUserSelections: [...selections, system.selection], lazyDomains: lazy?.domains() });
  const visible = (name: string): RegisteredTool | undefined => {
    const tool = registry.get(name);
    return tool !== undefined && isCallable(tool, selections, callerOffer()) ? tool : undefined;
  };
  const listed = (): { tools: McpTool[]; atOnce: ReadonlySet<string> } => {
    const tools = offered(false, lazy?.visibility).map((t) => system.spec(t, 'mcp'));
    // The caller tools are answered at once (their answers come from the client or the session), never as a task.
    const atOnce = new Set(offeredCallerTools(callerOffer(), mode));
    for (const name of atOnce) {
      const spec = name === ASK_USER_TOOL.name ? askUserSpec('mcp') as McpTool : name === REQUEST_TOOLS_NAME ? lazy?.requestTool() : undefined;
      if (spec !== undefined) tools.push(spec);
    }
    return { tools, atOnce };
  };
  return { registry, mode, lazy, visible, listed };
}

/** The tools a new session's `tools/list` serves (every page), for a count or a look: the same list, not a copy of its rules. */
export function toolsListed(options: McpServeOptions): McpTool[] {
  const lazyOptions = options.lazyDomains === true ? {} : options.lazyDomains === false ? undefined : options.lazyDomains;
  return toolView(options, lazyOptions).listed().tools;
}

/**
 * The task store `options` ask for: theirs, else one over the executor's ledger (none without one).
 */
export function taskStoreFor(options: McpServeOptions): LedgerTaskStore | undefined {
  if (options.tasks !== undefined) return options.tasks === false ? undefined : options.tasks;
  const { executor } = options.system;
  const ledger = executor.ledger;
  if (ledger === undefined) return undefined;
  return new LedgerTaskStore(ledger, (name) => executor.registry.get(name));
}

/**
 * One MCP server over the registry of `options.system`, for one protocol era. Connect it to
 * one transport: a 2025-era server serves one connection or HTTP session, a 2026-07-28 one a
 * connection (stdio) or a single HTTP request (`createMcpHandler` asks for one per request).
 * @param context - the era it serves (default `legacy`: an `initialize` picks the revision).
 * @throws ToolgateOptionError when `system` is not a {@link ToolSystem}, or `lazyDomains`, `answerWaitMs`, `heartbeatMs` or `toolsPageSize` is malformed.
 */
export function createMcpServer(options: McpServeOptions, context: { era?: McpEra } = {}): Server {
  const { system } = options;
  if (system === null || typeof system !== 'object' || typeof system.execute !== 'function' || system.executor === undefined) {
    throw ToolgateOptionError.fromBadOption('system', 'createMcpServer needs options.system, a ToolSystem (new ToolSystem({...}))');
  }
  const modern = context.era === 'modern';
  const logger = options.logger ?? createLogger('silent');
  const lazyOptions = options.lazyDomains === true ? {} : options.lazyDomains === false ? undefined : options.lazyDomains;
  const lazyProblem = lazyOptions === undefined ? undefined : checkLazyDomainsOptions(lazyOptions);
  if (lazyProblem !== undefined) throw ToolgateOptionError.fromBadOption('lazyDomains', lazyProblem);
  if (options.heartbeatMs !== undefined && !(Number.isSafeInteger(options.heartbeatMs) && options.heartbeatMs >= 0)) {
    throw ToolgateOptionError.fromBadOption('heartbeatMs', `must be a whole number of milliseconds, 0 or more; got ${String(options.heartbeatMs).slice(0, 50)}`);
  }
  if (options.answerWaitMs !== undefined && !(Number.isSafeInteger(options.answerWaitMs) && options.answerWaitMs > 0)) {
    throw ToolgateOptionError.fromBadOption('answerWaitMs', `must be a positive whole number of milliseconds; got ${String(options.answerWaitMs).slice(0, 50)}`);
  }
  const pageSize = options.toolsPageSize ?? DEFAULT_TOOLS_PAGE_SIZE;
  if (!(Number.isSafeInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_TOOLS_PAGE_SIZE)) {
    throw ToolgateOptionError.fromBadOption('toolsPageSize', `must be a whole number from 1 to ${MAX_TOOLS_PAGE_SIZE}; got ${String(options.toolsPageSize).slice(0, 50)}`);
  }
  const store = taskStoreFor(options);
  // 2025-11-25 tasks (the `tasks` capability and methods) for 2025-era servers; a 2026-07-28
  // server offers the tasks extension over the same store instead (task-extension.ts).
  const tasks = modern ? undefined : store;
  const modernTasks = modern ? store : undefined;
  // The task methods answer from a view bound to this server's client, never from a session id the SDK passes.
  const mine = tasks?.boundTo(options.taskRequestor ?? LOCAL_REQUESTOR);
  const workspaceRoot = options.workspaceRoot ?? system.workspace;
  const skills = skillFoldersPresent(workspaceRoot, system.configEnv);
  const identity = serverIdentity(tasks !== undefined, options.serverInfo, skills);
  const { serverInfo, instructions } = identity;
  const known = (identity.capabilities as { extensions?: Record<string, unknown> }).extensions ?? {};
  const capabilities = modernTasks === undefined ? identity.capabilities : { ...identity.capabilities, extensions: { ...known, [TASKS_EXTENSION]: {} } };
  const server: Server = new ProtocolServer(serverInfo, {
    capabilities, instructions, supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
    cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
  });
  if (tasks !== undefined && mine !== undefined) registerTaskMethods(server, mine, tasks.pollIntervalMs);
  /** Who a 2026-07-28 request's tasks belong to (no session on that revision). */
  const requestorOf = (ctx: ServerContext): string => modernRequestor(ctx, options.taskRequestor ?? LOCAL_REQUESTOR);
  if (modernTasks !== undefined) registerTaskExtension(server, modernTasks, requestorOf);
  const { registry, mode, lazy, visible, listed } = toolView(options, lazyOptions);

  // logging/setLevel (2025 only; a 2026-07-28 request names its level in _meta): the lowest
  // level of the log messages tools send this session (ctx.log).
  const logLevel: SessionLogLevel = { level: undefined };
  server.setRequestHandler('logging/setLevel', { params: LOOSE_PARAMS }, async (params) => {
    const level = (params as { level?: unknown }).level;
    if (!LOGGING_LEVELS.includes(level as LoggingLevel)) {
      throw invalidParams(`Invalid params: logging/setLevel needs params.level, one of ${LOGGING_LEVELS.join(', ')}`);
    }
    logLevel.level = level as LoggingLevel;
    return {};
  });

  server.setRequestHandler('tools/list', { params: LOOSE_PARAMS }, async (params) => {
    const cursor = (params as { cursor?: unknown }).cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams('Invalid params: a tools/list request\'s cursor must be a string (the nextCursor of the previous page)');
    const { tools, atOnce } = listed();
    const all = tasks === undefined ? tools : tools.map((t) => (atOnce.has(t.name) ? t : { ...t, execution: { taskSupport: 'optional' as const } }));
    try {
      return pageOf(all, cursor, pageSize);
    } catch (error) {
      if (error instanceof BadCursorError) throw invalidParams(error.message);
      throw error;
    }
  });

  /** This server's connection, for the ledger's sessions when the transport has no session id (stdio, 2026-07-28). */
  const connection = crypto.randomUUID();
  /**
   * Call ids: request ids start again on every connection, so each is prefixed with a short
   * random id of this server's connection (`mcp_3f9c2a1b_2`): unique across sessions in the
   * ledger, the cockpit and traces.
   */
  const callIdOf = (requestId: string | number): string => `mcp_${connection.slice(0, 8)}_${String(requestId)}`;
  /** What the client declared: at `initialize` (2025), or in this request's `_meta` (2026-07-28). */
  const capabilitiesOf = (ctx: ServerContext): ClientCapabilities | undefined => (modern
    ? (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
    : server.getClientCapabilities());
  /** Whether the client fills forms (form elicitation; a client that names no mode means form). */
  const fillsForms = (caps: ClientCapabilities | undefined): boolean => caps?.elicitation !== undefined && (caps.elicitation.form !== undefined || caps.elicitation.url === undefined);
  /** A 2025-11-25 client that fills forms is asked by elicitation (a 2026-07-28 one gets no server-initiated requests). */
  const canElicit = (ctx: ServerContext): boolean => !modern && fillsForms(capabilitiesOf(ctx));
  /**
   * Every call this server runs, its asker named (`ClientAsker`, confirmation.ts): what the
   * client can be asked through, or nobody, never the executor's own handler.
   */
  const run = (call: ToolCallRequest, callOptions: AgentCallOptions & { confirmationHandler: ClientAsker }): Promise<ToolExecutionResult> => system.execute(call, callOptions);
  /** What answers ask_user for this client (see ask-user.ts): elicitation, the cockpit through the ledger, or a message saying how to answer. */
  const questionHandler = (isModern: boolean, formElicitation: boolean, canAsk: boolean, session: string): QuestionHandler => {
    const ledger = system.executor.ledger;
    if (canAsk) return elicitQuestion(server);
    // With a ledger, a 2026-07-28 client that fills forms is asked in rounds (askInNextRound, below).
    if (isModern && formElicitation) return cannotAsk('ask_user: a 2026-07-28 client is asked through an input-required result, which needs the ledger (toolgate mcp without --no-ledger)');
    if (options.waitForAnswers === true && ledger !== undefined) return ledgerQuestionHandler(ledger, { workspace: options.workspaceRoot ?? process.cwd(), turn: session });
    return cannotAsk(cannotAskUserMessage(ledger === undefined));
  };
  server.setRequestHandler('tools/call', async (request, ctx) => (await callTool(request, ctx)) as never);
  // The MCP skills extension: listed and read through list_skills and read_skill, as this client's calls.
  if (skills) {
    attachSkills(server, {
      workspaceRoot, configEnv: system.configEnv, logger, served: (name) => visible(name) !== undefined,
      run: (name, args, ctx) => run({ name, arguments: args, callId: callIdOf(ctx.mcpReq.id) }, {
        mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, confirm: options.yes === true, signal: ctx.mcpReq.signal,
        confirmationHandler: elicitOrNobody(server, canElicit(ctx), ctx.mcpReq.signal),
        workspaceRoot: options.workspaceRoot, turnId: `mcp_${ctx.sessionId ?? connection}`, session: `mcp_${ctx.sessionId ?? connection}`,
      }),
    });
  }
  const callTool = async (request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } }, ctx: ServerContext): Promise<CallToolResult | CreateTaskResult> => {
    const { name } = request.params;
    const requestId = ctx.mcpReq.id;
    const signal = ctx.mcpReq.signal;
    const session = `mcp_${ctx.sessionId ?? connection}`;
    const tool = visible(name);
    if (tool === undefined) throw invalidParams(`Unknown tool: ${JSON.stringify(name.slice(0, 200))}. tools/list shows the tools this server offers.`);
    if (lazy !== undefined && isCallerTool(tool) && name === REQUEST_TOOLS_NAME) {
      const { result, changed } = await lazy.answer({ registry, execute: run }, request.params.arguments ?? {}, callIdOf(requestId), {
        mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, confirm: options.yes === true, signal, workspaceRoot: options.workspaceRoot, turnId: session, session,
        confirmationHandler: elicitOrNobody(server, canElicit(ctx), signal),
      });
      // On the request's own stream (streamable HTTP), so the client gets it without a GET stream.
      if (changed) await ctx.mcpReq.notify({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
      return result;
    }
    const caps = capabilitiesOf(ctx);
    const formElicitation = fillsForms(caps);
    // A 2026-07-28 client cannot be sent elicitation/create (no server-initiated requests):
    // one that can fill forms is asked through an "input required" result and answers in a
    // retry (input-required.ts; the question is kept in the ledger); others' questions wait there.
    // The same with --yes: its advance approval answers every ordinary question before a
    // handler is asked (pipeline.ts), so the handler meets only a question a person answers
    // (a protected path's, `always_ask`), which goes to the client's person as without --yes.
    const canAsk = !modern && formElicitation;
    const ledger = system.executor.ledger;
    const askInRetry = modern && formElicitation && ledger !== undefined;
    const taskParams = (request.params as { task?: { ttl?: number } }).task;
    if (taskParams !== undefined && tasks !== undefined && mine !== undefined) {
      const task = await mine.createTask(taskParams, requestId, request as never);
      const args = request.params.arguments ?? {};
      // Asked while the client is there; else (or once it is gone) the question waits in the
      // ledger for `toolgate approvals allow|deny` (the task reads input_required meanwhile).
      const askOrWait = (taskSignal: AbortSignal): ConfirmationHandler => async (req, context) => {
        if (canAsk) {
          try {
            return await elicitConfirmation(server, req, taskSignal, context);
          } catch {
            // the client went away: wait for an answer given elsewhere
          }
        }
        return new Promise<ApprovalAnswer>(() => undefined);
      };
      await tasks.start(
        task.taskId,
        { tool: tool.name, version: tool.version, arguments: args, workspace: options.workspaceRoot ?? process.cwd(), turn: '' },
        (taskSignal) => run(
          { name, arguments: args, callId: task.taskId },
          {
            mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, confirm: options.yes === true, confirmationHandler: askOrWait(taskSignal),
            signal: taskSignal, workspaceRoot: options.workspaceRoot, session: TASK_SESSION, client: lazy?.client(undefined),
          },
        ),
        () => {
          void mine.getTask(task.taskId).then((now) => (now === null ? undefined : server.notification({ method: 'notifications/tasks/status', params: now }))).catch(() => undefined);
        },
      );
      return { task };
    }
    let asked = false;
    // A 2026-07-28 client gets no elicitation or sampling (no server-initiated requests on that
    // revision), so its capabilities are not passed on.
    const client = callClient(ctx, modern ? undefined : caps, modern ? requestLogLevel(ctx) : logLevel, options.heartbeatMs);
    // A client that cannot be asked: with a ledger, the question waits there for an answer
    // given elsewhere (bounded unless waitForAnswers), and the client is told how to answer.
    const elsewhere: ElsewhereWait = {};
    const tell = (text: string) => {
      logger.warn({ event: 'mcp_question_waits', tool: name, question: elsewhere.questionId }, text);
      void ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'warning', logger: 'toolgate', data: text } }).catch(() => undefined);
      client.progress?.(0, undefined, text);
    };
    const waitMs = options.waitForAnswers === true ? undefined : options.answerWaitMs ?? DEFAULT_ANSWER_WAIT_MS;
    const waitForAnswer: ConfirmationHandler | null = ledger === undefined ? null : answerElsewhere(ledger, session, signal, elsewhere, tell, waitMs, options.cockpitUrl, workspaceRoot);
    let askFailed: string | undefined;
    const ask: ConfirmationHandler = async (req, context) => {
      asked = true;
      try {
        return await elicitConfirmation(server, req, signal, context);
      } catch (error) {
        // With a cockpit, the question waits in the ledger for an answer given there (or by
        // toolgate approvals), as a task's does.
        if (options.waitForAnswers === true && waitForAnswer !== null) return waitForAnswer(req);
        // The client declared elicitation but could not ask anyone (a bridge with no person
        // behind it, say): a no, with a message that says how to allow the call instead.
        askFailed = (error as Error)?.message ?? String(error);
        return 'deny';
      }
    };
    // A 2026-07-28 retry's state (it names a stored question; see below).
    const rawState = modern ? ctx.mcpReq.requestState() : undefined;
    // A 2026-07-28 client declaring the tasks extension gets a task (its questions are asked
    // in the task: input_required, answered by tasks/update through any instance).
    if (modernTasks !== undefined && rawState === undefined && declaresTasks(caps) && !isAskUser(tool)) {
      const args = request.params.arguments ?? {};
      const task = await modernTasks.createTask({}, requestId, request as never, requestorOf(ctx));
      await modernTasks.start(
        task.taskId,
        { tool: tool.name, version: tool.version, arguments: args, workspace: options.workspaceRoot ?? process.cwd(), turn: '' },
        (taskSignal) => run(
          { name, arguments: args, callId: task.taskId },
          {
            mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, confirm: options.yes === true,
            // The question waits in the store for tasks/update (or toolgate approvals, the cockpit).
            confirmationHandler: () => new Promise<ApprovalAnswer>(() => undefined),
            signal: taskSignal, workspaceRoot: options.workspaceRoot, session: TASK_SESSION, client: lazy?.client(undefined),
          },
        ),
      );
      return { resultType: 'task', ...wireTask(task) } as never;
    }
    const firstCallId = callIdOf(requestId);
    const args = request.params.arguments ?? {};
    // ask_user of a 2026-07-28 client that fills forms, with a ledger: the executor runs it in
    // rounds (ask-user.ts): its run stores the question and the call waits for the retry,
    // whose run takes the answer. Other clients: elicitation (2025), the cockpit, or a message.
    const questionRounds = isAskUser(tool) && modern && formElicitation && ledger !== undefined;
    let askUser = isAskUser(tool) ? questionHandler(modern, formElicitation, canAsk, session) : undefined;
    // A retry carrying the answer and the state naming its question: checked against the
    // stored question and call, then run under the stored call id and session.
    let retry: CheckedRetry | undefined;
    let answered: QuestionRetry | undefined;
    if (rawState !== undefined) {
      if (questionRounds && await stateKind(ledger, rawState) !== 'approval') {
        const checked = await checkQuestionRetry(ledger, rawState, ctx.mcpReq.inputResponses, tool, args, requestorOf(ctx));
        if (typeof checked === 'string') {
          logger.warn({ event: 'mcp_retry_refused', tool: name }, checked);
          throw invalidParams(`Invalid params: ${checked}`);
        }
        answered = checked;
        askUser = checked.handler;
      } else {
        if (!askInRetry || ledger === undefined) throw invalidParams('Invalid params: this retry carries a requestState, but this server asks no questions through input required for this client (it needs elicitation in its capabilities, and a ledger)');
        const checked = await checkRetry(ledger, rawState, ctx.mcpReq.inputResponses, tool, args, requestorOf(ctx));
        if (typeof checked === 'string') {
          logger.warn({ event: 'mcp_retry_refused', tool: name }, checked);
          throw invalidParams(`Invalid params: ${checked}`);
        }
        retry = checked;
      }
    }
    const { callId, session: callSession } = answered?.state ?? retry?.state ?? { callId: firstCallId, session };
    // The first round of a question, or the retry that approved its call: the run asks in an
    // input-required result.
    if (questionRounds && answered === undefined) askUser = askInNextRound(ledger, tool, { callId, session: callSession });
    let result: ToolExecutionResult;
    const closeSse = ctx.http?.closeSSE;
    const letGo = options.pollAfterMs !== undefined && closeSse !== undefined ? setTimeout(closeSse, options.pollAfterMs) : undefined;
    try {
      client.start();
      result = await run(
        { name, arguments: args, callId },
        {
          mode: options.mode,
          scopedWriteDirs: options.scopedWriteDirs,
          confirm: options.yes === true,
          // A question's retry asks nobody about the call: a gate that asks now takes the answer
          // of the call's approval round (ask-user.ts), if it had one; else it refuses the call.
          confirmationHandler: answered !== undefined ? null : retry !== undefined ? retry.handler : askInRetry ? suspendForInput : canAsk ? ask : waitForAnswer,
          signal,
          workspaceRoot: options.workspaceRoot,
          // MCP has no turns: an answer `for this turn` lasts as long as the client's session
          // (its connection over stdio; one request for a 2026-07-28 client over HTTP).
          turnId: callSession,
          // ctx.progress / ctx.log / ctx.elicit / ctx.sample reach this client.
          client: lendAskUser(lazy === undefined ? client : lazy.client(client), askUser),
          // The ledger's idempotency key is call id and session.
          session: callSession,
        },
      );
    } catch (error) {
      // First round for a 2026-07-28 client: the question is stored, the call waits for the retry.
      // The state counts only for this requestor (a binding that cannot be written fails the call: no state is given).
      if (isQuestionSuspension(error) && ledger !== undefined) {
        await bindAsker(ledger, callId, callSession, requestorOf(ctx));
        return questionInputRequired(error, callId, callSession) as never;
      }
      if (isInputSuspension(error) && ledger !== undefined) {
        await bindAsker(ledger, callId, callSession, requestorOf(ctx));
        return inputRequiredFor(error, callId, callSession) as never;
      }
      if (error instanceof PathTraversalError) {
        logger.warn({ event: 'mcp_path_traversal', tool: name, path: error.path }, 'path traversal refused');
        // A result like any other error's (outcome, side effects): refused before the tool ran, unless the tool found the escape itself.
        const refused = failedResult('PATH_TRAVERSAL', error.message, { tool: tool.name, version: tool.version, callId, stopReason: refusedBeforeRun(error) ? 'not_run' : 'error', readOnly: tool.readOnly });
        return toCallToolResult(tool, refused) as CallToolResult;
      }
      throw error;
    } finally {
      // No heartbeat after the result (whatever ends the call).
      client.end();
      clearTimeout(letGo);
    }
    if (result.errorCode !== undefined && ERROR_CODES[result.errorCode].mcp === 'invalid_params') throw invalidParams(result.error ?? `Unknown tool: ${name}`);
    if (result.errorCode === 'CONFIRMATION_REQUIRED' && answered !== undefined) {
      const text = `Error: ${tool.name} did not run: a gate asks for approval of this call now (an approval mode or a rule changed since its question was asked), and the round that carries the answer asks nobody; the answer was not used.`;
      return reworded(tool, result, text);
    }
    // (Before the next: the wait for an answer elsewhere ran out, which the store records as this code too.)
    if (result.errorCode === 'CONFIRMATION_REQUIRED' && elsewhere.timedOut === true && elsewhere.questionId !== undefined && waitMs !== undefined) {
      return reworded(tool, result, `Error: ${unansweredMessage(tool.name, elsewhere.questionId, waitMs, options.cockpitUrl, workspaceRoot, options.yes === true)}`);
    }
    // With --yes only a question a person answers is left to ask: the pipeline's refusal says
    // so (personOnlyReason), where this server's own words would send the person to --yes.
    if (result.errorCode === 'CONFIRMATION_REQUIRED' && !canAsk && !asked && options.yes !== true) {
      return reworded(tool, result, `Error: ${cannotAskMessage(tool.name)}`);
    }
    if (result.errorCode === 'CONFIRMATION_DENIED' && askFailed !== undefined) {
      const text = `Error: ${tool.name} requires confirmation, and asking through this MCP client failed (${askFailed.slice(0, 300)}). `
        + (options.yes === true
          ? `${ADVANCE_NOT_ENOUGH} (a protected path's, an always-ask one): a person answers it, through a client that can ask them, with toolgate approvals allow ID, or in the cockpit.`
          : 'To allow it, restart `toolgate mcp` with --yes (approves every call that needs confirmation), or allow the call with a policy.');
      return reworded(tool, result, text, 'CONFIRMATION_REQUIRED');
    }
    return toCallToolResult(tool, result) as CallToolResult;
  };
  return server;
}

/** `client` lending `askUser` to the call (beside what it lends already: lazy domains), or `client` itself without one. */
function lendAskUser(client: ToolClient | undefined, askUser: QuestionHandler | undefined): ToolClient | undefined {
  if (askUser === undefined) return client;
  const services = servicesOf(client);
  return withServices(client, services === undefined ? new CallerServices({ askUser }) : services.with({ askUser }));
}

/** The log level a 2026-07-28 request names in `_meta` (`io.modelcontextprotocol/logLevel`); every level when none. */
function requestLogLevel(ctx: ServerContext): SessionLogLevel {
  const level = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  return { level: LOGGING_LEVELS.includes(level as LoggingLevel) ? level as LoggingLevel : undefined };
}

/** The protocol error for invalid params (JSON-RPC -32602): an unknown tool, a bad cursor or level. */
function invalidParams(message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code: ProtocolErrorCode.InvalidParams });
}

/** A running MCP server. */
export interface McpServerHandle {
  /** Send `notifications/tools/list_changed` to every connected client (after the registry changed). */
  notifyToolsChanged(): void;
  /** Stop serving; closes every session. */
  close(): Promise<void>;
}

/**
 * `result` told in this server's own words (`text`, the whole text block), under `code` when
 * given: the same `_meta` (outcome, side effects, error class) as every other error result.
 */
function reworded(tool: RegisteredTool, result: ToolExecutionResult, text: string, code: ToolErrorCode = result.errorCode ?? 'TOOL_ERROR'): CallToolResult {
  return toCallToolResult(tool, { ...result, output: text, errorCode: code }) as CallToolResult;
}
