/**
 * `toolgate cockpit` and `--cockpit` of `toolgate agent`, in process: the agent's confirmation
 * and its ask_user question wait for answers given through the cockpit's HTTP API (the page's
 * own requests: same Origin, CSRF token); usage errors for the flags.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { cliInProcess } from './in-process.js';
import { startOpenAIFixture, turn } from '../openai-fixture.js';

let root: string;
let ws: string;
let state: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cockpit-cli-'));
  ws = path.join(root, 'ws');
  state = path.join(root, 'state');
  fs.mkdirSync(ws);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** The key of the cockpit the running test started (logged in with the code of the address it printed). */
let token = '';

/** `fetch` with that key: the cockpit refuses every API request without it. */
function authed(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });
}

/** Run the CLI in process; resolves the cockpit's address (without its token) once it is printed on stderr. */
function start(args: string[], signal?: AbortSignal) {
  const stdin = new PassThrough();
  stdin.end('');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  let found: (url: string) => void;
  let done = false;
  let failed: (error: unknown) => void;
  const url = new Promise<string>((resolve, reject) => {
    found = resolve;
    failed = reject;
  });
  stderr.on('data', (d) => {
    err += d;
    // The cockpit made its token: the address shown carries a login code, good once.
    const match = /toolgate cockpit: (http:\/\/\S+\/)#code=([\w-]+)/.exec(err);
    if (match && !done) {
      done = true;
      const base = match[1]!;
      void fetch(`${base}api/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base.replace(/\/$/, '') }, body: JSON.stringify({ code: match[2] }) })
        .then(async (res) => {
          if (!res.ok) throw new Error(`login with the printed code: ${res.status}`);
          token = ((await res.json()) as { key: string }).key;
          found(base);
        })
        .catch((error: unknown) => failed(error));
    }
  });
  // No TOOLGATE_COCKPIT_TOKEN from the shell: the cockpit then makes its own and prints its code.
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-fixture' };
  delete env.TOOLGATE_COCKPIT_TOKEN;
  const code = runCli(args, { stdin, stdout, stderr, cwd: ws, env, signal });
  return { url, code, output: () => ({ out, err }) };
}

/** The cockpit's waiting questions, once there is one. */
async function waitForQuestion(url: string): Promise<{ id: number; tool: string; kind: string }> {
  for (;;) {
    const questions = (await (await authed(`${url}api/questions`)).json()) as Array<{ id: number; tool: string; kind: string }>;
    if (questions.length) return questions[0]!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** POST as the page does. */
async function post(url: string, route: string, body: unknown): Promise<Response> {
  const csrf = ((await (await authed(`${url}api/csrf`)).json()) as { token: string }).token;
  return authed(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url.replace(/\/$/, ''), 'x-csrf-token': csrf }, body: JSON.stringify(body) });
}

describe('toolgate agent --cockpit', () => {
  it('waits for the cockpit: its Allow runs the write, its reply answers ask_user', async () => {
    const model = await startOpenAIFixture([
      turn(null, [{ id: 'call_w', name: 'write_file', arguments: '{"filepath":"hello.txt","content":"hi"}' }]),
      turn(null, [{ id: 'call_q', name: 'ask_user', arguments: '{"question":"Which color?"}' }]),
      turn('Done.'),
    ]);
    try {
      const run = start(['agent', 'Write hi, then ask me', '--workspace', ws, '--state-dir', state, '--base-url', model.baseUrl, '--model', 'm', '--cockpit', '--cockpit-port', '0']);
      const url = await Promise.race([run.url, run.code.then((code) => Promise.reject(new Error(`exited ${code}: ${run.output().err}`)))]);
      const approval = await waitForQuestion(url);
      assert.equal(approval.tool, 'write_file');
      assert.equal((await post(url, `api/questions/${approval.id}`, { answer: 'allow_once' })).status, 200);
      const question = await waitForQuestion(url);
      assert.equal(question.kind, 'question');
      assert.equal((await post(url, `api/questions/${question.id}`, { reply: 'green' })).status, 200);
      assert.equal(await run.code, 0, run.output().err);
      assert.equal(fs.readFileSync(path.join(ws, 'hello.txt'), 'utf8'), 'hi');
      const last = model.requests[2]!.messages.at(-1)!;
      assert.equal(last.role, 'tool');
      assert.equal(last.content, 'green');
      assert.equal(run.output().out, 'Done.\n');
    } finally {
      await model.close();
    }
  });
});

describe('toolgate cockpit', () => {
  it('serves the workspace\'s ledger until stopped', async () => {
    const controller = new AbortController();
    const run = start(['cockpit', '--port', '0', '--workspace', ws, '--state-dir', state], controller.signal);
    const url = await run.url;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal((await fetch(`${url}api/questions`)).status, 401, 'not without a key');
    assert.deepEqual(await (await authed(`${url}api/questions`)).json(), []);
    controller.abort();
    assert.equal(await run.code, 0);
  });

  it('refuses a non-loopback host without a token, cockpit flags without --cockpit, and --cockpit without a ledger', async () => {
    const env = { ...process.env, TOOLGATE_COCKPIT_TOKEN: '' };
    const open = await cliInProcess(['cockpit', '--host', '0.0.0.0', '--port', '0', '--workspace', ws, '--state-dir', state], { env });
    assert.equal(open.code, 2);
    assert.match(open.stderr, /--host 0\.0\.0\.0: not a loopback address; set TOOLGATE_COCKPIT_TOKEN/);
    const port = await cliInProcess(['mcp', '--cockpit-port', '5', '--workspace', ws, '--state-dir', state]);
    assert.equal(port.code, 2);
    assert.match(port.stderr, /--cockpit-port and --cockpit-host need --cockpit/);
    const noLedger = await cliInProcess(['agent', 'x', '--cockpit', '--no-ledger', '--workspace', ws, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    assert.equal(noLedger.code, 2);
    assert.match(noLedger.stderr, /--cockpit reads the ledger/);
    assert.equal((await cliInProcess(['cockpit', '--port', 'many', '--workspace', ws, '--state-dir', state])).code, 2);
  });
});
