/**
 * The durable call ledger: the SQLite implementation of {@link CallStore}, one file per
 * workspace (through better-sqlite3, in `sqlite/` only), recording every call an executor with
 * a ledger handles, its decisions, the questions it put to a person and their answers, an
 * append-only event log, and its result. The executor records a call once its arguments are
 * valid, claims it (`running`) before its runner starts, and writes its end state when it
 * closes out; a call id already ended in the same session returns its stored result instead
 * of running again.
 *
 * Split by concern: `sqlite/database.ts` (opening, pragmas, migrations), `sqlite/calls.ts`,
 * `sqlite/questions.ts`, `sqlite/feed.ts` (the live view and session settings),
 * `sqlite/retention.ts`, `sqlite/write-queue.ts` (transactions and the group commit), and
 * `task-requestors.ts` (MCP task bindings).
 * {@link Ledger} puts them together behind the interface.
 *
 * Durability: WAL with `synchronous = NORMAL`: a commit survives the process being killed
 * (`kill -9`), not necessarily a power loss. The WAL is checkpointed every 10,000 pages and
 * kept under 64 MiB. Every write is one `BEGIN IMMEDIATE` transaction; other processes wait
 * up to `busyTimeoutMs` for the write lock. Ends given to {@link Ledger.finishSoon} are the
 * one exception to "committed before it returns": they ride on the next write (a group
 * commit); see there.
 *
 * Recovery, when a ledger is opened for writing (and on {@link Ledger.recover}): every
 * `running` call whose owner process is gone becomes `interrupted`, with a result the model
 * can read; nothing is run again. `pending` calls and their questions stay as they are.
 *
 * Retention (`sqlite/retention.ts`): at most `maxCalls` ended calls and `maxBytes` bytes of
 * stored results, each output itself cut to `maxOutputBytes`; the oldest ended calls go
 * first, each leaving a tombstone. It runs off the call path, in small steps on an unref'd
 * timer after calls end (and one step on open and on close); never inside a write.
 *
 * Read-only (`readonly: true`, what `toolgate trace`, `result` and `approvals list` use): the
 * file is opened with SQLite's read-only flag, must exist, and is neither migrated, recovered
 * nor pruned; every write throws.
 *
 * @module
 */
import path from 'node:path';
import { ToolgateOptionError } from '../errors/errors.js';
import type { DecisionRecord } from '../types/result.js';
import { SESSION_SETTING_NOW } from './call-store.js';
import type {
  ApprovalRecord, CallEnd, CallKey, CallProgressDetail, CallRecord, CallStore, CountedAnswer, Fence, Lease, LeaseRequest, LedgerEvent, LedgerFeedEvent, ListFilter, NewCall, OutputPage,
  OwnerFacts, RecordOutcome, SessionSetting, StoredResult, TombstoneRecord,
} from './call-store.js';
import { checkLeaseRequest, LeaseKeeper } from './lease-keeper.js';
import { ownerAlive, processOwner } from './owner.js';
import { pollerOf } from './poller.js';
import { storeWaits } from './waits.js';
import { defaultStateDir, ledgerFile } from './paths.js';
import { SqliteCalls } from './sqlite/calls.js';
import { openForReading, openForWriting, positive, type Connection } from './sqlite/database.js';
import { SqliteFeed } from './sqlite/feed.js';
import { SqliteQuestions } from './sqlite/questions.js';
import { SqliteRetention } from './sqlite/retention.js';
import { WriteQueue } from './sqlite/write-queue.js';
import * as taskBindings from './task-requestors.js';
import { SqliteTasks } from './sqlite/tasks.js';
import type { NewTask, TaskChange, TaskFilter, TaskRecord, TaskState } from './scheduled-tasks.js';

export { ENDED_STATES, INTERRUPTED_MESSAGE } from './call-store.js';
export type {
  ApprovalRecord, CallEnd, CallKey, CallRecord, CallStatus, LedgerEvent, LedgerFeedEvent, ListFilter, NewCall, OutputPage, RecordOutcome,
  SessionSetting, StoredResult, TombstoneRecord,
} from './call-store.js';
export { argumentsSha256, prunedResult } from './tombstones.js';

/** Options of {@link Ledger.open}; every option documents its default. */
export interface LedgerOptions {
  /**
   * The state folder holding one ledger file per workspace (`ledger-<key>.sqlite`, the key
   * being the first 16 hex digits of the SHA-256 of the workspace's real path). Created
   * (mode 0700) when missing. Default `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`.
   */
  dir?: string;
  /** The workspace whose ledger this is (picks the file in `dir`). Default `process.cwd()`. */
  workspace?: string;
  /** The ledger file itself, overriding `dir` and `workspace`. Default none. */
  file?: string;
  /** Ended calls kept at most; the oldest go first. Default 10000. */
  maxCalls?: number;
  /** Bytes of stored results (outputs and the model-visible result JSON) kept at most; the oldest calls go first. Default 268435456 (256 MiB). */
  maxBytes?: number;
  /** Bytes of one call's output stored at most: a longer one keeps its first bytes and a note saying it was cut. Default 8388608 (8 MiB). */
  maxOutputBytes?: number;
  /** Calls one retention step deletes at most. Default 32. */
  retentionStepCalls?: number;
  /** Bytes of results one retention step frees at most (at least one call goes per step). Default 16777216 (16 MiB). */
  retentionStepBytes?: number;
  /** How long after calls end a retention step runs, in milliseconds (a backlog's next step: a tenth of that). Default 50. */
  retentionDelayMs?: number;
  /** How long a write waits for another process's lock, in milliseconds. Default 5000. */
  busyTimeoutMs?: number;
  /** How often a call waiting for an answer checks the ledger for one given elsewhere, in milliseconds. Default 250. */
  pollMs?: number;
  /** How long the tombstone of a call retention deleted is kept, in milliseconds (counted from the deletion). Default 7776000000 (90 days). */
  tombstoneMaxAgeMs?: number;
  /** Tombstones kept at most; the oldest go first. Default 1000000. */
  maxTombstones?: number;
  /**
   * Open the file read-only (SQLite's read-only flag): it must exist; no migration, recovery
   * or retention runs, and every write throws. Default false. Where the folder allows it,
   * SQLite may create the empty `-wal` and `-shm` companions a WAL reader needs (with the
   * file's own permissions); the file itself is not written.
   */
  readonly?: boolean;
}

const DEFAULTS = {
  maxCalls: 10_000, maxBytes: 256 * 1024 * 1024, maxOutputBytes: 8 * 1024 * 1024, retentionStepCalls: 32, retentionStepBytes: 16 * 1024 * 1024,
  retentionDelayMs: 50, busyTimeoutMs: 5_000, pollMs: 250, tombstoneMaxAgeMs: 90 * 24 * 3_600_000, maxTombstones: 1_000_000,
};

/**
 * One ledger file, the SQLite {@link CallStore}. Open with {@link Ledger.open};
 * {@link Ledger.close} when done. The methods are the interface's asynchronous ones, but the
 * work is synchronous inside (better-sqlite3, no thread): each promise is settled by the time
 * the method returns, and an error of the file is a rejection. What commits when:
 * - {@link record}, {@link claim}, {@link ask}, {@link answer}, {@link finish},
 *   {@link requestCancel}, {@link recover}, {@link prune} and {@link pruneStep} commit before
 *   they return (one `BEGIN IMMEDIATE` transaction each);
 * - {@link finishSoon} only queues an end: it commits with the next of those writes, on the
 *   next turn of the event loop, on {@link flush}, or on {@link close}, whichever comes first.
 *   A queued end that cannot be written stays queued and is retried (see {@link flush});
 * - {@link check} writes only to repair a dead process's call (take it over, or recover it).
 * Reads see this process's queued ends (they flush first, or answer from the queue).
 * Methods reject with the driver's `SqliteError` when the file cannot be written (a full
 * disk, a lock held past `busyTimeoutMs`, a read-only ledger); {@link open} throws.
 *
 * The methods are the interface's, each delegating to the module of its concern; their
 * contracts are documented on {@link CallStore}.
 */
export class Ledger implements CallStore {
  /** The ledger file (absolute). */
  readonly file: string;
  /** How often a call waiting for an answer checks for one given elsewhere, in ms. */
  readonly pollMs: number;
  /** Calls {@link recover} marked `interrupted` when the ledger was opened. */
  readonly recovered: readonly CallRecord[];
  /** Opened read-only ({@link LedgerOptions.readonly}). */
  readonly readonly: boolean;
  private readonly db: Connection;
  private readonly writes: WriteQueue;
  private readonly calls: SqliteCalls;
  private readonly questions: SqliteQuestions;
  private readonly feed: SqliteFeed;
  private readonly retention: SqliteRetention;
  private readonly scheduled: SqliteTasks;
  private readonly keeper: LeaseKeeper;
  private readonly waits = storeWaits(this, (wake) => pollerOf(this).add(wake));
  private closed = false;
  /** This handle's default owner id: this process (`host:pid:start`). */
  readonly owner = processOwner();

  private constructor(file: string, options: LedgerOptions) {
    this.file = file;
    const limit = (name: keyof typeof DEFAULTS) => positive(options[name], DEFAULTS[name], `ledger.${name}`);
    const limits = {
      maxCalls: limit('maxCalls'), maxBytes: limit('maxBytes'), tombstoneMaxAgeMs: limit('tombstoneMaxAgeMs'), maxTombstones: limit('maxTombstones'),
      stepCalls: limit('retentionStepCalls'), stepBytes: limit('retentionStepBytes'), delayMs: limit('retentionDelayMs'),
    };
    const maxOutputBytes = limit('maxOutputBytes');
    this.pollMs = limit('pollMs');
    const busy = limit('busyTimeoutMs');
    this.readonly = options.readonly === true;
    const { db, has } = this.readonly ? openForReading(file, busy) : openForWriting(file, busy);
    this.db = db;
    try {
      // The parts need each other: the queue writes ends through the calls, retention prunes through the queue.
      let retention: SqliteRetention | undefined;
      this.keeper = new LeaseKeeper(async (leases) => this.calls.renewLeases(leases));
      const calls = new SqliteCalls(db, has.sizes, (key) => retention!.prunedOutcome(key), maxOutputBytes, this.keeper, has.leases, has.eventBounds);
      this.writes = new WriteQueue(db, file, this.readonly, (q) => calls.writeEnd(q), (n) => retention!.ended(n));
      calls.writes = this.writes;
      retention = new SqliteRetention(db, has.tombstones, this.writes, limits);
      this.calls = calls;
      this.retention = retention;
      this.questions = new SqliteQuestions(db, calls, this.writes, has.leases);
      this.feed = new SqliteFeed(db, calls, this.writes);
      this.scheduled = new SqliteTasks(db, file, this.readonly);
      this.recovered = this.readonly ? [] : this.calls.recover();
      if (!this.readonly) {
        // One bounded step now; a backlog (limits lowered, say) goes in steps on the timer.
        if (this.retention.pruneStep() >= limits.stepCalls) this.retention.ended(0);
      }
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Open (creating it and its folder when missing) the ledger of a workspace, run the
   * migrations it lacks, recover the calls of dead processes and take one retention step;
   * with `readonly`, open an existing file to read only and do none of that.
   * @throws ToolgateOptionError for an option out of range; the driver's error when the file
   *   cannot be opened (with `readonly`: also when it does not exist) or is not a ledger.
   */
  static open(options: LedgerOptions = {}): Ledger {
    if (options === null || typeof options !== 'object') throw ToolgateOptionError.fromBadOption('ledger', 'must be an object of ledger options');
    const file = Ledger.fileOf(options);
    // Several processes opening one new file at once (workers started together) have seen
    // SQLite answer "database is locked" at once, without waiting out the busy timeout (a
    // busy case its busy handler does not cover). Opening is idempotent and a failed open
    // closes its connection, so a busy open is tried again until the busy timeout has passed.
    const deadline = Date.now() + (typeof options.busyTimeoutMs === 'number' && options.busyTimeoutMs > 0 ? options.busyTimeoutMs : DEFAULTS.busyTimeoutMs);
    for (;;) {
      try {
        return new Ledger(file, options);
      } catch (error) {
        if (!String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + Math.floor(Math.random() * 30));
      }
    }
  }

  /** The file {@link open} would open for `options` (absolute), without opening it. */
  static fileOf(options: LedgerOptions = {}): string {
    return options.file !== undefined
      ? path.resolve(options.file)
      : ledgerFile(options.dir ?? defaultStateDir(), options.workspace ?? process.cwd());
  }

  /**
   * The SQLite connection, for a module of `src/ledger/` that keeps one concern in tables of
   * its own (`task-requestors.ts`). @internal Not for use outside `src/ledger/`. Typed by the
   * one method it is used for, so that the package's declarations do not name better-sqlite3's
   * types (a development package: a user compiling with `skipLibCheck: false` lacks them).
   */
  connection(): { prepare(sql: string): unknown } {
    return this.db;
  }

  /** The schema version of the file (`PRAGMA user_version`). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  // Calls (sqlite/calls.ts).
  async record(call: NewCall): Promise<RecordOutcome> {
    return this.calls.record(call);
  }
  async check(key: CallKey): Promise<RecordOutcome> {
    return this.calls.check(key);
  }
  async amend(call: NewCall): Promise<boolean> {
    return this.calls.amend(call);
  }
  async claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): Promise<boolean> {
    return this.calls.claim(call, decisions);
  }
  async finish(call: CallKey | NewCall, end: CallEnd, fence?: Fence): Promise<boolean> {
    const done = this.calls.finish(call, end, fence);
    if (done) this.retention.ended(1);
    return done;
  }
  /**
   * @throws the driver's error when 64 ends are queued and they cannot be written now (the
   *   store is broken: the caller learns it); the end stays queued.
   */
  finishSoon(call: CallKey | NewCall, end: CallEnd, fence?: Fence): void {
    this.writes.push(call, end, fence);
  }
  /**
   * Commit the ends {@link finishSoon} queued: in one transaction, or when that fails, one per
   * end. An end that fails on an error of the store (`SQLITE_BUSY`, `SQLITE_FULL`, ...) stays
   * queued for the next write or a retry (every 50 ms, doubling up to 5 s); one that fails on
   * its own (its row cannot be stored) is dropped with a process warning naming it.
   * Rejects with the store's error when ends are still queued (a retry is scheduled).
   */
  async flush(): Promise<void> {
    this.writes.flush();
  }
  async recover(): Promise<CallRecord[]> {
    return this.calls.recover();
  }
  async get(callId: string, session?: string): Promise<CallRecord | undefined> {
    return this.calls.get(callId, session);
  }
  async list(filter: ListFilter = {}): Promise<CallRecord[]> {
    return this.calls.list(filter);
  }
  async decisions(callId: string, session: string): Promise<DecisionRecord[]> {
    return this.calls.decisions(callId, session);
  }
  async events(callId: string, session: string): Promise<LedgerEvent[]> {
    return this.calls.events(callId, session);
  }
  async result(callId: string, session?: string): Promise<StoredResult | undefined> {
    return this.calls.result(callId, session);
  }
  async requestCancel(callId: string, session: string): Promise<boolean> {
    return this.calls.requestCancel(callId, session);
  }
  async progress(callId: string, session: string, progress: CallProgressDetail): Promise<boolean> {
    return this.calls.progress(callId, session, progress);
  }
  async suspend(key: CallKey, options?: { claimed?: boolean }): Promise<boolean> {
    return this.calls.suspend(key, options);
  }
  async replayed(key: CallKey): Promise<boolean> {
    return this.calls.replayed(key);
  }
  async cancelRequested(callId: string, session: string): Promise<boolean> {
    return this.calls.cancelRequested(callId, session);
  }
  ownerAlive(record: OwnerFacts): boolean {
    return ownerAlive(record);
  }

  // Leases (sqlite/calls.ts; renewed by the lease keeper).
  async claimLease(call: CallKey | NewCall, request?: LeaseRequest, decisions?: readonly DecisionRecord[]): Promise<Lease | undefined> {
    const checked = checkLeaseRequest(request, this.owner);
    const lease = this.calls.claimUnder(call, decisions, checked);
    if (lease !== undefined) this.keeper.hold(call, lease.token, checked.leaseMs, checked.renew);
    return lease;
  }
  async takeLease(call: CallKey, request?: LeaseRequest): Promise<Lease | undefined> {
    const checked = checkLeaseRequest(request, this.owner);
    const lease = this.calls.takeLease(call, checked);
    if (lease !== undefined) this.keeper.hold(call, lease.token, checked.leaseMs, checked.renew);
    return lease;
  }
  async renewLease(call: CallKey, token: string, leaseMs?: number): Promise<Lease | undefined> {
    const ms = checkLeaseRequest({ leaseMs: leaseMs ?? this.keeper.lengthOf(call, token) }, this.owner).leaseMs;
    if (!this.calls.renewLeases([{ key: call, token, leaseMs: ms }]).has(token)) {
      if (this.keeper.tokenOf(call) === token) this.keeper.drop(call);
      return undefined;
    }
    const record = this.calls.get(call.callId, call.session)!;
    return { owner: record.owner, token, expiresAt: record.leaseExpiresAt! };
  }
  async releaseLease(call: CallKey, token: string): Promise<boolean> {
    const released = this.calls.releaseLease(call, token);
    if (this.keeper.tokenOf(call) === token) this.keeper.drop(call);
    return released;
  }
  async expireLeases(): Promise<CallRecord[]> {
    return this.calls.expireLeases();
  }

  // Waiting (waits.ts, on the shared poller: every pollMs).
  waitForEnd(call: CallKey, signal?: AbortSignal): Promise<CallRecord | undefined> {
    return this.waits.waitForEnd(call, signal);
  }
  waitForAnswer(approvalId: number, signal?: AbortSignal): Promise<string> {
    return this.waits.waitForAnswer(approvalId, signal);
  }
  waitForCancel(call: CallKey, signal?: AbortSignal): Promise<boolean> {
    return this.waits.waitForCancel(call, signal);
  }

  // Questions (sqlite/questions.ts).
  async ask(call: CallKey | NewCall, request: unknown): Promise<number> {
    return this.questions.ask(call, request);
  }
  async answer(approvalId: number, answer: string, by: string): Promise<CountedAnswer | undefined> {
    return this.questions.answer(approvalId, answer, by);
  }
  async answeredQuestion(callId: string, session: string): Promise<string | undefined> {
    return this.questions.answeredQuestion(callId, session);
  }
  async answerOf(approvalId: number): Promise<string | undefined> {
    return this.questions.answerOf(approvalId);
  }
  async approval(approvalId: number): Promise<ApprovalRecord | undefined> {
    return this.questions.approval(approvalId);
  }
  async pendingApprovals(): Promise<ApprovalRecord[]> {
    return this.questions.pendingApprovals();
  }

  // The live view and session settings (sqlite/feed.ts).
  async eventsAfter(afterId: number, limit = 500): Promise<LedgerFeedEvent[]> {
    return this.feed.eventsAfter(afterId, limit);
  }
  async lastEventId(): Promise<number> {
    return this.feed.lastEventId();
  }
  async outputPage(callId: string, session: string, offset: number, maxBytes: number): Promise<OutputPage | undefined> {
    return this.feed.outputPage(callId, session, offset, maxBytes);
  }
  async sessionSetting(session: string, name: string, fallback?: string): Promise<SessionSetting | undefined> {
    return this.feed.sessionSetting(session, name, fallback);
  }
  /** The synchronous form of {@link Ledger.sessionSetting} (`call-store.ts` {@link SESSION_SETTING_NOW}); throws where that rejects. */
  [SESSION_SETTING_NOW](session: string, name: string, fallback?: string): SessionSetting | undefined {
    return this.feed.sessionSetting(session, name, fallback);
  }
  async sessionSettings(): Promise<SessionSetting[]> {
    return this.feed.sessionSettings();
  }
  async setSessionSetting(session: string, name: string, value: string | undefined, by: string): Promise<void> {
    this.feed.setSessionSetting(session, name, value, by);
  }

  // MCP task bindings (task-requestors.ts).
  async bindTask(callId: string, session: string, requestor: string): Promise<void> {
    taskBindings.bindTask(this, callId, session, requestor);
  }
  async unbindTask(callId: string, session: string): Promise<void> {
    taskBindings.unbindTask(this, callId, session);
  }
  async taskRequestor(callId: string, session: string): Promise<string | undefined> {
    return taskBindings.taskRequestor(this, callId, session);
  }
  async tasksOf(session: string, requestor: string): Promise<Set<string>> {
    return taskBindings.tasksOf(this, session, requestor);
  }

  // Scheduled tasks (sqlite/tasks.ts).
  async createTask(task: NewTask): Promise<TaskRecord> {
    return this.scheduled.create(task);
  }
  async task(id: string): Promise<TaskRecord | undefined> {
    return this.scheduled.get(id);
  }
  async tasks(filter?: TaskFilter): Promise<TaskRecord[]> {
    return this.scheduled.list(filter);
  }
  async updateTask(id: string, from: readonly TaskState[], change: TaskChange): Promise<TaskRecord | undefined> {
    return this.scheduled.update(id, from, change);
  }

  // Retention (sqlite/retention.ts).
  async tombstone(callId: string, session?: string): Promise<TombstoneRecord | undefined> {
    return this.retention.tombstone(callId, session);
  }
  async prune(): Promise<number> {
    return this.retention.prune();
  }
  async pruneStep(maxCalls?: number): Promise<number> {
    return this.retention.pruneStep(maxCalls);
  }
  retentionSettled(): Promise<void> {
    return this.retention.retentionSettled();
  }

  /**
   * Close the file (idempotent), writing the queued ends first (ends that still cannot be
   * written are named in a process warning), and taking one retention step when calls ended
   * here since the last.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.keeper.close();
    this.writes.close();
    if (!this.readonly) this.retention.close();
    this.db.close();
  }
}
