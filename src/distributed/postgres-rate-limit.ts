/**
 * `rateLimitRpm` turns taken in PostgreSQL (`shared-rate-limit.ts` says the rule): the
 * function {@link RESERVE_FUNCTION} locks the tool's row of a turns table, reads the server's
 * clock after the lock (so that time spent waiting for it is not counted as a turn), and moves
 * the next free turn on, in one statement. Callers and workers of any machine on one database
 * share one schedule.
 *
 * @module
 */
import { connectionError } from '../ledger/postgres/database.js';
import { SharedRateLimiter } from './shared-rate-limit.js';

/** The schema of the queue's own objects (BullMQ's live in `bullmq`). */
const QUEUE_SCHEMA = 'toolgate_queue';

/** The reservation function: (key, spacing ms, longest wait ms) -> wait ms, or -(wait) - 1 when refused. */
const RESERVE_FUNCTION = `${QUEUE_SCHEMA}.reserve_turn_v1`;

/** The reservation function's signature (`to_regprocedure` finds it set up). */
export const RESERVE_SIGNATURE = `${RESERVE_FUNCTION}(text,bigint,bigint)`;

/** DDL of the turns table and the function (idempotent; run under the queue's setup lock). */
export const RATE_DDL = [
  `CREATE SCHEMA IF NOT EXISTS ${QUEUE_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${QUEUE_SCHEMA}.rate_turns (key text PRIMARY KEY, next_free bigint NOT NULL)`,
  `CREATE OR REPLACE FUNCTION ${RESERVE_FUNCTION}(k text, spacing bigint, max_wait bigint) RETURNS bigint
   LANGUAGE plpgsql AS $$
   DECLARE
     free bigint;
     now_ms bigint;
     start_at bigint;
   BEGIN
     INSERT INTO ${QUEUE_SCHEMA}.rate_turns (key, next_free) VALUES (k, 0) ON CONFLICT (key) DO NOTHING;
     SELECT next_free INTO free FROM ${QUEUE_SCHEMA}.rate_turns WHERE key = k FOR UPDATE;
     now_ms := (extract(epoch from clock_timestamp()) * 1000)::bigint;
     start_at := greatest(now_ms, free);
     IF start_at - now_ms > max_wait THEN
       RETURN -(start_at - now_ms) - 1;
     END IF;
     UPDATE ${QUEUE_SCHEMA}.rate_turns SET next_free = start_at + spacing WHERE key = k;
     RETURN start_at - now_ms;
   END $$`,
];

/** What the limiter needs of a pool: one query. */
interface Queryable {
  query(sql: string, params: readonly unknown[]): Promise<{ rows: unknown[] }>;
}

/** How long a reservation retries a lost connection (the server restarting), in ms. */
const RETRY_MS = 10_000;

/** Turns of rate-limited tools, shared through PostgreSQL. */
export class PostgresRateLimiter extends SharedRateLimiter {
  /**
   * @param pool - a pool of the queue's database (the caller closes it).
   * @param maxWaitMs - the longest wait for a turn, in ms.
   */
  constructor(pool: Queryable, maxWaitMs = 10_000) {
    super(async (key, spacing, maxWait) => {
      // A reservation whose answer was lost and is retried takes a second turn: a turn wasted, never one too many.
      const until = Date.now() + RETRY_MS;
      for (let wait = 100; ; wait = Math.min(1_000, wait * 2)) {
        try {
          const { rows } = await pool.query(`SELECT ${RESERVE_FUNCTION}($1, $2, $3) AS wait`, [key, spacing, maxWait]);
          return Number((rows[0] as { wait: unknown }).wait);
        } catch (error) {
          if (!connectionError(error) || Date.now() + wait > until) throw error;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }, maxWaitMs);
  }
}
