/**
 * A worker's reply to the caller of a queued call: the call's stored result, as JSON, signed
 * with the call's reply key (HMAC-SHA256), which only the store, the caller and the worker
 * know (`StoredCallOptions.replyKey`: it is never in a job). The queue is untrusted (anyone who
 * can write to Redis can add a job or a completion), so a reply whose signature does not match
 * is ignored and the caller reads the store as before.
 *
 * @module
 */
import crypto from 'node:crypto';
import type { ToolExecutionResult } from '../types/result.js';

/** A job's return value: the stored result (`r`, JSON) and its signature (`m`, base64url). */
export interface SignedReply {
  r: string;
  m: string;
}

/** Reply keys drawn at once from the CSPRNG (one draw per 256 keys: a draw costs about as much as a key's whole HMAC). */
const KEYS_PER_DRAW = 256;
let pool = Buffer.alloc(0);
let next = 0;

/** A fresh reply key (128 random bits from the CSPRNG, base64url; each bit used once). */
export function newReplyKey(): string {
  if (next >= pool.length) {
    pool = crypto.randomBytes(16 * KEYS_PER_DRAW);
    next = 0;
  }
  const key = pool.toString('base64url', next, next + 16);
  pool.fill(0, next, next + 16);
  next += 16;
  return key;
}

function mac(key: string, text: string): string {
  return crypto.createHmac('sha256', key).update(text).digest('base64url');
}

/** The reply carrying `result` (the result as stored), signed with `key`. */
export function signReply(key: string, result: ToolExecutionResult): SignedReply {
  const r = JSON.stringify(result);
  return { r, m: mac(key, r) };
}

/** The result a reply carries when it is signed with `key`; `undefined` for anything else. */
export function openReply(key: string, reply: unknown): ToolExecutionResult | undefined {
  if (reply === null || typeof reply !== 'object') return undefined;
  const { r, m } = reply as Record<string, unknown>;
  if (typeof r !== 'string' || typeof m !== 'string') return undefined;
  const expected = Buffer.from(mac(key, r));
  const given = Buffer.from(m);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return undefined;
  try {
    const result = JSON.parse(r) as unknown;
    return result !== null && typeof result === 'object' ? (result as ToolExecutionResult) : undefined;
  } catch {
    return undefined;
  }
}
