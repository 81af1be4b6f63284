/**
 * A lease on a call and what asks for one: the data of the call store's `CallLeases` (owners
 * that are not one process tree, such as workers fed by a queue). Re-exported by
 * `call-store.ts`.
 *
 * @module
 */
/** The longest lease a store grants by default, in milliseconds (30 s). */
export const DEFAULT_LEASE_MS = 30_000;
/** The shortest and the longest lease a {@link LeaseRequest} may ask for, in milliseconds. */
export const LEASE_BOUNDS_MS = Object.freeze({ min: 100, max: 600_000 });

/** What `CallLeases.claimLease` and `CallLeases.takeLease` are asked for. */
export interface LeaseRequest {
  /**
   * The owner id: a worker's id (`worker:<host>:<n>`), or anything of 1 to 200 characters that
   * names one owner. Default: this process (`processOwner()` of `owner.ts`). The store records the
   * process behind it too (host, pid, start time).
   */
  owner?: string;
  /** How long the lease lasts unless renewed, in ms ({@link LEASE_BOUNDS_MS}). Default {@link DEFAULT_LEASE_MS}. */
  leaseMs?: number;
  /**
   * Whether the store handle renews the lease itself (every third of `leaseMs`, one write for
   * all its leases) until the call ends, the lease is released or lost, or the handle closes.
   * Default true. With false the owner calls `CallLeases.renewLease`.
   */
  renew?: boolean;
  /** For `CallLeases.claimLease`: the token of the hold this owner took on the `pending` call (`CallLeases.takeLease`); the claim succeeds only while that hold is the call's. */
  token?: string;
}

/** A lease on a call, as granted. */
export interface Lease {
  /** The owner it was granted to. */
  readonly owner: string;
  /** A random token (UUID), fresh for every grant: the {@link Fence} of the owner's writes. */
  readonly token: string;
  /** When it lapses unless renewed, in ms since the epoch (the granting store's clock). */
  readonly expiresAt: number;
}

/** What fences a write: the token of the lease it is made under. */
export interface Fence {
  readonly token: string;
}
