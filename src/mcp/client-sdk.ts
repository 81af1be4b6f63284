/**
 * The MCP client SDK (`@modelcontextprotocol/client`, its stdio transport, and the OAuth
 * provider built on it), loaded on first use: only a bridge that starts a server needs it, and
 * loading it costs every importer of `toolgate` about 25 ms of CPU (the SDK is ~0.9 MB of
 * JavaScript). The pattern is the one in docs/performance.md ("Loaded on first use"): the
 * module's types come from `import type` at the top of its users, its values from
 * {@link loadClientSdk} in the async path that needs them.
 *
 * The package is an optional peer dependency of toolgate (about 8.4 MiB installed with what
 * only it pulls in: cross-spawn, eventsource, jose, pkce-challenge): `toolgate mcp` serves
 * without it, and only the bridge (`mcpServers`, `toolgate mcp login`) needs it. Without it,
 * {@link loadClientSdk} throws a `PackageUnavailableError` naming the package and the
 * `npm install` command (`src/util/optional-package.ts`).
 *
 * @module
 */
import { loadOptional } from '../util/optional-package.js';

/** The npm package of the MCP client SDK (SDK v2). */
const CLIENT_SDK_PACKAGE = '@modelcontextprotocol/client';

/** What needs the client SDK, as the unavailable error names it. */
const FEATURE = "the MCP bridge (the tools of other MCP servers: the config's mcpServers, toolgate mcp login)";

/**
 * Loads the client SDK (once; later calls get Node's cached modules).
 * @throws PackageUnavailableError (code `PACKAGE_UNAVAILABLE`) naming `@modelcontextprotocol/client`
 *   when it is not installed (or hidden by `TOOLGATE_HIDE_PACKAGES`).
 */
export async function loadClientSdk() {
  // The package first: oauth.ts imports it too, and a missing package must fail here, by name.
  const client = await loadOptional<typeof import('@modelcontextprotocol/client')>(CLIENT_SDK_PACKAGE, FEATURE);
  const [stdio, oauth] = await Promise.all([
    loadOptional<typeof import('@modelcontextprotocol/client/stdio')>('@modelcontextprotocol/client/stdio', FEATURE),
    import('./oauth.js'),
  ]);
  const { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, StreamableHTTPClientTransport } = client;
  const { BridgeOAuthProvider, oauthFetch } = oauth;
  return { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, StreamableHTTPClientTransport, StdioClientTransport: stdio.StdioClientTransport, BridgeOAuthProvider, oauthFetch };
}

/** What {@link loadClientSdk} gives. */
export type ClientSdk = Awaited<ReturnType<typeof loadClientSdk>>;
