/**
 * `toolgate call --yes` (issue 30, item 6; case C6): a command line too large to analyse that
 * ends with a curl denied by the user's policy is denied, and a loopback listener receives
 * nothing; the same curl with no policy reaches it (so the test can fail). A policy's
 * `always_ask` question is not answered by --yes either.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers.js';

describe('toolgate call --yes never overrides a deny rule', () => {
  let root: string;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  let userFile: string;
  let server: http.Server;
  let url: string;
  let requests = 0;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-yes-'));
    ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    fs.mkdirSync(path.join(root, 'config', 'toolgate'), { recursive: true });
    userFile = path.join(root, 'config', 'toolgate', 'policy.toml');
    env = { ...process.env, XDG_CONFIG_HOME: path.join(root, 'config'), XDG_STATE_HOME: path.join(root, 'state'), HOME: path.join(root, 'home') };
    server = http.createServer((_request, response) => {
      requests++;
      response.end('reached\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(root, { recursive: true, force: true });
  });

  const call = (command: string) => runCli(
    ['call', 'run_command', '-', '--yes', '--workspace', ws, '--no-ledger', '--dangerously-disable-sandbox', '--json'],
    { env, cwd: root, input: JSON.stringify({ command }) },
  );

  test('C6: 20,000 `true;` then curl, under deny curl and --yes: denied; the listener receives nothing', async () => {
    fs.writeFileSync(userFile, '[[rules]]\ncommand = "curl"\naction = "deny"\n');
    const denied = await call(`${'true;'.repeat(20_000)} curl -s ${url}`);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stdout + denied.stderr, /POLICY_DENIED/);
    assert.match(denied.stdout + denied.stderr, /beyond what the analysis reads/);
    const deep = await call(`${'$('.repeat(90)}curl -s ${url}${')'.repeat(90)}`);
    assert.match(deep.stdout + deep.stderr, /POLICY_DENIED/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(requests, 0, 'the listener received a request');
  });

  test('control: with no policy, the same curl under --yes reaches the listener', async () => {
    fs.rmSync(userFile, { force: true });
    const ran = await call(`curl -s ${url}`);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.equal(requests, 1);
    requests = 0;
  });

  test('always_ask: --yes does not answer the question; with no terminal it is refused and nothing runs', async () => {
    fs.writeFileSync(userFile, 'always_ask = true\n');
    const r = await call(`curl -s ${url}`);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /CONFIRMATION_REQUIRED/);
    assert.equal(requests, 0);
  });
});
