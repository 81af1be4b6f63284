/**
 * Retention of the PostgreSQL store, off the call path, as the SQLite ledger's
 * (`../sqlite/retention.ts`): at most `maxCalls` ended calls and `maxBytes` bytes of stored
 * results, the oldest ended calls going first, each leaving a tombstone (and taking its MCP
 * task binding with it); tombstones bounded by age and count. Small steps (one transaction
 * each) on an unref'd timer a while after calls end in this handle; every handle prunes, and
 * the store's write lock keeps two handles' steps apart.
 *
 * @module
 */
import type { CallKey, RecordOutcome, TombstoneRecord } from '../call-store.js';
import { argumentsSha256, prunedResult } from '../tombstones.js';
import { NOW_MS, type PgDatabase, type Query } from './database.js';
import { ENDED_SQL, tombstoneOf, type EndState, type PgTombstoneRow } from './rows.js';

/** The limits of {@link PgRetention}: counts, bytes and milliseconds (see the SQLite ledger's `RetentionLimits`). */
export interface PgRetentionLimits {
  maxCalls: number;
  maxBytes: number;
  tombstoneMaxAgeMs: number;
  maxTombstones: number;
  stepCalls: number;
  stepBytes: number;
  delayMs: number;
}

interface EndedRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; state: EndState;
  error_code: string | null; ended_at: number | null; stored_bytes: number | null;
}

/** Retention of one PostgreSQL store handle. */
export class PgRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private endedSinceStep = 0;
  private waiters: Array<() => void> = [];
  private closed = false;

  constructor(private readonly db: PgDatabase, private readonly limits: PgRetentionLimits) {}

  /** The outcome of a call retention deleted: `ended` with a `RESULT_PRUNED` result; `undefined` when it has no tombstone. */
  async prunedOutcome(q: Query, key: CallKey): Promise<RecordOutcome | undefined> {
    const [row] = await q<PgTombstoneRow>('SELECT * FROM tombstones WHERE call_id = $1 AND session = $2', [key.callId, key.session]);
    return row === undefined ? undefined : { kind: 'ended', result: prunedResult(tombstoneOf(row)) };
  }

  async tombstone(callId: string, session?: string): Promise<TombstoneRecord | undefined> {
    const [row] = session === undefined
      ? await this.db.read<PgTombstoneRow>('SELECT * FROM tombstones WHERE call_id = $1 ORDER BY id DESC LIMIT 1', [callId])
      : await this.db.read<PgTombstoneRow>('SELECT * FROM tombstones WHERE call_id = $1 AND session = $2', [callId, session]);
    return row === undefined ? undefined : tombstoneOf(row);
  }

  /** Calls ended here: a step runs `delayMs` later (one timer, unref'd). */
  ended(count: number): void {
    this.endedSinceStep += count;
    this.schedule(this.limits.delayMs);
  }

  async prune(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const n = await this.pruneStep(this.limits.stepCalls);
      deleted += n;
      if (n === 0) return deleted;
    }
  }

  async pruneStep(maxCalls = this.limits.stepCalls): Promise<number> {
    this.endedSinceStep = 0;
    return this.db.tx(async (q) => {
      const [totals] = await q<{ n: number; bytes: number }>(`SELECT count(*)::bigint AS n, coalesce(sum(stored_bytes), 0)::bigint AS bytes FROM calls WHERE state IN ${ENDED_SQL}`);
      let overCalls = totals!.n - this.limits.maxCalls;
      let overBytes = totals!.bytes - this.limits.maxBytes;
      let deleted = 0;
      if (overCalls > 0 || overBytes > 0) {
        let freed = 0;
        const oldest = await q<EndedRow>(`SELECT id, call_id, session, tool, version, arguments, state, error_code, ended_at, stored_bytes
          FROM calls WHERE state IN ${ENDED_SQL} ORDER BY id LIMIT $1`, [maxCalls]);
        for (const row of oldest) {
          if (overCalls <= 0 && overBytes <= 0) break;
          if (deleted > 0 && freed + (row.stored_bytes ?? 0) > this.limits.stepBytes) break;
          await this.bury(q, row);
          deleted++;
          overCalls--;
          overBytes -= row.stored_bytes ?? 0;
          freed += row.stored_bytes ?? 0;
        }
      }
      await this.pruneTombstones(q);
      await this.pruneTasks(q);
      return deleted;
    });
  }

  /** Resolves once no step is scheduled or running. */
  async retentionSettled(): Promise<void> {
    await this.running?.catch(() => undefined);
    if (this.timer === undefined) return;
    this.timer.ref();
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Stop the timer; one last step when calls ended here since the last one. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    if (this.endedSinceStep > 0) await this.pruneStep().catch(() => undefined);
    this.settle();
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(this.run, ms);
    if (this.waiters.length === 0) this.timer.unref();
  }

  private readonly run = (): void => {
    const step = this.pruneStep().catch(() => 0);
    this.running = step;
    void step.then((deleted) => {
      this.timer = undefined;
      this.running = undefined;
      if (deleted >= this.limits.stepCalls) this.schedule(Math.max(1, Math.floor(this.limits.delayMs / 10)));
      else this.settle();
    });
  };

  private settle(): void {
    if (this.timer !== undefined) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Delete an ended call, leaving its tombstone and dropping its task binding (inside a transaction). */
  private async bury(q: Query, row: EndedRow): Promise<void> {
    let sha: string;
    try {
      sha = argumentsSha256(JSON.parse(row.arguments));
    } catch {
      sha = argumentsSha256(row.arguments);
    }
    await q(`INSERT INTO tombstones (call_id, session, tool, version, arguments_sha256, state, error_code, ended_at, pruned_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${NOW_MS})
      ON CONFLICT (call_id, session) DO UPDATE SET tool = excluded.tool, version = excluded.version, arguments_sha256 = excluded.arguments_sha256,
        state = excluded.state, error_code = excluded.error_code, ended_at = excluded.ended_at, pruned_at = excluded.pruned_at`,
    [row.call_id, row.session, row.tool, row.version, sha, row.state, row.error_code, row.ended_at]);
    await q('DELETE FROM task_requestors WHERE call_id = $1 AND session = $2', [row.call_id, row.session]);
    await q('DELETE FROM calls WHERE id = $1', [row.id]);
    // The task it ran for (if any; run as call id = task id) has ended: it goes with its call.
    await q("DELETE FROM scheduled_tasks WHERE id = $1 AND call_id = $1 AND session = $2 AND state = 'started'", [row.call_id, row.session]);
  }

  /** Cancelled tasks (they never had a call) past a tombstone's age or beyond the newest `maxCalls` go, oldest first (inside a transaction). */
  private async pruneTasks(q: Query): Promise<void> {
    await q(`DELETE FROM scheduled_tasks WHERE id IN (SELECT id FROM scheduled_tasks WHERE state = 'cancelled' AND updated_at < ${NOW_MS} - $1::bigint LIMIT $2)`,
      [this.limits.tombstoneMaxAgeMs, this.limits.stepCalls]);
    await q(`DELETE FROM scheduled_tasks WHERE id IN (SELECT id FROM scheduled_tasks WHERE state = 'cancelled' ORDER BY updated_at, id
      LIMIT GREATEST(0, LEAST((SELECT count(*) FROM scheduled_tasks WHERE state = 'cancelled') - $1::bigint, $2::bigint)))`, [this.limits.maxCalls, this.limits.stepCalls]);
  }

  /** Tombstones past their age or count go, oldest first (inside a transaction). */
  private async pruneTombstones(q: Query): Promise<void> {
    await q(`DELETE FROM tombstones WHERE pruned_at < ${NOW_MS} - $1::bigint`, [this.limits.tombstoneMaxAgeMs]);
    await q('DELETE FROM tombstones WHERE id <= (SELECT max(id) FROM tombstones) - $1::bigint', [this.limits.maxTombstones]);
  }
}
