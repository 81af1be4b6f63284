/**
 * The bridge and an MCP server that requires OAuth (issue 33, item 5): an auto-approving
 * authorization server on loopback (test/fixtures/oauth-mcp-server.ts, the SDK's server auth
 * helpers). `toolgate call` without a login fails the server with an error naming
 * `toolgate mcp login`; the login (the test follows the printed URL as a browser would)
 * stores the tokens in a 0600 file; calls then run, an expired access token is refreshed, and
 * no token reaches the output, the log or the ledger.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpBridge, ToolRegistry } from 'toolgate';
import { checkMcpServers } from '../../src/mcp/config.js';
import { BridgeOAuthProvider, oauthFile } from '../../src/mcp/oauth.js';
import { startOAuthMcpServer, startOAuthV2McpServer, type OAuthMcpServer } from '../fixtures/oauth-mcp-server.js';
import { BIN, REPO_ROOT, runCli } from '../helpers.js';

/** Every file under `dir` except the token files, as one string (the ledger's bytes included). */
function everythingBut(dir: string, skip: string): string {
  let out = '';
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && !file.startsWith(skip)) out += fs.readFileSync(file).toString('latin1');
  }
  return out;
}

/** Run `toolgate mcp login`, acting as the person's browser: follow the URL it prints. */
function login(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp', 'login', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let opened = false;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const url = /^\s+(http:\/\/\S+)$/m.exec(stderr)?.[1];
      if (url !== undefined && !opened) {
        opened = true;
        fetch(url, { redirect: 'follow' }).then((r) => r.body?.cancel(), () => undefined);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('an oauth section that does not fit is refused, naming the field', () => {
  const url = 'https://mcp.example.com/mcp';
  const refused: Array<[unknown, RegExp]> = [
    [{ url, oauth: true, headers: { authorization: 'Bearer x' } }, /both "oauth" and an Authorization header/],
    [{ url, oauth: { clientSecrets: 'x' } }, /oauth has an unknown field "clientSecrets"/],
    [{ url, oauth: { grant: 'client_credentials', clientId: 'a' } }, /needs clientId and one of clientSecret or privateKeyFile/],
    [{ url, oauth: { grant: 'identity_assertion', clientId: 'a', clientSecret: 'b' } }, /needs clientId, clientSecret, idpTokenEndpoint/],
    [{ url, oauth: { clientMetadataUrl: 'http://example.com/x' } }, /clientMetadataUrl must be an https: URL/],
    [{ url, oauth: { redirectPort: 70000 } }, /redirectPort must be a TCP port/],
    [{ url, oauth: 'yes' }, /oauth must be true or an object/],
  ];
  for (const [entry, message] of refused) assert.throws(() => checkMcpServers({ remote: entry }), message);
  const checked = checkMcpServers({ remote: { url, oauth: { grant: 'client_credentials', clientId: 'a', privateKeyFile: 'key.pem' } } }, 'mcpServers', '/etc/toolgate');
  assert.deepEqual((checked.remote as { oauth: unknown }).oauth, { grant: 'client_credentials', clientId: 'a', privateKeyFile: '/etc/toolgate/key.pem' });
});

test('a token file part that does not fit the OAuth schemas is dropped, not sent; the rest is kept', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-oauth-file-'));
  try {
    const url = 'https://mcp.example.com/mcp';
    const file = oauthFile(stateDir, 'remote', url);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const client = { client_id: 'abc', redirect_uris: ['http://127.0.0.1:1/callback'] };
    fs.writeFileSync(file, JSON.stringify({ url, client, registeredRedirect: 'http://127.0.0.1:1/callback', tokens: { access_token: 42, token_type: 'Bearer' } }));
    const provider = new BridgeOAuthProvider({ server: 'remote', url, config: {}, stateDir });
    assert.equal(provider.tokens(), undefined, 'tokens that do not fit are not sent');
    assert.deepEqual(provider.clientInformation(), client);
    fs.writeFileSync(file, JSON.stringify({ url, client: { client_secret: 'no id' }, tokens: { access_token: 'at-1', token_type: 'Bearer' } }));
    const again = new BridgeOAuthProvider({ server: 'remote', url, config: {}, stateDir });
    assert.equal(again.clientInformation(), undefined, 'a client without an ID registers again');
    assert.equal(again.tokens()?.access_token, 'at-1');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

const SERVERS: Array<{ label: string; start: () => Promise<OAuthMcpServer>; revision: string; tools: number }> = [
  { label: 'a 2025-11-25 server (SDK v1)', start: startOAuthMcpServer, revision: '2025-11-25', tools: 1 },
  { label: 'a 2026-07-28 server (SDK v2, resource-server gate of @modelcontextprotocol/server)', start: startOAuthV2McpServer, revision: '2026-07-28', tools: 5 },
];

for (const { label, start, revision, tools } of SERVERS) describe(`bridging an MCP server that uses OAuth: ${label}`, () => {
  let server: OAuthMcpServer;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let config: string;
  let stateDir: string;

  before(async () => {
    server = await start();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-oauth-'));
    stateDir = path.join(root, 'state', 'toolgate');
    env = { ...process.env, XDG_STATE_HOME: path.join(root, 'state') };
    config = path.join(root, 'toolgate.config.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: server.url, oauth: true, requiresConfirmation: false } } }));
  });

  after(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('without a login the server fails to start, naming the login command; nothing is stored', async () => {
    const run = await runCli(['call', 'remote__echo', '{"text":"hi"}', '--config', config, '--workspace', root, '--no-ledger'], { env });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /toolgate mcp login remote/);
    const registry = new ToolRegistry();
    const bridge = await McpBridge.connect(registry, { remote: { url: server.url, oauth: true } }, { oauthStateDir: path.join(root, 'other') });
    try {
      assert.match(bridge.status()[0]!.error ?? '', /needs authorization \(OAuth\): run "toolgate mcp login remote/);
    } finally {
      await bridge.close();
    }
    assert.equal(fs.existsSync(oauthFile(path.join(root, 'other'), 'remote', server.url)) && JSON.parse(fs.readFileSync(oauthFile(path.join(root, 'other'), 'remote', server.url), 'utf8')).tokens !== undefined, false);
  });

  test('login refuses a server without an oauth section', async () => {
    const other = path.join(root, 'plain.config.json');
    fs.writeFileSync(other, JSON.stringify({ mcpServers: { plain: { url: server.url } } }));
    const run = await runCli(['mcp', 'login', 'plain', '--config', other], { env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /has no "oauth" section/);
  });

  test('login stores the tokens in a 0600 file; calls run, a refused token is refreshed, and no token is printed, logged or recorded', async () => {
    const logged = await login(['remote', '--config', config], env);
    assert.equal(logged.code, 0, logged.stderr);
    assert.match(logged.stderr, new RegExp(`logged in to MCP server remote \\(${tools} tools\\)`));
    const file = oauthFile(stateDir, 'remote', server.url);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)], 'no temporary file left behind');
    const first = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { access_token: string } };
    assert.equal(first.tokens.access_token, server.provider.issued.at(-2));

    const call = () => runCli(['call', 'remote__echo', '{"text":"hi"}', '--config', config, '--workspace', root, '--log-level', 'trace', '--json'], { env });
    const one = await call();
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /echo: hi/);
    assert.match(one.stderr, /mcp_server_connected/, 'the log is on (level trace), so a token in it would be seen');
    assert.match(one.stderr, new RegExp(`"protocolVersion":"${revision}"`), `spoken to in ${revision}`);

    server.provider.expireAccessTokens();
    const two = await call();
    assert.equal(two.code, 0, two.stderr);
    assert.match(two.stdout, /echo: hi/);
    assert.equal(server.provider.refreshes, 1);
    const second = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { access_token: string } };
    assert.notEqual(second.tokens.access_token, first.tokens.access_token);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const seen = [logged.stderr, one.stdout, one.stderr, two.stdout, two.stderr, everythingBut(stateDir, path.dirname(file))].join('\n');
    assert.ok(fs.readdirSync(stateDir).some((f) => f.startsWith('ledger-')), 'the calls were recorded in a ledger');
    assert.ok(server.provider.issued.length >= 4);
    for (const token of server.provider.issued) assert.equal(seen.includes(token), false, 'a token reached the output, a log line or the ledger');
  });
});
