/**
 * The MCP client SDK (`@modelcontextprotocol/client`, its stdio transport, and the OAuth
 * provider built on it), loaded on first use: only a bridge that starts a server needs it, and
 * loading it costs every importer of `toolgate` about 25 ms of CPU (the SDK is ~0.9 MB of
 * JavaScript). The pattern is the one in docs/performance.md ("Loaded on first use"): the
 * module's types come from `import type` at the top of its users, its values from
 * {@link loadClientSdk} in the async path that needs them.
 *
 * @module
 */

/** Loads the client SDK (once; later calls get Node's cached modules). */
export async function loadClientSdk() {
  const [client, stdio, oauth] = await Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio'), import('./oauth.js')]);
  const { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, StreamableHTTPClientTransport } = client;
  const { BridgeOAuthProvider, oauthFetch } = oauth;
  return { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, StreamableHTTPClientTransport, StdioClientTransport: stdio.StdioClientTransport, BridgeOAuthProvider, oauthFetch };
}

/** What {@link loadClientSdk} gives. */
export type ClientSdk = Awaited<ReturnType<typeof loadClientSdk>>;
