/**
 * Rate-limit gate: one bottleneck limiter per tool that declares `rateLimitRpm` (tools without
 * it never touch a limiter, since scheduling through bottleneck costs milliseconds). The only
 * module that imports bottleneck.
 *
 * Calls are spaced evenly at `60000 / rateLimitRpm` ms. A call that would have to wait longer
 * than `maxWaitMs` is refused at once with `RATE_LIMITED` and an estimate of when to retry;
 * otherwise it waits its turn.
 *
 * @module
 */
import Bottleneck from 'bottleneck';
import type { GateDenial } from './gate.js';

/** Default bound on a rate-limited call's wait, in milliseconds. */
export const DEFAULT_RATE_LIMIT_MAX_WAIT_MS = 10_000;

/** Per-tool limiters. */
export class RateLimitGate {
  private readonly limiters = new Map<string, Bottleneck>();
  private readonly maxWaitMs: number;

  /** @param maxWaitMs - longest a call may wait for its turn, in ms (>= 0). */
  constructor(maxWaitMs = DEFAULT_RATE_LIMIT_MAX_WAIT_MS) {
    if (!(maxWaitMs >= 0)) throw new RangeError(`options.rateLimitMaxWaitMs must be >= 0; got ${maxWaitMs}`);
    this.maxWaitMs = maxWaitMs;
  }

  private limiterFor(key: string, rpm: number): Bottleneck {
    let limiter = this.limiters.get(key);
    if (limiter === undefined) {
      const minTime = Math.ceil(60_000 / rpm);
      limiter = new Bottleneck({
        minTime,
        maxConcurrent: null,
        highWater: Math.floor(this.maxWaitMs / minTime),
        strategy: Bottleneck.strategy.OVERFLOW,
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /**
   * Wait for the call's turn, or refuse it.
   * @param key - `name@version` (each version has its own budget).
   * @param rpm - calls per minute.
   * @returns `undefined` when the call may run, else the refusal.
   */
  async acquire(key: string, name: string, rpm: number): Promise<GateDenial | undefined> {
    const limiter = this.limiterFor(key, rpm);
    try {
      await limiter.schedule(() => Promise.resolve());
      return undefined;
    } catch (error) {
      if (error instanceof Bottleneck.BottleneckError) {
        const retryS = Math.ceil((Math.ceil(60_000 / rpm) * (limiter.queued() + 1)) / 1000);
        return {
          gate: 'rate-limit',
          code: 'RATE_LIMITED',
          reason: `Rate limited: ${name} allows ${rpm} calls per minute and more are already waiting; retry in about ${retryS} s.`,
        };
      }
      throw error;
    }
  }

  /** Stop every limiter (pending waits are dropped). */
  async close(): Promise<void> {
    await Promise.all([...this.limiters.values()].map((l) => l.stop({ dropWaitingJobs: true }).catch(() => undefined)));
    this.limiters.clear();
  }
}
