/**
 * computer_use's browser sends no UDP past the egress proxy: a page on an allowed loopback
 * site starts an RTCPeerConnection whose STUN and TURN (UDP) servers are a loopback UDP socket
 * of this test; the socket receives nothing, in the bubblewrap sandbox (the browser's network
 * namespace has no route to the host's loopback) and with the sandbox off (where only
 * Chromium's `--webrtc-ip-handling-policy=disable_non_proxied_udp` holds it back). The control:
 * the same page in the same Chromium without toolgate's flags does send its STUN requests to
 * the socket, so the page is one that would leak.
 *
 * Needs Debian's xvfb, xdotool, scrot, chromium and a working bubblewrap; skipped where they are missing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';
import { portedRegistry, tempWorkspace } from '../helpers.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;

/** The page: ICE gathering against `udpPort` as STUN and TURN server, then `GET /done` with the candidates. */
function page(udpPort: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>webrtc</title></head><body><script>
(async () => {
  const found = [];
  try {
    const pc = new RTCPeerConnection({ iceServers: [
      { urls: 'stun:127.0.0.1:${udpPort}' },
      { urls: 'turn:127.0.0.1:${udpPort}?transport=udp', username: 'u', credential: 'p' },
    ] });
    pc.createDataChannel('x');
    pc.onicecandidate = (e) => { if (e.candidate) found.push(e.candidate.candidate); };
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => {
      const timer = setTimeout(r, 8000);
      pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') { clearTimeout(timer); r(); } };
    });
    pc.close();
  } catch (e) {
    found.push('error: ' + e);
  }
  await fetch('/done?found=' + encodeURIComponent(JSON.stringify(found))).catch(() => {});
})();
</script></body></html>`;
}

describe('computer_use: WebRTC sends no UDP around the egress proxy', { skip, concurrency: 1 }, () => {
  const t = tempWorkspace();
  const datagrams: string[] = [];
  let udp: dgram.Socket;
  let site: http.Server;
  let sitePort = 0;
  let done: string | undefined;
  let savedAllow: string | undefined;
  before(async () => {
    udp = dgram.createSocket('udp4');
    udp.on('message', (message, from) => datagrams.push(`${from.address}:${from.port} ${message.length} bytes`));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const udpPort = udp.address().port;
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/done') done = url.searchParams.get('found') ?? '';
      if (url.pathname === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(udpPort));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    savedAllow = process.env[NET_ALLOW_ENV];
    process.env[NET_ALLOW_ENV] = `127.0.0.1:${sitePort}`;
  });
  after(async () => {
    if (savedAllow === undefined) delete process.env[NET_ALLOW_ENV];
    else process.env[NET_ALLOW_ENV] = savedAllow;
    site.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
    udp.close();
    t.cleanup();
  });

  const waitDone = async () => {
    for (let waited = 0; done === undefined && waited < 120_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(done !== undefined, 'the page ran to its end');
  };

  it('the control: the page in Chromium without toolgate\'s flags sends STUN to the socket', async () => {
    datagrams.length = 0;
    done = undefined;
    const profile = path.join(t.root, 'control-profile');
    const browser = spawn(findExecutable('chromium')!, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, `http://127.0.0.1:${sitePort}/page`], { detached: true, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => browser.once('exit', () => resolve()));
    try {
      await waitDone();
    } finally {
      try {
        process.kill(-browser.pid!, 'SIGKILL');
      } catch {
        // gone
      }
      await exited;
      fs.rmSync(profile, { recursive: true, force: true });
    }
    assert.ok(datagrams.length > 0, `STUN reached the socket without the flags (candidates: ${done})`);
  });

  const cases = [
    ['in the sandbox with the network allowed', { sandboxNetwork: true }],
    ['with the sandbox off and the network allowed', { sandbox: 'none' as const, sandboxNetwork: true }],
  ] as const;
  for (const [name, options] of cases) {
    it(`${name}: STUN and TURN over UDP never reach a loopback UDP socket`, async () => {
      datagrams.length = 0;
      done = undefined;
      const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, ...options });
      try {
        const opened = await executor.execute({ name: 'computer_use', arguments: { action: 'open', url: `http://127.0.0.1:${sitePort}/page` } }, { confirm: true });
        assert.equal(opened.success, true, opened.output);
        await waitDone();
      } finally {
        await executor.close();
      }
      assert.deepEqual(datagrams, [], `no datagram reached the socket (candidates: ${done})`);
      assert.doesNotMatch(done ?? '', /typ (host|srflx|relay)/, 'no ICE candidate was gathered');
    });
  }
});
