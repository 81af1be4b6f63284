/**
 * Which network addresses the web and image tools may reach (case N1): public unicast
 * addresses only, unless the operator's allowlist says otherwise.
 *
 * Blocked: every address that ipaddr.js does not classify as `unicast`, which covers loopback
 * (127.0.0.0/8, ::1), link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10),
 * private (10/8, 172.16/12, 192.168/16), unique-local (fc00::/7), unspecified (0.0.0.0, ::),
 * multicast, broadcast, carrier-grade NAT (100.64.0.0/10), IPv4-mapped IPv6 (::ffff:0:0/96),
 * the deprecated IPv4-compatible form (::/96, such as `::127.0.0.1`), the translation forms
 * that embed an IPv4 address (64:ff9b::/96, 6to4, Teredo), and the
 * reserved, documentation and benchmarking ranges (ranges as listed by the IANA special-purpose
 * address registries, RFC 6890). An IPv6 address outside 2000::/3 (global unicast) is blocked
 * too, which covers the IPv4-compatible form `::127.0.0.1` (`::7f00:1`).
 *
 * The allowlist comes from the environment variable {@link NET_ALLOW_ENV} (`TOOLGATE_NET_ALLOW`):
 * entries separated by commas or white space, each one of
 * - an IP address (`127.0.0.1`, `::1`, `[::1]`): that address is allowed;
 * - a CIDR range (`10.0.0.0/8`, `fd00::/8`): every address in it is allowed;
 * - a host name (`intranet.example`): that exact name (case-insensitive, no wildcards) is
 *   allowed whatever it resolves to. Prefer addresses: a name is only as trustworthy as its DNS;
 * - an IP address with a port (`127.0.0.1:5173`, `[::1]:8080`): that address on that port only
 *   (a local development server, without opening the cockpit's or any other local port).
 * An IPv4-mapped IPv6 address is matched as the IPv4 address it carries. An entry that is none
 * of these makes every request fail with a message naming it, rather than being skipped.
 *
 * Worker threads copy `process.env` when they start, so set the variable before the executor's
 * first call.
 *
 * @module
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolExecutionError } from '../../src/tool.js';

/** The environment variable holding the network allowlist. */
export const NET_ALLOW_ENV = 'TOOLGATE_NET_ALLOW';

/** A parsed allowlist: exact host names and address ranges. */
export interface NetAllowlist {
  /** Host names allowed whatever they resolve to (lowercase, no trailing dot). */
  readonly hosts: ReadonlySet<string>;
  /** Address ranges allowed, as ipaddr.js CIDR pairs. */
  readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /** Single addresses allowed on one TCP port only (`127.0.0.1:5173`); absent: none. */
  readonly endpoints?: ReadonlyArray<{ readonly address: ipaddr.IPv4 | ipaddr.IPv6; readonly port: number }>;
}

/** The allowlist that allows nothing beyond public unicast addresses. */
export const EMPTY_ALLOWLIST: NetAllowlist = Object.freeze({ hosts: new Set<string>(), ranges: [] });

/** `host` lowercased, without IPv6 brackets or a trailing dot. */
export function normalHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * Parse an allowlist (the text of {@link NET_ALLOW_ENV}).
 * @throws ToolExecutionError naming the first entry that is neither an address, a CIDR range
 *   nor a host name.
 */
export function parseNetAllowlist(text: string | undefined): NetAllowlist {
  if (text === undefined || text.trim() === '') return EMPTY_ALLOWLIST;
  const hosts = new Set<string>();
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  const endpoints: Array<{ address: ipaddr.IPv4 | ipaddr.IPv6; port: number }> = [];
  for (const raw of text.split(/[\s,]+/)) {
    if (raw === '') continue;
    const withPort = /^(?:\[([0-9a-f:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):(\d{1,5})$/i.exec(raw.trim());
    if (withPort !== null) {
      const address = withPort[1] ?? withPort[2]!;
      const port = Number(withPort[3]);
      if (net.isIP(address) === 0 || port < 1 || port > 65535) throw badEntry(raw);
      endpoints.push({ address: ipaddr.process(address), port });
      continue;
    }
    const entry = normalHost(raw);
    if (entry.includes('/')) {
      try {
        ranges.push(ipaddr.parseCIDR(entry));
        continue;
      } catch {
        throw badEntry(raw);
      }
    }
    if (net.isIP(entry) !== 0) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(entry) && !/^[\d.]+$/.test(entry) && !/^0x/.test(entry)) {
      hosts.add(entry);
    } else {
      throw badEntry(raw);
    }
  }
  return { hosts, ranges, endpoints };
}

function badEntry(raw: string): ToolExecutionError {
  return new ToolExecutionError(
    `${NET_ALLOW_ENV} is misconfigured: ${JSON.stringify(raw.slice(0, 100))} is not an IP address, a CIDR range, a host name or an address with a port. ` +
      'The operator must fix it; no request was made.',
  );
}

/** The allowlist of an environment (default `process.env`), read at each call. */
export function netAllowlistFromEnv(env: NodeJS.ProcessEnv = process.env): NetAllowlist {
  return parseNetAllowlist(env[NET_ALLOW_ENV]);
}

/**
 * Why `address` is not a public unicast address (the ipaddr.js range name, such as `loopback`,
 * `private`, `linkLocal`, `ipv4Mapped`), or `undefined` when it is public.
 * Anything that does not parse as an address counts as blocked (`invalid`).
 */
export function blockedRange(address: string): string | undefined {
  const plain = normalHost(address);
  if (net.isIP(plain) === 0) return 'invalid';
  const parsed = ipaddr.parse(plain);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  // ipaddr.js calls the deprecated IPv4-compatible form ::a.b.c.d (::/96, RFC 4291 §2.5.5.1)
  // unicast; a host with a 6in4 (sit) tunnel routes it to the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  // ipaddr.js calls every IPv6 address it has no range for `unicast`, including the
  // IPv4-compatible ::a.b.c.d (::/96, deprecated by RFC 4291 §2.5.5.1; ::7f00:1 is 127.0.0.1)
  // and the rest of the IETF-reserved ::/8. Only 2000::/3 is allocated global unicast (IANA).
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return undefined;
}

/** The IPv6 global unicast block, 2000::/3 (IANA IPv6 address space registry). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Is `address` inside one of the allowlist's ranges, or (with `port`) one of its endpoints?
 * IPv4-mapped IPv6 is matched as IPv4.
 */
function allowedAddress(address: string, allow: NetAllowlist, port: number | undefined): boolean {
  const plain = normalHost(address);
  if (net.isIP(plain) === 0) return false;
  const parsed = ipaddr.process(plain);
  if (allow.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits))) return true;
  if (port === undefined) return false;
  return (allow.endpoints ?? []).some((e) => e.port === port && e.address.kind() === parsed.kind() && e.address.toString() === parsed.toString());
}

/**
 * The verdict on one resolved address of `host`, to be connected to on TCP `port`:
 * `undefined` when it may be reached, else the reason it may not (the blocked range's name).
 * Without `port` only the allowlist's names and ranges count, not its `address:port` entries.
 */
export function addressVerdict(host: string, address: string, allow: NetAllowlist, port?: number): string | undefined {
  if (allow.hosts.has(normalHost(host))) return undefined;
  const range = blockedRange(address);
  if (range === undefined || allowedAddress(address, allow, port)) return undefined;
  return range;
}
