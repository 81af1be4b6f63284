/**
 * Calls in the SQLite ledger: record, check, claim, end, recover, and read them back.
 * Writes run through the ledger's {@link WriteQueue}; see `Ledger` for what commits when.
 *
 * @module
 */
import type { DecisionRecord, ToolExecutionResult } from '../../types/result.js';
import { failedResult } from '../../closeout/results.js';
import { randomUUID } from 'node:crypto';
import { INTERRUPTED_MESSAGE, type CallEnd, type CallJournal, type CallKey, type CallProgressDetail, type CallRecord, type Fence, type Lease, type LedgerEvent, type ListFilter, type NewCall, type RecordOutcome, type StoredResult } from '../call-store.js';
import { boundedOutput } from '../bounded-output.js';
import { checkPool, type CheckedRequest, type HeldLease, type LeaseKeeper } from '../lease-keeper.js';
import { hostId, ownerAlive, processOwner, thisProcess } from '../owner.js';
import type { Connection } from './database.js';
import { callColumns, callOf, keyOf, type CallRow, type Synchronous } from './rows.js';
import type { QueuedEnd, WriteQueue } from './write-queue.js';

const RECORDED: RecordOutcome = Object.freeze({ kind: 'recorded' });
const ADOPTED: RecordOutcome = Object.freeze({ kind: 'recorded', adopted: true });
const UNKNOWN: RecordOutcome = Object.freeze({ kind: 'unknown' });
const TAKEN_OVER: RecordOutcome = Object.freeze({ kind: 'taken_over' });

type CheckRow = Pick<CallRow, 'id' | 'state' | 'owner_pid' | 'owner_start' | 'owner_host' | 'lease_expires_at' | 'pool'>;
type LeaseRow = Pick<CallRow, 'id' | 'state' | 'owner_pid' | 'owner_start' | 'owner_host' | 'lease_token' | 'lease_expires_at' | 'pool'>;

/** Statements on the owner and lease columns (migration 6), prepared on first write (an older file read only has none). */
function leaseStatements(db: Connection) {
  const owned = 'owner_pid = @pid, owner_start = @start, owner = @owner, owner_host = @host, lease_token = @token, lease_expires_at = @expires';
  return {
    insert: db.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, turn, options, state, owner_pid, owner_start, owner, owner_host,
      lease_token, lease_expires_at, pool, created_at, started_at)
      VALUES (@callId, @session, @tool, @version, @arguments, @workspace, @turn, @options, @state, @pid, @start, @owner, @host, @token, @expires, @pool, @now, @startedAt)
      ON CONFLICT (call_id, session) DO NOTHING`),
    leaseRow: db.prepare<[string, string], LeaseRow>('SELECT id, state, owner_pid, owner_start, owner_host, lease_token, lease_expires_at, pool FROM calls WHERE call_id = ? AND session = ?'),
    leaseOf: db.prepare<[number], LeaseRow>('SELECT id, state, owner_pid, owner_start, owner_host, lease_token, lease_expires_at, pool FROM calls WHERE id = ?'),
    // Conditional on the token read in the same transaction (a compare-and-set, as the PostgreSQL store's).
    takeOver: db.prepare(`UPDATE calls SET ${owned} WHERE id = @id AND state = 'pending' AND lease_token IS @was`),
    claim: db.prepare(`UPDATE calls SET state = 'running', started_at = @now, ${owned} WHERE id = @id AND state = 'pending' AND lease_token IS @was`),
    renew: db.prepare(`UPDATE calls SET lease_expires_at = ? WHERE call_id = ? AND session = ? AND lease_token = ? AND state IN ('pending', 'running')`),
    release: db.prepare(`UPDATE calls SET lease_token = NULL, lease_expires_at = NULL WHERE call_id = ? AND session = ? AND lease_token = ? AND state = 'pending'`),
    // A suspended call: its lease lapses, so that another process may take it over.
    lapse: db.prepare(`UPDATE calls SET lease_expires_at = ? WHERE id = ? AND state = 'pending'`),
    // A claimed call whose run suspended: waiting again, its lease lapsed (see suspend).
    unclaim: db.prepare(`UPDATE calls SET state = 'pending', lease_expires_at = ? WHERE id = ? AND state = 'running'`),
    // Only calls queued for a pool: a lapsed lease of another pending call says its owner is gone (it is taken over).
    lapsedPending: db.prepare(`UPDATE calls SET lease_token = NULL, lease_expires_at = NULL WHERE state = 'pending' AND pool IS NOT NULL AND lease_expires_at <= ?`),
  };
}

/** Prepared statements on calls, made once per ledger. */
function statements(db: Connection, sizes: boolean, leases: boolean, eventBounds: boolean) {
  const columns = callColumns(sizes);
  return {
    callByKey: db.prepare<[string, string], CallRow>(`SELECT ${columns} FROM calls WHERE call_id = ? AND session = ?`),
    rowId: db.prepare<[string, string], { id: number }>('SELECT id FROM calls WHERE call_id = ? AND session = ?'),
    checkRow: db.prepare<[string, string], CheckRow>(`SELECT id, state, owner_pid, owner_start${leases ? ', owner_host, lease_expires_at, pool' : ''} FROM calls WHERE call_id = ? AND session = ?`),
    // Before migration 4 (a file read only, never written) the sizes have no columns.
    end: sizes
      ? db.prepare<[string, number, string | null, number, number, number]>(`UPDATE calls SET state = ?, ended_at = ?, error_code = ?, output_bytes = ?, stored_bytes = ? WHERE id = ? AND state IN ('pending', 'running')`)
      : db.prepare<[string, number, string | null, number, number, number]>(`UPDATE calls SET state = ?, ended_at = ?, error_code = ? WHERE ?4 = ?4 AND ?5 = ?5 AND id = ?6 AND state IN ('pending', 'running')`),
    insertDecision: db.prepare('INSERT OR REPLACE INTO decisions (call, seq, decider, verdict, reason, rule, file, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
    insertResult: db.prepare('INSERT OR REPLACE INTO results (call, success, result, full_output, size, stored_at) VALUES (?, ?, ?, ?, ?, ?)'),
    event: db.prepare('INSERT INTO events (call, at, kind, detail) VALUES (?, ?, ?, ?)'),
    result: db.prepare<[number], { result: string; full_output: Buffer | null; size: number }>('SELECT result, full_output, size FROM results WHERE call = ?'),
    resultOnly: db.prepare<[number], { result: string }>('SELECT result FROM results WHERE call = ?'),
    running: db.prepare<[], CallRow>(`SELECT * FROM calls WHERE state = 'running'`),
    cancelPendingOf: db.prepare(`UPDATE approvals SET answer = 'cancelled', answered_by = 'toolgate', answered_at = ? WHERE call = ? AND answer IS NULL`),
    decisionsOf: db.prepare<[number], { decider: string; verdict: DecisionRecord['verdict']; reason: string; rule: string | null; file: string | null; line: number | null }>(
      'SELECT decider, verdict, reason, rule, file, line FROM decisions WHERE call = ? ORDER BY seq'),
    // A call's events: the range of ids its row bounds (migration 8), else (an older file read only) by the index events_by_call.
    eventsOf: db.prepare<[string, string], { at: number; kind: string; detail: string | null }>(eventBounds
      ? 'SELECT events.at, events.kind, events.detail FROM calls JOIN events ON events.id BETWEEN calls.first_event AND calls.last_event AND events.call = calls.id WHERE calls.call_id = ? AND calls.session = ? ORDER BY events.id'
      : 'SELECT events.at, events.kind, events.detail FROM calls JOIN events ON events.call = calls.id WHERE calls.call_id = ? AND calls.session = ? ORDER BY events.id'),
    requestCancel: db.prepare(`UPDATE calls SET cancel_requested = 1 WHERE id = ? AND state IN ('pending', 'running')`),
    cancelRequested: db.prepare<[number], { cancel_requested: number }>('SELECT cancel_requested FROM calls WHERE id = ?'),
    amend: db.prepare(`UPDATE calls SET arguments = ?, workspace = ?, turn = ?, options = ?
      WHERE call_id = ? AND session = ? AND state = 'pending' AND owner_pid = ? AND owner_start IS ?`),
  };
}

/** The calls of one ledger connection. */
export class SqliteCalls implements Synchronous<Omit<CallJournal, 'file' | 'readonly' | 'recovered' | 'finishSoon' | 'flush' | 'ownerAlive' | 'close'>> {
  private readonly sql: ReturnType<typeof statements>;
  private leased: ReturnType<typeof leaseStatements> | undefined;
  /** Calls a caller of this ledger handles ({@link check}), by {@link keyOf}, until they end. */
  private readonly held = new Set<string>();
  /** The ledger's write queue (set once by the ledger, which makes it with {@link writeEnd}). */
  writes!: WriteQueue;

  /**
   * @param pruned - the outcome of a call retention deleted (from its tombstone), or `undefined`.
   * @param maxOutputBytes - bytes of one call's output stored at most (cut past it, with a note).
   */
  constructor(
    private readonly db: Connection,
    private readonly sizes: boolean,
    private readonly pruned: (key: CallKey) => RecordOutcome | undefined,
    private readonly maxOutputBytes: number,
    /** The leases this ledger handle granted (its own unfenced ends use their tokens). */
    private readonly keeper: LeaseKeeper,
    leases: boolean,
    eventBounds: boolean,
  ) {
    this.sql = statements(db, sizes, leases, eventBounds);
  }

  private get lease(): ReturnType<typeof leaseStatements> {
    return (this.leased ??= leaseStatements(this.db));
  }

  record(call: NewCall): RecordOutcome {
    const now = Date.now();
    return this.writes.immediate(() => {
      if (this.sql.rowId.get(call.callId, call.session) === undefined) {
        const pruned = this.pruned(call);
        if (pruned !== undefined) return pruned;
      }
      return this.insertPending(call, now) !== undefined ? RECORDED : this.known(call, now);
    });
  }

  check(key: CallKey): RecordOutcome {
    const queued = this.writes.queuedResult(key);
    if (queued !== undefined) return { kind: 'ended', result: queued };
    const row = this.sql.checkRow.get(key.callId, key.session);
    const k = keyOf(key);
    if (row === undefined) {
      // A call retention deleted ran before: answered from its tombstone, never run again.
      const pruned = this.pruned(key);
      if (pruned !== undefined) return pruned;
      this.held.add(k);
      return UNKNOWN;
    }
    if (row.state !== 'pending' && row.state !== 'running') return this.endedOutcome(row.id);
    // A call this process recorded (an MCP task, say) or suspended that nobody here handles yet
    // is adopted by the caller (a suspended one's lease has lapsed: see suspend).
    const me = thisProcess();
    const here = row.owner_pid === me.pid && (row.owner_host ?? hostId()) === hostId() && (row.owner_start ?? null) === (me.start ?? null);
    const live = alive(row, Date.now());
    if (row.state === 'pending' && here && !this.held.has(k) && (live || row.pool == null)) {
      if (!live) {
        // Suspended here: leased again (as a take-over would), so that it is held here again.
        const outcome = this.writes.immediate(() => this.known(key, Date.now()));
        if (outcome.kind !== 'taken_over') return outcome;
      }
      this.held.add(k);
      return ADOPTED;
    }
    if (live) return { kind: 'in_progress', record: this.get(key.callId, key.session)! };
    // Queued for a pool: a worker takes it, not the caller.
    if (row.state === 'pending' && row.pool != null) return { kind: 'in_progress', record: this.get(key.callId, key.session)! };
    // A dead owner's call: take it over or recover it, under the write lock.
    const now = Date.now();
    const outcome = this.writes.immediate(() => this.known(key, now));
    if (outcome.kind === 'taken_over') this.held.add(k);
    return outcome;
  }

  amend(call: NewCall): boolean {
    const me = thisProcess();
    return this.writes.immediate(() => this.sql.amend.run(
      JSON.stringify(call.arguments), call.workspace, call.turn, JSON.stringify(call.options ?? {}), call.callId, call.session, me.pid, me.start ?? null,
    ).changes === 1);
  }

  claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): boolean {
    return this.claimUnder(call, decisions, undefined) !== undefined;
  }

  /**
   * Claim a `pending` call (inside a new transaction): without `request`, for this process
   * without a lease (as before leases); with it, under a fresh lease (see `CallLeases.claimLease`).
   * A pending call held by another's live lease (or, with `request.token`, by any other token) is not claimed.
   * @returns the lease (`token` empty without a request), or `undefined` when not claimed.
   */
  claimUnder(call: CallKey | NewCall, decisions: readonly DecisionRecord[] | undefined, request: CheckedRequest | undefined): Lease | undefined {
    const now = Date.now();
    const owner = this.ownerValues(request, now);
    return this.writes.immediate(() => {
      let row = this.lease.leaseRow.get(call.callId, call.session);
      let id: number;
      if (row === undefined) {
        if (!('tool' in call)) return undefined;
        // Recorded and claimed in one commit.
        const inserted = this.lease.insert.run({ ...this.newCallValues(call, now), ...owner, state: 'running', startedAt: now });
        if (inserted.changes !== 1) return undefined;
        id = Number(inserted.lastInsertRowid);
        this.sql.event.run(id, now, 'recorded', null);
      } else {
        if (row.state !== 'pending') return undefined;
        // Held: by the given token only; else free unless another handle's lease holds it and its owner is there.
        const mine = request?.token ?? this.keeper.tokenOf(call);
        const free = request?.token !== undefined ? row.lease_token === request.token : row.lease_token == null || row.lease_token === mine || !alive(row, now);
        if (!free || this.lease.claim.run({ ...owner, id: row.id, was: row.lease_token ?? null, now }).changes !== 1) return undefined;
        id = row.id;
      }
      if (decisions !== undefined) this.writeDecisions(id, decisions, now);
      this.sql.event.run(id, now, 'running', request === undefined ? null : JSON.stringify({ owner: owner.owner }));
      return { owner: owner.owner, token: owner.token ?? '', expiresAt: owner.expires ?? 0 };
    });
  }

  /** `CallLeases.takeLease` (inside a new transaction). */
  takeLease(key: CallKey, request: CheckedRequest): Lease | undefined {
    const now = Date.now();
    const owner = this.ownerValues(request, now);
    return this.writes.immediate(() => {
      const row = this.lease.leaseRow.get(key.callId, key.session);
      if (row === undefined || row.state !== 'pending') return undefined;
      const free = row.lease_token != null ? !alive(row, now) : row.pool != null || !alive(row, now);
      if (!free || this.lease.takeOver.run({ ...owner, id: row.id, was: row.lease_token ?? null }).changes !== 1) return undefined;
      this.sql.event.run(row.id, now, 'leased', JSON.stringify({ owner: owner.owner }));
      return { owner: owner.owner, token: owner.token!, expiresAt: owner.expires! };
    });
  }

  /** `CallLeases.renewLease` for several leases in one transaction. @returns the tokens still held. */
  renewLeases(leases: readonly HeldLease[]): Set<string> {
    const now = Date.now();
    return this.writes.immediate(() => {
      const held = new Set<string>();
      for (const l of leases) if (this.lease.renew.run(now + l.leaseMs, l.key.callId, l.key.session, l.token).changes === 1) held.add(l.token);
      return held;
    });
  }

  /** `CallLeases.releaseLease`. */
  releaseLease(key: CallKey, token: string): boolean {
    const now = Date.now();
    return this.writes.immediate(() => {
      const id = this.idOf(key.callId, key.session);
      if (id === undefined || this.lease.release.run(key.callId, key.session, token).changes !== 1) return false;
      this.sql.event.run(id, now, 'released', null);
      return true;
    });
  }

  /** `CallLeases.expireLeases`: recover, then clear the lapsed leases of pending calls. */
  expireLeases(): CallRecord[] {
    const marked = this.recover();
    const now = Date.now();
    this.writes.immediate(() => this.lease.lapsedPending.run(now));
    return marked;
  }

  finish(call: CallKey | NewCall, end: CallEnd, fence?: Fence): boolean {
    return this.writes.immediate(() => this.writeEnd({ call, end, now: Date.now(), fence }));
  }

  /** Write one end (inside a transaction). @returns whether the call ended here. */
  writeEnd(q: QueuedEnd): boolean {
    const { call, end, now } = q;
    this.held.delete(keyOf(call));
    let lease = this.lease.leaseRow.get(call.callId, call.session);
    if (lease === undefined) {
      const id = 'tool' in call ? this.insertPending(call, now) : undefined;
      if (id === undefined) return false;
      lease = this.lease.leaseOf.get(id)!;
    }
    const { id } = lease;
    // Fenced: a leased call ends with its token only (this handle's own, without a fence); a pending one whose lease lapsed, with none.
    const token = q.fence?.token ?? this.keeper.tokenOf(call);
    const fenced = lease.lease_token == null
      ? q.fence === undefined
      : lease.lease_token === token || (token === undefined && lease.state === 'pending' && (lease.lease_expires_at ?? 0) <= now);
    if (!fenced) return false;
    this.keeper.drop(call);
    const blob = boundedOutput(end.fullOutput ?? end.result.output, this.maxOutputBytes);
    const json = JSON.stringify(end.result);
    if (this.sql.end.run(end.state, now, end.result.errorCode ?? null, blob.length, blob.length + Buffer.byteLength(json), id).changes !== 1) return false;
    if (end.decisions !== undefined) this.writeDecisions(id, end.decisions, now);
    this.sql.cancelPendingOf.run(now, id);
    this.sql.insertResult.run(id, end.result.success ? 1 : 0, json, blob, blob.length, now);
    this.sql.event.run(id, now, end.state, end.result.errorCode === undefined ? null : JSON.stringify({ errorCode: end.result.errorCode }));
    return true;
  }

  /** @returns the calls marked `interrupted`. */
  recover(): CallRecord[] {
    const now = Date.now();
    return this.writes.immediate(() => {
      const marked: CallRecord[] = [];
      for (const row of this.sql.running.all()) {
        if (alive(row, now)) continue;
        this.interrupt(row, now);
        marked.push({ ...callOf(row), state: 'interrupted', endedAt: now, errorCode: 'INTERRUPTED' });
      }
      return marked;
    });
  }

  get(callId: string, session?: string): CallRecord | undefined {
    this.writes.flush();
    if (session !== undefined) {
      const row = this.sql.callByKey.get(callId, session);
      return row === undefined ? undefined : callOf(row);
    }
    return this.list({ callId, limit: 1 })[0];
  }

  list(filter: ListFilter = {}): CallRecord[] {
    this.writes.flush();
    const where: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [['session', filter.session], ['call_id', filter.callId], ['state', filter.state], ['turn', filter.turn], ['pool', filter.pool]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      values.push(value);
    }
    values.push(filter.limit ?? 1000);
    const rows = this.db.prepare(`SELECT ${callColumns(this.sizes)} FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY calls.id DESC LIMIT ?`).all(...values) as CallRow[];
    return rows.map(callOf);
  }

  decisions(callId: string, session: string): DecisionRecord[] {
    this.writes.flush();
    const id = this.idOf(callId, session);
    if (id === undefined) return [];
    return this.sql.decisionsOf.all(id).map((d) => {
      const record: DecisionRecord = { decider: d.decider, verdict: d.verdict, reason: d.reason };
      if (d.rule !== null) record.rule = d.rule;
      if (d.file !== null) record.file = d.file;
      if (d.line !== null) record.line = d.line;
      return record;
    });
  }

  events(callId: string, session: string): LedgerEvent[] {
    this.writes.flush();
    return this.sql.eventsOf.all(callId, session).map((e) => ({ at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail) }));
  }

  result(callId: string, session?: string): StoredResult | undefined {
    this.writes.flush();
    const call = session === undefined ? this.get(callId) : undefined;
    const id = this.idOf(callId, session ?? call?.session ?? '');
    if (id === undefined) return undefined;
    const row = this.sql.result.get(id);
    if (row === undefined) return undefined;
    return { result: JSON.parse(row.result) as ToolExecutionResult, fullOutput: row.full_output === null ? '' : row.full_output.toString('utf8'), size: row.size };
  }

  requestCancel(callId: string, session: string): boolean {
    const now = Date.now();
    return this.writes.immediate(() => {
      const id = this.idOf(callId, session);
      if (id === undefined || this.sql.requestCancel.run(id).changes !== 1) return false;
      this.sql.event.run(id, now, 'cancel_requested', null);
      return true;
    });
  }

  progress(callId: string, session: string, progress: CallProgressDetail): boolean {
    const now = Date.now();
    return this.writes.immediate(() => {
      const row = this.sql.checkRow.get(callId, session);
      if (row === undefined || row.state !== 'running') return false;
      this.sql.event.run(row.id, now, 'progress', JSON.stringify(progress));
      return true;
    });
  }

  suspend(key: CallKey, options?: { claimed?: boolean }): boolean {
    const claimed = options?.claimed === true;
    this.held.delete(keyOf(key));
    // Its lease lapses now (and is not renewed): a caller resuming it in another process (the
    // retry of an MCP 2026-07-28 call on another instance) takes it over at once.
    this.keeper.drop(key);
    const now = Date.now();
    const me = thisProcess();
    return this.writes.immediate(() => {
      const row = this.sql.checkRow.get(key.callId, key.session);
      if (row === undefined || row.state !== (claimed ? 'running' : 'pending')) return false;
      if (claimed) {
        // Only a run of this process goes back to waiting (its claim, its run).
        if (row.owner_pid !== me.pid || (row.owner_host ?? hostId()) !== hostId() || (row.owner_start ?? null) !== (me.start ?? null)) return false;
        if (this.lease.unclaim.run(now, row.id).changes !== 1) return false;
      } else {
        this.lease.lapse.run(now, row.id);
      }
      this.sql.event.run(row.id, now, 'suspended', null);
      return true;
    });
  }

  replayed(key: CallKey): boolean {
    const now = Date.now();
    return this.writes.immediate(() => {
      const id = this.idOf(key.callId, key.session);
      if (id === undefined) return false;
      this.sql.event.run(id, now, 'replayed', null);
      return true;
    });
  }

  cancelRequested(callId: string, session: string): boolean {
    this.writes.flush();
    const id = this.idOf(callId, session);
    return id !== undefined && this.sql.cancelRequested.get(id)?.cancel_requested === 1;
  }

  /** The row id of a call. */
  idOf(callId: string, session: string): number | undefined {
    return this.sql.rowId.get(callId, session)?.id;
  }

  /** The row id of a call, recording it first (inside a transaction) when `call` is a {@link NewCall} not yet recorded. */
  rowOf(call: CallKey | NewCall, now: number): number | undefined {
    const id = this.idOf(call.callId, call.session);
    if (id !== undefined || !('tool' in call)) return id;
    return this.insertPending(call, now);
  }

  /** Append an event to a call's log (inside a transaction). */
  event(id: number, now: number, kind: string, detail: unknown): void {
    this.sql.event.run(id, now, kind, detail === undefined ? null : JSON.stringify(detail));
  }

  /** Insert `call` as `pending` (inside a transaction); its row id, or `undefined` when it was recorded before. */
  private insertPending(call: NewCall, now: number): number | undefined {
    const inserted = this.lease.insert.run({ ...this.newCallValues(call, now), ...this.ownerValues(undefined, now), state: 'pending', startedAt: null });
    if (inserted.changes !== 1) return undefined;
    const id = Number(inserted.lastInsertRowid);
    this.sql.event.run(id, now, 'recorded', null);
    return id;
  }

  /** The named values of a new row's call (for {@link leaseStatements}'s insert). */
  private newCallValues(call: NewCall, now: number) {
    return {
      callId: call.callId, session: call.session, tool: call.tool, version: call.version, arguments: JSON.stringify(call.arguments), workspace: call.workspace,
      turn: call.turn, options: JSON.stringify(call.options ?? {}), pool: checkPool(call.pool) ?? null, now,
    };
  }

  /** The named owner values of a write: this process, and the lease of `request` (none without one). */
  private ownerValues(request: CheckedRequest | undefined, now: number) {
    const me = thisProcess();
    return {
      pid: me.pid, start: me.start ?? null, host: hostId(), owner: request?.owner ?? processOwner(),
      token: request === undefined ? null : randomUUID(), expires: request === undefined ? null : now + request.leaseMs,
    };
  }

  /** What became of a recorded call (inside a transaction): taken over or recovered when its owner is gone. */
  private known(key: CallKey, now: number): RecordOutcome {
    const row = this.sql.callByKey.get(key.callId, key.session)!;
    const gone = (row.state === 'pending' || row.state === 'running') && !alive(row, now);
    if (row.state === 'pending' && gone && row.pool != null) return { kind: 'in_progress', record: callOf(row) } as const; // queued for a worker
    if (row.state === 'pending' && gone) {
      if (this.lease.takeOver.run({ ...this.ownerValues(undefined, now), id: row.id, was: row.lease_token ?? null }).changes !== 1) return { kind: 'in_progress', record: callOf(row) } as const;
      this.sql.event.run(row.id, now, 'taken_over', JSON.stringify({ from: row.owner_pid }));
      return TAKEN_OVER;
    }
    if (row.state === 'running' && gone) this.interrupt(row, now);
    else if (row.state === 'pending' || row.state === 'running') return { kind: 'in_progress', record: callOf(row) } as const;
    return this.endedOutcome(row.id);
  }

  private endedOutcome(id: number): RecordOutcome {
    const stored = this.sql.resultOnly.get(id);
    return { kind: 'ended', result: JSON.parse(stored!.result) as ToolExecutionResult } as const;
  }

  /** Store a call's decision path (inside a transaction), with one `decided` event. */
  private writeDecisions(id: number, decisions: readonly DecisionRecord[], now: number): void {
    if (decisions.length === 0) return;
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!;
      this.sql.insertDecision.run(id, i, d.decider, d.verdict, d.reason, d.rule ?? null, d.file ?? null, d.line ?? null);
    }
    this.sql.event.run(id, now, 'decided', JSON.stringify(decisions));
  }

  /** Mark a running row interrupted, with its synthetic result (inside a transaction). */
  private interrupt(row: CallRow, now: number): void {
    const result = failedResult('INTERRUPTED', INTERRUPTED_MESSAGE, { tool: row.tool, version: row.version, callId: row.call_id, stopReason: 'interrupted' });
    result.durationMs = Math.max(0, now - (row.started_at ?? now));
    const text = Buffer.from(result.output, 'utf8');
    const json = JSON.stringify(result);
    this.sql.end.run('interrupted', now, 'INTERRUPTED', text.length, text.length + Buffer.byteLength(json), row.id);
    this.sql.insertResult.run(row.id, 0, json, text, text.length, now);
    this.sql.event.run(row.id, now, 'interrupted', JSON.stringify({ ownerPid: row.owner_pid, ...(row.owner == null ? {} : { owner: row.owner }) }));
  }
}

/** Whether a row's owner is still there (`ownerAlive`, from the row's columns). */
function alive(row: Pick<CallRow, 'owner_pid' | 'owner_start' | 'owner_host' | 'lease_expires_at'>, now: number): boolean {
  return ownerAlive({ ownerPid: row.owner_pid, ownerStart: row.owner_start ?? undefined, ownerHost: row.owner_host ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined }, now);
}
