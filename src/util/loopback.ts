/**
 * Which addresses name only this machine, and which `Host` headers a local HTTP server
 * accepts (DNS-rebinding protection): shared by `toolgate mcp --http` and the cockpit, so the
 * two cannot drift.
 *
 * @module
 */
import net from 'node:net';
import os from 'node:os';

/** Whether `host` names only this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  const plain = host.replace(/^\[|\]$/g, '');
  return plain === 'localhost' || plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/**
 * The `Host` header values a request may carry (DNS-rebinding protection, whatever the bind
 * address): the loopback names, the bound address itself, and for a wildcard bind (`0.0.0.0`,
 * `::`) every address of this machine's interfaces and its host name. Checking only when bound
 * to exactly 127.0.0.1, localhost or ::1 left other loopback binds (127.0.0.2, 127.1) open to a
 * web page whose name rebinds to them.
 */
export function hostHeadersFor(host: string, port: number): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '::1', host]);
  if (host === '0.0.0.0' || host === '::' || host === '') {
    for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) names.add(i.address);
    names.add(os.hostname().toLowerCase());
  }
  return [...names].map((name) => `${net.isIPv6(name) ? `[${name}]` : name}:${port}`);
}
