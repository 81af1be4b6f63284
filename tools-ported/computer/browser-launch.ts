/**
 * How computer_use's `open` starts the browser so that every connection it makes is judged by
 * the network policy when it is made (egress-proxy.ts), not only the URL `open` was given: a
 * page can redirect, refresh, navigate by script, post a form, fetch, load images and open
 * WebSockets anywhere, and a name can resolve differently at the second look.
 *
 * - Sandboxed (bubblewrap), the browser always runs in a network namespace of its own (only
 *   its own loopback), whatever the call's policy says about the network. With the network
 *   allowed, its one way out is the display's egress proxy, listening on a Unix socket on the
 *   host that is bound read-only into the sandbox; a forwarder inside the namespace (Node,
 *   {@link FORWARDER}, the host's Node binary bound in at {@link NODE_INSIDE}) listens on the
 *   namespace's 127.0.0.1:{@link FORWARDER_PORT} and relays
 *   each connection to that socket, and the browser is told to use it as its proxy. A request
 *   that slipped past the proxy settings would find no route: this is kernel-enforced. Without
 *   the network, there is no proxy and no way out at all.
 * - Unsandboxed (the user chose the `none` profile), the browser runs on the host and is told
 *   to use the egress proxy on a loopback TCP port, with Chromium's implicit loopback bypass
 *   removed, its own name resolution turned off, QUIC off and WebRTC's non-proxied UDP off.
 *   That relies on Chromium keeping to its settings. Without the network, the proxy refuses
 *   every connection.
 *
 * @module
 */
import fs from 'node:fs';
import type { SandboxPolicy } from '../../src/tool.js';
import { browserCommand, type VirtualDisplay } from './virtual-display.js';

/** The forwarder's port on the browser namespace's own loopback (the namespace is private: it is always free). */
const FORWARDER_PORT = 3128;
/** Where the proxy's socket folder appears inside the browser's sandbox. */
const SOCKET_INSIDE = '/tmp/.toolgate-egress';
/**
 * Where the Node binary running toolgate appears inside the browser's sandbox, for the
 * forwarder: bound there read-only from its real path, since that path may lie in a folder the
 * sandbox hides (a Node unpacked under `/tmp` or `/run`), where the forwarder would not start
 * and the browser with it.
 */
const NODE_INSIDE = '/tmp/.toolgate-node';

/**
 * The forwarder, run with `node -e` inside the browser's sandbox: arguments are the proxy's
 * socket path, the port to listen on, and the browser's command line, which it starts once it
 * listens and whose exit status it exits with.
 */
const FORWARDER = `'use strict';
const net = require('node:net'), cp = require('node:child_process');
const [sock, port, ...argv] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(sock);
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end).on('close', end); u.on('error', end).on('close', end);
  c.pipe(u).pipe(c);
});
server.on('error', (e) => { process.stderr.write('toolgate egress forwarder: ' + e.message + '\\n'); process.exit(1); });
server.listen(Number(port), '127.0.0.1', () => {
  const b = cp.spawn(argv[0], argv.slice(1), { stdio: 'inherit' });
  b.on('exit', (code) => process.exit(code ?? 1));
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => b.kill(s));
});`;

/** What {@link browserLaunch} gives {@link VirtualDisplay.open}. */
export interface BrowserLaunch {
  argv: string[];
  /** The sandbox policy to open it under. */
  policy: SandboxPolicy;
  /** Host folders bound read-only into its sandbox (host path, path inside). */
  readOnly: Array<[string, string]>;
}

/**
 * The command line, sandbox policy and mounts that open `url` on `display` under the call's
 * `sandbox` policy, as the module comment describes; starts the display's egress proxy when
 * one is needed.
 * @throws ToolExecutionError `PACKAGE_UNAVAILABLE` when the browser is missing (before any proxy starts).
 */
export async function browserLaunch(display: VirtualDisplay, url: string, sandbox: SandboxPolicy, env: NodeJS.ProcessEnv = process.env): Promise<BrowserLaunch> {
  browserCommand(url, display, env); // the browser is there, before anything starts
  if (display.sandboxed) {
    const policy: SandboxPolicy = { ...sandbox, network: false };
    if (!sandbox.network) return { argv: browserCommand(url, display, env), policy, readOnly: [] };
    await display.egressProxy();
    const argv = [NODE_INSIDE, '-e', FORWARDER, `${SOCKET_INSIDE}/proxy.sock`, String(FORWARDER_PORT), ...browserCommand(url, display, env, `127.0.0.1:${FORWARDER_PORT}`)];
    return { argv, policy, readOnly: [[display.egressSocketDir, SOCKET_INSIDE], [fs.realpathSync(process.execPath), NODE_INSIDE]] };
  }
  const proxy = await display.egressProxy(sandbox.network ? undefined : 'the call\'s sandbox policy allows no network (sandboxNetwork is off).');
  return { argv: browserCommand(url, display, env, proxy.address), policy: sandbox, readOnly: [] };
}
