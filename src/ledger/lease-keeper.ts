/**
 * The leases one store handle granted ({@link LeaseKeeper}): which token it holds for which
 * call (so that its own unfenced `finish` ends a call it leased), and the heartbeat that
 * renews them (one write for all of them, every third of the shortest lease), until the call
 * ends, the lease is released or lost, or the handle closes. Used by every store.
 *
 * @module
 */
import { LEASE_BOUNDS_MS, DEFAULT_LEASE_MS, type CallKey, type LeaseRequest } from './call-store.js';
import { ToolgateOptionError } from '../errors/errors.js';
import { processOwner } from './owner.js';

/** A lease the handle keeps renewing. */
export interface HeldLease {
  readonly key: CallKey;
  readonly token: string;
  readonly leaseMs: number;
}

/**
 * Renews `leases` (each by its own `leaseMs` from now) in one write; resolves to the tokens
 * still held (the others were lost: their call ended, was interrupted or taken).
 */
export type RenewAll = (leases: readonly HeldLease[]) => Promise<ReadonlySet<string>>;

/** A lease request with its defaults applied and checked. */
export interface CheckedRequest {
  owner: string;
  leaseMs: number;
  renew: boolean;
  token: string | undefined;
}

/**
 * `request` with its defaults (`owner`: this process; `leaseMs`: {@link DEFAULT_LEASE_MS};
 * `renew`: true).
 * @throws ToolgateOptionError for an owner not of 1 to 200 characters, or a lease out of {@link LEASE_BOUNDS_MS}.
 */
export function checkLeaseRequest(request: LeaseRequest | undefined, owner = processOwner()): CheckedRequest {
  const given = request ?? {};
  const name = given.owner ?? owner;
  if (typeof name !== 'string' || name.length < 1 || name.length > 200) throw ToolgateOptionError.fromBadOption('lease.owner', 'must be a string of 1 to 200 characters');
  const leaseMs = given.leaseMs ?? DEFAULT_LEASE_MS;
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < LEASE_BOUNDS_MS.min || leaseMs > LEASE_BOUNDS_MS.max) {
    throw ToolgateOptionError.fromBadOption('lease.leaseMs', `must be an integer from ${LEASE_BOUNDS_MS.min} to ${LEASE_BOUNDS_MS.max}`);
  }
  if (given.token !== undefined && (typeof given.token !== 'string' || given.token.length === 0)) throw ToolgateOptionError.fromBadOption('lease.token', 'must be a lease token');
  return { owner: name, leaseMs, renew: given.renew !== false, token: given.token };
}

/** A pool name: 1 to 200 characters. @throws ToolgateOptionError otherwise. */
export function checkPool(pool: unknown): string | undefined {
  if (pool === undefined) return undefined;
  if (typeof pool !== 'string' || pool.length < 1 || pool.length > 200) throw ToolgateOptionError.fromBadOption('pool', 'must be a string of 1 to 200 characters');
  return pool;
}

function keyOf(key: CallKey): string {
  return `${key.session}\u0000${key.callId}`;
}

/** The leases of one store handle. */
export class LeaseKeeper {
  /** Tokens this handle holds, by call key (renewed or not). */
  private readonly tokens = new Map<string, { token: string; leaseMs: number }>();
  /** Those the heartbeat renews, by token. */
  private readonly renewed = new Map<string, HeldLease>();
  private timer: NodeJS.Timeout | undefined;
  /** The heartbeat's interval, in ms, while it runs. */
  private every = 0;
  private beating = false;
  private closed = false;

  /** @param renewAll - the store's one write renewing leases. */
  constructor(private readonly renewAll: RenewAll) {}

  /** The token this handle holds for a call, if any. */
  tokenOf(key: CallKey): string | undefined {
    return this.tokens.get(keyOf(key))?.token;
  }

  /** The lease length this handle granted for `token`'s call, if it holds it. */
  lengthOf(key: CallKey, token: string): number | undefined {
    const held = this.tokens.get(keyOf(key));
    return held?.token === token ? held.leaseMs : undefined;
  }

  /** Hold a granted lease; with `renew`, renewed by the heartbeat. */
  hold(key: CallKey, token: string, leaseMs: number, renew: boolean): void {
    this.drop(key);
    this.tokens.set(keyOf(key), { token, leaseMs });
    if (!renew || this.closed) return;
    this.renewed.set(token, { key: { callId: key.callId, session: key.session }, token, leaseMs });
    this.schedule();
  }

  /** Forget a call's lease (it ended, was released, or is lost). */
  drop(key: CallKey): void {
    const k = keyOf(key);
    const held = this.tokens.get(k);
    if (held === undefined) return;
    this.tokens.delete(k);
    this.renewed.delete(held.token);
    if (this.renewed.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Stop renewing (the handle closes): its leases lapse unless their calls end first. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.renewed.clear();
    this.tokens.clear();
  }

  private schedule(): void {
    let shortest = Infinity;
    for (const lease of this.renewed.values()) shortest = Math.min(shortest, lease.leaseMs);
    const every = Math.max(50, Math.floor(shortest / 3));
    if (this.timer !== undefined) {
      if (this.every === every) return;
      clearInterval(this.timer);
    }
    this.every = every;
    this.timer = setInterval(this.beat, every);
    this.timer.unref();
  }

  private readonly beat = (): void => {
    if (this.beating || this.renewed.size === 0) return;
    this.beating = true;
    const leases = [...this.renewed.values()];
    this.renewAll(leases).then((held) => {
      for (const lease of leases) if (!held.has(lease.token) && this.renewed.has(lease.token)) this.drop(lease.key);
    }, () => {
      // The store cannot be reached: the next beat tries again (the leases may lapse meanwhile).
    }).finally(() => {
      this.beating = false;
    });
  };
}
