/**
 * `rateLimitRpm` across every worker of every machine: turns are taken in Redis, with the
 * same rule as the one-process limiter (`src/decisions/rate-limit.ts`): starts spaced evenly at
 * `60000 / rpm` ms (plus a small margin for the time between a turn and the tool's start), a
 * call whose turn is more than `maxWaitMs` away refused at once with `RATE_LIMITED` and an
 * estimate. One Lua script reserves the next turn atomically on Redis's own clock (`TIME`),
 * so machines whose clocks differ still share one schedule.
 *
 * Why not bottleneck's Redis clustering: its queued calls live in the process (lost when it
 * dies), its last release is from 2020, and it has an open issue with Redis 7
 * (SGrondin/bottleneck#205). Why not BullMQ's limiter: it limits a whole queue (a pool), and
 * per-group limits are BullMQ Pro; a tool's budget is per tool.
 *
 * @module
 */
import type { Redis } from 'ioredis';
import { deny, type Decision } from '../decisions/decision.js';
import type { RateAdmission } from '../decisions/rate-limit.js';

/** Milliseconds added to each turn's spacing: a turn's start is a little later than the turn. */
const MARGIN_MS = 100;

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
export class RedisRateLimiter implements RateAdmission {
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private closed = false;

  /**
   * @param redis - a client (the caller closes it).
   * @param prefix - the key prefix (one budget per prefix and tool version).
   * @param maxWaitMs - the longest wait for a turn, in ms.
   */
  constructor(private readonly redis: Redis, private readonly prefix = 'toolgate:rate:', private readonly maxWaitMs = 10_000) {}

  /** {@inheritDoc RateAdmission.acquire} */
  async acquire(key: string, name: string, rpm: number): Promise<Decision | undefined> {
    const spacing = Math.ceil(60_000 / rpm) + MARGIN_MS;
    const answer = Number(await this.redis.eval(RESERVE, 1, `${this.prefix}${key}`, spacing, this.maxWaitMs));
    if (answer < 0) {
      const waitMs = -answer - 1;
      return { ...deny('rate-limit', 'RATE_LIMITED', `Rate limited: ${name} allows ${rpm} calls per minute across every worker and its next free turn is in ${Math.ceil(waitMs / 1000)} s; retry in about ${Math.ceil(waitMs / 1000)} s.`), retryAfterMs: waitMs };
    }
    if (answer > 0) {
      await new Promise<void>((resolve) => {
        const entry = { timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, answer), resolve };
        this.timers.add(entry);
      });
    }
    if (this.closed) return deny('rate-limit', 'ABORTED', `${name} was not started: the worker is closing`);
    return undefined;
  }

  /** {@inheritDoc RateAdmission.close} */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
  }
}
