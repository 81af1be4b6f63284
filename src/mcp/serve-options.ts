/**
 * The options of an MCP server of toolgate ({@link McpServeOptions}, given to `createMcpServer`
 * in `server.ts`, `serveStdio` and `serveHttp`), kept apart from the server's handlers.
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import type { LazyDomainsOptions } from '../registry/lazy-visibility.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { LedgerTaskStore } from './tasks.js';

/** Which protocol era a server answers (see the module's text). */
export type McpEra = 'legacy' | 'modern';

/** Options of `createMcpServer` (`server.ts`); every option documents its default. */
export interface McpServeOptions {
  /**
   * The tool system every call goes through (its tag selection, version pins and deprecation
   * notes apply, as for agents); its registry is what is served. Required.
   */
  system: ToolSystem;
  /** Workspace root of every call. Default: the system's. */
  workspaceRoot?: string;
  /** Agent mode of every call (`default`, `explore`, `plan`). Default: the system's `defaultMode`. */
  mode?: string;
  /** Scoped write folders for read-only modes (workspace-relative). Default none. */
  scopedWriteDirs?: string[];
  /** Serve only these tool names. Default: every tool (narrowed by `tags`). */
  tools?: string[];
  /** Serve only tools carrying at least one of these tags. Default: every tool. */
  tags?: string[];
  /**
   * A question the client cannot be asked (no elicitation) waits in the ledger, without a time
   * bound, for an answer given elsewhere (the cockpit, `toolgate approvals`). Default false:
   * with a ledger it waits {@link answerWaitMs}; without one it is refused at once.
   */
  waitForAnswers?: boolean;
  /**
   * With a ledger and without {@link waitForAnswers}: how long a question the client cannot be
   * asked waits for an answer given elsewhere (`toolgate approvals allow ID`, the cockpit), in
   * milliseconds, before the call is refused (not remembered as a no). The question's id and
   * how to answer it go to the client at once as a log message (and a progress notification
   * when it sent a progress token). Default 45000 (below the 60 s most clients wait for a result).
   */
  answerWaitMs?: number;
  /**
   * Milliseconds a call whose client sent a progress token may go without progress before
   * the server sends one saying it still runs (a heartbeat, again after each such stretch, until
   * its result), so that clients that reset their request timeout on progress keep waiting.
   * Default 10000 (10 s); 0 sends none.
   */
  heartbeatMs?: number;
  /** The cockpit's address (without its login code), named in the messages that say how to answer a question. Default: none. */
  cockpitUrl?: string;
  /**
   * Approve in advance every call that requires confirmation (`--yes`), except a question only
   * a person answers (a protected path's, `always_ask`), which is asked as without it (through
   * the client, else in the ledger). Default false: ask through elicitation, or deny.
   */
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
   * Who this server's client is, for MCP tasks: the tasks it creates are bound to this key, and
   * only a server with the same key finds them (`tasks/get`, `tasks/result`, `tasks/cancel`,
   * `tasks/list`). `serveHttp` gives each session its own (`httpRequestor`: its session id and the server's token),
   * and its 2026-07-28 requests the token's (`tokenRequestor`); a 2026-07-28 request whose HTTP
   * layer passed an `authInfo` is bound to that principal instead.
   * Default `LOCAL_REQUESTOR` (`tasks.ts`; stdio: the local user, across restarts).
   */
  taskRequestor?: string;
  /**
   * Serve `ask_user` when the selection (`tools`, `tags`) would hold it. Default `true`;
   * `false` never lists it (a config file's toolset names exactly the tools it serves).
   */
  askUser?: boolean;
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
  /**
   * Tools per `tools/list` page (1 to 10000); a longer list is sent in pages linked by an opaque
   * `nextCursor` (`tool-pages.ts`). Default 100.
   */
  toolsPageSize?: number;
}
