/**
 * `rateLimitRpm` turns taken in Redis (`shared-rate-limit.ts` says the rule): one Lua script
 * reserves the next turn atomically on Redis's own clock (`TIME`).
 *
 * @module
 */
import type { Redis } from 'ioredis';
import { SharedRateLimiter } from './shared-rate-limit.js';

/**
 * KEYS[1]: the tool's next free turn (ms, Redis clock). ARGV: spacing ms, longest wait ms.
 * Returns the wait in ms (>= 0) when a turn was reserved, else -(wait) - 1 (refused).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
local spacing = tonumber(ARGV[1])
local start = math.max(now, nextFree)
local wait = start - now
if wait > tonumber(ARGV[2]) then return -wait - 1 end
redis.call('SET', KEYS[1], start + spacing, 'PX', wait + spacing + 60000)
return wait
`;

/** Turns of rate-limited tools, shared through Redis. */
export class RedisRateLimiter extends SharedRateLimiter {
  /**
   * @param redis - a client (the caller closes it).
   * @param prefix - the key prefix (one budget per prefix and tool version).
   * @param maxWaitMs - the longest wait for a turn, in ms.
   */
  constructor(redis: Redis, prefix = 'toolgate:rate:', maxWaitMs = 10_000) {
    super(async (key, spacing, maxWait) => Number(await redis.eval(RESERVE, 1, `${prefix}${key}`, spacing, maxWait)), maxWaitMs);
  }
}
