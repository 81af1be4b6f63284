/**
 * Which addresses name only this machine, and which `Host` headers a local HTTP server
 * accepts (DNS-rebinding protection): shared by `toolgate mcp --http` and the cockpit, so the
 * two cannot drift.
 *
 * @module
 */
import net from 'node:net';
import os from 'node:os';
import { ToolgateOptionError } from '../errors/errors.js';

/**
 * Check the bind of a local HTTP server that acts for the user (the MCP server, the cockpit):
 * a bearer `token`, when given, is at least 16 characters without spaces, and a `host` other
 * than loopback needs one.
 * @param why - what serving to the network would expose, and the variable that holds the token.
 * @throws ToolgateOptionError naming `token` or `host`.
 */
export function checkLocalBind(host: string, token: unknown, why: string): void {
  if (token !== undefined && (typeof token !== 'string' || token.length < 16 || /\s/.test(token))) {
    throw ToolgateOptionError.fromBadOption('token', 'must be at least 16 characters without spaces');
  }
  if (token === undefined && !isLoopbackAddress(host)) {
    throw ToolgateOptionError.fromBadOption('host', `${host} is not a loopback address: ${why}`);
  }
}

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
