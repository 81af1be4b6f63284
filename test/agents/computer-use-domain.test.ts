/**
 * The computer_use domain through GeneralAgent with a scripted model and lazy domains: the
 * model requests `computer_use`, opens a test page in chromium on the session's virtual
 * display, takes a screenshot it sees (an image, and the windows in words), and clicks a
 * button, which the page records in its title. Asks by default; bad input (a point off the
 * screen, an unknown key, empty text, coordinates that are not whole numbers) is a clear
 * error that changes nothing; without the X programs it answers "unavailable" naming the
 * Debian packages; nothing runs after the executor closes.
 *
 * Needs Debian's xvfb, xdotool, scrot, chromium and a working bubblewrap (installed by
 * .ci/run); skipped where they are missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolSystem } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { displaysOfWorkspace } from '../../tools-ported/computer/display-sessions.js';
import { cliInProcess } from '../cli/in-process.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';
import { descendants, TEST_PAGE, waitGone } from './computer-use-fixture.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;

describe('the computer_use domain in an agent run', { skip }, () => {
  const t = tempWorkspace();
  let tools: ToolSystem;
  let ws: string;
  before(async () => {
    ws = fs.realpathSync(t.ws);
    fs.writeFileSync(path.join(ws, 'page.html'), TEST_PAGE);
    tools = new ToolSystem({ workspace: t.ws });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });
  let n = 0;
  const call = (args: Record<string, unknown>, confirm = true) => tools.execute({ name: 'computer_use', arguments: args, callId: `direct-${n++}` }, { confirm });

  it('asks by default; nothing starts before the answer, nor for bad input', async () => {
    const asked = await call({ action: 'screenshot' }, false);
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    assert.equal((await displaysOfWorkspace(ws)).length, 0, 'no display was started');
    // Nor for bad input, approved or not.
    for (const args of [{ action: 'click', x: 2000, y: 5 }, { action: 'key', keys: 'hyper+q' }, { action: 'open', url: 'missing.html' }]) {
      assert.equal((await call(args)).errorCode, 'INVALID_ARGUMENTS', JSON.stringify(args));
    }
    assert.equal((await displaysOfWorkspace(ws)).length, 0, 'no display was started');
  });

  it('is requested, opens a page, and the model sees the screenshot and its click land', async () => {
    let clickedAt: [number, number] | undefined;
    const model = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['computer_use'], reason: 'press the button on the test page' }]),
      toolCalls(['o', 'computer_use', { action: 'open', url: 'page.html' }]),
      toolCalls(['s', 'computer_use', { action: 'screenshot' }]),
      (request) => {
        // The model looks: the screen's size and windows in words, the image after them.
        const seen = toolMessages(request).get('s')!;
        assert.match(seen, /1024x768 pixels/);
        const window = /"ready - Chromium" at \((\d+), (\d+)\), (\d+)x(\d+)/.exec(seen);
        assert.ok(window, seen);
        // The button is the page's band from 100 to 400 pixels down, under the browser's bars.
        clickedAt = [400, Number(window[2]) + 300];
        return toolCalls(['c', 'computer_use', { action: 'click', x: clickedAt[0], y: clickedAt[1] }]);
      },
      toolCalls(['w', 'computer_use', { action: 'wait', seconds: 0.5 }]),
      finalAnswer('pressed'),
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true, autoConfirmTools: true }).run('press the button');
    assert.equal(run.stopReason, 'final');
    assert.ok(!offeredTools(model.requests[0]).includes('computer_use'), 'hidden before request_tools');
    assert.ok(offeredTools(model.requests[1]).includes('computer_use'), 'offered after request_tools');
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    // The screenshot reached the model as an image (the shape read_image's results take).
    const images = model.requests[3]!.messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content : []))
      .filter((part) => part.type === 'image_url');
    assert.equal(images.length, 1);
    assert.match((images[0] as { image_url: { url: string } }).image_url.url, /^data:image\/png;base64,iVBORw0KGgo/);
    // The click landed: the page counts it in its title, which the next result lists.
    const after = toolMessages(model.requests[5]!).get('w')!;
    assert.match(after, /"clicked 1 at \d+,\d+ on b - Chromium"/, after);
    assert.match(toolMessages(model.requests[4]!).get('c')!, new RegExp(`Pointer at \\(${clickedAt![0]}, ${clickedAt![1]}\\)`));
  });

  it('types into the page and presses keys', async () => {
    const shot = await call({ action: 'screenshot' });
    const top = Number(/"clicked 1 [^"]*" at \(\d+, (\d+)\)/.exec(shot.output)?.[1]);
    assert.ok(Number.isInteger(top), shot.output);
    assert.equal((await call({ action: 'click', x: 200, y: top + 600 })).success, true);
    assert.equal((await call({ action: 'type', text: 'hello' })).success, true);
    assert.equal((await call({ action: 'key', keys: 'shift+1 Return' })).success, true);
    let state = '';
    for (let i = 0; i < 20 && !/typed hello!/.test(state); i++) state = (await call({ action: 'wait', seconds: 0.25 })).output;
    assert.match(state, /"typed hello! - Chromium"/);
  });

  it('describes the screen to a model that cannot see, and sends it no image', async () => {
    const model = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['computer_use'], reason: 'look at the screen' }]),
      toolCalls(['s', 'computer_use', { action: 'screenshot' }]),
      finalAnswer('seen'),
    ], 'text-only');
    const run = await new GeneralAgent({ tools, model, lazyDomains: true, autoConfirmTools: true }).run('what is on the screen?');
    assert.equal(run.stopReason, 'final');
    assert.equal(run.results[1]!.images?.length, 1, 'the result still carries the image (for the ledger, other callers)');
    const last = model.requests[2]!;
    assert.equal(JSON.stringify(last.messages).includes('image_url'), false, 'no image part reaches a text-only model');
    assert.match(JSON.stringify(last.messages), /1 image\(s\) not shown: this model reads text only/);
    assert.match(toolMessages(last).get('s')!, /1024x768 pixels[\s\S]*Windows \(1\):\n- "[^"]* - Chromium" at \(0, 0\)/);
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const before = (await call({ action: 'wait', seconds: 0.1 })).output;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: 'click', x: 1024, y: 10 }, /off the screen, which is 1024x768/],
      [{ action: 'drag', x: 10, y: 10, to_x: 10, to_y: 768 }, /off the screen/],
      [{ action: 'click', x: 5000, y: 10 }, /x.*<= 3839/],
      [{ action: 'click', x: 10.5, y: 10 }, /must be integer/],
      [{ action: 'click', x: '10', y: 10 }, /integer/],
      [{ action: 'click' }, /click needs x and y/],
      [{ action: 'key', keys: 'ctrl+NoSuchKey' }, /unknown key name "NoSuchKey"/],
      [{ action: 'key', keys: 'ctrl+' }, /not a key combination/],
      [{ action: 'type', text: '' }, /fewer than 1 characters/],
      [{ action: 'type' }, /type needs text/],
      [{ action: 'fly' }, /action/],
      [{ action: 'open', url: '../outside.html' }, /outside the workspace/],
      [{ action: 'open', url: 'file:///etc/passwd' }, /neither a workspace file nor an http\(s\) URL/],
      // The host's own services: refused before anything starts, like http_request's (the egress proxy judges every later connection: computer-use-egress.test.ts).
      [{ action: 'open', url: 'http://127.0.0.1:9/' }, /local or private address/],
      [{ action: 'open', url: 'http://localhost:9/admin' }, /local or private address/],
      [{ action: 'open', url: 'http://[::1]:9/' }, /local or private address/],
      [{ action: 'open', url: 'http://169.254.169.254/latest/meta-data/' }, /local or private address/],
    ];
    for (const [args, why] of bad) {
      const result = await call(args);
      assert.equal(result.success, false, JSON.stringify(args));
      assert.ok(['INVALID_ARGUMENTS', 'PATH_TRAVERSAL'].includes(result.errorCode!), `${JSON.stringify(args)}: ${result.errorCode}`);
      assert.match(result.error ?? result.output, why, JSON.stringify(args));
    }
    assert.equal((await call({ action: 'wait', seconds: 0.1 })).output, before, 'the pointer, the windows and the page are as they were');
  });

  it('answers unavailable, naming the Debian packages, when the X programs are missing', async () => {
    const saved = process.env.TOOLGATE_XDOTOOL;
    process.env.TOOLGATE_XDOTOOL = path.join(t.root, 'no-such-xdotool');
    try {
      const result = await call({ action: 'screenshot' });
      assert.equal(result.success, false);
      assert.equal(result.errorCode, 'PACKAGE_UNAVAILABLE');
      assert.match(result.error ?? result.output, /^(computer_use failed: )?unavailable: computer_use needs the Debian packages xvfb, xdotool, scrot.*missing here: xdotool.*apt-get install xvfb xdotool scrot/s);
    } finally {
      if (saved === undefined) delete process.env.TOOLGATE_XDOTOOL;
      else process.env.TOOLGATE_XDOTOOL = saved;
    }
    const browser = process.env.TOOLGATE_BROWSER;
    process.env.TOOLGATE_BROWSER = path.join(t.root, 'no-such-browser');
    try {
      const result = await call({ action: 'open', url: 'page.html' });
      assert.equal(result.errorCode, 'PACKAGE_UNAVAILABLE');
      assert.match(result.error ?? result.output, /Debian package chromium/);
    } finally {
      if (browser === undefined) delete process.env.TOOLGATE_BROWSER;
      else process.env.TOOLGATE_BROWSER = browser;
    }
  });

  it('leaves nothing running after the executor closes', async () => {
    const [display] = await displaysOfWorkspace(ws);
    assert.ok(display?.pid !== undefined);
    const pids = descendants(process.pid);
    assert.ok(pids.some((p) => p.comm === 'Xvfb'), JSON.stringify(pids));
    assert.ok(pids.some((p) => p.comm.startsWith('chromium')), JSON.stringify(pids));
    await tools.close();
    assert.deepEqual(await waitGone(pids.map((p) => p.pid)), [], 'every process of the display is gone');
    assert.deepEqual(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`toolgate-display-${process.pid}-`)), [], 'the socket folder is removed');
    tools = new ToolSystem({ workspace: t.ws }); // for after()
    await tools.start();
  });
});

describe('toolgate list', () => {
  it('shows computer_use in its domain, asking, of kind computer_use', async () => {
    const run = await cliInProcess(['list', '--domain', 'computer_use']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 6)), [['computer_use', '1.0.0', 'computer_use', 'write', 'yes', 'computer_use']]);
  });
});
