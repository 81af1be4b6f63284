/**
 * computer_use's `open` when the browser cannot start, and when the Node running toolgate lives
 * in a folder the sandbox hides:
 * - a browser (or, sandboxed, its egress forwarder) that exits before showing a window makes
 *   `open` fail with the lines it wrote, instead of answering "opened" over an empty screen;
 * - sandboxed with the network allowed, the forwarder runs on the host's Node binary bound into
 *   the sandbox, so a Node under `/tmp` (hidden there by a private tmpfs) still opens the page.
 *
 * Needs Debian's xvfb, xdotool, scrot, chromium and a working bubblewrap; skipped where they are missing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';
import { portedRegistry, tempWorkspace } from '../helpers.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;
const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const HELPERS = fileURLToPath(new URL('../helpers.js', import.meta.url));

describe('computer_use open: the browser starts, or open says why not', { skip, concurrency: 1 }, () => {
  for (const [name, options] of [
    ['sandboxed with the network allowed (through the forwarder)', { sandboxNetwork: true }],
    ['with the sandbox off', { sandbox: 'none' as const, sandboxNetwork: true }],
  ] as const) {
    it(`${name}: a browser that exits before its window is an error naming what it wrote`, async () => {
      const t = tempWorkspace();
      const saved = process.env.TOOLGATE_BROWSER;
      const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, ...options });
      try {
        const broken = path.join(t.ws, 'broken-browser');
        fs.writeFileSync(broken, '#!/bin/sh\necho "broken-browser: cannot open the display" >&2\nexit 3\n', { mode: 0o755 });
        fs.writeFileSync(path.join(t.ws, 'page.html'), '<!doctype html><title>x</title>');
        process.env.TOOLGATE_BROWSER = broken;
        const opened = await executor.execute({ name: 'computer_use', arguments: { action: 'open', url: 'page.html' } }, { confirm: true });
        assert.equal(opened.success, false, opened.output);
        assert.match(opened.output, /the browser did not start: it exited \(status 3\) before showing a window: .*broken-browser: cannot open the display/);
      } finally {
        if (saved === undefined) delete process.env.TOOLGATE_BROWSER;
        else process.env.TOOLGATE_BROWSER = saved;
        await executor.close();
        t.cleanup();
      }
    });
  }

  it('sandboxed with the network allowed, a Node under a folder the sandbox hides still runs the forwarder', async () => {
    const t = tempWorkspace();
    const hits: string[] = [];
    const site = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>hidden node</title>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    let host: ReturnType<typeof spawn> | undefined;
    try {
      // The host's Node at a path under /tmp (t.root), outside the workspace: the sandbox covers /tmp.
      const hiddenNode = path.join(t.root, 'node-bin', 'node');
      fs.mkdirSync(path.dirname(hiddenNode));
      try {
        fs.linkSync(fs.realpathSync(process.execPath), hiddenNode);
      } catch {
        fs.copyFileSync(fs.realpathSync(process.execPath), hiddenNode);
        fs.chmodSync(hiddenNode, 0o755);
      }
      const port = (site.address() as AddressInfo).port;
      const script = `
        import { ToolExecutor } from ${JSON.stringify(INDEX)};
        import { portedRegistry } from ${JSON.stringify(HELPERS)};
        const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: process.argv[1], sandboxNetwork: true });
        const opened = await executor.execute({ name: 'computer_use', arguments: { action: 'open', url: process.argv[2] } }, { confirm: true });
        process.stdout.write(JSON.stringify({ success: opened.success, output: opened.output, node: process.execPath }) + '\\n');
        process.stdin.resume().on('end', async () => { await executor.close(); process.exit(0); });`;
      host = spawn(hiddenNode, ['--input-type=module', '-e', script, t.ws, `http://127.0.0.1:${port}/page`], {
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, [NET_ALLOW_ENV]: `127.0.0.1:${port}` },
      });
      const exited = new Promise<void>((resolve) => host!.once('exit', () => resolve()));
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        host!.stdout!.setEncoding('utf8').on('data', (s: string) => {
          out += s;
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        host!.once('exit', (code) => reject(new Error(`the host exited (${code}) before opening the page: ${out}`)));
      });
      const opened = JSON.parse(line) as { success: boolean; output: string; node: string };
      assert.equal(opened.node, hiddenNode, 'the host ran on the hidden Node');
      assert.equal(opened.success, true, opened.output);
      for (let waited = 0; !hits.includes('GET /page') && waited < 60_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(hits.includes('GET /page'), 'the browser loaded the page through the forwarder');
      host.stdin!.end();
      await exited;
    } finally {
      host?.kill('SIGKILL');
      site.closeAllConnections();
      await new Promise<void>((resolve) => site.close(() => resolve()));
      t.cleanup();
    }
  });
});
