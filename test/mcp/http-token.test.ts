/**
 * The token of `toolgate mcp --http` (issue 30 item 8): made at every start and printed on
 * stderr by default; the one of TOOLGATE_MCP_TOKEN when set (and then not printed); none with
 * `--no-token`, which only a loopback bind takes.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { runCli, tempWorkspace } from '../helpers.js';
import { startHttpCommand } from './http-command.js';

const children: ChildProcess[] = [];
const tmp = tempWorkspace();
after(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  tmp.cleanup();
});

/** A POST of initialize with `authorization` (if any): the status. */
async function initialize(url: string, authorization?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (authorization !== undefined) headers.authorization = authorization;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const res = await fetch(url, { method: 'POST', headers, body });
  await res.body?.cancel();
  return res.status;
}

function envWithout(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TOOLGATE_MCP_TOKEN;
  return env;
}

describe('the token of toolgate mcp --http', () => {
  test('TOOLGATE_MCP_TOKEN is the token, and is not printed; --no-token serves without one', async () => {
    const token = 'a-fixed-token-from-the-environment';
    const fixed = await startHttpCommand(['--workspace', tmp.ws, '--no-ledger'], { ...envWithout(), TOOLGATE_MCP_TOKEN: token });
    children.push(fixed.child);
    assert.equal(fixed.token, undefined, 'no token printed');
    assert.doesNotMatch(fixed.stderr(), new RegExp(token));
    assert.match(fixed.stderr(), /Authorization: Bearer <the token of TOOLGATE_MCP_TOKEN>/);
    assert.equal(await initialize(fixed.url), 401);
    assert.equal(await initialize(fixed.url, `Bearer ${token}x`), 401);
    assert.equal(await initialize(fixed.url, `Bearer ${token}`), 200);

    const open = await startHttpCommand(['--workspace', tmp.ws, '--no-ledger', '--no-token'], envWithout());
    children.push(open.child);
    assert.match(open.stderr(), /no token \(--no-token\)/);
    assert.equal(await initialize(open.url), 200);
  });

  test('--no-token needs --http, a loopback bind, and no TOOLGATE_MCP_TOKEN', async () => {
    const alone = await runCli(['mcp', '--no-token', '--workspace', tmp.ws], { env: envWithout() });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--no-token needs --http/);
    const both = await runCli(['mcp', '--http', '--no-token', '--workspace', tmp.ws], { env: { ...envWithout(), TOOLGATE_MCP_TOKEN: 'a-fixed-token-from-the-environment' } });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--no-token and TOOLGATE_MCP_TOKEN contradict/);
    const network = await runCli(['mcp', '--http', '--no-token', '--host', '0.0.0.0', '--port', '0', '--workspace', tmp.ws], { env: envWithout() });
    assert.equal(network.code, 2);
    assert.match(network.stderr, /TOOLGATE_MCP_TOKEN/);
  });
});
