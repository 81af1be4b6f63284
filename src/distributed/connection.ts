/**
 * Redis connections of the distributed mode: one client per role, from a `redis://` or
 * `rediss://` URL (a password in the URL is used, never logged: {@link redactedUrl}).
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import { loadIoRedis } from './peers.js';
import type { Redis } from 'ioredis';

/** The Redis channel cancel requests are published on (every worker listens). */
export const CANCEL_CHANNEL = 'toolgate.cancel';

/**
 * Check a queue URL.
 * @throws ToolgateOptionError when it is not a `redis://` or `rediss://` URL.
 */
function checkQueueUrl(url: string, option = 'queue'): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw ToolgateOptionError.fromBadOption(option, `must be a redis://HOST:PORT URL; got ${JSON.stringify(redactedUrl(url))}`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw ToolgateOptionError.fromBadOption(option, `must be a redis:// or rediss:// URL; got ${parsed.protocol}`);
  }
}

/** `url` without its password (what messages and logs show). */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/**
 * A Redis client for BullMQ (no per-request retry limit, as BullMQ's workers need; it
 * reconnects by itself after a restart of Redis).
 * @throws ToolgateOptionError when the URL is wrong or `ioredis` is missing.
 */
export async function redisClient(url: string, option = 'queue'): Promise<Redis> {
  checkQueueUrl(url, option);
  const IORedis = await loadIoRedis(option);
  const client = new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  // Errors (a restart of Redis, a refused connection) are retried by the client; an
  // unhandled `error` event would end the process.
  client.on('error', () => undefined);
  return client;
}
