/**
 * The cockpit in headless Chromium shows a running call's latest progress and its time so far
 * (issue 34): the progress a `toolgate call` records in the ledger (`Ledger.progress`) reaches
 * the page's timeline over the event stream while the call runs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { Ledger } from 'toolgate';
import { startCockpit, type CockpitHandle } from '../../src/cockpit/server.js';
import { chromiumMissing, launchChromium, stepRecord, type TestBrowser } from './browser.js';
import { REPO_ROOT } from '../helpers.js';

describe('cockpit in headless Chromium: a running call\'s progress', { skip: chromiumMissing() }, () => {
  let root: string;
  let ledger: Ledger;
  let cockpit: CockpitHandle;
  let browser: TestBrowser;
  let page: Page;
  /** Where the test is, in test-output/cockpit-progress-browser.steps: what CI prints if this process dies. */
  let steps: ReturnType<typeof stepRecord> | undefined;

  before(async () => {
    steps = stepRecord('cockpit-progress-browser');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cockpit-progress-'));
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    ledger = Ledger.open({ dir: path.join(root, 'state'), workspace: ws });
    cockpit = await startCockpit({ ledger, port: 0, pollMs: 100 });
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(cockpit.openUrl);
    await page.locator('[data-testid=status]', { hasText: 'live' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await cockpit?.close();
    await ledger?.close();
    fs.rmSync(root, { recursive: true, force: true });
    steps?.done();
  });

  it('shows the latest progress and the time so far of a running call, and neither once it ended', async () => {
    steps?.step('1: a running call\'s progress');
    const call = { callId: 'long_1', session: 'cli', tool: 'run_command', version: '1.0.0', arguments: { command: 'make' }, workspace: root, turn: 'long_1' };
    assert.equal((await ledger.record(call)).kind, 'recorded');
    assert.equal(await ledger.claim(call), true);
    assert.equal(await ledger.progress('long_1', 'cli', { done: 1, total: 4, message: 'compiling a.c' }), true);
    const row = page.locator('[data-testid=call][data-call-id=long_1]');
    await row.locator('[data-testid=call-progress]', { hasText: '[1/4] compiling a.c' }).waitFor();
    await row.locator('[data-testid=call-duration]', { hasText: /^running \d+ s$/ }).waitFor();
    // The chart: a bar for the call, running, titled with its latest progress.
    const bar = page.locator('[data-testid=chart-bar][data-call-id=long_1]');
    await page.locator('[data-testid=chart-bar][data-call-id=long_1][data-state=running]').waitFor({ state: 'attached' });
    assert.match(await bar.locator('title').textContent() ?? '', /run_command@1\.0\.0 long_1 \(long_1\): running for \d+ s — \[1\/4\] compiling a\.c/);
    assert.equal(await ledger.progress('long_1', 'cli', { message: 'cc -o a a.o' }), true);
    await row.locator('[data-testid=call-progress]', { hasText: 'cc -o a a.o' }).waitFor();
    await ledger.finish(call, { state: 'done', decisions: undefined, result: { success: true, output: 'ok', durationMs: 5, confirmed: true, tool: 'run_command', version: '1.0.0', callId: 'long_1', stopReason: 'completed', outcome: 'success', sideEffects: 'possible' } });
    await row.locator('[data-testid=call-state]', { hasText: 'done' }).waitFor();
    assert.equal(await row.locator('[data-testid=call-progress]').count(), 0);
    await page.locator('[data-testid=chart-bar][data-call-id=long_1][data-state=done]').waitFor({ state: 'attached' });
    await page.locator('#chart-section').screenshot({ path: path.join(REPO_ROOT, 'test-output', 'cockpit-chart.png') });
    assert.match(await row.locator('[data-testid=call-duration]').innerText(), /^\d+ ms$/);
    // Progress of a call that is not running is not recorded.
    assert.equal(await ledger.progress('long_1', 'cli', { done: 2 }), false);
  });
});
