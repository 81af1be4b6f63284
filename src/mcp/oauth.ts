/**
 * OAuth 2.1 for bridged MCP servers (client side): the MCP authorization the SDK implements
 * (`@modelcontextprotocol/client`'s auth: protected-resource and authorization-server
 * metadata discovery, dynamic client registration, client ID metadata documents, PKCE, token
 * refresh, step-up on `insufficient_scope`), given an {@link OAuthClientProvider} that keeps
 * the server's client registration and tokens in one file in the state folder.
 *
 * - The file: `<stateDir>/mcp-oauth/<name>-<hash of name and URL>.json`, mode 0600 in a 0700
 *   folder, written to a temporary file and renamed (a crash leaves the old file or the new
 *   one, never half of one). Tokens and client secrets live only there and in memory: they are
 *   never put in a log line, a tool's input or output, or the ledger.
 * - The interactive step (the person approves in a browser): an {@link OAuthAuthorizer} opens
 *   the authorization URL (the CLI prints it), and a loopback listener
 *   (`http://127.0.0.1:<port>/callback`, RFC 8252) receives the redirect with the code. A
 *   bridge without an authorizer (`toolgate mcp`) fails the server with
 *   {@link OAuthLoginNeededError}, which names `toolgate mcp login <server>`.
 * - Why a fetch wrapper ({@link oauthFetch}) rather than the transport's `authProvider`: the
 *   SDK's transport (v1, and v2 still) ends an interactive authorization with
 *   `UnauthorizedError` (the caller must call `finishAuth` and connect again), so a login or a
 *   step-up asked in the middle of a call would fail the call. The wrapper completes the
 *   authorization in place and sends the refused request once more (a request answered
 *   401/403 did not run), as the conformance suite's reference client does. It sits under the
 *   SDK's version probe too: `server/discover` answered 401 is authorized and sent again, so
 *   the probe sees the server's real answer.
 * - RFC 9207: the `iss` of the redirect is passed to the SDK, which checks it against the
 *   authorization server's metadata before the code is redeemed (mix-up defence).
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  auth, createPrivateKeyJwtAuth, extractWWWAuthenticateParams, IssuerMismatchError, UnauthorizedError,
  type AddClientAuthentication, type FetchLike, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState,
  type StoredOAuthClientInformation, type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { OAuthClientInformationSchema, OAuthTokensSchema } from '@modelcontextprotocol/core';
import type { McpOAuthConfig, OAuthAuthorizer } from './config.js';

/** A server needs the person to authorize toolgate, and this bridge cannot ask (no authorizer). */
class OAuthLoginNeededError extends Error {
  constructor(readonly server: string) {
    super(`the MCP server ${JSON.stringify(server)} needs authorization (OAuth): run "toolgate mcp login ${server} --config FILE" once, open the URL it prints and approve; the tokens are then kept in the state folder and refreshed`);
    this.name = 'OAuthLoginNeededError';
  }
}

/** What the redirect back from the authorization server carried. */
interface AuthorizationRedirect {
  code: string;
  /** The authorization server's `iss` parameter (RFC 9207), when it sent one. */
  iss?: string;
}

/** What the token file holds. */
interface StoredOAuth {
  /** The server URL the file belongs to (another URL starts over). */
  url: string;
  client?: StoredOAuthClientInformation;
  /** The redirect URI the client was registered with (a new one registers again). */
  registeredRedirect?: string;
  tokens?: StoredOAuthTokens;
}

/** The token file of server `name` at `url` in the state folder `stateDir`. */
export function oauthFile(stateDir: string, name: string, url: string): string {
  const hash = crypto.createHash('sha256').update(`${name}\u0000${url}`).digest('hex').slice(0, 16);
  return path.join(path.resolve(stateDir), 'mcp-oauth', `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-${hash}.json`);
}

/** Write `data` to `file` atomically with mode 0600 (temporary file, fsync, rename). */
function writePrivate(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Options of {@link BridgeOAuthProvider}. */
export interface BridgeOAuthOptions {
  /** The server's config key. */
  server: string;
  /** The server's URL. */
  url: string;
  /** The `oauth` section of its config (`true` counts as `{}`). */
  config: McpOAuthConfig;
  /** State folder the token file goes in. */
  stateDir: string;
  /** Opens authorization URLs; `undefined`: interactive authorization fails with {@link OAuthLoginNeededError}. */
  authorizer?: OAuthAuthorizer;
  /** How toolgate names itself when it registers. Default `toolgate`. */
  clientName?: string;
}

/**
 * The SDK's {@link OAuthClientProvider} for one bridged server, its registration and tokens in
 * the server's token file. Also runs the loopback listener of the interactive step.
 */
export class BridgeOAuthProvider implements OAuthClientProvider {
  readonly file: string;
  private stored: StoredOAuth;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private listener: { server: http.Server; port: number; code: Promise<AuthorizationRedirect> } | undefined;
  /** A signed client assertion (`private_key_jwt`) when the config names a private key. */
  readonly addClientAuthentication?: AddClientAuthentication;

  /** @throws Error when the config's private key file cannot be read. */
  constructor(private readonly options: BridgeOAuthOptions) {
    this.file = oauthFile(options.stateDir, options.server, options.url);
    this.stored = this.read();
    const { privateKeyFile, clientId, signingAlgorithm } = options.config;
    if (privateKeyFile !== undefined && clientId !== undefined) {
      const privateKey = fs.readFileSync(privateKeyFile, 'utf8');
      this.addClientAuthentication = createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg: signingAlgorithm ?? 'ES256' });
    }
  }

  /**
   * The token file, each part checked against the SDK's OAuth schemas (`@modelcontextprotocol/core`):
   * a part that does not fit (a hand-edited or damaged file) is dropped, so the bridge registers
   * or authorizes again rather than sending it.
   */
  private read(): StoredOAuth {
    try {
      const parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, unknown> | null;
      if (parsed !== null && typeof parsed === 'object' && parsed.url === this.options.url) {
        const out: StoredOAuth = { url: this.options.url };
        if (OAuthClientInformationSchema.safeParse(parsed.client).success) {
          out.client = parsed.client as StoredOAuthClientInformation;
          if (typeof parsed.registeredRedirect === 'string') out.registeredRedirect = parsed.registeredRedirect;
        }
        if (OAuthTokensSchema.safeParse(parsed.tokens).success) out.tokens = parsed.tokens as StoredOAuthTokens;
        return out;
      }
    } catch {
      // no file yet, or an unreadable one: start over (the next save replaces it)
    }
    return { url: this.options.url };
  }

  private save(): void {
    writePrivate(this.file, `${JSON.stringify(this.stored)}\n`);
  }

  /** A grant without a person (no redirect, no login). */
  private get clientCredentials(): boolean {
    return this.options.config.grant === 'client_credentials' || this.options.config.grant === 'identity_assertion';
  }

  /** What discovery found (this process only): the issuer and resource an identity assertion names. */
  private discovered: OAuthDiscoveryState | undefined;

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  /**
   * What discovery found, for the second leg of an authorization (the code exchange): SDK v2
   * redeems a code only at the authorization server the authorization started with.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }

  /** Forget what discovery found: each authorization discovers afresh (a server may have moved to another authorization server). */
  forgetDiscovery(): void {
    this.discovered = undefined;
  }

  /** The loopback redirect URI; `undefined` for the client-credentials grant (no person, no redirect). */
  get redirectUrl(): string | undefined {
    if (this.clientCredentials) return undefined;
    return `http://127.0.0.1:${this.listener?.port ?? this.options.config.redirectPort ?? 0}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.config.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    const scope = this.options.config.scope;
    return {
      client_name: this.options.clientName ?? 'toolgate',
      redirect_uris: redirect === undefined ? [] : [redirect],
      grant_types: this.clientCredentials ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.clientCredentials ? [] : ['code'],
      ...(this.addClientAuthentication !== undefined ? { token_endpoint_auth_method: 'private_key_jwt' }
        : this.options.config.tokenEndpointAuthMethod === undefined ? {} : { token_endpoint_auth_method: this.options.config.tokenEndpointAuthMethod }),
      ...(scope === undefined ? {} : { scope }),
    };
  }

  state(): string {
    this.expectedState = crypto.randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const { clientId, clientSecret } = this.options.config;
    if (clientId !== undefined) {
      // An identity assertion grant authenticates the client with HTTP Basic (RFC 7523 section 5, SEP-990).
      const method = this.options.config.grant === 'identity_assertion' ? { token_endpoint_auth_method: 'client_secret_basic' } : {};
      return clientSecret === undefined ? { client_id: clientId } : { client_id: clientId, client_secret: clientSecret, ...method };
    }
    // A client registered for another loopback port registers again (its redirect URI would be refused).
    if (this.stored.client !== undefined && this.stored.registeredRedirect !== undefined && this.listener !== undefined && this.stored.registeredRedirect !== this.redirectUrl) return undefined;
    return this.stored.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.stored.client = info;
    this.stored.registeredRedirect = this.redirectUrl;
    this.save();
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.stored.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    // A refresh answer without a new refresh token keeps the old one (RFC 6749 section 6).
    const refresh = tokens.refresh_token ?? this.stored.tokens?.refresh_token;
    this.stored.tokens = refresh === undefined ? tokens : { ...tokens, refresh_token: refresh };
    this.save();
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') {
      delete this.stored.client;
      delete this.stored.registeredRedirect;
    }
    if (scope === 'all' || scope === 'tokens') delete this.stored.tokens;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovered = undefined;
    this.save();
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier: the authorization was not started by this process');
    return this.verifier;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.options.config.grant === 'identity_assertion') {
      return new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: await this.identityAssertion(), ...(scope ? { scope } : {}) });
    }
    if (!this.clientCredentials) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /**
   * Trade the person's ID token for an identity assertion authorization grant (ID-JAG) at the
   * identity provider (token exchange, RFC 8693; SEP-990), for this server's authorization
   * server and resource.
   * @throws Error when the ID token cannot be read or the identity provider refuses.
   */
  private async identityAssertion(): Promise<string> {
    const { idpTokenEndpoint, idpClientId, idTokenFile } = this.options.config;
    const issuer = this.discovered?.authorizationServerMetadata?.issuer ?? this.discovered?.authorizationServerUrl;
    if (issuer === undefined) throw new Error('identity assertion: the authorization server was not discovered');
    const resource = this.discovered?.resourceMetadata?.resource ?? this.options.url;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: issuer,
      resource,
      subject_token: fs.readFileSync(idTokenFile!, 'utf8').trim(),
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: idpClientId!,
    });
    const answer = await fetch(idpTokenEndpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const parsed = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!answer.ok || typeof parsed.access_token !== 'string') throw new Error(`the identity provider refused the token exchange (HTTP ${answer.status}${typeof parsed.error === 'string' ? `, ${parsed.error.slice(0, 100)}` : ''})`);
    return parsed.access_token;
  }

  /** Listen on loopback for the redirect (before the SDK builds the authorization URL, so that the port is known). */
  async listen(): Promise<void> {
    if (this.listener !== undefined || this.clientCredentials || this.options.authorizer === undefined) return;
    let settle!: { resolve: (redirect: AuthorizationRedirect) => void; reject: (error: Error) => void };
    const code = new Promise<AuthorizationRedirect>((resolve, reject) => {
      settle = { resolve, reject };
    });
    code.catch(() => undefined);
    const server = http.createServer((req, res) => {
      const at = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (at.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const error = at.searchParams.get('error');
      const given = at.searchParams.get('code');
      const state = at.searchParams.get('state');
      if (error !== null || given === null || (this.expectedState !== undefined && state !== this.expectedState)) {
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('toolgate: the authorization was refused or did not match this login; run the login again.\n');
        settle.reject(new Error(`the authorization server answered ${error === null ? 'without a matching code' : `"${error.slice(0, 100)}"`}`));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('toolgate: authorized. You can close this page.\n');
      const iss = at.searchParams.get('iss');
      settle.resolve(iss === null ? { code: given } : { code: given, iss });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.config.redirectPort ?? 0, '127.0.0.1', () => resolve());
    });
    this.listener = { server, port: (server.address() as { port: number }).port, code };
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.options.authorizer === undefined) throw new OAuthLoginNeededError(this.options.server);
    await this.options.authorizer(this.options.server, authorizationUrl);
  }

  /**
   * The code (and the issuer, RFC 9207) the loopback listener received.
   * @param timeoutMs - how long to wait for the person, in ms.
   * @throws Error when the redirect carries an error, or none arrives in time.
   */
  async authorizationCode(timeoutMs: number): Promise<AuthorizationRedirect> {
    if (this.listener === undefined) throw new Error('the loopback listener is not running');
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.listener.code,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await this.stopListening();
    }
  }

  /** Stop the loopback listener, if running. */
  async stopListening(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    if (listener === undefined) return;
    listener.server.closeAllConnections();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

/**
 * `fetch` for a bridged server that uses OAuth: adds the access token; on a 401, or a 403 with
 * `insufficient_scope`, authorizes through the SDK (refresh, discovery, registration, PKCE;
 * the interactive step through the provider's authorizer and loopback listener) and sends the
 * refused request once more. A second refusal is an `UnauthorizedError` (no loop).
 * @param waitMs - how long the interactive step may wait for the person, in ms.
 */
export function oauthFetch(provider: BridgeOAuthProvider, serverUrl: string, base: FetchLike = fetch, waitMs = 300_000): FetchLike {
  let pending: Promise<void> | undefined;
  const authorize = async (response: Response): Promise<void> => {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    await provider.listen();
    provider.forgetDiscovery();
    try {
      let skipIssuerMetadataValidation = false;
      let result: Awaited<ReturnType<typeof auth>>;
      try {
        result = await auth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: base });
      } catch (error) {
        if (!sameOriginIssuerMismatch(error, serverUrl)) throw error;
        skipIssuerMetadataValidation = true;
        provider.forgetDiscovery();
        result = await auth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: base, skipIssuerMetadataValidation });
      }
      if (result === 'REDIRECT') {
        const { code: authorizationCode, iss } = await provider.authorizationCode(waitMs);
        result = await auth(provider, { serverUrl, resourceMetadataUrl, scope, authorizationCode, ...(iss === undefined ? {} : { iss }), fetchFn: base, skipIssuerMetadataValidation });
      }
      if (result !== 'AUTHORIZED') throw new UnauthorizedError(`the authorization of ${serverUrl} did not complete`);
    } finally {
      await provider.stopListening();
    }
  };
  return async (input, init) => {
    const send = async (): Promise<Response> => {
      const headers = new Headers(init?.headers);
      const token = provider.tokens()?.access_token;
      if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
      return base(input, { ...init, headers });
    };
    let response = await send();
    if (!refused(response)) return response;
    // One authorization at a time per server: the requests refused meanwhile wait for it.
    pending ??= authorize(response).finally(() => {
      pending = undefined;
    });
    await response.body?.cancel().catch(() => undefined);
    await pending;
    response = await send();
    if (refused(response)) {
      await response.body?.cancel().catch(() => undefined);
      throw new UnauthorizedError(`${serverUrl} refused the request (HTTP ${response.status}) after a fresh authorization`);
    }
    return response;
  };
}

/**
 * Whether `error` is SDK v2's RFC 8414 issuer check refusing metadata whose `issuer` differs
 * from the URL it was fetched for, both on the MCP server's own origin. A 2025-03-26 server
 * (no protected-resource metadata) is its own authorization server, and some publish their
 * issuer under a path of their origin (`https://host/oauth` at `https://host/.well-known/...`;
 * the conformance suite's auth/2025-03-26-oauth-metadata-backcompat). Same origin, same
 * party: the mix-up the check guards against (another authorization server's metadata) cannot
 * happen, so that one case is retried without the check; any other mismatch stays refused.
 */
function sameOriginIssuerMismatch(error: unknown, serverUrl: string): boolean {
  if (!IssuerMismatchError.isInstance(error) || error.kind !== 'metadata' || error.expected === undefined || error.received === undefined) return false;
  try {
    const origin = new URL(serverUrl).origin;
    return new URL(error.expected).origin === origin && new URL(error.received).origin === origin;
  } catch {
    return false;
  }
}

function refused(response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && extractWWWAuthenticateParams(response).error === 'insufficient_scope';
}
