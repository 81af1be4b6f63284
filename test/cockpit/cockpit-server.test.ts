/**
 * The cockpit's server without a browser: the security headers and checks (Host, token,
 * Origin, CSRF, ids only), the questions and sessions it reads, the output in parts, the
 * event stream's replay from Last-Event-ID, and a session's approval mode read by the
 * executor on every decision; an MCP client that cannot be asked waits for the cockpit's answer
 * (`toolgate mcp --cockpit`).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createMcpServer, Ledger, loadBuiltinTools, setSessionApprovalMode, ToolExecutor, ToolSystem, type ToolExecutionResult } from 'toolgate';
import type { NewCall } from '../../src/ledger/store.js';
import { COCKPIT_CSP, startCockpit, type CockpitHandle } from '../../src/cockpit/server.js';
import { fixtureRegistry, inMemoryTransport } from '../helpers.js';

let root: string;
let ws: string;
let state: string;
let ledger: Ledger;
let cockpit: CockpitHandle | undefined;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cockpit-server-'));
  ws = path.join(root, 'ws');
  state = path.join(root, 'state');
  fs.mkdirSync(ws);
  ledger = Ledger.open({ dir: state, workspace: ws });
});
afterEach(async () => {
  await cockpit?.close();
  cockpit = undefined;
  await ledger.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function call(callId: string, session = 's1', args: Record<string, unknown> = { filepath: 'a.txt', content: 'x' }): NewCall {
  return { callId, session, tool: 'write_file', version: '1.0.0', arguments: args, workspace: ws, turn: '' };
}

function ended(callId: string, output: string): ToolExecutionResult {
  return { success: true, output, durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'possible' };
}

/** `fetch` with the running cockpit's token: every request needs it. */
function authed(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { authorization: `Bearer ${cockpit!.token}`, ...(init.headers as Record<string, string> | undefined) } });
}

/** `POST /api/login` as the page does (from its own origin unless `origin` says otherwise). */
function login(code: string, origin = cockpit!.url.replace(/\/$/, '')): Promise<Response> {
  return fetch(`${cockpit!.url}api/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ code }) });
}

async function csrfOf(url: string): Promise<string> {
  return ((await (await authed(`${url}api/csrf`)).json()) as { token: string }).token;
}

describe('cockpit server', () => {
  it('serves the page with a strict CSP and checks the Host header', async () => {
    cockpit = await startCockpit({ ledger, port: 0 });
    const page = await authed(cockpit.url);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), COCKPIT_CSP);
    assert.match(COCKPIT_CSP, /default-src 'none'/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await page.text(), /<script src="\/cockpit.js" defer><\/script>/);
    assert.equal((await authed(`${cockpit.url}cockpit.js`)).headers.get('content-type'), 'text/javascript; charset=utf-8');
    // No inline data sink in the page's script.
    assert.doesNotMatch(await (await authed(`${cockpit.url}cockpit.js`)).text(), /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    // A name that rebinds to 127.0.0.1 is not this server.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = http.request(cockpit!.url, { headers: { host: 'evil.example' } }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    assert.equal(rebound, 421);
    assert.equal((await authed(`${cockpit.url}../../package.json`)).status, 404);
  });

  it('refuses a non-loopback bind without a token; the given token is a key, never a login code; codes log in once; no cookie', async () => {
    await assert.rejects(startCockpit({ ledger, host: '0.0.0.0', port: 0 }), { code: 'INVALID_OPTIONS', message: /not a loopback address/ });
    await assert.rejects(startCockpit({ ledger, port: 0, token: 'short' }), { code: 'INVALID_OPTIONS' });
    const token = 'a-secret;of,enough=length';
    cockpit = await startCockpit({ ledger, port: 0, token });
    assert.equal(cockpit.token, token);
    const code = /#code=([\w-]{32})$/.exec(cockpit.openUrl)?.[1];
    assert.ok(code !== undefined, cockpit.openUrl);
    assert.equal((await fetch(`${cockpit.url}api/questions`)).status, 401);
    assert.equal((await fetch(`${cockpit.url}api/questions`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    // An address opened in a browser stays in its history: the token is never a login code.
    assert.equal((await login(token)).status, 401);
    assert.equal((await login(code, 'http://evil.example')).status, 403, 'not from another origin');
    const first = await login(code);
    assert.equal(first.status, 200);
    const { key } = (await first.json()) as { key: string };
    assert.equal((await fetch(`${cockpit.url}api/questions`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    assert.equal((await login(code)).status, 401, 'spent');
    // A signed-in page asks for an address for another tab: a new code, good once.
    const csrf = await csrfOf(cockpit.url);
    const another = await fetch(`${cockpit.url}api/login-code`, { method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit.url.replace(/\/$/, ''), 'x-csrf-token': csrf, authorization: `Bearer ${key}` }, body: '{}' });
    assert.equal(another.status, 200);
    const { url: tabUrl } = (await another.json()) as { url: string };
    const tabCode = /^\/#code=([\w-]{32})$/.exec(tabUrl)?.[1];
    assert.ok(tabCode !== undefined && tabCode !== code, tabUrl);
    assert.equal((await login(tabCode)).status, 200);
    assert.equal((await login(tabCode)).status, 401);
    assert.equal((await fetch(`${cockpit.url}api/login-code`, { method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit.url.replace(/\/$/, ''), 'x-csrf-token': csrf }, body: '{}' })).status, 401, 'not without a key');
    // No cookie is set anywhere (a browser would send it to every port of 127.0.0.1), and a
    // token or key in the query opens nothing but the event stream.
    const page = await fetch(`${cockpit.url}?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('set-cookie'), null);
    assert.equal((await fetch(`${cockpit.url}api/questions?key=${key}`)).status, 401);
    const controller = new AbortController();
    const stream = await fetch(`${cockpit.url}api/events?key=${key}`, { signal: controller.signal });
    assert.equal(stream.status, 200);
    controller.abort();
    assert.equal((await fetch(`${cockpit.url}api/events?key=wrong`)).status, 401);
  });

  it('without a token given, makes one at each start, and a login code good once: nothing on loopback gets in without them', async () => {
    const id = await ledger.ask(call('c1'), { tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, callId: 'c1', description: 'd', paths: ['a.txt'], ask: { decider: 'approval', reason: 'r' }, offers: ['allow_once', 'deny'] });
    cockpit = await startCockpit({ ledger, port: 0 });
    const { token } = cockpit;
    assert.match(token, /^[\w-]{32}$/);
    const code = /#code=([\w-]{32})$/.exec(cockpit.openUrl)?.[1];
    assert.ok(code !== undefined && code !== token, cockpit.openUrl);
    assert.ok(cockpit.openUrl.startsWith(cockpit.url));
    // What a local process that only knows the port gets (a command in a sandbox allowed the
    // network shares the host's loopback): the page's files, which hold no data, and nothing else.
    assert.equal((await fetch(cockpit.url)).status, 200);
    assert.equal((await fetch(`${cockpit.url}cockpit.js`)).status, 200);
    for (const route of ['api/csrf', 'api/questions', 'api/sessions', 'api/events', 'api/output?call=c1&session=s1']) {
      assert.equal((await fetch(`${cockpit.url}${route}`)).status, 401, route);
    }
    const forged = await fetch(`${cockpit.url}api/questions/${id}`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit.url.replace(/\/$/, ''), 'x-csrf-token': 'guess' }, body: JSON.stringify({ answer: 'allow_once' }),
    });
    assert.equal(forged.status, 401);
    assert.equal((await ledger.approval(id))?.answer, undefined, 'the question is still open');
    assert.equal((await login(token)).status, 401, 'a token is no login code');
    // The code of the address shown logs a page in once; history then holds a spent code.
    const first = await login(code);
    assert.equal(first.status, 200);
    const { key } = (await first.json()) as { key: string };
    assert.equal((await fetch(`${cockpit.url}api/questions`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    assert.equal((await login(code)).status, 401, 'spent');
    // Another start on the same port, another token and code; the old key is gone.
    const { port } = cockpit;
    await cockpit.close();
    cockpit = await startCockpit({ ledger, port });
    // fetch may first reuse a kept-alive connection the old server closed: one throwaway request.
    await fetch(`${cockpit.url}cockpit.css`).catch(() => undefined);
    assert.notEqual(cockpit.token, token);
    for (const old of [token, key]) assert.equal((await fetch(`${cockpit.url}api/questions`, { headers: { authorization: `Bearer ${old}` } })).status, 401);
  });

  it('answers a question once: the first answer counts, a later one is reported as late, an answer not offered is refused', async () => {
    const id = await ledger.ask(call('c1'), { tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, callId: 'c1', description: 'd', paths: ['a.txt'], ask: { decider: 'approval', reason: 'r' }, offers: ['allow_once', 'deny'] });
    cockpit = await startCockpit({ ledger, port: 0 });
    const [question] = (await (await authed(`${cockpit.url}api/questions`)).json()) as Array<{ id: number; paths: string[]; offers: string[]; workspace: string }>;
    assert.equal(question?.id, id);
    assert.deepEqual(question?.paths, ['a.txt']);
    assert.equal(question?.workspace, ws);
    const csrf = await csrfOf(cockpit.url);
    const answer = (body: unknown) => authed(`${cockpit!.url}api/questions/${id}`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit!.url.replace(/\/$/, ''), 'x-csrf-token': csrf }, body: JSON.stringify(body),
    });
    assert.equal((await answer({ answer: 'always' })).status, 400);
    assert.deepEqual(await (await answer({ answer: 'deny' })).json(), { found: true, first: true, counted: 'deny', next: 'recorded' });
    assert.deepEqual(await (await answer({ answer: 'allow_once' })).json(), { found: true, first: false, counted: 'deny', next: 'recorded' });
    assert.equal((await ledger.approval(id))?.answeredBy, `cockpit:${process.pid}`);
  });

  it('shows a whole output in parts by call id, never cutting a character; no path is accepted', async () => {
    const text = `${'é'.repeat(40_000)}<script>x</script>`;
    await ledger.record(call('big'));
    await ledger.finish(call('big'), { state: 'done', decisions: [], result: ended('big', 'cut'), fullOutput: text });
    cockpit = await startCockpit({ ledger, port: 0 });
    let offset = 0;
    let whole = '';
    for (let parts = 0; parts < 5; parts++) {
      const part = (await (await authed(`${cockpit.url}api/output?call=big&session=s1&offset=${offset}`)).json()) as { text: string; next?: number; size: number };
      assert.equal(part.size, Buffer.byteLength(text));
      assert.doesNotMatch(part.text, /\uFFFD/);
      whole += part.text;
      if (part.next === undefined) break;
      offset = part.next;
    }
    assert.equal(whole, text);
    assert.equal((await authed(`${cockpit.url}api/output?call=../../etc/passwd&session=s1`)).status, 404);
    assert.equal((await authed(`${cockpit.url}api/output?path=/etc/passwd`)).status, 400);
  });

  it('streams the timeline as server-sent events and replays from Last-Event-ID', async () => {
    await ledger.record(call('t1'));
    await ledger.finish(call('t1'), { state: 'done', decisions: [{ decider: 'mode', verdict: 'allow', reason: 'ok' }], result: ended('t1', 'one') });
    cockpit = await startCockpit({ ledger, port: 0, pollMs: 50 });
    const first = await readEvents(cockpit.url, undefined, (events) => events.some((e) => e.data.includes('"kind":"done"')));
    const done = first.find((e) => e.event === 'call' && JSON.parse(e.data).event.kind === 'done')!;
    const view = JSON.parse(done.data).call as { callId: string; state: string; decisions: string[] };
    assert.equal(view.callId, 't1');
    assert.equal(view.state, 'done');
    assert.deepEqual(view.decisions, ['mode:allow']);
    await ledger.record(call('t2'));
    const replay = await readEvents(cockpit.url, done.id, (events) => events.some((e) => e.data.includes('"callId":"t2"')));
    assert.ok(replay.filter((e) => e.event === 'call').every((e) => Number(e.id) > Number(done.id)));
    assert.ok(!replay.some((e) => e.data.includes('"callId":"t1"')));
  });

  it('sets a session\'s approval mode; the executor reads it on every decision; a change answers nothing pending', async () => {
    const registry = await fixtureRegistry();
    let asked = 0;
    const executor = new ToolExecutor(registry, { workspaceRoot: ws, ledger: { dir: state }, sweepLeftovers: false, confirmationHandler: () => {
      asked++;
      return new Promise<boolean>(() => undefined);
    } });
    cockpit = await startCockpit({ ledger, port: 0 });
    const csrf = await csrfOf(cockpit.url);
    const setMode = (session: string, mode: string | null) => authed(`${cockpit!.url}api/sessions/mode`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit!.url.replace(/\/$/, ''), 'x-csrf-token': csrf }, body: JSON.stringify({ session, mode }),
    });
    const append = (callId: string, session: string) => executor.call('append_marker', { filepath: 'modes.txt', marker: callId }, { callId, session });
    try {
      assert.equal((await append('m1', 'a')).success, true);
      assert.equal((await setMode('a', 'deny-all')).status, 200);
      const refused = await append('m2', 'a');
      assert.equal(refused.errorCode, 'CONFIRMATION_DENIED');
      assert.match(refused.output, /deny-all/);
      assert.equal((await append('m3', 'b')).success, true, 'another session keeps its mode');
      assert.equal((await setMode('*', 'always-ask')).status, 200);
      const waiting = append('m4', 'b');
      while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const question = (await ledger.pendingApprovals()).find((q) => q.callId === 'm4')!;
      assert.equal((question.request.ask as { rule?: string }).rule, 'always-ask');
      // Changing the mode does not answer the question already asked.
      assert.equal((await setMode('*', 'allow-all')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, ledger.pollMs * 3));
      assert.equal((await ledger.approval(question.id))?.answer, undefined);
      assert.equal((await ledger.get('m4', 'b'))?.state, 'pending');
      await ledger.answer(question.id, 'allow_once', 'test');
      assert.equal((await waiting).success, true);
      assert.equal((await setMode('a', null)).status, 200);
      assert.equal((await setMode('a', 'sometimes')).status, 400);
      const sessions = (await (await authed(`${cockpit.url}api/sessions`)).json()) as { sessions: Array<{ session: string; mode?: string }> };
      assert.deepEqual(sessions.sessions.find((s) => s.session === '*')?.mode, 'allow-all');
      assert.equal(sessions.sessions.find((s) => s.session === 'a')?.mode, undefined);
      assert.equal(fs.readFileSync(path.join(ws, 'modes.txt'), 'utf8'), 'm1\nm3\nm4\n');
      await setSessionApprovalMode(ledger, '*', undefined, 'test');
    } finally {
      await executor.close();
    }
  });
});

describe('MCP server waiting for the cockpit (toolgate mcp --cockpit)', () => {
  it('a client without elicitation waits; the answer given in the cockpit runs the call', async () => {
    const { registry } = await loadBuiltinTools();
    const system = new ToolSystem({ registry, workspace: ws, executor: { ledger: { dir: state }, sweepLeftovers: false } });
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: ws, waitForAnswers: true })));
      cockpit = await startCockpit({ ledger, port: 0 });
      const called = client.callTool({ name: 'write_file', arguments: { filepath: 'mcp.txt', content: 'via cockpit' } });
      let question;
      while ((question = (await ledger.pendingApprovals())[0]) === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(question.tool, 'write_file');
      const csrf = await csrfOf(cockpit.url);
      const answered = await authed(`${cockpit.url}api/questions/${question.id}`, {
        method: 'POST', headers: { 'content-type': 'application/json', origin: cockpit.url.replace(/\/$/, ''), 'x-csrf-token': csrf }, body: JSON.stringify({ answer: 'allow_once' }),
      });
      assert.equal(answered.status, 200);
      const result = await called;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(fs.readFileSync(path.join(ws, 'mcp.txt'), 'utf8'), 'via cockpit');
    } finally {
      await client.close();
      await system.close();
    }
  });
});

/** Read the event stream until `done(events)` holds; `last` is sent as Last-Event-ID. */
async function readEvents(url: string, last: string | undefined, done: (events: Array<{ id?: string; event?: string; data: string }>) => boolean) {
  const controller = new AbortController();
  const res = await authed(`${url}api/events`, { headers: last === undefined ? {} : { 'last-event-id': last }, signal: controller.signal });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const events: Array<{ id?: string; event?: string; data: string }> = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: { id?: string; event?: string; data: string } = { data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('event: ')) event.event = line.slice(7);
          else if (line.startsWith('data: ')) event.data += line.slice(6);
        }
        if (event.event !== undefined) events.push(event);
      }
      if (done(events)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}
