/**
 * Retention of the SQLite ledger, off the call path: at most `maxCalls` ended calls and
 * `maxBytes` bytes of stored results, the oldest ended calls going first, each leaving a
 * tombstone; tombstones bounded by age and count. It runs in small steps (at most
 * `stepCalls` calls or `stepBytes` bytes each, one transaction), on an unref'd timer a while
 * after calls end, never inside the write that ended them. Counting reads only the partial
 * index of ended calls (`calls_ended`, schema 4), never the results' blobs; the timer's step
 * first looks (a read, no write lock) at the calls ended since the last step, from the oldest
 * call then open on, and runs only when a limit may be exceeded (or the last step is a
 * minute old).
 *
 * @module
 */
import type { CallKey, RecordOutcome, Retention, TombstoneRecord } from '../call-store.js';
import { argumentsSha256, prunedResult } from '../tombstones.js';
import type { Connection } from './database.js';
import { ENDED_SQL, tombstoneOf, type EndState, type Synchronous, type TombstoneRow } from './rows.js';
import type { WriteQueue } from './write-queue.js';

/**
 * Statements on scheduled tasks (`../scheduled-tasks.ts`): a started task goes with its call
 * (run as call id = task id), a cancelled one (it never had a call) once older than a
 * tombstone is kept, or beyond the newest `maxCalls` cancelled ones.
 */
function taskStatements(db: Connection) {
  return {
    withCall: db.prepare("DELETE FROM scheduled_tasks WHERE id = ? AND call_id = ? AND session = ? AND state = 'started'"),
    cancelledBefore: db.prepare("DELETE FROM scheduled_tasks WHERE id IN (SELECT id FROM scheduled_tasks WHERE state = 'cancelled' AND updated_at < ? LIMIT ?)"),
    cancelled: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM scheduled_tasks WHERE state = 'cancelled'"),
    oldestCancelled: db.prepare("DELETE FROM scheduled_tasks WHERE id IN (SELECT id FROM scheduled_tasks WHERE state = 'cancelled' ORDER BY updated_at, id LIMIT ?)"),
  };
}

/** How old the last step may be before the timer's step runs whatever the look says (tombstones and cancelled tasks age), in ms. */
const FULL_STEP_MS = 60_000;

/** The limits of {@link SqliteRetention}: counts, bytes and milliseconds. */
export interface RetentionLimits {
  maxCalls: number;
  maxBytes: number;
  tombstoneMaxAgeMs: number;
  maxTombstones: number;
  /** Calls deleted at most per step. */
  stepCalls: number;
  /** Bytes of stored results freed at most per step (at least one call goes per step). */
  stepBytes: number;
  /** How long after calls end a step runs, in ms; the next step of a backlog runs a tenth of that later. */
  delayMs: number;
}

interface EndedRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; state: EndState;
  error_code: string | null; ended_at: number | null; stored_bytes: number | null;
  /** The ids of its first and latest event (migration 8), or null without events. */
  first_event: number | null; last_event: number | null;
}

function statements(db: Connection) {
  return {
    // Both read only the partial index calls_ended (id, stored_bytes, state).
    totals: db.prepare<[], { n: number; bytes: number | null }>(`SELECT count(*) AS n, sum(stored_bytes) AS bytes FROM calls WHERE state IN ${ENDED_SQL}`),
    oldestEnded: db.prepare<[number], EndedRow>(`SELECT id, call_id, session, tool, version, arguments, state, error_code, ended_at, stored_bytes,
      first_event, last_event FROM calls WHERE state IN ${ENDED_SQL} ORDER BY id LIMIT ?`),
    // Its decisions, approvals and result go by their foreign keys' cascade; its events (no
    // foreign key since migration 8) by the range of ids its row bounds.
    deleteCall: db.prepare('DELETE FROM calls WHERE id = ?'),
    deleteEvents: db.prepare('DELETE FROM events WHERE id BETWEEN ? AND ? AND call = ?'),
    // The lowest id from @from on of a call not ended (rows by id from ?1, stopping at the first
    // open one), or past the last id when none is open: with @from the last step's answer (every
    // call below it was ended then, and stays so), each row is walked over about once.
    firstOpen: db.prepare<[{ from: number }], { id: number }>(`SELECT coalesce((SELECT id FROM calls WHERE id >= @from AND state NOT IN ${ENDED_SQL} ORDER BY id LIMIT 1), (SELECT max(id) FROM calls) + 1, @from) AS id`),
    // Ended calls from an id on: a range of the partial index calls_ended only.
    endedFrom: db.prepare<[number], { n: number; bytes: number | null }>(`SELECT count(*) AS n, sum(stored_bytes) AS bytes FROM calls WHERE state IN ${ENDED_SQL} AND id >= ?`),
  };
}

function tombstoneStatements(db: Connection) {
  return {
    byKey: db.prepare<[string, string], TombstoneRow>('SELECT * FROM tombstones WHERE call_id = ? AND session = ?'),
    newestById: db.prepare<[string], TombstoneRow>('SELECT * FROM tombstones WHERE call_id = ? ORDER BY id DESC LIMIT 1'),
    insert: db.prepare(`INSERT OR REPLACE INTO tombstones (call_id, session, tool, version, arguments_sha256, state, error_code, ended_at, pruned_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // Ids grow with the deletion time: the oldest tombstones are the lowest ids.
    firstKept: db.prepare<[number], { id: number }>('SELECT id FROM tombstones WHERE pruned_at >= ? ORDER BY id LIMIT 1'),
    newestId: db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM tombstones'),
    deleteBelow: db.prepare('DELETE FROM tombstones WHERE id < ?'),
    deleteAll: db.prepare('DELETE FROM tombstones'),
  };
}

/** Retention of one ledger connection. */
export class SqliteRetention implements Synchronous<Omit<Retention, 'retentionSettled'>>, Pick<Retention, 'retentionSettled'> {
  /** Statements on calls, prepared on first use (a read-only file of an old schema never uses them). */
  private prepared: ReturnType<typeof statements> | undefined;
  /** Statements on tasks, prepared on first use; `null` when the file has no `scheduled_tasks` (migration 7). */
  private taskSql: ReturnType<typeof taskStatements> | null | undefined;
  /** Statements on tombstones; `undefined` for a file of schema version 1 (read only). */
  private readonly graves: ReturnType<typeof tombstoneStatements> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Calls ended (here) since the last step. */
  private endedSinceStep = 0;
  private waiters: Array<() => void> = [];
  private closed = false;
  /**
   * What the last step left, for the cheap look of the timer's next step: the ended calls'
   * count and bytes, and those of the calls from the lowest call still open then (`from`) on.
   * Every call below `from` was ended then, and an ended call changes only by being deleted,
   * so the ended calls now are at most `n - tail.n` plus those from `from` on now: a range of
   * the ended index from the oldest open call, not a count of all of them (whichever process ended them).
   */
  private left: { n: number; bytes: number; from: number; tailN: number; tailBytes: number; at: number } | undefined;

  /** @param tombstones - whether the file has the tombstones table (an old file read-only may not). */
  constructor(private readonly db: Connection, tombstones: boolean, private readonly writes: WriteQueue, private readonly limits: RetentionLimits) {
    this.graves = tombstones ? tombstoneStatements(db) : undefined;
  }

  private get sql(): ReturnType<typeof statements> {
    return (this.prepared ??= statements(this.db));
  }

  /** The outcome of a call retention deleted: `ended` with a `RESULT_PRUNED` result; `undefined` when it has no tombstone. */
  prunedOutcome(key: CallKey): RecordOutcome | undefined {
    const row = this.graves?.byKey.get(key.callId, key.session);
    return row === undefined ? undefined : { kind: 'ended', result: prunedResult(tombstoneOf(row)) };
  }

  tombstone(callId: string, session?: string): TombstoneRecord | undefined {
    const row = session === undefined ? this.graves?.newestById.get(callId) : this.graves?.byKey.get(callId, session);
    return row === undefined ? undefined : tombstoneOf(row);
  }

  /** Calls ended: a step runs `delayMs` later (one timer, unref'd: it never keeps a process alive). */
  ended(count: number): void {
    this.endedSinceStep += count;
    this.schedule(this.limits.delayMs);
  }

  prune(): number {
    let deleted = 0;
    for (;;) {
      const n = this.pruneStep(this.limits.stepCalls);
      deleted += n;
      if (n === 0) return deleted;
    }
  }

  pruneStep(maxCalls = this.limits.stepCalls): number {
    const now = Date.now();
    return this.writes.immediate(() => {
      this.endedSinceStep = 0;
      const totals = this.sql.totals.get()!;
      let overCalls = totals.n - this.limits.maxCalls;
      let overBytes = (totals.bytes ?? 0) - this.limits.maxBytes;
      let deleted = 0;
      let freed = 0;
      if (overCalls > 0 || overBytes > 0) {
        for (const row of this.sql.oldestEnded.all(maxCalls)) {
          if (overCalls <= 0 && overBytes <= 0) break;
          if (deleted > 0 && freed + (row.stored_bytes ?? 0) > this.limits.stepBytes) break;
          this.bury(row, now);
          deleted++;
          overCalls--;
          overBytes -= row.stored_bytes ?? 0;
          freed += row.stored_bytes ?? 0;
        }
      }
      this.pruneTombstones(now);
      this.pruneTasks(now);
      const from = Math.max(this.left?.from ?? 0, this.sql.firstOpen.get({ from: this.left?.from ?? 0 })!.id);
      const tail = this.sql.endedFrom.get(from)!;
      this.left = { n: totals.n - deleted, bytes: (totals.bytes ?? 0) - freed, from, tailN: tail.n, tailBytes: tail.bytes ?? 0, at: now };
      return deleted;
    });
  }

  /**
   * Whether the timer's step may find a limit exceeded, by the look {@link left} allows (a
   * read, no write lock): only then, or when the last step is older than {@link FULL_STEP_MS}
   * (tombstones and cancelled tasks age), does the step run.
   */
  private mayExceed(): boolean {
    const left = this.left;
    if (left === undefined || Date.now() - left.at >= FULL_STEP_MS) return true;
    const tail = this.sql.endedFrom.get(left.from)!;
    return left.n - left.tailN + tail.n > this.limits.maxCalls || left.bytes - left.tailBytes + (tail.bytes ?? 0) > this.limits.maxBytes;
  }

  private get tasks(): ReturnType<typeof taskStatements> | null {
    if (this.taskSql === undefined) {
      const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'scheduled_tasks'").get() !== undefined;
      this.taskSql = has ? taskStatements(this.db) : null;
    }
    return this.taskSql;
  }

  /** Cancelled tasks past a tombstone's age or the count of ended calls go, oldest first (inside a transaction). */
  private pruneTasks(now: number): void {
    const sql = this.tasks;
    if (sql === null) return;
    sql.cancelledBefore.run(now - this.limits.tombstoneMaxAgeMs, this.limits.stepCalls);
    const over = sql.cancelled.get()!.n - this.limits.maxCalls;
    if (over > 0) sql.oldestCancelled.run(Math.min(over, this.limits.stepCalls));
  }

  /** Resolves once no step is scheduled (the pending one keeps the process alive meanwhile). */
  retentionSettled(): Promise<void> {
    if (this.timer === undefined) return Promise.resolve();
    this.timer.ref();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stop the timer; one last step when calls ended here since the last one (a short-lived process keeps the ledger bounded too). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.endedSinceStep > 0) {
      try {
        this.pruneStep();
      } catch {
        // the next writer's retention catches up
      }
    }
    this.settle();
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(this.run, ms);
    if (this.waiters.length === 0) this.timer.unref();
  }

  private readonly run = (): void => {
    this.timer = undefined;
    let deleted = 0;
    try {
      if (this.mayExceed()) deleted = this.pruneStep();
      else this.endedSinceStep = 0;
    } catch {
      // Busy (another process writes) or broken: the next ends schedule another step.
    }
    // A full step leaves more to do: the next one soon, not at once (calls run between).
    if (deleted >= this.limits.stepCalls) this.schedule(Math.max(1, Math.floor(this.limits.delayMs / 10)));
    else this.settle();
  };

  private settle(): void {
    if (this.timer !== undefined) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Delete an ended call, leaving its tombstone (inside a transaction). */
  private bury(row: EndedRow, now: number): void {
    let sha: string;
    try {
      sha = argumentsSha256(JSON.parse(row.arguments));
    } catch {
      sha = argumentsSha256(row.arguments);
    }
    this.graves!.insert.run(row.call_id, row.session, row.tool, row.version, sha, row.state, row.error_code, row.ended_at, now);
    this.sql.deleteCall.run(row.id);
    if (row.first_event !== null && row.last_event !== null) this.sql.deleteEvents.run(row.first_event, row.last_event, row.id);
    // The task it ran for (if any) has ended: it goes with its call.
    this.tasks?.withCall.run(row.call_id, row.call_id, row.session);
  }

  /**
   * Tombstones past their age or count go, oldest first (inside a transaction). Ids only grow,
   * so keeping the ids above `newest - maxTombstones` keeps at most `maxTombstones`, without
   * counting them.
   */
  private pruneTombstones(now: number): void {
    const graves = this.graves!;
    const kept = graves.firstKept.get(now - this.limits.tombstoneMaxAgeMs);
    if (kept === undefined) graves.deleteAll.run();
    else graves.deleteBelow.run(kept.id);
    const newest = graves.newestId.get()?.id ?? null;
    if (newest !== null && newest - this.limits.maxTombstones + 1 > 0) graves.deleteBelow.run(newest - this.limits.maxTombstones + 1);
  }
}
