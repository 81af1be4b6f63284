/**
 * The tool system: the facade agents, the CLI and servers use. It composes the registry
 * (loaded from the builtin and ported tools and the caller's folders), the executor, the
 * {@link ToolCallHandler} that answers a model turn in the provider's shape, and the
 * {@link ToolVersionManager} (pins per agent, deprecations, revisions). It is a
 * {@link HarnessPlugin}: `harness.use(new ToolSystem(options))`.
 *
 * @module
 */
import path from 'node:path';
import { ToolCallHandler, type AgentCallOptions, type ToolCallTarget } from './tool-call-handler.js';
import { PathTraversalError, refusedBeforeRun, ToolgateOptionError } from '../errors/errors.js';
import type { CallStore } from '../ledger/call-store.js';
import { defaultStateDir } from '../ledger/paths.js';
import { deferredStore } from '../ledger/deferred-store.js';
import { isPostgresUrl, redactUrl } from '../ledger/postgres/database.js';
import type { Ledger, LedgerOptions } from '../ledger/store.js';
import { ToolExecutor, type CallPreview, type ToolExecutorOptions } from '../executor/executor.js';
import { createLogger, type LevelWithSilent, type Logger } from '../logging/logger.js';
import { resolveMode, type AgentMode, type ModeName } from '../modes/modes.js';
import { loadToolFolders, type ToolFolder } from './tool-folders.js';
import { howToAsk, waitForAnswerElsewhere } from './asking.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { ToolRegistry } from '../registry/registry.js';
import { exportTool, type ExportFormat } from '../formats/export.js';
import { type AnthropicTool } from '../formats/anthropic.js';
import { type McpTool } from '../formats/mcp.js';
import { type OpenAITool } from '../formats/openai.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import { failedResult } from '../closeout/results.js';
import { existsFor, isSelected, offers, type ToolSelectionFilter } from '../decisions/visibility.decider.js';
import type { ModelClass } from '../types/model-class.js';
import type { DomainVisibility } from '../registry/lazy-visibility.js';
import { CallerServices, servicesOf, withServices } from '../builtin/caller-services.js';
import { TASK_DOMAIN } from '../types/task-service.js';
import { MEMORY_DOMAIN, type MemoryStore } from '../types/memory-service.js';
import { lazyMemoryStore, openMemoryStore } from '../ledger/memory-stores.js';
import fs from 'node:fs';
import type { McpBridge } from '../mcp/bridge.js';
import type { McpServerConfig } from '../mcp/config.js';
import { ToolVersionManager } from './version-manager.js';
import type { ToolsetEntryConfig } from '../registry/toolset.js';
import { TaskScheduler } from './task-scheduler.js';
import { taskDispatchOf } from './task-dispatch.js';

export type { ToolFolder } from './tool-folders.js';

/**
 * Something started with the tool system that adds tools to its registry, and may need
 * closing: the seam for bridges such as the MCP bridge (`src/mcp/`), which registers each
 * server's tools as `{server}__{tool}`. Returns an optional function that closes what it
 * opened; `ToolSystem.close()` calls it.
 */
export type ToolSystemConnector = (system: ToolSystem) => Promise<void | (() => void | Promise<void>)>;

/**
 * The skills' catalog tools (tools-ported/skills/): each call is lent the system's
 * `configEnv`, so that they read the user's skills from the folder whose skills' tools
 * `start()` registered and the MCP server offers (not from `process.env`).
 */
const SKILL_CATALOG_TOOLS: ReadonlySet<string> = new Set(['list_skills', 'read_skill']);

/** Options of a {@link ToolSystem}; every option documents its default. */
export interface ToolSystemOptions {
  /** Workspace root every call is confined to. Default: `process.cwd()` when constructed. */
  workspace?: string;
  /** Load the builtin tools (`tools/`). Default true. */
  builtins?: boolean;
  /** Load the ported tool library (`tools-ported/`). Default: the value of `builtins`. */
  ported?: boolean;
  /** More folders of compiled tools, each with its schema file. Default none. */
  toolFolders?: readonly ToolFolder[];
  /**
   * The toolset (`tools.builtin` of `toolgate.config.json`): when given, it REPLACES the
   * default set (builtin and ported tools) wholesale; each entry a tool name or `{ name,
   * description?, readOnly?, requiresConfirmation?, timeoutMs?, maxOutputLength? }`
   * (docs/toolsets.md). Default: every default tool, as declared.
   * @throws ToolgateOptionError from `start()` naming the entry (index and name) at fault.
   */
  toolset?: readonly ToolsetEntryConfig[];
  /** What to call the toolset in messages (`toolgate.config.json: tools.builtin`). Default `toolset`. */
  toolsetSource?: string;
  /**
   * Offer and run only tools carrying at least one of these tags; calls to other tools are
   * answered `UNKNOWN_TOOL`. Default: every tool.
   */
  tags?: readonly string[];
  /** Use this registry (tools already registered) instead of a new one. Default: a new one. */
  registry?: ToolRegistry;
  /** pino logger for call events. Default: one at `logLevel` on stderr. */
  logger?: Logger;
  /** Level of the default logger. Default `silent`. */
  logLevel?: LevelWithSilent;
  /** Mode of calls that name none. Default `default`. */
  defaultMode?: ModeName | AgentMode;
  /** More executor options (policy hook, pool size, output store...). Default none. */
  executor?: Omit<ToolExecutorOptions, 'workspaceRoot' | 'logger'>;
  /**
   * The call ledger (docs/ledger.md): every call is recorded, questions are stored so that
   * `toolgate approvals` and the cockpit can answer them, a call id already ended in its
   * session returns its stored result. Default: the workspace's ledger in the state folder
   * the CLI uses (`$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`), so the CLI's
   * `approvals`, `trace`, `result` and the cockpit see the SDK's calls. `false`: none. Also
   * accepted as `executor.ledger` (give it in one place only).
   * @throws ToolgateOptionError (from the constructor) when the ledger cannot be opened, or is given twice.
   */
  ledger?: Ledger | CallStore | LedgerOptions | false;
  /**
   * A call that asks when nobody can be asked here (no confirmation handler, for the call or
   * the executor): with a ledger, wait for an answer given elsewhere, `toolgate approvals
   * allow ID` or the cockpit (`toolgate cockpit`), at most this many milliseconds, or with
   * `true` the call's timeout (its `timeoutMs` option, else the tool's; none when that is
   * disabled: until the call's `signal` aborts). No answer in time refuses the call
   * (`CONFIRMATION_DENIED`, the question closed as unanswered). Default `false`: refused at
   * once (`CONFIRMATION_REQUIRED`), the result's `error` saying how a person could be asked.
   */
  waitForAnswers?: boolean | number;
  /**
   * A call whose path argument leaves the workspace: `result` answers it with a
   * `PATH_TRAVERSAL` result the model can read (logged at warn; a ledger records it `denied`),
   * like every other failure; `throw` throws `PathTraversalError` from `execute()`, as the
   * executor does (reference 002: a security error that propagates), for hosts that stop on
   * it. The tool-call handler stops the rest of the turn either way. Default `result`.
   */
  pathTraversal?: 'result' | 'throw';
  /** Read-only calls of one model turn run at most this many at once. Default 4. */
  concurrency?: number;
  /**
   * MCP servers to bridge in at `start()`, in the `mcpServers` shape of `toolgate.config.json`
   * (stdio `{ command, args, env, cwd }` or streamable HTTP `{ url, headers }`, plus `trusted`,
   * timeouts, `disabled`): each server's tools become gated proxies named `{server}__{tool}`.
   * A server that fails to start is logged and skipped (see {@link ToolSystem.mcp}). Default none.
   * @throws ToolgateOptionError from `start()` when an entry is malformed (the message names the field).
   * @throws PackageUnavailableError from `start()` when a server is enabled and the MCP client SDK
   *   (`@modelcontextprotocol/client`, an optional peer dependency) is not installed.
   */
  mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /**
   * Started in order by `start()`, after the tools are loaded and the MCP servers bridged;
   * each may register more tools. Default none.
   */
  connectors?: readonly ToolSystemConnector[];
  /**
   * Send every call to a worker of a pool instead of running it here (docs/distributed.md):
   * `url` the queue's server (a URL of a kind listed in `src/distributed/queue-backends.ts`,
   * the usage text's `--queue`: Redis, or PostgreSQL through BullMQ's PostgreSQL backend,
   * which may be the store's database), `pool` (default `default`). Calls are
   * recorded in the executor's `ledger`, which must be the store the workers share; the worker
   * decides and runs them, and `execute` returns the stored result. Needs the optional peers
   * `bullmq` and the server's client (`ioredis`, `pg`). `waitMs`: how long the queue's server
   * is waited for, in ms, by `start()` to connect and by each call for its job to be taken
   * (past it, a `QUEUE_UNAVAILABLE` error or result); default 30000. Default none: calls run here.
   * @throws ToolgateOptionError from `start()` when the ledger is missing or a peer is not installed.
   * @throws ToolgateError of code `QUEUE_UNAVAILABLE` from `start()` when the queue's server did not answer within `waitMs`.
   */
  queue?: { readonly url: string; readonly pool?: string; readonly waitMs?: number };
  /**
   * The call store (docs/distributed.md), shared with workers and other processes: a
   * `postgres://`/`postgresql://` URL (the PostgreSQL store, opened by `start()`, closed by
   * `close()`; the password from the URL, `PGPASSWORD` or the password file, never logged), a
   * SQLite file path (or `sqlite:PATH`), or a `CallStore` you opened (yours to close). Used as
   * the executor's ledger, and by `queue`. Give it instead of `ledger`/`executor.ledger`.
   * @throws ToolgateOptionError (from the constructor) when a ledger is also given; from `start()` when the store cannot be opened.
   */
  store?: string | CallStore;
  /** Run the `task` domain's due tasks of this workspace here (`src/system/task-scheduler.ts`; needs a writable call store). Default true. */
  runTasks?: boolean;
  /**
   * The state folder (the CLI's `--state-dir`): where the workspace's memory file is kept
   * (`memory-<key>.sqlite`, when the call store keeps no memory itself) and the OAuth tokens of
   * `mcpServers` (`mcp-oauth/`), and the default ledger's folder. Default: the ledger's folder
   * (`ledger.dir`, or the folder of `ledger.file`, a SQLite `store` file or a given `Ledger`),
   * else `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`.
   */
  stateDir?: string;
  /**
   * The workspace's identity for the memory tools' notes (docs/memory-and-artifacts.md):
   * processes that name the same identity on one store share the notes, whatever their
   * workspace's path (workers of one pool whose checkouts live at different paths, on a shared
   * PostgreSQL `store`). 1 to 200 characters. Default: the workspace's real path.
   */
  memoryWorkspace?: string;
  /**
   * The environment the user's config folder is found from (`XDG_CONFIG_HOME`, `HOME`): the
   * user's skills and `skills-trust.json`, whose skills' tools `start()` registers
   * (docs/skills.md), and whether an MCP server offers skills. The CLI gives its context's.
   * Default `process.env`.
   */
  configEnv?: NodeJS.ProcessEnv;
}

/** Which tools an agent is offered: its mode, its scoped write folders and its pins. */
export interface ToolSelection {
  /** Mode name or mode. Default: the system's `defaultMode`. */
  mode?: string | AgentMode;
  /** Scoped write folders the agent was given (read-only modes). Default none. */
  scopedWriteDirs?: readonly string[];
  /** Agent name whose version pins apply. Default none (latest versions). */
  agent?: string;
  /**
   * The class of the model offered the tools: only tools whose `forModel` is this class or
   * unset are kept (`read_image` for `vision`, `describe_image` for `text-only`). Default:
   * none, every tool whatever its `forModel`.
   */
  modelClass?: ModelClass;
  /** Lazy visibility: leave out the tools whose domain it still hides. Default none (every tool). */
  visibility?: DomainVisibility;
}

/**
 * The tool system facade. Construct, `await start()` (loads tools, runs connectors), use,
 * `await close()` (ends workers and connectors).
 *
 * ```ts
 * const tools = new ToolSystem({ workspace: '/work/project' });
 * await tools.start();
 * const result = await tools.execute({ name: 'read_file', arguments: '{"filepath":"README.md"}' });
 * await tools.close();
 * ```
 */
export class ToolSystem implements ToolCallTarget {
  /** Plugin name in a {@link Harness}. */
  readonly name = 'tool-system';
  /** Every registered tool version. */
  readonly registry: ToolRegistry;
  /** Runs calls through the gates. */
  readonly executor: ToolExecutor;
  /** Answers model turns in the OpenAI or Anthropic shape. */
  readonly handler: ToolCallHandler;
  /** Pins, deprecations, revisions. */
  readonly versions: ToolVersionManager;
  /** The workspace root (absolute). */
  readonly workspace: string;
  /** Mode of calls that name none. */
  readonly defaultMode: string | AgentMode;
  /** The logger calls are logged to. */
  readonly logger: Logger;
  private readonly options: ToolSystemOptions;
  private readonly tags: ReadonlySet<string> | undefined;
  private readonly closers: Array<() => void | Promise<void>> = [];
  /** The opening of a `store` URL, awaited by `start()`. */
  private storeOpening: Promise<unknown> | undefined;
  private starting: Promise<void> | undefined;
  private bridge: McpBridge | undefined;
  /** The `waitForAnswers` bound in ms (0: the call's timeout), when there is a ledger to wait in. */
  private readonly waitForAnswer: number | undefined;
  private queueCaller: import('../distributed/queue-caller.js').QueueCaller | undefined;
  /** The `task` tools' scheduler, once started with a writable store. */
  private tasks: TaskScheduler | undefined;
  /** The state folder in use (absolute; see {@link ToolSystemOptions.stateDir}). */
  readonly stateDir: string;
  /** The environment the user's config folder is found from ({@link ToolSystemOptions.configEnv}). */
  readonly configEnv: NodeJS.ProcessEnv;
  /** The memory tools' store (opened on the first memory call, closed by `close()`). */
  private memory: MemoryStore | undefined;

  /** @throws ToolgateOptionError or RangeError when an option is wrong (the message names it). */
  constructor(options: ToolSystemOptions = {}) {
    this.options = options;
    this.workspace = path.resolve(options.workspace ?? process.cwd());
    this.logger = options.logger ?? createLogger(options.logLevel ?? 'silent');
    this.defaultMode = options.defaultMode ?? 'default';
    if (resolveMode(this.defaultMode) === undefined) throw ToolgateOptionError.fromBadOption('defaultMode', `must be default, explore, plan or an AgentMode; got ${JSON.stringify(this.defaultMode)}`);
    if (options.tags !== undefined && (!Array.isArray(options.tags) || options.tags.some((t) => typeof t !== 'string'))) {
      throw ToolgateOptionError.fromBadOption('tags', 'must be an array of tag names');
    }
    this.tags = options.tags?.length ? new Set(options.tags) : undefined;
    this.registry = options.registry ?? new ToolRegistry();
    if (options.ledger !== undefined && options.executor?.ledger !== undefined) throw ToolgateOptionError.fromBadOption('ledger', 'is given twice (ledger and executor.ledger): give it once');
    if (options.pathTraversal !== undefined && options.pathTraversal !== 'result' && options.pathTraversal !== 'throw') throw ToolgateOptionError.fromBadOption('pathTraversal', `must be result or throw; got ${JSON.stringify(options.pathTraversal)}`);
    const wait = options.waitForAnswers;
    if (wait !== undefined && typeof wait !== 'boolean' && !(typeof wait === 'number' && wait > 0)) throw ToolgateOptionError.fromBadOption('waitForAnswers', `must be a boolean or a positive number of milliseconds; got ${String(wait).slice(0, 50)}`);
    const given = options.store === undefined ? options.ledger ?? options.executor?.ledger : this.storeLedger(options.store, options.ledger ?? options.executor?.ledger);
    this.stateDir = path.resolve(options.stateDir ?? stateDirOf(given) ?? defaultStateDir());
    this.configEnv = options.configEnv ?? process.env;
    const memoryWorkspace = options.memoryWorkspace;
    if (memoryWorkspace !== undefined && (typeof memoryWorkspace !== 'string' || memoryWorkspace.length === 0 || memoryWorkspace.length > 200)) {
      throw ToolgateOptionError.fromBadOption('memoryWorkspace', 'must be a name of 1 to 200 characters');
    }
    const ledger = given ?? { dir: this.stateDir, workspace: this.workspace };
    try {
      this.executor = new ToolExecutor(this.registry, { ...options.executor, ledger, workspaceRoot: this.workspace, logger: this.logger });
    } catch (error) {
      if (given !== undefined || !(error instanceof ToolgateOptionError) || !/ledger/i.test(error.message)) throw error;
      throw ToolgateOptionError.fromBadOption('ledger', `(default: the state folder ${(ledger as LedgerOptions).dir}) ${error.message.replace(/^options\.\S+ /, '')}. Pass ledger: { dir } for another folder, or ledger: false for none`);
    }
    this.waitForAnswer = wait === undefined || wait === false || ledger === false ? undefined : wait === true ? 0 : wait;
    this.versions = new ToolVersionManager(this.registry);
    this.handler = new ToolCallHandler(this, { concurrency: options.concurrency, logger: this.logger });
  }

  /**
   * Load the tools and run the connectors; a second call waits for the first.
   * @throws ToolDefinitionError when a tool folder or schema file does not load.
   * @throws ToolgateOptionError when the toolset is wrong (naming the entry).
   */
  start(): Promise<void> {
    return (this.starting ??= this.load());
  }

  /** The executor's ledger for the `store` option (a URL opens in the background: `start()` waits for it). */
  private storeLedger(store: string | CallStore, ledger: unknown): CallStore | LedgerOptions {
    if (ledger !== undefined) throw ToolgateOptionError.fromBadOption('store', 'is given with ledger (or executor.ledger): give one of them');
    if (typeof store !== 'string') return store;
    if (!isPostgresUrl(store)) return { file: path.resolve(store.startsWith('sqlite:') ? store.slice('sqlite:'.length) : store) };
    const opening = import('../distributed/store-url.js').then(({ openStore }) => openStore(store));
    const deferred = deferredStore(opening, redactUrl(store));
    this.storeOpening = deferred.opened;
    this.closers.push(() => deferred.store.close());
    return deferred.store;
  }

  private async load(): Promise<void> {
    await this.storeOpening;
    const queue = this.options.queue;
    if (queue !== undefined) {
      const store = this.executor.ledger;
      if (store === undefined) throw ToolgateOptionError.fromBadOption('queue', 'needs the executor\'s ledger: the store the workers share');
      const { QueueCaller } = await import('../distributed/queue-caller.js');
      const caller = await QueueCaller.open({ queue: queue.url, pool: queue.pool, store, workspace: this.workspace, ...(queue.waitMs === undefined ? {} : { queueWaitMs: queue.waitMs, connectWaitMs: queue.waitMs }) });
      this.queueCaller = caller;
      this.closers.push(() => caller.close());
    }
    await loadToolFolders(this.registry, this.options, () => this.logger);
    const store = this.executor.ledger;
    if (store !== undefined && !store.readonly && queue === undefined) this.startTasks(store);
    const servers = this.options.mcpServers;
    if (servers !== undefined && Object.keys(servers).length !== 0) {
      // The MCP client SDK loads only when servers are to be bridged.
      const { McpBridge } = await import('../mcp/bridge.js');
      const bridge = await McpBridge.connect(this.registry, { ...servers }, { logger: this.logger, oauthStateDir: this.stateDir });
      this.bridge = bridge;
      this.closers.push(() => bridge.close());
    }
    for (const connect of this.options.connectors ?? []) {
      const closer = await connect(this);
      if (typeof closer === 'function') this.closers.push(closer);
    }
  }

  private startTasks(store: CallStore): void {
    // A worker of a pool sends its tasks to the pool (src/distributed/task-dispatch.ts).
    const tasks = (this.tasks = new TaskScheduler(this, store, taskDispatchOf(this)));
    if (this.options.runTasks !== false) tasks.start();
    this.closers.push(() => tasks.close());
  }

  /** The memory tools' store, opened on first use and kept until `close()` (`src/ledger/memory-stores.ts`). */
  private memoryStore(): MemoryStore {
    if (this.memory !== undefined) return this.memory;
    const workspace = this.options.memoryWorkspace ?? realPath(this.workspace);
    const memory = (this.memory = lazyMemoryStore(() => openMemoryStore({ store: this.executor.ledger, stateDir: this.stateDir, workspace })));
    this.closers.push(() => memory.close());
    return memory;
  }

  /**
   * The bridge of the `mcpServers` option once `start()` has run (its `status()` tells which
   * servers are connected and which tools each added); undefined without servers.
   */
  get mcp(): McpBridge | undefined {
    return this.bridge;
  }

  /** Close the connectors (in reverse order; failures are logged) and end the executor's workers. */
  async close(): Promise<void> {
    // A memory call after this finds a closed store (opening none that nothing would close).
    this.memory ??= lazyMemoryStore(() => Promise.reject(new Error('the tool system is closed')));
    for (const closer of this.closers.splice(0).reverse()) {
      try {
        await closer();
      } catch (error) {
        this.logger.warn({ event: 'connector_close_failed', err: (error as Error)?.message }, 'a tool system connector failed to close');
      }
    }
    await this.executor.close();
  }

  /** Is `tool` inside the `tags` selection (the visibility decider's rule)? */
  private selected(tool: RegisteredTool): boolean {
    return isSelected(tool, this.selection);
  }

  /**
   * The system's `tags` selection, as the visibility decider takes it: for a caller that offers
   * a caller-side builtin itself (`toolgate mcp` offers `ask_user` inside it), which no
   * selection holds.
   */
  get selection(): ToolSelectionFilter {
    return { tags: this.tags };
  }

  /**
   * The tools an agent is offered, one version per name (its pin, else the latest), sorted by
   * name: those the visibility decider offers (`offers`: the `tags` selection, the mode, the
   * model class, lazy visibility). In a read-only mode: the read-only tools, plus the tools
   * that may write inside scoped folders when the mode or the agent has some.
   */
  tools(selection: ToolSelection = {}): RegisteredTool[] {
    const mode = resolveMode(selection.mode ?? this.defaultMode);
    if (mode === undefined) return [];
    const viewer = {
      selections: [this.selection], mode, scopedWriteDirs: selection.scopedWriteDirs, scopedWriteTools: this.executor.scopedWriteTools,
      modelClass: selection.modelClass, visibility: selection.visibility,
    };
    const out: RegisteredTool[] = [];
    for (const latest of this.registry.list()) {
      const tool = this.versions.resolve(latest.name, selection.agent);
      if (tool !== undefined && offers(tool, viewer)) out.push(tool);
    }
    return out;
  }

  /**
   * The specs of {@link tools} in a provider's shape. A deprecated version's description
   * starts with `DEPRECATED: <message>`.
   */
  toolSpecs(format: 'openai' | 'openai-strict', selection?: ToolSelection): OpenAITool[];
  toolSpecs(format: 'anthropic', selection?: ToolSelection): AnthropicTool[];
  toolSpecs(format: 'mcp', selection?: ToolSelection): McpTool[];
  toolSpecs(format: ExportFormat, selection: ToolSelection = {}): Array<OpenAITool | AnthropicTool | McpTool> {
    return this.tools(selection).map((tool) => this.spec(tool, format));
  }

  /**
   * One tool's spec in a provider's shape: `openai` / `openai-strict` give a Chat Completions
   * function tool (`{ type: 'function', function: { name, description, parameters } }`, strict
   * mode per OpenAI's structured-outputs rules), `anthropic` a Messages API tool
   * (`{ name, description, input_schema }`), `mcp` a `Tool` of the MCP specification 2025-11-25
   * (`{ name, description, inputSchema, outputSchema?, annotations, _meta }`). A deprecated version's
   * description starts with `DEPRECATED: <message>`. Never throws for a registered tool.
   */
  spec(tool: RegisteredTool, format: 'mcp'): McpTool;
  spec(tool: RegisteredTool, format: ExportFormat): OpenAITool | AnthropicTool | McpTool;
  spec(tool: RegisteredTool, format: ExportFormat): OpenAITool | AnthropicTool | McpTool {
    const deprecated = this.versions.deprecation(tool.name, tool.version);
    const exportable = deprecated === undefined ? tool : {
      name: tool.name, description: `DEPRECATED: ${deprecated}\n\n${tool.description}`, inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema, readOnly: tool.readOnly, kind: tool.kind, tags: tool.tags,
    };
    return exportTool(exportable, format);
  }

  /**
   * Run one call in the system's workspace and mode (unless the options say otherwise), with
   * the agent's version pin. A call to a tool outside the `tags` selection is answered
   * `UNKNOWN_TOOL` before its arguments are read (the tool does not exist for the caller); a
   * call the lazy `visibility` hides is denied `TOOL_HIDDEN` by the visibility decider; a
   * deprecated version's output ends with a note naming the deprecation. Every failure is a
   * result: a path argument that leaves the workspace is answered `PATH_TRAVERSAL` (unless the
   * `pathTraversal` option is `throw`).
   * @throws PathTraversalError only with the option `pathTraversal: 'throw'`.
   */
  async execute(call: ToolCallRequest, options: AgentCallOptions = {}): Promise<ToolExecutionResult> {
    try {
      return await this.run(call, options);
    } catch (error) {
      if (!(error instanceof PathTraversalError) || this.options.pathTraversal === 'throw') throw error;
      const callId = typeof call?.callId === 'string' ? call.callId : '';
      const tool = clip(typeof call?.name === 'string' ? call.name : '?', 200);
      this.logger.warn({ event: 'path_traversal', tool, callId, path: error.path }, 'a tool call tried to leave the workspace');
      // Not run when the executor refused its arguments; a tool that found the escape itself may have acted.
      return failedResult('PATH_TRAVERSAL', `refused: ${error.message}`, { tool, callId, stopReason: refusedBeforeRun(error) ? 'not_run' : 'error' });
    }
  }

  private async run(call: ToolCallRequest, options: AgentCallOptions): Promise<ToolExecutionResult> {
    const { agent, visibility, ...rest } = options;
    if (this.waitForAnswer !== undefined && rest.confirmationHandler === undefined && this.options.executor?.confirmationHandler === undefined) {
      const { waitForAnswer: bound } = this;
      const given = rest.timeoutMs;
      // The bound: the option's, else the call's timeout (the option's or the asking tool's).
      rest.confirmationHandler = waitForAnswerElsewhere((request) => bound || (given ?? this.registry.get(request.tool, request.version)?.timeoutMs ?? 0));
    }
    const name = call !== null && typeof call === 'object' && typeof call.name === 'string' ? call.name : undefined;
    // Sent to a worker of the pool, which decides and runs it (docs/distributed.md).
    if (this.options.queue !== undefined) {
      await this.start();
      return this.queueCaller!.call(call, { session: rest.session ?? this.executor.session, turnId: rest.turnId, signal: rest.signal, timeoutMs: rest.timeoutMs });
    }
    let request = call;
    if (visibility !== undefined) rest.client = withVisibility(rest.client, visibility);
    if (name !== undefined) {
      const tool = this.registry.get(name);
      if (tool !== undefined && !existsFor(tool, this.selection)) return this.notSelected(call, name);
      if (tool?.domain === MEMORY_DOMAIN) rest.client = withServices(rest.client, (servicesOf(rest.client) ?? new CallerServices({})).with({ memory: this.memoryStore() }));
      if (tool !== undefined && SKILL_CATALOG_TOOLS.has(tool.name)) rest.client = withServices(rest.client, (servicesOf(rest.client) ?? new CallerServices({})).with({ configEnv: this.configEnv }));
      if (tool?.domain === TASK_DOMAIN && this.tasks !== undefined) rest.client = withServices(rest.client, (servicesOf(rest.client) ?? new CallerServices({})).with({ tasks: this.tasks.forCaller(options) }));
      const range = call.version ?? this.versions.rangeFor(agent, name);
      if (range !== call.version) request = { ...call, version: range };
    }
    const result = await this.executor.execute(request, { ...rest, mode: rest.mode ?? this.defaultMode });
    const deprecated = result.version === undefined ? undefined : this.versions.deprecation(result.tool, result.version);
    if (deprecated !== undefined) result.output += `\n[note: ${result.tool} ${result.version} is deprecated: ${deprecated}]`;
    // For the developer (the model reads `output`): how a person could have been asked.
    if (result.errorCode === 'CONFIRMATION_REQUIRED' && result.error !== undefined && typeof rest.confirmationHandler !== 'function' && rest.confirm !== true) result.error += ` ${howToAsk(this.executor.ledger, this.workspace)}`;
    return result;
  }

  /**
   * What the gates would decide about `call` now, without running it (see
   * `ToolExecutor.preview`), in the system's mode and with the agent's version pin. Adapters
   * use it for their framework's `needsApproval`. A tool outside the `tags` selection is a
   * `deny` (`UNKNOWN_TOOL`); one that the given lazy `visibility` hides, a `deny` (`TOOL_HIDDEN`).
   */
  async preview(call: ToolCallRequest, options: AgentCallOptions = {}): Promise<CallPreview> {
    const { agent, visibility, ...rest } = options;
    const name = call !== null && typeof call === 'object' && typeof call.name === 'string' ? call.name : undefined;
    let request = call;
    if (visibility !== undefined) rest.client = withVisibility(rest.client, visibility);
    if (name !== undefined) {
      const tool = this.registry.get(name);
      if (tool !== undefined && !existsFor(tool, this.selection)) return { verdict: 'deny', code: 'UNKNOWN_TOOL', reason: this.notSelected(call, name).output };
      const range = call.version ?? this.versions.rangeFor(agent, name);
      if (range !== call.version) request = { ...call, version: range };
    }
    return this.executor.preview(request, { ...rest, mode: rest.mode ?? this.defaultMode });
  }

  /** Does this call write (the version it would run is not read-only)? Unknown tools: false. */
  writes(call: ToolCallRequest, options: AgentCallOptions = {}): boolean {
    if (call === null || typeof call !== 'object' || typeof call.name !== 'string') return false;
    return this.executor.writes({ ...call, version: call.version ?? this.versions.rangeFor(options.agent, call.name) });
  }

  private notSelected(call: ToolCallRequest, name: string): ToolExecutionResult {
    const names = [...new Set(this.registry.list().filter((t) => this.selected(t)).map((t) => t.name))];
    const message = `Unknown tool ${JSON.stringify(clip(name, 100))}. Available tools: ${names.join(', ') || '(none)'}.`;
    return failedResult('UNKNOWN_TOOL', message, { tool: clip(name, 200), callId: typeof call.callId === 'string' ? call.callId : '' });
  }
}

/** The state folder a ledger option names: its `dir`, or the folder of its SQLite `file` (a given store's, when that is a path). */
function stateDirOf(ledger: unknown): string | undefined {
  if (ledger === null || typeof ledger !== 'object') return undefined;
  const { dir, file } = ledger as { dir?: unknown; file?: unknown };
  if (typeof dir === 'string') return dir;
  return typeof file === 'string' && !isPostgresUrl(file) ? path.dirname(path.resolve(file)) : undefined;
}

/** The real path of `folder`, or the folder itself when it cannot be resolved. */
function realPath(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}

/** `client` carrying `visibility` in its caller services (what the visibility decider reads). */
function withVisibility(client: AgentCallOptions['client'], visibility: DomainVisibility): AgentCallOptions['client'] {
  return withServices(client, (servicesOf(client) ?? new CallerServices({})).with({ visibility }));
}
