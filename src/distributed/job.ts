/**
 * What travels over the queue: a job names a recorded call by its key and nothing else. A job
 * is untrusted input (anyone who can write to Redis can add one): {@link parseJob} checks its
 * shape, and the worker reads the call itself from the store and decides it again.
 *
 * @module
 */
import crypto from 'node:crypto';
import { ToolgateOptionError } from '../errors/errors.js';
import type { CallKey } from '../ledger/call-store.js';

/** The data of a call's job: its key only. */
export interface CallJob {
  callId: string;
  session: string;
}

/** The pool of callers and workers that name none. */
const DEFAULT_POOL = 'default';

/** Bounds of a call id or session in a job, in characters. */
const MAX_KEY_CHARS = 512;

/** Pool names: letters, digits, `.`, `_`, `-`, at most 64. */
const POOL_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Whether `pool` is a valid pool name. */
function isPoolName(pool: unknown): pool is string {
  return typeof pool === 'string' && POOL_NAME.test(pool);
}

/**
 * The `pool` option of a caller or a worker: {@link DEFAULT_POOL} when unset.
 * @throws ToolgateOptionError naming `pool` when it is not a valid pool name.
 */
export function poolOption(pool: string | undefined): string {
  const name = pool ?? DEFAULT_POOL;
  if (!isPoolName(name)) throw ToolgateOptionError.fromBadOption('pool', `must be 1 to 64 letters, digits, ".", "_" or "-"; got ${JSON.stringify(name)}`);
  return name;
}

/** The BullMQ queue of a pool. */
export function queueName(pool: string): string {
  return `toolgate.${pool}`;
}

/**
 * The job id of a call: the same for the same key, so that a second add of a call (a retry,
 * the reconciler) is dropped by BullMQ while the first job exists. `round` separates the
 * rounds of a call that parked on a question (the job of round 0 completed when it parked).
 */
export function jobIdOf(key: CallKey, round = 0): string {
  const hash = keyHash(key);
  return round === 0 ? `call-${hash}` : `call-${hash}-r${round}`;
}

/** The job ids of a call's round 0 and round `round` ({@link jobIdOf}), hashing its key once. */
export function jobIdsOf(key: CallKey, round: number): [string, string] {
  const hash = keyHash(key);
  return [`call-${hash}`, `call-${hash}-r${round}`];
}

/** The first 40 hex digits of SHA-256 over `session NUL callId` (one-shot `crypto.hash`: a fifth of a `createHash` chain's time; same digest). */
function keyHash(key: CallKey): string {
  return crypto.hash('sha256', `${key.session}\u0000${key.callId}`, 'hex').slice(0, 40);
}

/**
 * The call key a job names, or `undefined` when its data is not one (the job is dropped).
 * @param data - the job's data, as received.
 */
export function parseJob(data: unknown): CallJob | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const { callId, session } = data as Record<string, unknown>;
  if (typeof callId !== 'string' || typeof session !== 'string') return undefined;
  if (callId === '' || callId.length > MAX_KEY_CHARS || session === '' || session.length > MAX_KEY_CHARS) return undefined;
  return { callId, session };
}
