/**
 * The MCP server functions of the root entry `toolgate`, which load the MCP server modules
 * and the SDK (`@modelcontextprotocol/server` with `@modelcontextprotocol/core` and zod, about
 * 90 ms of CPU) on first use instead of at `import('toolgate')`: {@link createMcpServer} is
 * synchronous and returns the SDK's `Server`, so the modules (`server-modules.ts`) are loaded
 * with Node's synchronous `require` of an ES module (Node 20.19 and later, which
 * package.json's `engines` asks for). The modules and the SDK are then the ES builds every
 * `import` gets: one `Server` class, one `ProtocolError`, in a process.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type { Server } from '@modelcontextprotocol/server';
import type { McpEra, McpServeOptions, McpServerHandle } from './server.js';
import type { InitializeRequest } from './early-initialize.js';
import type { McpHttpOptions } from './http-server.js';

type ServerModules = typeof import('./server-modules.js');

let modules: ServerModules | undefined;

/** The MCP server modules, loaded now on first use (a synchronous `require` of the ES module `server-modules.js`). */
function mcpServerModules(): ServerModules {
  // Not named `require`: the build's bundler would take a call of that name for its own.
  const load = createRequire(import.meta.url);
  modules ??= load('./server-modules.js') as ServerModules;
  return modules;
}

/**
 * One MCP server over the registry of `options.system`, for one protocol era. Connect it to
 * one transport: a 2025-era server serves one connection or HTTP session, a 2026-07-28 one a
 * connection (stdio) or a single HTTP request (`createMcpHandler` asks for one per request).
 * The first call loads the MCP server SDK (`import('toolgate')` does not).
 * @param context - the era it serves (default `legacy`: an `initialize` picks the revision).
 * @throws ToolgateOptionError when `system` is not a `ToolSystem`, or `lazyDomains`, `answerWaitMs`, `heartbeatMs` or `toolsPageSize` is malformed.
 */
export function createMcpServer(options: McpServeOptions, context: { era?: McpEra } = {}): Server {
  return mcpServerModules().createMcpServer(options, context);
}

/**
 * Serve over stdio (this process's stdin and stdout; logs must go to stderr).
 * @returns a handle; the server also stops when stdin closes. `tasksIdle` settles once every
 *   task this server started has ended or waits for an answer kept in the ledger (what
 *   `toolgate mcp` waits for after its client went away, so that started tasks finish).
 *   With `answered`, the `initialize` request already answered on `stdout`
 *   (`answerInitialize`): the server is handed it first and does not answer it again;
 *   `streams.stdin` is then what followed it.
 */
export async function serveStdio(
  options: McpServeOptions & { answered?: InitializeRequest }, streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<McpServerHandle & { closed: Promise<void>; tasksIdle(): Promise<void> }> {
  return mcpServerModules().serveStdio(options, streams);
}

/**
 * Serve over MCP streamable HTTP (stateful sessions, one {@link createMcpServer} each), bound
 * to loopback by default, with the SDK's DNS-rebinding protection on every bind address (the
 * `Host` header must be one of `hostHeadersFor`).
 *
 * Sessions are bounded: at most `maxSessions` (default 100); one idle for `sessionIdleMs`
 * (default 30 minutes, no request open) is closed; at the cap, the one idle for longest makes
 * room, and when every session has a request open a new one gets 503. Every session's SSE
 * streams are resumable: messages are kept in a bounded event store (1,000 per session),
 * streams start with a priming event carrying `retry: retryMs` (for clients of protocol
 * 2025-11-25 or later), and a client that reconnects with `Last-Event-ID` gets what it missed.
 * Every request must carry the token (one is made unless given or turned off), and MCP tasks
 * are bound to the session (and token) that created them.
 * @returns the endpoint URL, the token requests must carry (`undefined` with `token: false`), and a handle.
 * @throws ToolgateOptionError for a bad `token`, a non-loopback `host` without one, or limits out of range.
 */
export async function serveHttp(options: McpHttpOptions): Promise<McpServerHandle & { url: string; port: number; token: string | undefined }> {
  return mcpServerModules().serveHttp(options);
}
