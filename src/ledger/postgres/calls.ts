/**
 * Calls in the PostgreSQL store: record, check, claim (fenced, under leases), end, recover,
 * and read them back. Every write is one transaction holding the store's write lock
 * (`database.ts`); claims and ends are conditional updates on the lease token read in it, so
 * that of two owners racing for a call exactly one wins, and a late owner writes nothing.
 * Changes notify the call's topic (`waits.ts`), waking the waiters of every process.
 *
 * Ownership: every call this store records or claims for its own process gets a lease
 * (default 30 s) that the store handle renews (`LeaseKeeper`), so that another host sees it
 * lapse when the process is gone; on this host a dead process is seen at once (`ownerAlive`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { DecisionRecord, ToolExecutionResult } from '../../types/result.js';
import { boundedOutput, interruptedResult } from '../bounded-output.js';
import type { CallEnd, CallKey, CallProgressDetail, CallRecord, Fence, Lease, LedgerEvent, ListFilter, NewCall, RecordOutcome, StoredResult } from '../call-store.js';
import { checkPool, type CheckedRequest, type HeldLease, type LeaseKeeper } from '../lease-keeper.js';
import { hostId, thisProcess } from '../owner.js';
import { callTopic } from '../waits.js';
import { named, NOW_MS, type PgDatabase, type Query } from './database.js';
import { callOf, keyOf, rowAlive, type PgCallRow } from './rows.js';

const RECORDED: RecordOutcome = Object.freeze({ kind: 'recorded' });
const ADOPTED: RecordOutcome = Object.freeze({ kind: 'recorded', adopted: true });
const UNKNOWN: RecordOutcome = Object.freeze({ kind: 'unknown' });
const TAKEN_OVER: RecordOutcome = Object.freeze({ kind: 'taken_over' });

/** An end given to `finish` or `finishSoon`. */
export interface PgQueuedEnd {
  call: CallKey | NewCall;
  end: CallEnd;
  fence?: Fence | undefined;
}

/** What a write granted: a lease for the keeper to hold once the transaction committed. */
interface Granted {
  key: CallKey;
  token: string;
  request: CheckedRequest;
}

type Notify = (topic: string) => void;

/** The columns of a call row ({@link PgCallRow}), named: a prepared statement's result must not change when a migration adds a column. */
const CALL_COLUMNS = 'id, call_id, session, tool, version, arguments, workspace, turn, options, state, owner, owner_host, owner_pid, owner_start, lease_token, '
  + 'lease_expires_at, pool, cancel_requested, created_at, started_at, ended_at, error_code, output_bytes, stored_bytes';

const BY_KEY_TEXT = `SELECT ${CALL_COLUMNS}, ${NOW_MS} AS now FROM calls WHERE call_id = $1 AND session = $2`;
/** Statements every call runs, prepared once per connection (see `named`). */
const BY_KEY = named(BY_KEY_TEXT);
const BY_KEY_FOR_UPDATE = named(`${BY_KEY_TEXT} FOR UPDATE`);
const BY_ID_FOR_UPDATE = named(`SELECT ${CALL_COLUMNS}, ${NOW_MS} AS now FROM calls WHERE id = $1 FOR UPDATE`);
const GET_BY_KEY = named(`SELECT ${CALL_COLUMNS} FROM calls WHERE call_id = $1 AND session = $2`);
const LEASE_EXPIRY = named('SELECT lease_expires_at FROM calls WHERE id = $1');
const ID_BY_KEY = named('SELECT id FROM calls WHERE call_id = $1 AND session = $2');
const EVENT = named(`INSERT INTO events (call, at, kind, detail) VALUES ($1, ${NOW_MS}, $2, $3)`);
const END = named(`UPDATE calls SET state = $1, ended_at = ${NOW_MS}, error_code = $2, output_bytes = $3, stored_bytes = $4 WHERE id = $5`);
const RESULT = named(`INSERT INTO results (call, success, result, full_output, size, stored_at) VALUES ($1, $2, $3, $4, $5, ${NOW_MS})
      ON CONFLICT (call) DO UPDATE SET success = excluded.success, result = excluded.result, full_output = excluded.full_output, size = excluded.size, stored_at = excluded.stored_at`);
const CANCEL_QUESTIONS = named(`UPDATE approvals SET answer = 'cancelled', answered_by = 'toolgate', answered_at = ${NOW_MS} WHERE call = $1 AND answer IS NULL RETURNING id`);

/** The calls of one PostgreSQL store handle. */
export class PgCalls {
  /** Calls a caller of this handle handles ({@link check}), by key, until they end. */
  private readonly held = new Set<string>();

  /**
   * @param pruned - the outcome of a call retention deleted (from its tombstone), or `undefined`.
   * @param processLease - the lease this handle takes for its own process (record, ask, claim).
   * @param settle - writes the ends `finishSoon` queued (reads see this handle's ends).
   */
  constructor(
    private readonly db: PgDatabase,
    private readonly pruned: (q: Query, key: CallKey) => Promise<RecordOutcome | undefined>,
    private readonly maxOutputBytes: number,
    private readonly keeper: LeaseKeeper,
    private readonly processLease: CheckedRequest,
    private readonly settle: () => Promise<void>,
  ) {}

  async record(call: NewCall): Promise<RecordOutcome> {
    const granted: Granted[] = [];
    const outcome = await this.db.tx(async (q, notify) => {
      const [exists] = await q(ID_BY_KEY, [call.callId, call.session]);
      if (exists === undefined) {
        const pruned = await this.pruned(q, call);
        if (pruned !== undefined) return pruned;
      }
      const id = await this.insert(q, call, 'pending', call.pool === undefined ? this.processLease : undefined, granted, notify);
      return id !== undefined ? RECORDED : this.known(q, call, granted, notify);
    });
    this.hold(granted);
    return outcome;
  }

  async check(key: CallKey, queued: ToolExecutionResult | undefined): Promise<RecordOutcome> {
    if (queued !== undefined) return { kind: 'ended', result: queued };
    const [row] = await this.db.read<PgCallRow>(BY_KEY, [key.callId, key.session]);
    const k = keyOf(key);
    if (row === undefined) {
      const pruned = await this.pruned((sql, params) => this.db.read(sql, params), key);
      if (pruned !== undefined) return pruned;
      this.held.add(k);
      return UNKNOWN;
    }
    if (row.state !== 'pending' && row.state !== 'running') return this.endedOutcome((sql, params) => this.db.read(sql, params), row.id);
    const me = thisProcess();
    // A pending call this process recorded (an MCP task) or suspended, that nobody here handles
    // yet, is adopted by the caller (a suspended one's lease has lapsed: see suspend).
    const here = row.owner_pid === me.pid && row.owner_host === hostId() && (row.owner_start ?? null) === (me.start ?? null);
    const live = rowAlive(row, row.now!);
    if (row.state === 'pending' && here && !this.held.has(k) && (live || row.pool == null)) {
      if (!live) {
        // Suspended here: leased again (as a take-over would), so that it is held here again.
        const granted: Granted[] = [];
        const outcome = await this.db.tx((q, notify) => this.known(q, key, granted, notify));
        this.hold(granted);
        if (outcome.kind !== 'taken_over') return outcome;
      }
      this.held.add(k);
      return ADOPTED;
    }
    if (live) return { kind: 'in_progress', record: callOf(row) };
    if (row.state === 'pending' && row.pool !== null) return { kind: 'in_progress', record: callOf(row) };
    const granted: Granted[] = [];
    const outcome = await this.db.tx((q, notify) => this.known(q, key, granted, notify));
    this.hold(granted);
    if (outcome.kind === 'taken_over') this.held.add(k);
    return outcome;
  }

  async amend(call: NewCall): Promise<boolean> {
    const me = thisProcess();
    return this.db.tx(async (q) => (await q(`UPDATE calls SET arguments = $1, workspace = $2, turn = $3, options = $4
      WHERE call_id = $5 AND session = $6 AND state = 'pending' AND owner_pid = $7 AND owner_start IS NOT DISTINCT FROM $8 AND owner_host = $9 RETURNING id`,
    [JSON.stringify(call.arguments), call.workspace, call.turn, JSON.stringify(call.options ?? {}), call.callId, call.session, me.pid, me.start ?? null, hostId()])).length === 1);
  }

  /** Claim a `pending` call under a lease (the handle's own, or `request`'s). See `CallLeases.claimLease`. */
  async claim(call: CallKey | NewCall, decisions: readonly DecisionRecord[] | undefined, request: CheckedRequest): Promise<Lease | undefined> {
    const granted: Granted[] = [];
    const lease = await this.db.tx(async (q, notify): Promise<Lease | undefined> => {
      const [row] = await q<PgCallRow>(BY_KEY_FOR_UPDATE, [call.callId, call.session]);
      let id: number;
      const token = randomUUID();
      if (row === undefined) {
        if (!('tool' in call)) return undefined;
        const inserted = await this.insert(q, call, 'running', request, granted, notify, token);
        if (inserted === undefined) return undefined;
        id = inserted;
      } else {
        if (row.state !== 'pending') return undefined;
        const mine = request.token ?? this.keeper.tokenOf(call);
        const free = request.token !== undefined ? row.lease_token === request.token : row.lease_token === null || row.lease_token === mine || this.ownProcess(row) || !rowAlive(row, row.now!);
        if (!free) return undefined;
        const updated = await q(CLAIM,
          [...this.ownerParams(request, token), row.id, row.lease_token]);
        if (updated.length !== 1) return undefined;
        id = row.id;
        granted.push({ key: call, token, request });
      }
      if (decisions !== undefined) await this.writeDecisions(q, id, decisions);
      await this.event(q, id, 'running', { owner: request.owner });
      notify(callTopic(call));
      const [at] = await q<{ lease_expires_at: number }>(LEASE_EXPIRY, [id]);
      return { owner: request.owner, token, expiresAt: at!.lease_expires_at };
    });
    this.hold(granted);
    return lease;
  }

  /** `CallLeases.takeLease`. */
  async takeLease(key: CallKey, request: CheckedRequest): Promise<Lease | undefined> {
    const granted: Granted[] = [];
    const lease = await this.db.tx(async (q): Promise<Lease | undefined> => {
      const [row] = await q<PgCallRow>(BY_KEY_FOR_UPDATE, [key.callId, key.session]);
      if (row === undefined || row.state !== 'pending') return undefined;
      const free = row.lease_token !== null ? !rowAlive(row, row.now!) : row.pool !== null || !rowAlive(row, row.now!);
      if (!free) return undefined;
      const token = randomUUID();
      const [updated] = await q<{ lease_expires_at: number }>(`UPDATE calls SET ${OWNED} WHERE id = $7 AND state = 'pending' AND lease_token IS NOT DISTINCT FROM $8 RETURNING lease_expires_at`,
        [...this.ownerParams(request, token), row.id, row.lease_token]);
      if (updated === undefined) return undefined;
      await this.event(q, row.id, 'leased', { owner: request.owner });
      granted.push({ key, token, request });
      return { owner: request.owner, token, expiresAt: updated.lease_expires_at };
    });
    this.hold(granted);
    return lease;
  }

  /** Renew leases (each by its own length from the server's now) in one statement. @returns the tokens still held, with their expiries. */
  async renewLeases(leases: readonly HeldLease[]): Promise<Map<string, number>> {
    if (leases.length === 0) return new Map();
    const rows = await this.db.read<{ lease_token: string; lease_expires_at: number }>(`UPDATE calls SET lease_expires_at = ${NOW_MS} + x.ms
      FROM unnest($1::text[], $2::bigint[]) AS x(token, ms) WHERE calls.lease_token = x.token AND calls.state IN ('pending', 'running')
      RETURNING calls.lease_token, calls.lease_expires_at`, [leases.map((l) => l.token), leases.map((l) => l.leaseMs)]);
    return new Map(rows.map((r) => [r.lease_token, r.lease_expires_at]));
  }

  /** `CallLeases.releaseLease`. */
  async releaseLease(key: CallKey, token: string): Promise<boolean> {
    return this.db.tx(async (q, notify) => {
      const [row] = await q<{ id: number }>(`UPDATE calls SET lease_token = NULL, lease_expires_at = NULL
        WHERE call_id = $1 AND session = $2 AND lease_token = $3 AND state = 'pending' RETURNING id`, [key.callId, key.session, token]);
      if (row === undefined) return false;
      await this.event(q, row.id, 'released', null);
      notify(callTopic(key));
      return true;
    });
  }

  /** `CallLeases.expireLeases`: recover, then clear the lapsed leases of calls queued for a pool. */
  async expireLeases(): Promise<CallRecord[]> {
    const marked = await this.recover();
    await this.db.tx((q) => q(`UPDATE calls SET lease_token = NULL, lease_expires_at = NULL WHERE state = 'pending' AND pool IS NOT NULL AND lease_expires_at <= ${NOW_MS}`));
    return marked;
  }

  /** Write ends in one transaction. @returns for each, whether the call ended here. */
  async writeEnds(ends: readonly PgQueuedEnd[]): Promise<boolean[]> {
    const done = await this.db.tx(async (q, notify) => {
      const out: boolean[] = [];
      for (const end of ends) out.push(await this.writeEnd(q, notify, end));
      return out;
    });
    ends.forEach((e, i) => {
      this.held.delete(keyOf(e.call));
      if (done[i]) this.keeper.drop(e.call);
    });
    return done;
  }

  async recover(): Promise<CallRecord[]> {
    return this.db.tx(async (q, notify) => {
      const marked: CallRecord[] = [];
      for (const row of await q<PgCallRow>(`SELECT *, ${NOW_MS} AS now FROM calls WHERE state = 'running' FOR UPDATE`)) {
        if (rowAlive(row, row.now!)) continue;
        await this.interrupt(q, row, notify);
        marked.push({ ...callOf(row), state: 'interrupted', endedAt: row.now!, errorCode: 'INTERRUPTED' });
      }
      return marked;
    });
  }

  async get(callId: string, session?: string): Promise<CallRecord | undefined> {
    await this.settle();
    const rows = session !== undefined
      ? await this.db.read<PgCallRow>(GET_BY_KEY, [callId, session])
      : await this.db.read<PgCallRow>('SELECT * FROM calls WHERE call_id = $1 ORDER BY id DESC LIMIT 1', [callId]);
    return rows[0] === undefined ? undefined : callOf(rows[0]);
  }

  async list(filter: ListFilter = {}): Promise<CallRecord[]> {
    await this.settle();
    const where: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [['session', filter.session], ['call_id', filter.callId], ['state', filter.state], ['turn', filter.turn], ['pool', filter.pool]] as const) {
      if (value === undefined) continue;
      values.push(value);
      where.push(`${column} = $${values.length}`);
    }
    values.push(filter.limit ?? 1000);
    const rows = await this.db.read<PgCallRow>(`SELECT * FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${values.length}`, values);
    return rows.map(callOf);
  }

  async decisions(callId: string, session: string): Promise<DecisionRecord[]> {
    await this.settle();
    const rows = await this.db.read<{ decider: string; verdict: DecisionRecord['verdict']; reason: string; rule: string | null; file: string | null; line: number | null }>(
      'SELECT d.decider, d.verdict, d.reason, d.rule, d.file, d.line FROM decisions d JOIN calls c ON c.id = d.call WHERE c.call_id = $1 AND c.session = $2 ORDER BY d.seq', [callId, session]);
    return rows.map((d) => {
      const record: DecisionRecord = { decider: d.decider, verdict: d.verdict, reason: d.reason };
      if (d.rule !== null) record.rule = d.rule;
      if (d.file !== null) record.file = d.file;
      if (d.line !== null) record.line = d.line;
      return record;
    });
  }

  async events(callId: string, session: string): Promise<LedgerEvent[]> {
    await this.settle();
    const rows = await this.db.read<{ at: number; kind: string; detail: string | null }>(
      'SELECT e.at, e.kind, e.detail FROM events e JOIN calls c ON c.id = e.call WHERE c.call_id = $1 AND c.session = $2 ORDER BY e.id', [callId, session]);
    return rows.map((e) => ({ at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail) }));
  }

  async result(callId: string, session?: string): Promise<StoredResult | undefined> {
    await this.settle();
    const select = 'SELECT r.result, r.full_output, r.size FROM results r JOIN calls c ON c.id = r.call';
    const rows = session !== undefined
      ? await this.db.read<{ result: string; full_output: Buffer | null; size: number }>(`${select} WHERE c.call_id = $1 AND c.session = $2`, [callId, session])
      : await this.db.read<{ result: string; full_output: Buffer | null; size: number }>(`${select} WHERE c.id = (SELECT max(id) FROM calls WHERE call_id = $1)`, [callId]);
    const row = rows[0];
    if (row === undefined) return undefined;
    return { result: JSON.parse(row.result) as ToolExecutionResult, fullOutput: row.full_output === null ? '' : row.full_output.toString('utf8'), size: row.size };
  }

  async requestCancel(callId: string, session: string): Promise<boolean> {
    return this.db.tx(async (q, notify) => {
      const [row] = await q<{ id: number }>(`UPDATE calls SET cancel_requested = true WHERE call_id = $1 AND session = $2 AND state IN ('pending', 'running') RETURNING id`, [callId, session]);
      if (row === undefined) return false;
      await this.event(q, row.id, 'cancel_requested', null);
      notify(callTopic({ callId, session }));
      return true;
    });
  }

  async progress(callId: string, session: string, progress: CallProgressDetail): Promise<boolean> {
    return this.db.tx(async (q) => {
      const [row] = await q<{ id: number }>(`SELECT id FROM calls WHERE call_id = $1 AND session = $2 AND state = 'running'`, [callId, session]);
      if (row === undefined) return false;
      await this.event(q, row.id, 'progress', progress);
      return true;
    });
  }

  async suspend(key: CallKey, options?: { claimed?: boolean }): Promise<boolean> {
    const claimed = options?.claimed === true;
    this.held.delete(keyOf(key));
    // A claimed call goes back to waiting only under this handle's lease (its claim, its run).
    const token = claimed ? this.keeper.tokenOf(key) : undefined;
    // Its lease lapses now (and is not renewed): a caller resuming it in another process (the
    // retry of an MCP 2026-07-28 call on another instance) takes it over at once.
    this.keeper.drop(key);
    if (claimed && token === undefined) return false;
    return this.db.tx(async (q) => {
      const [row] = claimed
        ? await q<{ id: number }>(`UPDATE calls SET state = 'pending', lease_expires_at = ${NOW_MS} WHERE call_id = $1 AND session = $2 AND state = 'running' AND lease_token = $3 RETURNING id`, [key.callId, key.session, token])
        : await q<{ id: number }>(`UPDATE calls SET lease_expires_at = ${NOW_MS} WHERE call_id = $1 AND session = $2 AND state = 'pending' RETURNING id`, [key.callId, key.session]);
      if (row === undefined) return false;
      await this.event(q, row.id, 'suspended', null);
      return true;
    });
  }

  async replayed(key: CallKey): Promise<boolean> {
    return this.db.tx(async (q) => {
      const [row] = await q<{ id: number }>('SELECT id FROM calls WHERE call_id = $1 AND session = $2', [key.callId, key.session]);
      if (row === undefined) return false;
      await this.event(q, row.id, 'replayed', null);
      return true;
    });
  }

  async cancelRequested(callId: string, session: string): Promise<boolean> {
    await this.settle();
    const [row] = await this.db.read<{ cancel_requested: boolean }>('SELECT cancel_requested FROM calls WHERE call_id = $1 AND session = $2', [callId, session]);
    return row?.cancel_requested === true;
  }

  /** The row id of a call, recording it `pending` first (inside a transaction) when `call` is a {@link NewCall} not yet recorded (under this process's lease when `lease`). */
  async rowOf(q: Query, call: CallKey | NewCall, notify: Notify, lease: boolean, granted: Granted[]): Promise<number | undefined> {
    const [row] = await q<{ id: number }>(ID_BY_KEY, [call.callId, call.session]);
    if (row !== undefined || !('tool' in call)) return row?.id;
    return this.insert(q, call, 'pending', lease && call.pool === undefined ? this.processLease : undefined, granted, notify);
  }

  /** Hold the leases a committed transaction granted. */
  hold(granted: readonly Granted[]): void {
    for (const g of granted) this.keeper.hold(g.key, g.token, g.request.leaseMs, g.request.renew);
  }

  /** Append an event to a call's log (inside a transaction). */
  async event(q: Query, id: number, kind: string, detail: unknown): Promise<void> {
    await q(EVENT, [id, kind, detail === null || detail === undefined ? null : JSON.stringify(detail)]);
  }

  /** Write one end (inside a transaction), fenced as `CallJournal.finish` says. @returns whether the call ended here. */
  private async writeEnd(q: Query, notify: Notify, e: PgQueuedEnd): Promise<boolean> {
    const { call, end } = e;
    const granted: Granted[] = [];
    const id = await this.rowOf(q, call, notify, false, granted);
    if (id === undefined) return false;
    const [row] = await q<PgCallRow>(BY_ID_FOR_UPDATE, [id]);
    if (row!.state !== 'pending' && row!.state !== 'running') return false;
    const token = e.fence?.token ?? this.keeper.tokenOf(call);
    const fenced = row!.lease_token === null
      ? e.fence === undefined
      : row!.lease_token === token || (e.fence === undefined && (this.ownProcess(row!) || (row!.state === 'pending' && !rowAlive(row!, row!.now!))));
    if (!fenced) return false;
    const blob = boundedOutput(end.fullOutput ?? end.result.output, this.maxOutputBytes);
    const json = JSON.stringify(end.result);
    await q(END, [end.state, end.result.errorCode ?? null, blob.length, blob.length + Buffer.byteLength(json), id]);
    if (end.decisions !== undefined) await this.writeDecisions(q, id, end.decisions);
    await this.cancelQuestions(q, id, notify);
    await q(RESULT, [id, end.result.success, json, blob, blob.length]);
    await this.event(q, id, end.state, end.result.errorCode === undefined ? null : { errorCode: end.result.errorCode });
    notify(callTopic(call));
    return true;
  }

  /** Answer the open questions of an ended call `cancelled` (inside a transaction), waking their waiters. */
  private async cancelQuestions(q: Query, id: number, notify: Notify): Promise<void> {
    for (const row of await q<{ id: number }>(CANCEL_QUESTIONS, [id])) {
      notify(`q${row.id}`);
    }
  }

  /** Insert a call (inside a transaction) in `state`, owned by this process, under `lease` when given. @returns its row id, or `undefined` when it was recorded before. */
  private async insert(q: Query, call: NewCall, state: 'pending' | 'running', lease: CheckedRequest | undefined, granted: Granted[], notify: Notify, token = randomUUID()): Promise<number | undefined> {
    const me = thisProcess();
    const [row] = await q<{ id: number }>(INSERT_CALL, [
      call.callId, call.session, call.tool, call.version, JSON.stringify(call.arguments), call.workspace, call.turn, JSON.stringify(call.options ?? {}), state,
      lease?.owner ?? this.processLease.owner, hostId(), me.pid, me.start ?? null, lease === undefined ? null : token, lease?.leaseMs ?? 0, checkPool(call.pool) ?? null,
    ]);
    if (row === undefined) return undefined;
    if (lease !== undefined) granted.push({ key: call, token, request: lease });
    await this.event(q, row.id, 'recorded', call.pool === undefined ? null : { pool: call.pool });
    notify(callTopic(call));
    return row.id;
  }

  /**
   * Whether a row is under this process's own lease (any handle of it): such a call is this
   * process's as an unleased call is in the SQLite ledger (its handles claim and end it unfenced).
   */
  private ownProcess(row: PgCallRow): boolean {
    return row.owner === this.processLease.owner;
  }

  /** The parameters $1-$6 of {@link OWNED}. */
  private ownerParams(request: CheckedRequest, token: string): unknown[] {
    const me = thisProcess();
    return [request.owner, hostId(), me.pid, me.start ?? null, token, request.leaseMs];
  }

  /** What became of a recorded call (inside a transaction): taken over or recovered when its owner is gone. */
  private async known(q: Query, key: CallKey, granted: Granted[], notify: Notify): Promise<RecordOutcome> {
    const [row] = await q<PgCallRow>(BY_KEY_FOR_UPDATE, [key.callId, key.session]);
    const r = row!;
    const gone = (r.state === 'pending' || r.state === 'running') && !rowAlive(r, r.now!);
    if (r.state === 'pending' && r.pool !== null && (r.lease_token === null || gone)) return { kind: 'in_progress', record: callOf(r) }; // queued for a worker
    if (r.state === 'pending' && gone) {
      const token = randomUUID();
      const updated = await q(`UPDATE calls SET ${OWNED} WHERE id = $7 AND state = 'pending' AND lease_token IS NOT DISTINCT FROM $8 RETURNING id`,
        [...this.ownerParams(this.processLease, token), r.id, r.lease_token]);
      if (updated.length !== 1) return { kind: 'in_progress', record: callOf(r) };
      granted.push({ key, token, request: this.processLease });
      await this.event(q, r.id, 'taken_over', { from: r.owner_pid, owner: r.owner });
      return TAKEN_OVER;
    }
    if (r.state === 'running' && gone) await this.interrupt(q, r, notify);
    else if (r.state === 'pending' || r.state === 'running') return { kind: 'in_progress', record: callOf(r) };
    return this.endedOutcome(q, r.id);
  }

  private async endedOutcome(q: Query, id: number): Promise<RecordOutcome> {
    const [stored] = await q<{ result: string }>('SELECT result FROM results WHERE call = $1', [id]);
    return { kind: 'ended', result: JSON.parse(stored!.result) as ToolExecutionResult };
  }

  /** Store a call's decision path (inside a transaction), with one `decided` event. */
  private async writeDecisions(q: Query, id: number, decisions: readonly DecisionRecord[]): Promise<void> {
    if (decisions.length === 0) return;
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!;
      await q(`INSERT INTO decisions (call, seq, decider, verdict, reason, rule, file, line) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (call, seq) DO UPDATE SET decider = excluded.decider, verdict = excluded.verdict, reason = excluded.reason, rule = excluded.rule, file = excluded.file, line = excluded.line`,
      [id, i, d.decider, d.verdict, d.reason, d.rule ?? null, d.file ?? null, d.line ?? null]);
    }
    await this.event(q, id, 'decided', decisions);
  }

  /** Mark a running row interrupted, with its result (inside a transaction). */
  private async interrupt(q: Query, row: PgCallRow, notify: Notify): Promise<void> {
    const result = interruptedResult({ tool: row.tool, version: row.version, callId: row.call_id, startedAt: row.started_at }, row.now!);
    const text = Buffer.from(result.output, 'utf8');
    const json = JSON.stringify(result);
    await q(`UPDATE calls SET state = 'interrupted', ended_at = ${NOW_MS}, error_code = 'INTERRUPTED', output_bytes = $1, stored_bytes = $2 WHERE id = $3`,
      [text.length, text.length + Buffer.byteLength(json), row.id]);
    await q(`INSERT INTO results (call, success, result, full_output, size, stored_at) VALUES ($1, false, $2, $3, $4, ${NOW_MS}) ON CONFLICT (call) DO NOTHING`,
      [row.id, json, text, text.length]);
    await this.event(q, row.id, 'interrupted', { ownerPid: row.owner_pid, owner: row.owner });
    notify(callTopic({ callId: row.call_id, session: row.session }));
  }
}

/** `SET` of a call's owner and lease: $1 owner, $2 host, $3 pid, $4 start, $5 token, $6 lease ms. */
const OWNED = `owner = $1, owner_host = $2, owner_pid = $3, owner_start = $4, lease_token = $5, lease_expires_at = ${NOW_MS} + $6::bigint`;

/** Statements of a call's record and claim, prepared once per connection (after {@link OWNED}, which the claim uses). */
const INSERT_CALL = named(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, turn, options, state, owner, owner_host, owner_pid, owner_start,
      lease_token, lease_expires_at, pool, created_at, started_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, CASE WHEN $14::text IS NULL THEN NULL ELSE ${NOW_MS} + $15::bigint END, $16, ${NOW_MS},
        CASE WHEN $9 = 'running' THEN ${NOW_MS} END)
      ON CONFLICT (call_id, session) DO NOTHING RETURNING id`);
const CLAIM = named(`UPDATE calls SET state = 'running', started_at = ${NOW_MS}, ${OWNED} WHERE id = $7 AND state = 'pending' AND lease_token IS NOT DISTINCT FROM $8 RETURNING id`);
