/**
 * Rate-limit admission, the step after the decisions: one bottleneck limiter per tool that declares `rateLimitRpm` (tools without
 * it never touch a limiter, since scheduling through bottleneck costs milliseconds). The only
 * module that imports bottleneck.
 *
 * Calls are spaced evenly at `60000 / rateLimitRpm` ms (bottleneck's `minTime`). Before a call
 * joins the limiter, the gate works out when its turn would come; a call that would have to
 * wait longer than `maxWaitMs` is refused at once with `RATE_LIMITED` and an estimate of when
 * to retry, otherwise it waits its turn. (bottleneck's own `highWater` cannot bound this: with
 * `minTime` its jobs leave the queue at once and wait in the running state.)
 *
 * @module
 */
import { createRequire } from 'node:module';
import type Bottleneck from 'bottleneck';
import { ToolgateOptionError } from '../errors/errors.js';
import { deny, type Decision } from './decision.js';

/** Default bound on a rate-limited call's wait, in milliseconds. */
const DEFAULT_RATE_LIMIT_MAX_WAIT_MS = 10_000;

/** Where rate-limited calls take their turns: {@link RateLimiter} in one process, or one shared by several. */
export interface RateAdmission {
  /**
   * Wait for the call's turn, or refuse it.
   * @param key - `name@version` (each version has its own budget).
   * @param name - the tool's name (for the refusal's message).
   * @param rpm - calls per minute.
   * @returns `undefined` when the call may run, else the refusal (`deny`, code `RATE_LIMITED`, with `retryAfterMs`).
   */
  acquire(key: string, name: string, rpm: number): Promise<Decision | undefined>;
  /** Release what it holds (pending waits are dropped). */
  close(): Promise<void>;
}

/** Per-tool limiters. */
export class RateLimiter implements RateAdmission {
  private readonly limiters = new Map<string, { limiter: Bottleneck; minTime: number; nextStart: number }>();
  private readonly maxWaitMs: number;

  /** @param maxWaitMs - longest a call may wait for its turn, in ms (>= 0). */
  constructor(maxWaitMs = DEFAULT_RATE_LIMIT_MAX_WAIT_MS) {
    if (!(maxWaitMs >= 0)) throw ToolgateOptionError.fromBadOption('rateLimitMaxWaitMs', `must be a number of milliseconds >= 0; got ${maxWaitMs}`);
    this.maxWaitMs = maxWaitMs;
  }

  private limiterFor(key: string, rpm: number): { limiter: Bottleneck; minTime: number; nextStart: number } {
    let entry = this.limiters.get(key);
    if (entry === undefined) {
      const minTime = Math.ceil(60_000 / rpm);
      // bottleneck (CommonJS) loads with the first rate-limited tool's call.
      const Limiter = createRequire(import.meta.url)('bottleneck') as typeof Bottleneck;
      entry = { limiter: new Limiter({ minTime, maxConcurrent: null }), minTime, nextStart: 0 };
      this.limiters.set(key, entry);
    }
    return entry;
  }

  /**
   * Wait for the call's turn, or refuse it.
   * @param key - `name@version` (each version has its own budget).
   * @param rpm - calls per minute.
   * @returns `undefined` when the call may run, else the refusal (`deny`, code `RATE_LIMITED`).
   */
  async acquire(key: string, name: string, rpm: number): Promise<Decision | undefined> {
    const entry = this.limiterFor(key, rpm);
    const now = Date.now();
    const waitMs = Math.max(0, entry.nextStart - now);
    if (waitMs > this.maxWaitMs) {
      return { ...deny('rate-limit', 'RATE_LIMITED', `Rate limited: ${name} allows ${rpm} calls per minute and its next free turn is in ${Math.ceil(waitMs / 1000)} s; retry in about ${Math.ceil(waitMs / 1000)} s.`), retryAfterMs: waitMs };
    }
    entry.nextStart = Math.max(now, entry.nextStart) + entry.minTime;
    await entry.limiter.schedule(() => Promise.resolve());
    return undefined;
  }

  /** Stop every limiter (pending waits are dropped). */
  async close(): Promise<void> {
    await Promise.all([...this.limiters.values()].map((e) => e.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined)));
    this.limiters.clear();
  }
}
