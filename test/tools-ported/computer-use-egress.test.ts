/**
 * computer_use's browser reaches only what the network policy allows, judged at every
 * connection, not only the URL `open` was given: a page on an allowed site tries to reach a
 * forbidden loopback server (standing for the cockpit) by fetch, WebSocket, an image, and
 * frames that get there by a 302 redirect, a meta refresh, a script's navigation and a form
 * POST, by address and by a name that resolves to loopback; the forbidden server sees nothing,
 * while the same ways do reach the allowed site (the control). Run in the bubblewrap sandbox
 * with the network allowed (the browser in a network namespace of its own, its one way out
 * the egress proxy) and with the sandbox off (the browser on the host, told to use the proxy).
 *
 * The allowed site is on loopback too (no network here): `TOOLGATE_NET_ALLOW` allows its
 * address and port only (`127.0.0.1:<port>`), not the forbidden server's port.
 *
 * Needs Debian's xvfb, xdotool, scrot, chromium and a working bubblewrap; skipped where they are missing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';
import { portedRegistry, tempWorkspace } from '../helpers.js';
import { startRecordingServer, VECTORS, vectorsSeen, type RecordingServer } from './computer-use-egress-fixture.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;

describe('computer_use: every connection of the browser is judged', { skip, concurrency: 1 }, () => {
  const t = tempWorkspace();
  let forbidden: RecordingServer;
  let site: RecordingServer;
  let savedAllow: string | undefined;
  before(async () => {
    forbidden = await startRecordingServer();
    site = await startRecordingServer(forbidden.port);
    savedAllow = process.env[NET_ALLOW_ENV];
    process.env[NET_ALLOW_ENV] = `127.0.0.1:${site.port}`;
  });
  after(async () => {
    if (savedAllow === undefined) delete process.env[NET_ALLOW_ENV];
    else process.env[NET_ALLOW_ENV] = savedAllow;
    await site.close();
    await forbidden.close();
    t.cleanup();
  });

  const cases = [
    ['in the sandbox with the network allowed', { sandboxNetwork: true }],
    ['with the sandbox off and the network allowed', { sandbox: 'none' as const, sandboxNetwork: true }],
  ] as const;
  for (const [name, options] of cases) {
    it(`${name}: redirects, refreshes, scripts, subresources and sockets never reach a forbidden address`, async () => {
      site.hits.length = 0;
      forbidden.hits.length = 0;
      const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, ...options });
      try {
        const opened = await executor.execute({ name: 'computer_use', arguments: { action: 'open', url: `http://127.0.0.1:${site.port}/start` } }, { confirm: true });
        assert.equal(opened.success, true, opened.output);
        // The page ends with GET /done on its own site, after every vector against the forbidden server.
        for (let waited = 0; !site.hits.includes('GET /done') && waited < 120_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(site.hits.includes('GET /done'), `the page ran to its end: ${JSON.stringify(site.hits)}`);
      } finally {
        await executor.close();
      }
      assert.deepEqual(vectorsSeen(site), [...VECTORS], `the control: each way reaches an allowed site (${JSON.stringify(site.hits)})`);
      assert.deepEqual(forbidden.hits, [], 'nothing reached the forbidden server');
    });
  }
});
