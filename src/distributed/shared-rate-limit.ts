/**
 * `rateLimitRpm` across every worker of every machine, whatever server keeps the turns: the
 * same rule as the one-process limiter (`src/decisions/rate-limit.ts`): starts spaced evenly at
 * `60000 / rpm` ms (plus {@link MARGIN_MS} for the time between a turn and the tool's start), a
 * call whose turn is more than `maxWaitMs` away refused at once with `RATE_LIMITED` and an
 * estimate. The server reserves the next turn atomically on its own clock, so machines whose
 * clocks differ still share one schedule: a Lua script on Redis (`redis-rate-limit.ts`), a
 * PL/pgSQL function on PostgreSQL (`postgres-rate-limit.ts`).
 *
 * Why not bottleneck's Redis clustering: its queued calls live in the process (lost when it
 * dies), its last release is from 2020, and it has an open issue with Redis 7
 * (SGrondin/bottleneck#205). Why not BullMQ's limiter: it limits a whole queue (a pool), and
 * per-group limits are BullMQ Pro; a tool's budget is per tool.
 *
 * @module
 */
import { deny, type Decision } from '../decisions/decision.js';
import type { RateAdmission } from '../decisions/rate-limit.js';

/** Milliseconds added to each turn's spacing: a turn's start is a little later than the turn. */
const MARGIN_MS = 100;

/**
 * Reserve the next turn of `key` on the server: the wait in ms (>= 0) when a turn was reserved,
 * else -(wait) - 1 (refused: the next free turn is `wait` ms away, more than `maxWaitMs`).
 */
export type ReserveTurn = (key: string, spacingMs: number, maxWaitMs: number) => Promise<number>;

/** Turns of rate-limited tools, kept by a server. */
export class SharedRateLimiter implements RateAdmission {
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private closed = false;

  /**
   * @param reserve - the server's atomic reservation.
   * @param maxWaitMs - the longest wait for a turn, in ms.
   */
  constructor(private readonly reserve: ReserveTurn, private readonly maxWaitMs = 10_000) {}

  /** {@inheritDoc RateAdmission.acquire} */
  async acquire(key: string, name: string, rpm: number): Promise<Decision | undefined> {
    const spacing = Math.ceil(60_000 / rpm) + MARGIN_MS;
    const answer = await this.reserve(key, spacing, this.maxWaitMs);
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
