/**
 * computer_use's browser speaks https through the egress proxy's `CONNECT` tunnels, in the real
 * Chromium: a page on an allowed https site (a loopback server with a self-signed certificate
 * made for this run, which Chromium accepts by its public key's hash for this run only) loads,
 * and its `fetch()`es to a loopback port that is not allowed and to 169.254.169.254 (the cloud
 * metadata address, written as an address and as a decimal number) are refused by the proxy:
 * the forbidden server never sees a TCP connection, and the proxy records each refusal. Run in
 * the bubblewrap sandbox with the network allowed and with the sandbox off.
 *
 * Needs Debian's xvfb, xdotool, scrot, chromium and a working bubblewrap; skipped where they are missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';
import { displaysOfWorkspace } from '../../tools-ported/computer/display-sessions.js';
import { portedRegistry, tempWorkspace } from '../helpers.js';
import { selfSignedCert } from './self-signed-cert.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;

/** The page: fetches to each forbidden target, then `GET /done` with what each fetch gave. */
function page(targets: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>tls egress</title></head><body><script>
(async () => {
  const seen = {};
  for (const t of ${JSON.stringify(targets)}) {
    seen[t] = await Promise.race([
      fetch(t, { mode: 'no-cors', cache: 'no-store' }).then(() => 'reached', (e) => 'failed: ' + e.message),
      new Promise((r) => setTimeout(() => r('timeout'), 10000)),
    ]);
  }
  await fetch('/self', { cache: 'no-store' }).catch(() => {});
  await fetch('/done?seen=' + encodeURIComponent(JSON.stringify(seen)), { cache: 'no-store' }).catch(() => {});
})();
</script></body></html>`;
}

describe('computer_use: https through the egress proxy in the real browser', { skip, concurrency: 1 }, () => {
  const t = tempWorkspace();
  const cert = selfSignedCert();
  const hits: string[] = [];
  let seen = '';
  let site: https.Server;
  let forbidden: net.Server;
  let forbiddenConnections = 0;
  let sitePort = 0;
  let forbiddenPort = 0;
  const saved: Record<string, string | undefined> = {};
  before(async () => {
    forbidden = net.createServer((socket) => {
      forbiddenConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.1', resolve));
    forbiddenPort = (forbidden.address() as net.AddressInfo).port;
    const targets = [`https://127.0.0.1:${forbiddenPort}/hit`, 'https://169.254.169.254/latest/meta-data/', 'https://2852039166/decimal'];
    site = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://x');
      hits.push(`${req.method} ${url.pathname}`);
      if (url.pathname === '/done') seen = url.searchParams.get('seen') ?? '';
      if (url.pathname === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(targets));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as net.AddressInfo).port;
    // The browser accepts this run's certificate by its key's hash, for this run only: a
    // wrapper in the workspace (visible in the sandbox) adds the flag.
    const wrapper = path.join(t.ws, 'chromium-for-this-test');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${findExecutable('chromium')} --ignore-certificate-errors-spki-list=${cert.spkiSha256} "$@"\n`, { mode: 0o755 });
    for (const [name, value] of [[NET_ALLOW_ENV, `127.0.0.1:${sitePort}`], ['TOOLGATE_BROWSER', wrapper]] as const) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    site.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
    await new Promise<void>((resolve) => forbidden.close(() => resolve()));
    t.cleanup();
  });

  const cases = [
    ['in the sandbox with the network allowed', { sandboxNetwork: true }],
    ['with the sandbox off and the network allowed', { sandbox: 'none' as const, sandboxNetwork: true }],
  ] as const;
  for (const [name, options] of cases) {
    it(`${name}: the allowed https page loads; CONNECTs to another loopback port and to 169.254.169.254 are refused`, async () => {
      hits.length = 0;
      seen = '';
      forbiddenConnections = 0;
      const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, ...options });
      let refusals: string[] = [];
      try {
        const opened = await executor.execute({ name: 'computer_use', arguments: { action: 'open', url: `https://127.0.0.1:${sitePort}/page` } }, { confirm: true });
        assert.equal(opened.success, true, opened.output);
        for (let waited = 0; !hits.includes('GET /done') && waited < 120_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
        const [display] = await displaysOfWorkspace(t.ws);
        assert.ok(display !== undefined, 'the display runs');
        refusals = (await display.egressProxy()).refusals.map((r) => `${r.host}:${r.port}`);
      } finally {
        await executor.close();
      }
      assert.deepEqual(hits.filter((h) => h !== 'GET /favicon.ico'), ['GET /page', 'GET /self', 'GET /done'], 'the page came over TLS through the proxy and ran to its end');
      const results = JSON.parse(seen) as Record<string, string>;
      for (const [target, result] of Object.entries(results)) assert.match(result, /^failed/, `${target} was not reached: ${result}`);
      assert.equal(forbiddenConnections, 0, 'the forbidden loopback port saw no connection');
      assert.ok(refusals.includes(`127.0.0.1:${forbiddenPort}`), `the proxy refused the forbidden port: ${JSON.stringify(refusals)}`);
      assert.ok(refusals.includes('169.254.169.254:443'), `the proxy refused the metadata address: ${JSON.stringify(refusals)}`);
      assert.ok(!refusals.includes(`127.0.0.1:${sitePort}`), 'the allowed site was never refused');
    });
  }
});
