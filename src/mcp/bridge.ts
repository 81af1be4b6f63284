/**
 * The MCP bridge (client side): connects to external MCP servers and registers one proxy tool
 * per server tool in a {@link ToolRegistry}, so that their tools run through the
 * {@link ToolExecutor} behind the same gates, timeouts and close-out as native tools.
 *
 * - Names: `{server}__{tool}`, fitted to our name pattern ({@link assignProxyNames}, case T11).
 * - Safety class: a proxy is read-only, of kind `mcp_read`, only when its server is `trusted`
 *   and the tool says `annotations.readOnlyHint: true`; otherwise it counts as writing (read-only
 *   modes deny it), of kind `mcp_write_or_unknown` ({@link bridgedKind}).
 * - The client SDK, `@modelcontextprotocol/client`, is an optional peer dependency, loaded when
 *   a server is to be started (`client-sdk.ts`): without it {@link McpBridge.connect} throws a
 *   `PackageUnavailableError` naming it and the `npm install` command (not a server's failure:
 *   no server could start).
 * - Availability fails open (case T12): a server that does not start, or stops later, is
 *   logged; the others keep working, and calls to its proxies end `SERVER_UNAVAILABLE`.
 * - `notifications/tools/list_changed` refreshes a server's proxies.
 * - Progress (case T13): each progress notification restarts the per-request timeout
 *   (`timeoutMs`); the call stays bounded by `maxTotalTimeoutMs` (the SDK's
 *   `resetTimeoutOnProgress` and `maxTotalTimeout` request options), and by the executor's
 *   own timeout for the proxy, set just above that maximum. Progress is passed on to the
 *   proxy's caller (`ctx.progress`), and so are the server's log messages while its calls run
 *   (`ctx.log`) and its elicitation and sampling requests (`ctx.elicit`, `ctx.sample`, when
 *   exactly one of its calls is running: the protocol does not say which call asks).
 * - Metadata: the server's `title` and annotations are kept as hints for our own `tools/list`
 *   ({@link RegisterOptions.upstream}); decisions still come from `trusted` and the kind.
 * - Confirmation: tools that do not count as read-only need confirmation unless the server's
 *   config says `requiresConfirmation: false` (as our own writing tools do).
 * - Revisions (SDK v2, `@modelcontextprotocol/client`): each server is asked `server/discover`
 *   first (the SDK's `versionNegotiation: 'auto'`). A server that answers with 2026-07-28 is
 *   spoken to in that revision (every request carries its `_meta` envelope; an elicitation or
 *   sampling request arrives as an "input required" result, which the SDK answers through the
 *   same handlers and retries); any other answer, and silence on stdio, falls back to the
 *   2025-11-25 `initialize` handshake. Over stdio the SDK probes in a short-lived second copy
 *   of the server process (its stderr discarded), so a server that exits on an unknown
 *   request still gets a clean start; a server's `protocolVersion: "2025-11-25"` skips the
 *   question (and that second process). `tools/list` follows cursors in both revisions.
 *
 * @module
 */
import type { CallToolResult, Client, Tool as McpToolSpec, Transport } from '@modelcontextprotocol/client';
import { isValidVersion } from '../util/semver.js';
import { commandEnv } from '../sandbox/child-env.js';
import { ToolExecutionError } from '../errors/errors.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { ActionKind } from '../policy/action-kinds.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import { TOOL_LOG_LEVELS, type JsonSchema, type SampleRequest, type ToolContext, type ToolLogLevel } from '../types/tool.js';
import { checkMcpServers, type McpHttpServerConfig, type McpServerConfig, type McpStdioServerConfig, type OAuthAuthorizer } from './config.js';
import { assignProxyNames, serverPrefix } from './proxy-names.js';
import { bridgedDescription, bridgedKind, contentText, upstreamOf } from './bridged-tool.js';
import { loadClientSdk, type ClientSdk } from './client-sdk.js';

/** Default per-request timeout of a bridged call without progress, in ms (the SDK's default). */
const DEFAULT_MCP_TIMEOUT_MS = 60_000;
/** Default total bound of a bridged call, progress or not, in ms (10 minutes). */
const DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS = 600_000;
/** Default wait for a server to start and list its tools, in ms. */
const DEFAULT_MCP_START_TIMEOUT_MS = 30_000;
/** Tag every proxy carries (it also marks the tool as reaching outside, for MCP `openWorldHint`). */
const MCP_TAG = 'mcp';
/** Most `tools/list` pages read from one server (a cursor that never ends fails the start). */
const MAX_TOOL_PAGES = 100;
/** Lines of a stdio server's stderr kept for error messages. */
const STDERR_LINES = 20;


/**
 * A transport of the MCP client SDK (`Transport` of `@modelcontextprotocol/client`: its
 * `InMemoryTransport`, `StdioClientTransport`, `StreamableHTTPClientTransport`, or one of your
 * own), as {@link McpBridgeOptions.transportFor} takes it. Declared here by the shape every such
 * transport has, so that toolgate's types compile without that optional package installed;
 * pass the SDK's object as it is.
 */
export interface McpClientTransport {
  /** Starts the transport (connects, or spawns the server); the SDK's `Client.connect` calls it. */
  start(): Promise<void>;
  /** Sends one JSON-RPC message (the SDK's `JSONRPCMessage`, with its `TransportSendOptions`). */
  send(message: unknown, options?: unknown): Promise<void>;
  /** Closes the transport. */
  close(): Promise<void>;
}

/** Options of {@link McpBridge.connect}; every option documents its default. */
export interface McpBridgeOptions {
  /** pino logger for connection events (start failures, exits, refreshes). Default: silent. */
  logger?: Logger;
  /** How toolgate introduces itself to the servers. Default `{ name: 'toolgate', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /** Called after a server's proxies were added, changed or removed (a `list_changed`, an exit). Default none. */
  onToolsChanged?: (server: string) => void;
  /** Host environment that stdio servers' allowlisted variables are taken from. Default `process.env`. */
  hostEnv?: NodeJS.ProcessEnv;
  /** Variables toolgate itself adds to every stdio server's environment (before the config's `env`). Default none. */
  childEnv?: Record<string, string>;
  /**
   * The transport to reach a server by, instead of starting its `command` or dialing its `url`
   * (an in-process server, as tests connect over the SDK's in-memory transport); `undefined`
   * for a server reached as its config says. Default: every server is reached as its config says.
   */
  transportFor?: (server: string, config: McpServerConfig) => McpClientTransport | undefined;
  /**
   * State folder where servers with `oauth` keep their token files (`mcp-oauth/`, mode 0600;
   * src/mcp/oauth.ts). Default none: such servers fail to start, saying so.
   */
  oauthStateDir?: string;
  /**
   * Shows the person an authorization URL (the interactive OAuth step; the redirect comes back
   * to a loopback listener). Default none: a server that needs the person fails to start with
   * an error naming `toolgate mcp login <server>`.
   */
  oauthAuthorizer?: OAuthAuthorizer;
}

/** State of one bridged server. */
export interface McpServerStatus {
  /** The server's config key. */
  name: string;
  /** `connected`; `failed` (did not start); `closed` (stopped after starting, or the bridge was closed). */
  state: 'connected' | 'failed' | 'closed';
  /** Why it is not connected. */
  error?: string;
  /**
   * The protocol revision spoken with it (`2026-07-28`, `2025-11-25`, or the older revision
   * it offered), once it connected.
   */
  protocolVersion?: string;
  /** Proxy names of its tools registered now. */
  tools: string[];
}

/** A bridged tool: where its proxy sends calls. */
interface ProxyTarget {
  /** Proxy name in the registry. */
  local: string;
  /** Tool name on the server. */
  remote: string;
  /** The registered proxy. */
  registered: RegisteredTool;
}

/** One bridged server. */
class ServerConnection {
  client: Client | undefined;
  sdk: ClientSdk | undefined; // the client SDK, loaded by start() (client-sdk.ts)
  transport: Transport | undefined;
  state: McpServerStatus['state'] = 'closed';
  error: string | undefined;
  readonly proxies = new Map<string, ProxyTarget>();
  readonly stderr: string[] = [];
  /** Contexts of this server's calls running now (where its log messages and requests go). */
  readonly running = new Set<ToolContext>();
  closing = false;
  version = '0.0.0';

  constructor(
    readonly name: string,
    readonly prefix: string,
    readonly config: McpServerConfig,
  ) {}

  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  }

  get maxTotalTimeoutMs(): number {
    return this.config.maxTotalTimeoutMs ?? DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS;
  }

  stderrTail(): string {
    return this.stderr.length ? ` Its last stderr lines: ${this.stderr.join(' | ').slice(-1000)}` : '';
  }
}

/**
 * Bridges MCP servers into a registry. Create with {@link McpBridge.connect}; call
 * {@link McpBridge.close} when done (it stops stdio servers and removes the proxies).
 *
 * ```ts
 * const bridge = await McpBridge.connect(registry, { files: { command: 'mcp-server-filesystem', args: ['.'] } });
 * await executor.call('files__read_text_file', { path: 'README.md' });
 * await bridge.close();
 * ```
 */
export class McpBridge {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly logger: Logger;
  private closed = false;

  private constructor(
    /** The registry the proxies live in. */
    readonly registry: ToolRegistry,
    private readonly options: McpBridgeOptions,
  ) {
    this.logger = options.logger ?? createLogger('silent');
  }

  /**
   * Connect to every server (in parallel) and register their tools' proxies. Never fails for
   * a server that does not start: that server is logged (`warn`, event `mcp_server_failed`)
   * and reported by {@link status}; the others are bridged.
   * @param registry - where proxies are registered.
   * @param servers - the `mcpServers` section (checked here; `disabled` servers are skipped).
   * @throws ToolgateOptionError when `servers` does not fit the config shape.
   * @throws PackageUnavailableError (code `PACKAGE_UNAVAILABLE`) when a server is to be started
   *   and the MCP client SDK, `@modelcontextprotocol/client` (an optional peer dependency), is
   *   not installed: the message names it and `npm install @modelcontextprotocol/client`.
   *   Nothing is started then.
   */
  static async connect(registry: ToolRegistry, servers: Record<string, McpServerConfig> | undefined, options: McpBridgeOptions = {}): Promise<McpBridge> {
    const checked = checkMcpServers(servers ?? {});
    const bridge = new McpBridge(registry, options);
    const entries = Object.entries(checked).filter(([, config]) => config.disabled !== true);
    // Not a server's failure (which fails open): without the SDK no server can start.
    if (entries.length > 0) await loadClientSdk();
    for (const [name, config] of entries) bridge.connections.set(name, new ServerConnection(name, serverPrefix(name)!, config));
    await Promise.all([...bridge.connections.values()].map((conn) => bridge.start(conn)));
    return bridge;
  }

  /** Each server's state and registered proxies, in config order. */
  status(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => {
      const s: McpServerStatus = { name: c.name, state: c.state, tools: [...c.proxies.keys()].sort() };
      if (c.error !== undefined) s.error = c.error;
      const version = c.client?.getNegotiatedProtocolVersion();
      if (version !== undefined && c.state !== 'failed') s.protocolVersion = version;
      return s;
    });
  }

  /** Proxy names registered now, of one server or of all. */
  proxyNames(server?: string): string[] {
    const conns = server === undefined ? [...this.connections.values()] : [this.connections.get(server)].filter((c) => c !== undefined);
    return conns.flatMap((c) => [...c.proxies.keys()]).sort();
  }

  /**
   * List a server's tools again and bring its proxies up to date (what a
   * `notifications/tools/list_changed` does). A server that is not connected keeps its proxies,
   * which answer `SERVER_UNAVAILABLE`.
   */
  async refresh(server: string): Promise<void> {
    const conn = this.connections.get(server);
    if (conn?.client === undefined || conn.state !== 'connected') return;
    const tools = await listAllTools(conn.client, conn.timeoutMs);
    this.sync(conn, tools);
  }

  /**
   * Stop every server (stdio children end: stdin closed, then TERM, then KILL, as the SDK's
   * transport does), and remove every proxy from the registry.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      [...this.connections.values()].map(async (conn) => {
        conn.closing = true;
        for (const name of conn.proxies.keys()) this.registry.unregister(name);
        conn.proxies.clear();
        this.registry.markUnavailable(conn.prefix, undefined);
        conn.state = 'closed';
        conn.error ??= 'the bridge was closed';
        try {
          await conn.client?.close();
        } catch (error) {
          this.logger.warn({ event: 'mcp_close_failed', server: conn.name, err: (error as Error).message }, 'MCP server did not close cleanly');
        }
      }),
    );
  }

  private async start(conn: ServerConnection): Promise<void> {
    const started = Date.now();
    const startTimeout = conn.config.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
    const sdk = (conn.sdk = await loadClientSdk());
    const client = new sdk.Client(this.options.clientInfo ?? { name: 'toolgate', version: '0.1.0' }, {
      // Both revisions: `server/discover` first; a 2026-07-28 answer selects the stateless
      // revision, anything else (an error, no answer on stdio) the 2025-11-25 `initialize`.
      // The probe gets half the start time: a stdio server that never answers it is taken for a
      // 2025-11-25 server when it times out, and the real start needs the other half.
      versionNegotiation: { mode: negotiationMode(conn.config.protocolVersion), probe: { timeoutMs: Math.max(1, Math.floor(startTimeout / 2)) } },
      listMaxPages: MAX_TOOL_PAGES,
      // Elicitation and sampling are passed on to whoever called the bridged tool (ctx.elicit,
      // ctx.sample); defaults of omitted fields are applied (SEP-1034).
      capabilities: { elicitation: { form: { applyDefaults: true } }, sampling: {} },
      listChanged: {
        tools: {
          autoRefresh: false,
          onChanged: () => {
            this.refresh(conn.name).then(
              () => this.logger.info({ event: 'mcp_tools_changed', server: conn.name, tools: conn.proxies.size }, 'MCP server tools refreshed'),
              (error: unknown) => this.logger.warn({ event: 'mcp_refresh_failed', server: conn.name, err: (error as Error).message }, 'MCP server tools could not be refreshed'),
            );
          },
        },
      },
    });
    conn.client = client;
    this.relayToCallers(conn, client, sdk);
    try {
      conn.transport = this.transportFor(conn, sdk);
      await withTimeout(client.connect(conn.transport, { timeout: startTimeout }), startTimeout, `did not answer initialize within ${startTimeout} ms`);
      const tools = await listAllTools(client, startTimeout);
      const version = client.getServerVersion()?.version;
      if (typeof version === 'string' && isValidVersion(version)) conn.version = version;
      conn.state = 'connected';
      this.registry.markUnavailable(conn.prefix, undefined);
      client.onclose = () => this.lost(conn, 'the server closed the connection (it may have exited)');
      this.sync(conn, tools);
      this.logger.info({ event: 'mcp_server_connected', server: conn.name, protocolVersion: client.getNegotiatedProtocolVersion(), tools: conn.proxies.size, ms: Date.now() - started }, 'MCP server bridged');
    } catch (error) {
      conn.state = 'failed';
      conn.error = `did not start: ${(error as Error)?.message ?? String(error)}.${conn.stderrTail()}`;
      this.logger.warn({ event: 'mcp_server_failed', server: conn.name, err: conn.error }, 'MCP server failed to start; its tools are not available, the rest keeps working');
      // Its tools were never listed: a call to one must still say why, not "unknown tool" (T12).
      this.registry.markUnavailable(conn.prefix, `server unavailable: the MCP server ${JSON.stringify(conn.name)} ${conn.error} Its tools cannot run; other tools still work.`);
      client.onclose = undefined;
      await client.close().catch(() => undefined);
    }
  }

  /**
   * Pass what a server sends besides results to the callers of its running calls: log
   * messages to each (`ctx.log`); elicitation and sampling requests to the one running call
   * (refused when none or several run: the protocol does not say which call asks).
   */
  private relayToCallers(conn: ServerConnection, client: Client, { ProtocolError, ProtocolErrorCode }: ClientSdk): void {
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, data, logger } = notification.params;
      const known: ToolLogLevel = (TOOL_LOG_LEVELS as readonly string[]).includes(level) ? level : 'info';
      if (conn.running.size === 0) {
        this.logger.debug({ event: 'mcp_server_log', server: conn.name, level, logger, data }, 'MCP server log message');
        return;
      }
      for (const ctx of conn.running) ctx.log(known, logger === undefined ? data : { logger, data });
    });
    const only = (what: string): ToolContext => {
      if (conn.running.size !== 1) {
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `toolgate cannot pass this ${what} on: ${conn.running.size === 0 ? 'none of your tools is running' : 'several of your tools are running and the request does not say which one asks'}`);
      }
      return conn.running.values().next().value!;
    };
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; message: string; requestedSchema?: JsonSchema };
      if (params.mode === 'url' || params.requestedSchema === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'toolgate passes on form elicitation only');
      const ctx = only('elicitation');
      const answer = await ctx.elicit(params.message, params.requestedSchema);
      return answer.content === undefined ? { action: answer.action } : { action: answer.action, content: answer.content };
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const ctx = only('sampling request');
      const answer = await ctx.sample(request.params as unknown as SampleRequest);
      return answer as never;
    });
  }

  private lost(conn: ServerConnection, reason: string): void {
    if (conn.closing || conn.state !== 'connected') return;
    conn.state = 'closed';
    conn.error = `${reason}.${conn.stderrTail()}`;
    this.logger.warn({ event: 'mcp_server_lost', server: conn.name, err: conn.error }, 'MCP server stopped; its tools answer "server unavailable", the rest keeps working');
    this.options.onToolsChanged?.(conn.name);
  }

  private transportFor(conn: ServerConnection, { BridgeOAuthProvider, StdioClientTransport, StreamableHTTPClientTransport, oauthFetch }: ClientSdk): Transport {
    const config = conn.config;
    const given = this.options.transportFor?.(conn.name, config);
    // A transport of the client SDK, as the option says (its type is declared by shape).
    if (given !== undefined) return given as Transport;
    if ('url' in config) {
      const http = config as McpHttpServerConfig;
      const requestInit = { headers: { ...(http.headers ?? {}) } };
      if (http.oauth === undefined) return new StreamableHTTPClientTransport(new URL(http.url), { requestInit });
      if (this.options.oauthStateDir === undefined) throw new Error('it uses OAuth, and this bridge has no state folder to keep its tokens in (oauthStateDir)');
      const provider = new BridgeOAuthProvider({
        server: conn.name, url: http.url, config: http.oauth === true ? {} : http.oauth, stateDir: this.options.oauthStateDir, authorizer: this.options.oauthAuthorizer,
      });
      return new StreamableHTTPClientTransport(new URL(http.url), { requestInit, fetch: oauthFetch(provider, http.url) });
    }
    const stdio = config as McpStdioServerConfig;
    // The allowlist shell commands get, then what the config names (the operator's choice,
    // secrets included: a server may need its API token).
    const env = { ...commandEnv(this.options.hostEnv ?? process.env), ...(this.options.childEnv ?? {}), ...(stdio.env ?? {}) };
    const transport = new StdioClientTransport({ command: stdio.command, args: stdio.args ?? [], env, cwd: stdio.cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        conn.stderr.push(line.slice(0, 500));
        if (conn.stderr.length > STDERR_LINES) conn.stderr.shift();
        this.logger.debug({ event: 'mcp_server_stderr', server: conn.name, line: line.slice(0, 500) }, 'MCP server stderr');
      }
    });
    return transport;
  }

  /** Register, replace or remove a server's proxies so that they match `tools`. */
  private sync(conn: ServerConnection, tools: McpToolSpec[]): void {
    if (this.closed) return;
    const own = new Set(conn.proxies.keys());
    const names = assignProxyNames(
      tools.map((t) => ({ server: conn.name, prefix: conn.prefix, tool: t.name })),
      (name) => !own.has(name) && this.registry.has(name),
    );
    const next = new Map<string, ProxyTarget>();
    for (const spec of tools) {
      const local = names.get(`${conn.name}\u0000${spec.name}`)!;
      if (next.has(local)) continue; // a server listing the same name twice
      const existing = conn.proxies.get(local);
      try {
        const registered = this.proxyFor(conn, spec, local, existing);
        next.set(local, { local, remote: spec.name, registered });
      } catch (error) {
        this.logger.warn({ event: 'mcp_tool_skipped', server: conn.name, tool: spec.name, err: (error as Error).message }, 'MCP tool not bridged');
      }
    }
    for (const name of conn.proxies.keys()) if (!next.has(name)) this.registry.unregister(name);
    conn.proxies.clear();
    for (const [name, target] of next) conn.proxies.set(name, target);
    this.options.onToolsChanged?.(conn.name);
  }

  /** The registered proxy of one tool: the existing one when nothing changed, else a new registration. */
  private proxyFor(conn: ServerConnection, spec: McpToolSpec, local: string, existing: ProxyTarget | undefined): RegisteredTool {
    const inputSchema = spec.inputSchema as JsonSchema;
    if (inputSchema === null || typeof inputSchema !== 'object' || inputSchema.type !== 'object') {
      throw new Error('its inputSchema is not an object schema');
    }
    const kind = bridgedKind(conn.config, spec);
    const readOnly = kind === 'mcp_read';
    // Every description is sent to the model with every request: a server's must not fill the context.
    const description = bridgedDescription(spec, conn.name);
    const outputSchema = spec.outputSchema && typeof spec.outputSchema === 'object' ? (spec.outputSchema as JsonSchema) : null;
    // Writing (or unknown) tools ask, as our own writing tools do, unless the config says otherwise.
    const requiresConfirmation = conn.config.requiresConfirmation ?? !readOnly;
    const upstream = upstreamOf(spec);
    if (existing !== undefined) {
      const same = existing.remote === spec.name && existing.registered.readOnly === readOnly && existing.registered.description === description
        && existing.registered.requiresConfirmation === requiresConfirmation
        && JSON.stringify(existing.registered.upstream) === JSON.stringify(upstream)
        && JSON.stringify(existing.registered.inputSchema) === JSON.stringify(inputSchema) && JSON.stringify(existing.registered.outputSchema) === JSON.stringify(outputSchema);
      if (same && this.registry.get(local) === existing.registered) return existing.registered;
    }
    const server = conn.name;
    const remote = spec.name;
    // The registry's public path (a replacement answers the calls still waiting TOOL_REPLACED).
    return this.registry.register(
      {
        name: local,
        version: conn.version,
        description,
        tags: [MCP_TAG, `mcp:${conn.prefix}`],
        kind,
        readOnly,
        requiresConfirmation,
        // The SDK ends the call at maxTotalTimeoutMs with its own message; the executor's
        // timeout is the backstop just after it.
        timeoutMs: Math.min(conn.maxTotalTimeoutMs + 1000, 2_147_483_647),
        inputSchema,
        outputSchema,
        source: `mcp:${conn.name}`,
        // The same tool listed again (list_changed, a reconnect) keeps its revision and its
        // remembered approvals; a changed description or annotations change it (the
        // schemas and safety flags count in every revision).
        revision: `mcp:${JSON.stringify([server, remote, description, upstream ?? null])}`,
        run: (args: Record<string, unknown>, ctx: ToolContext) => this.callRemote(server, remote, args, ctx),
      },
      { bridged: true, foreignSchemas: true, upstream },
    );
  }

  /**
   * Run one bridged call (what a proxy's `run` does).
   * @throws ToolExecutionError `SERVER_UNAVAILABLE` when the server is not connected, `TIMEOUT`
   *   when the call ran past its timeouts, `TOOL_ERROR` when the server reports an error
   *   (`isError`) or refuses the request.
   */
  async callRemote(server: string, remote: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const conn = this.connections.get(server);
    if (conn === undefined || conn.client === undefined || conn.state !== 'connected') {
      const why = conn?.error ?? 'it is not connected';
      throw new ToolExecutionError(`server unavailable: the MCP server ${JSON.stringify(server)} cannot run ${remote} (${why}). Other tools still work; do not retry this one until the server is back.`, 'SERVER_UNAVAILABLE');
    }
    let total = conn.maxTotalTimeoutMs;
    if (ctx.deadline !== undefined) total = Math.max(1, Math.min(total, ctx.deadline - Date.now()));
    let progressCount = 0;
    let result: CallToolResult;
    conn.running.add(ctx);
    try {
      // The call's span context travels as `_meta.traceparent` (the W3C header value), so that a
      // server that traces joins the caller's trace.
      const params = ctx.traceparent === undefined ? { name: remote, arguments: args } : { name: remote, arguments: args, _meta: { traceparent: ctx.traceparent } };
      result = (await conn.client.callTool(params, {
        signal: ctx.signal,
        timeout: Math.min(conn.timeoutMs, total),
        resetTimeoutOnProgress: true,
        maxTotalTimeout: total,
        onprogress: (progress) => {
          progressCount++;
          ctx.progress(progress.progress, progress.total, progress.message);
        },
      })) as CallToolResult;
    } catch (error) {
      throw this.callError(conn, remote, error, progressCount, total);
    } finally {
      conn.running.delete(ctx);
    }
    return this.resultValue(conn, remote, result, ctx);
  }

  private callError(conn: ServerConnection, remote: string, error: unknown, progress: number, total: number): ToolExecutionError {
    const message = (error as Error)?.message ?? String(error);
    const { SdkError, SdkErrorCode, ProtocolError } = conn.sdk!; // a call runs on a started connection: its SDK is loaded
    if (error instanceof SdkError || error instanceof ProtocolError) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        const data = error.data as { maxTotalTimeout?: number } | undefined;
        const text = data?.maxTotalTimeout !== undefined
          ? `${remote} on MCP server ${conn.name} ran past its total limit of ${total} ms (it had reported progress ${progress} times) and was cancelled; try a smaller request.`
          : `${remote} on MCP server ${conn.name} sent no result or progress for ${conn.timeoutMs} ms and was cancelled; try a smaller request.`;
        return new ToolExecutionError(text, 'TIMEOUT', { cause: error });
      }
      if ((error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) || conn.state !== 'connected') {
        this.lost(conn, `the connection closed during a call (${message})`);
        return new ToolExecutionError(`server unavailable: the MCP server ${JSON.stringify(conn.name)} stopped while running ${remote} (${conn.error ?? message}). Other tools still work.`, 'SERVER_UNAVAILABLE', { cause: error });
      }
      return new ToolExecutionError(`MCP server ${conn.name} refused ${remote}: ${message}`, 'TOOL_ERROR', { cause: error });
    }
    if (conn.state !== 'connected') {
      return new ToolExecutionError(`server unavailable: the MCP server ${JSON.stringify(conn.name)} stopped while running ${remote} (${conn.error ?? message}). Other tools still work.`, 'SERVER_UNAVAILABLE', { cause: error });
    }
    return new ToolExecutionError(`calling ${remote} on MCP server ${conn.name} failed: ${message}`, 'TOOL_ERROR', { cause: error });
  }

  /** The proxy's return value: `structuredContent` when the tool declares an output schema, else the content as text. */
  private resultValue(conn: ServerConnection, remote: string, result: CallToolResult, ctx: ToolContext): unknown {
    const text = contentText(result, ctx);
    if (result.isError === true) {
      throw new ToolExecutionError(`${remote} on MCP server ${conn.name} reported an error: ${text || '(no message)'}`, 'TOOL_ERROR');
    }
    const tool = [...conn.proxies.values()].find((p) => p.remote === remote)?.registered;
    if (tool?.outputSchema && result.structuredContent !== undefined) return result.structuredContent;
    return text;
  }
}

/**
 * Every page of `tools/list`: the SDK's list without a cursor follows `nextCursor` page by page
 * (at most {@link MAX_TOOL_PAGES}) and keeps the aggregate, from which `callTool` checks
 * structured results against each tool's output schema. `refresh`: a list the server marked
 * cacheable (2026-07-28 `ttlMs`) is fetched again all the same, since we list only at start
 * and after `list_changed`.
 */
async function listAllTools(client: Client, timeout: number): Promise<McpToolSpec[]> {
  return (await client.listTools(undefined, { timeout, cacheMode: 'refresh' })).tools;
}

/** The SDK's negotiation mode for a server's `protocolVersion` choice. */
function negotiationMode(choice: McpServerConfig['protocolVersion']): 'auto' | 'legacy' | { pin: string } {
  if (choice === '2025-11-25') return 'legacy';
  if (choice === '2026-07-28') return { pin: choice };
  return 'auto';
}

function withTimeout<T>(pending: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    pending,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
