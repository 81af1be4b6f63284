/**
 * Regression: the OAuth tokens of a bridged MCP server were kept in, and read from, the
 * default state folder only: `toolgate mcp login` had no `--state-dir`, `toolgate call
 * --state-dir DIR` looked for them in the default folder, and the SDK's tool system
 * (`mcpServers` with `oauth`) gave its bridge no state folder at all, so the server failed to
 * start. The tokens now follow the state folder: `--state-dir` of the login and of the
 * commands that bridge, and the tool system's state folder (its ledger's `dir`, `stateDir`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolSystem } from 'toolgate';
import { oauthFile } from '../../src/mcp/oauth.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../fixtures/oauth-mcp-server.js';
import { BIN, REPO_ROOT, runCli } from '../helpers.js';

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

describe('the OAuth tokens of a bridged server follow the state folder', () => {
  let server: OAuthMcpServer;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let config: string;
  let stateDir: string;
  let defaultDir: string;

  before(async () => {
    server = await startOAuthMcpServer();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-oauth-state-'));
    stateDir = path.join(root, 'chosen-state');
    defaultDir = path.join(root, 'xdg', 'toolgate');
    env = { ...process.env, XDG_STATE_HOME: path.join(root, 'xdg') };
    config = path.join(root, 'toolgate.config.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: server.url, oauth: true, requiresConfirmation: false } } }));
  });

  after(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('mcp login --state-dir keeps them there; call --state-dir finds them there', async () => {
    const logged = await login(['remote', '--config', config, '--state-dir', stateDir], env);
    assert.equal(logged.code, 0, logged.stderr);
    assert.ok(fs.existsSync(oauthFile(stateDir, 'remote', server.url)), 'the token file in the chosen state folder');
    assert.equal(fs.existsSync(path.join(defaultDir, 'mcp-oauth')), false, 'none in the default state folder');
    const call = await runCli(['call', 'remote__echo', '{"text":"hi"}', '--config', config, '--workspace', root, '--state-dir', stateDir], { env });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /echo: hi/);
  });

  test('the SDK\'s tool system reads them from its state folder (its ledger\'s dir)', async () => {
    const tools = new ToolSystem({ workspace: root, ledger: { dir: stateDir }, mcpServers: { remote: { url: server.url, oauth: true, requiresConfirmation: false } } });
    await tools.start();
    try {
      assert.equal(tools.mcp?.status()[0]?.state, 'connected', tools.mcp?.status()[0]?.error);
      const result = await tools.execute({ name: 'remote__echo', arguments: { text: 'from the SDK' }, callId: 'sdk-1' });
      assert.equal(result.success, true, result.output);
      assert.match(result.output, /echo: from the SDK/);
    } finally {
      await tools.close();
    }
  });
});
