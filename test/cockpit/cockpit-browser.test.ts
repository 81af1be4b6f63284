/**
 * The cockpit driven in headless Chromium (the Debian package, through playwright-core):
 * an agent run with a scripted model asks, the test clicks Allow, the run goes on, its next
 * request is denied from the page, its ask_user question is answered there, the timeline shows
 * both calls; a tool output holding `<script>`
 * shows as text; a pending approval stays on the page across a restart of the server; a
 * cross-origin POST is refused; approving from the page and from `toolgate approvals allow`
 * at the same moment runs the call once. Screenshots go to test-output/ (cockpit.png: a
 * question waiting; cockpit-output.png: the timeline and an output).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { GeneralAgent, Ledger, ledgerQuestionHandler, OpenAIChatModel, ToolExecutor, ToolSystem } from 'toolgate';
import { startCockpit, type CockpitHandle } from '../../src/cockpit/server.js';
import { BIN, FIXTURE_SCHEMAS, FIXTURES_DIR, fixtureRegistry, REPO_ROOT, runCli } from '../helpers.js';
import { startOpenAIFixture, turn } from '../openai-fixture.js';
import { chromiumMissing, launchChromium, stepRecord, type TestBrowser } from './browser.js';

const ASKER = path.join(REPO_ROOT, 'dist/test/ledger/ledger-asker.js');
const SCREENSHOT = path.join(REPO_ROOT, 'test-output', 'cockpit.png');
const never = () => new Promise<never>(() => undefined);

describe('cockpit in headless Chromium', { skip: chromiumMissing() }, () => {
  let root: string;
  let ws: string;
  let state: string;
  let ledger: Ledger;
  let cockpit: CockpitHandle;
  let browser: TestBrowser;
  let page: Page;
  const children: ChildProcess[] = [];
  /** Ledgers opened besides `ledger` (the restarted cockpit's), closed after. */
  const ledgers: Ledger[] = [];
  /** Where the test is, in test-output/cockpit-browser.steps: what CI prints if this process dies. */
  let steps: ReturnType<typeof stepRecord> | undefined;

  before(async () => {
    steps = stepRecord('cockpit-browser');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cockpit-'));
    ws = path.join(root, 'ws');
    state = path.join(root, 'state');
    fs.mkdirSync(ws);
    ledger = Ledger.open({ dir: state, workspace: ws });
    cockpit = await startCockpit({ ledger, port: 0, pollMs: 100 });
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(cockpit.openUrl);
    await page.locator('[data-testid=status]', { hasText: 'live' }).waitFor();
  });

  after(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    await browser?.close();
    await cockpit?.close();
    for (const other of ledgers) await other.close();
    await ledger?.close();
    fs.rmSync(root, { recursive: true, force: true });
    steps?.done();
  });

  /** The question card of a call, once it is on the page. */
  async function card(callId: string) {
    const question = (await ledger.pendingApprovals()).find((q) => q.callId === callId);
    const id = question?.id;
    const locator = id === undefined ? page.locator('[data-testid=question]', { hasText: callId }) : page.locator(`[data-question-id="${id}"]`);
    await locator.waitFor({ timeout: 20_000 });
    return locator;
  }

  it('an agent asks; Allow runs the call; Deny refuses the next; the timeline shows both; an output with <script> is text', async () => {
    steps?.step('1: an agent asks');
    fs.writeFileSync(path.join(ws, 'evil.html'), '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">\n');
    const model = await startOpenAIFixture([
      turn(null, [{ id: 'call_allow', name: 'write_file', arguments: JSON.stringify({ filepath: 'allowed.txt', content: 'allowed\n' }) }]),
      turn(null, [{ id: 'call_deny', name: 'write_file', arguments: JSON.stringify({ filepath: 'denied.txt', content: 'denied\n' }) }]),
      turn(null, [{ id: 'call_ask', name: 'ask_user', arguments: JSON.stringify({ question: 'Which colour should the <b>header</b> be?', choices: ['red', 'blue'] }) }]),
      turn(null, [{ id: 'call_read', name: 'read_file', arguments: JSON.stringify({ filepath: 'evil.html' }) }]),
      turn('All done.'),
    ]);
    // A user policy file: where an `always` answer would be saved, so that it is offered.
    const tools = new ToolSystem({ workspace: ws, logLevel: 'silent', executor: { ledger: { dir: state }, outputStore: {}, policy: { user: path.join(root, 'policy.toml') } } });
    const stop = new AbortController();
    let run: Promise<unknown> | undefined;
    try {
      // The agent's own handler never answers: the answer comes from the page, through the ledger.
      // Its ask_user questions wait in the ledger too, for a reply given in the page.
      await tools.start();
      const agent = new GeneralAgent({
        tools, model: new OpenAIChatModel({ baseURL: model.baseUrl, apiKey: 'sk-fixture', model: 'fixture', maxRetries: 0 }), confirmationHandler: never,
        questionHandler: ledgerQuestionHandler(tools.executor.ledger!, { workspace: ws }),
      });
      const running = agent.run('Write allowed.txt, then denied.txt, then read evil.html.', { signal: stop.signal });
      run = running;

      const first = await card('call_allow');
      assert.match(await first.locator('[data-testid=question-input]').textContent() ?? '', /"filepath": "allowed.txt"/);
      assert.match(await first.locator('[data-testid=question-why]').textContent() ?? '', /^approval: write_file declares that it needs the user's approval/);
      assert.deepEqual(await first.locator('button[data-answer]').evaluateAll((buttons: Array<{ textContent: string | null }>) => buttons.map((b) => b.textContent)), ['Allow once', 'Allow for this turn', 'Always', 'Deny']);
      await first.locator('button[data-answer=allow_once]').click();

      const second = await card('call_deny');
      // The page as a person sees it: one call done, the next one asking.
      await page.locator('[data-testid=call][data-call-id=call_allow][data-state=done]').waitFor();
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      assert.ok(fs.statSync(SCREENSHOT).size > 10_000);
      await second.locator('button[data-answer=deny]').click();

      const asked = page.locator('[data-testid=question]', { hasText: 'Which colour' });
      await asked.waitFor();
      assert.equal(await asked.locator('[data-testid=question-text]').textContent(), 'Which colour should the <b>header</b> be?');
      await asked.getByRole('button', { name: 'blue' }).click();

      const result = await running;
      assert.equal(result.stopReason, 'final');
      assert.equal(result.text, 'All done.');
      assert.equal(fs.readFileSync(path.join(ws, 'allowed.txt'), 'utf8'), 'allowed\n');
      assert.equal(fs.existsSync(path.join(ws, 'denied.txt')), false);
      assert.deepEqual(result.results.map((r) => r.errorCode ?? 'ok'), ['ok', 'CONFIRMATION_DENIED', 'ok', 'ok']);
      assert.equal(result.results[2]!.output, 'blue');

      const allowed = page.locator('[data-testid=call][data-call-id=call_allow]');
      const denied = page.locator('[data-testid=call][data-call-id=call_deny]');
      await page.locator('[data-testid=call][data-call-id=call_allow][data-state=done]').waitFor();
      await page.locator('[data-testid=call][data-call-id=call_deny][data-state=denied]').waitFor();
      assert.match(await allowed.locator('[data-testid=call-decisions]').textContent() ?? '', /confirmation:allow:allow_once/);
      assert.match(await denied.locator('[data-testid=call-state]').textContent() ?? '', /denied \(CONFIRMATION_DENIED\)/);
      assert.match(await denied.locator('[data-testid=call-decisions]').textContent() ?? '', /confirmation:deny:deny/);
      assert.equal(await page.locator('[data-testid=question]').count(), 0);

      // The whole output of the read, by id: markup shows as text and never runs.
      await page.locator('[data-testid=call][data-call-id=call_read][data-state=done] [data-testid=open-output]').click();
      const output = page.locator('[data-testid=output]');
      await output.filter({ hasText: '<script>window.__pwned = 1</script>' }).waitFor();
      assert.equal(await output.locator('script, img').count(), 0);
      assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);

      await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-output.png'), fullPage: true });
    } finally {
      // A failure above must not leave the run waiting (its question would stay on the page).
      stop.abort();
      await run?.catch(() => undefined);
      await tools.close();
      await model.close();
    }
  });

  it('a pending approval stays on the page across a restart of the server, and is answered after it', async () => {
    steps?.step('2: a pending approval across a restart');
    const registry = await fixtureRegistry();
    const executor = new ToolExecutor(registry, { workspaceRoot: ws, ledger: { dir: state }, approvalMode: 'always-ask', sweepLeftovers: false, confirmationHandler: never });
    try {
      const call = executor.call('append_marker', { filepath: 'restart.txt', marker: 'after-restart' }, { callId: 'call_restart', session: 'restart' });
      const before = await card('call_restart');
      assert.match(await before.locator('[data-testid=question-why]').textContent() ?? '', /\[always-ask\]/);
      await before.evaluate((node: { setAttribute(name: string, value: string): void }) => node.setAttribute('data-before-restart', 'yes'));

      const { port } = cockpit;
      await cockpit.close();
      await page.locator('[data-testid=status]', { hasText: 'reconnecting' }).waitFor();
      const reopened = Ledger.open({ dir: state, workspace: ws });
      ledgers.push(reopened);
      cockpit = await startCockpit({ ledger: reopened, port, pollMs: 100 });
      // The new server knows no key of this page: it says so, and asks for the address printed last.
      await page.locator('[data-testid=status]', { hasText: 'signed out' }).waitFor();
      assert.match(await page.locator('[data-testid=signed-out]').textContent() ?? '', /Open the address toolgate printed/);
      // Opened in the same tab (only the fragment differs), the new address logs the page in.
      await page.goto(cockpit.openUrl);
      await page.locator('[data-testid=status]', { hasText: 'live' }).waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the code left the address bar');
      const after = page.locator('[data-testid=question]:not([data-before-restart])', { hasText: 'call_restart' });
      await after.waitFor();
      // A new server has a new CSRF token: the page fetches it again and the answer counts.
      await after.locator('button[data-answer=allow_once]').click();
      const result = await call;
      assert.equal(result.success, true, result.output);
      assert.equal(fs.readFileSync(path.join(ws, 'restart.txt'), 'utf8'), 'after-restart\n');
      // Reloaded, the page shows nothing pending any more.
      await page.reload();
      await page.locator('[data-testid=status]', { hasText: 'live' }).waitFor();
      assert.equal(await page.locator('[data-testid=question]').count(), 0);
    } finally {
      await executor.close();
    }
  });

  it('a cross-origin POST is refused (401: its request carries no cookie), and so is one without the Origin or the CSRF token; the question stays unanswered', async () => {
    steps?.step('3: a cross-origin POST');
    const registry = await fixtureRegistry();
    const executor = new ToolExecutor(registry, { workspaceRoot: ws, ledger: { dir: state }, approvalMode: 'always-ask', sweepLeftovers: false, confirmationHandler: never });
    // On 127.0.0.1 as well, another port: the host a browser would send the cockpit's cookies
    // to, had it any. It keeps what the browser sent it.
    const received: string[] = [];
    const evil = http.createServer((req, res) => {
      received.push(JSON.stringify(req.headers));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilPage = await browser.context.newPage();
    const controller = new AbortController();
    try {
      void executor.call('append_marker', { filepath: 'cross.txt', marker: 'never' }, { callId: 'call_cross', session: 'cross', signal: controller.signal });
      await card('call_cross');
      const question = (await ledger.pendingApprovals()).find((q) => q.callId === 'call_cross')!;
      const target = `${cockpit.url}api/questions/${question.id}`;

      // A page of another origin posts to the cockpit (a simple request: no preflight, the browser sends it).
      await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      // The cockpit's answer is a 401 (the page has no key: the cockpit's lives in its own
      // origin's sessionStorage) the browser may not even hand to that page
      // (Cross-Origin-Resource-Policy: same-origin): either way, it was refused.
      const seen = new Promise<string>((resolve) => {
        evilPage.on('response', (r) => r.url() === target && resolve(`status ${r.status()}`));
        evilPage.on('requestfailed', (r) => r.url() === target && resolve(`failed ${r.failure()?.errorText ?? ''}`));
      });
      await evilPage.evaluate((url: string) => fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"answer":"allow_once"}' }).catch(() => undefined), target);
      assert.match(await seen, /^(status 40[13]|failed net::ERR_BLOCKED_BY_RESPONSE)/);
      // The browser, signed in to the cockpit on 127.0.0.1, sent the other port nothing of it.
      const key = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(name: string): string | null } }).sessionStorage.getItem('toolgate-cockpit-key'));
      assert.ok(key, 'the cockpit page holds its key');
      assert.ok(received.length > 0);
      for (const headers of received) {
        assert.doesNotMatch(headers, /"cookie"/);
        assert.ok(!headers.includes(key) && !headers.includes(cockpit.token), headers);
      }

      // Outside a browser, with the cockpit's token: a foreign Origin with the right CSRF token, and the right Origin without it.
      const authorization = `Bearer ${cockpit.token}`;
      const csrf = ((await (await fetch(`${cockpit.url}api/csrf`, { headers: { authorization } })).json()) as { token: string }).token;
      const origin = cockpit.url.replace(/\/$/, '');
      const post = (headers: Record<string, string>) => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization, ...headers }, body: '{"answer":"allow_once"}' });
      const foreign = await post({ origin: 'http://evil.example', 'x-csrf-token': csrf });
      assert.equal(foreign.status, 403);
      assert.equal(((await foreign.json()) as { error: string }).error, 'origin');
      const noToken = await post({ origin });
      assert.equal(noToken.status, 403);
      assert.equal(((await noToken.json()) as { error: string }).error, 'csrf');
      const noOrigin = await post({ 'x-csrf-token': csrf });
      assert.equal(noOrigin.status, 403);

      assert.equal((await ledger.approval(question.id))?.answer, undefined);
      assert.equal(fs.existsSync(path.join(ws, 'cross.txt')), false);
    } finally {
      controller.abort();
      await evilPage.close();
      evil.closeAllConnections();
      await new Promise((resolve) => evil.close(resolve));
      await executor.close();
    }
  });

  it('a signed-in page gives an address for another tab, which logs in once; a tab without a code is told what to do', async () => {
    steps?.step('4: an address for another tab');
    await page.locator('[data-testid=another-tab]').click();
    const link = page.locator('[data-testid=another-tab-url] a');
    await link.waitFor();
    const href = (await link.getAttribute('href'))!;
    assert.match(href, /^\/#code=[\w-]{32}$/);
    const second = await browser.context.newPage();
    const third = await browser.context.newPage();
    try {
      await second.goto(new URL(href, cockpit.url).href);
      await second.locator('[data-testid=status]', { hasText: 'live' }).waitFor();
      // The same address again: spent.
      await third.goto(new URL(href, cockpit.url).href);
      await third.locator('[data-testid=status]', { hasText: 'signed out' }).waitFor();
      assert.match(await third.locator('[data-testid=signed-out]').textContent() ?? '', /Address for another tab/);
    } finally {
      await second.close();
      await third.close();
    }
  });

  it('approving from the page and from `toolgate approvals allow` at the same moment runs the call once', async () => {
    // The asker is killed: both answerers then try to run the call themselves, and the ledger's claim lets one.
    const asker = spawn(process.execPath, [ASKER, state, ws, 'call_twice', 'ran'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(asker);
    steps?.step(`5: the asker started (pid ${asker.pid})`);
    let out = '';
    asker.stdout!.on('data', (d) => (out += d));
    while (!out.includes('asked')) {
      if (asker.exitCode !== null) throw new Error(`the asker ended early: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exited = new Promise((resolve) => asker.once('exit', resolve));
    asker.kill('SIGKILL');
    await exited;
    steps?.step('5: the asker killed');

    // The cockpit of the CLI, which runs a call whose asker is gone (with the fixture tools).
    const server = spawn(process.execPath, [BIN, 'cockpit', '--port', '0', '--workspace', ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(server);
    steps?.step(`5: toolgate cockpit started (pid ${server.pid})`);
    let err = '';
    server.stderr!.on('data', (d) => (err += d));
    while (!/http:\/\/\S+\/#code=\S+/.test(err)) {
      if (server.exitCode !== null) throw new Error(`toolgate cockpit ended early: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /(http:\/\/\S+\/#code=\S+)/.exec(err)![1]!;
    const other = await browser.context.newPage();
    try {
      await other.goto(url);
      const question = (await ledger.pendingApprovals()).find((q) => q.callId === 'call_twice')!;
      const button = other.locator(`[data-question-id="${question.id}"] button[data-answer=allow_once]`);
      await button.waitFor();
      steps?.step('5: answering from the page and from toolgate approvals allow');
      const [cli] = await Promise.all([
        runCli(['approvals', 'allow', String(question.id), '--workspace', ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy']),
        button.click(),
      ]);
      assert.ok(cli.code === 0 || cli.code === 1, `approvals allow: ${cli.code} ${cli.stdout} ${cli.stderr}`);
      // Whichever ran it, the call ends done, once.
      steps?.step(`5: approvals allow ended (${cli.code}); waiting for the call to end`);
      const deadline = Date.now() + 60_000;
      while ((await ledger.get('call_twice', 'asker'))?.state !== 'done') {
        assert.ok(Date.now() < deadline, `the call did not end: ${JSON.stringify((await ledger.get('call_twice', 'asker')))}\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(fs.readFileSync(path.join(ws, 'runs.txt'), 'utf8'), 'ran\n');
      assert.equal((await ledger.approval(question.id))?.answer, 'allow_once');
    } finally {
      await other.close();
      const stopped = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await stopped;
      steps?.step('5: toolgate cockpit stopped');
    }
  });
});
