/**
 * The PostgreSQL call store: the second implementation of {@link CallStore}, for calls shared
 * by processes on several machines (workers, callers, and people answering approvals from
 * anywhere). It keeps what the SQLite ledger keeps, in one schema of a PostgreSQL 13+
 * database, through `pg` (an optional peer dependency, loaded on first use).
 *
 * Split by concern: `database.ts` (the driver, connections, the write lock, LISTEN, and the
 * migrations of `migrations.ts`), `calls.ts` (record, claim under leases, end, recover),
 * `end-queue.ts` (the group commit of `finishSoon`), `questions.ts`, `feed.ts` (the live view,
 * session settings, MCP task bindings) and `retention.ts`. {@link PostgresStore} puts them
 * together behind the interface.
 *
 * What differs from the SQLite ledger:
 * - every call this handle records, asks about or claims for its own process is under a lease
 *   (`leaseMs`, 30 s by default) that the handle renews while it is open; a process that dies
 *   on another host is seen gone when its lease lapses (on this host at once, by its pid);
 * - waiting ({@link CallWaits}) is woken by `LISTEN/NOTIFY` on the schema's channel, not by
 *   polling; after the listening connection is re-made (the server restarted) every waiter
 *   looks again;
 * - lease times are the server's clock; a lost connection is retried for `retryMs` by reads and
 *   by writes that had not reached their COMMIT.
 *
 * @module
 */
import { ToolgateOptionError } from '../../errors/errors.js';
import type { DecisionRecord } from '../../types/result.js';
import type {
  ApprovalRecord, CallEnd, CallKey, CallProgressDetail, CallRecord, CallStore, CountedAnswer, Fence, Lease, LeaseRequest, LedgerEvent, LedgerFeedEvent, ListFilter, NewCall,
  OutputPage, OwnerFacts, RecordOutcome, SessionSetting, StoredResult, TombstoneRecord,
} from '../call-store.js';
import { DEFAULT_LEASE_MS } from '../call-store.js';
import { checkLeaseRequest, LeaseKeeper } from '../lease-keeper.js';
import { ownerAlive, processOwner } from '../owner.js';
import { storeWaits } from '../waits.js';
import { PgCalls } from './calls.js';
import { PgDatabase } from './database.js';
import { PgEndQueue } from './end-queue.js';
import { PgFeed } from './feed.js';
import { PgQuestions } from './questions.js';
import { PgRetention } from './retention.js';
import { PgTasks } from './tasks.js';
import { PgMemoryStore } from './memory.js';
import type { NewTask, TaskChange, TaskFilter, TaskRecord, TaskState } from '../scheduled-tasks.js';

/** Options of {@link PostgresStore.open}; every option documents its default. */
export interface PostgresStoreOptions {
  /** The server: `postgres://user[:password]@host[:port]/database[?...]`. Without a password in it, `pg` reads `PGPASSWORD` or the password file (`~/.pgpass`, `PGPASSFILE`). Required. */
  url: string;
  /** The schema holding the store's tables (made when missing): one store per schema. Default `toolgate`. */
  schema?: string;
  /** Connections to the server at most (plus one that listens). Default 4. */
  poolSize?: number;
  /** How long a read, or a write that had not reached its commit, retries a lost connection, in ms. Default 15000. */
  retryMs?: number;
  /** The lease of calls this handle records, asks about or claims for its own process, in ms (renewed every third of it). Default 30000. */
  leaseMs?: number;
  /** Ended calls kept at most. Default 10000. */
  maxCalls?: number;
  /** Bytes of stored results kept at most. Default 268435456 (256 MiB). */
  maxBytes?: number;
  /** Bytes of one call's output stored at most. Default 8388608 (8 MiB). */
  maxOutputBytes?: number;
  /** Calls one retention step deletes at most. Default 32. */
  retentionStepCalls?: number;
  /** Bytes of results one retention step frees at most. Default 16777216 (16 MiB). */
  retentionStepBytes?: number;
  /** How long after calls end a retention step runs, in ms. Default 50. */
  retentionDelayMs?: number;
  /** How often a caller that polls (rather than waits, {@link CallWaits}) should look, in ms. Default 250. */
  pollMs?: number;
  /** How long a tombstone is kept, in ms. Default 7776000000 (90 days). */
  tombstoneMaxAgeMs?: number;
  /** Tombstones kept at most. Default 1000000. */
  maxTombstones?: number;
  /** Open to read only: the schema must exist; no migration, recovery or retention; every write rejects. Default false. */
  readonly?: boolean;
}

const DEFAULTS = {
  poolSize: 4, retryMs: 15_000, leaseMs: DEFAULT_LEASE_MS, maxCalls: 10_000, maxBytes: 256 * 1024 * 1024, maxOutputBytes: 8 * 1024 * 1024, retentionStepCalls: 32,
  retentionStepBytes: 16 * 1024 * 1024, retentionDelayMs: 50, pollMs: 250, tombstoneMaxAgeMs: 90 * 24 * 3_600_000, maxTombstones: 1_000_000,
};

function positive(options: PostgresStoreOptions, name: keyof typeof DEFAULTS): number {
  const value = options[name];
  if (value === undefined) return DEFAULTS[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw ToolgateOptionError.fromBadOption(`store.${name}`, `must be a positive integer; got ${String(value).slice(0, 50)}`);
  return value;
}

/**
 * One store on a PostgreSQL server. Open with {@link PostgresStore.open};
 * {@link PostgresStore.close} when done. Methods reject with the server's error (its password
 * never in it); {@link finishSoon} queues an end written with the next turn of the event loop.
 * The methods' contracts are documented on {@link CallStore}.
 */
export class PostgresStore implements CallStore {
  /** The server's URL without its password, and the schema. */
  readonly file: string;
  readonly pollMs: number;
  readonly readonly: boolean;
  /** This handle's default owner id: this process (`host:pid:start`). */
  readonly owner = processOwner();
  recovered: readonly CallRecord[] = [];
  private readonly keeper: LeaseKeeper;
  private readonly calls: PgCalls;
  private readonly ends: PgEndQueue;
  private readonly questions: PgQuestions;
  private readonly feed: PgFeed;
  private readonly scheduled: PgTasks;
  private readonly retention: PgRetention;
  private readonly waits;
  /** Waiters by topic (woken by notifications), and every waiter (woken after a reconnection). */
  private readonly topics = new Map<string, Set<() => void>>();
  private closed = false;
  /** The lease of this process's own calls, in ms. */
  private readonly leaseMs: number;

  private constructor(private readonly db: PgDatabase, options: PostgresStoreOptions) {
    this.readonly = options.readonly === true;
    this.pollMs = positive(options, 'pollMs');
    this.file = db.schema === 'toolgate' ? db.where : `${db.where} (schema ${db.schema})`;
    const settle = () => this.ends.settle();
    this.keeper = new LeaseKeeper(async (leases) => new Set((await this.calls.renewLeases(leases)).keys()));
    this.retention = new PgRetention(db, {
      maxCalls: positive(options, 'maxCalls'), maxBytes: positive(options, 'maxBytes'), tombstoneMaxAgeMs: positive(options, 'tombstoneMaxAgeMs'),
      maxTombstones: positive(options, 'maxTombstones'), stepCalls: positive(options, 'retentionStepCalls'), stepBytes: positive(options, 'retentionStepBytes'),
      delayMs: positive(options, 'retentionDelayMs'),
    });
    this.leaseMs = positive(options, 'leaseMs');
    const processLease = checkLeaseRequest({ owner: this.owner, leaseMs: this.leaseMs }, this.owner);
    this.calls = new PgCalls(db, (q, key) => this.retention.prunedOutcome(q, key), positive(options, 'maxOutputBytes'), this.keeper, processLease, settle);
    this.ends = new PgEndQueue(this.file, (ends) => this.writable().then(() => this.calls.writeEnds(ends)), (n) => this.retention.ended(n));
    this.questions = new PgQuestions(db, this.calls, settle);
    this.feed = new PgFeed(db, settle);
    this.scheduled = new PgTasks(db);
    this.waits = storeWaits(this, (wake, topic) => this.subscribe(wake, topic));
  }

  /**
   * Connect, run the migrations the schema lacks, recover the calls of owners that are gone and
   * take one retention step; with `readonly`, none of that (the schema must exist).
   * @throws ToolgateOptionError for a bad option; Error naming the package when `pg` is not
   *   installed; the server's error (password redacted) when it cannot be reached or the schema is newer.
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    if (options === null || typeof options !== 'object' || typeof options.url !== 'string') throw ToolgateOptionError.fromBadOption('store', 'must be options with a postgres:// url');
    positive(options, 'poolSize');
    const db = await PgDatabase.open({
      url: options.url, schema: options.schema ?? 'toolgate', poolSize: positive(options, 'poolSize'), retryMs: positive(options, 'retryMs'), readonly: options.readonly === true,
    });
    let store: PostgresStore;
    try {
      store = new PostgresStore(db, options);
      if (!store.readonly) {
        store.recovered = await store.calls.recover();
        await store.retention.pruneStep();
      }
    } catch (error) {
      await db.close();
      throw db.redacted(error);
    }
    return store;
  }

  // Calls (calls.ts, end-queue.ts).
  async record(call: NewCall): Promise<RecordOutcome> {
    await this.writable();
    return this.calls.record(call);
  }
  async check(key: CallKey): Promise<RecordOutcome> {
    return this.calls.check(key, this.ends.queuedResult(key));
  }
  async amend(call: NewCall): Promise<boolean> {
    await this.writable();
    return this.calls.amend(call);
  }
  async claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): Promise<boolean> {
    await this.writable();
    return (await this.calls.claim(call, decisions, checkLeaseRequest({ owner: this.owner, leaseMs: this.leaseMs }, this.owner))) !== undefined;
  }
  async finish(call: CallKey | NewCall, end: CallEnd, fence?: Fence): Promise<boolean> {
    await this.writable();
    await this.ends.settle();
    const [done] = await this.calls.writeEnds([{ call, end, fence }]);
    if (done) this.retention.ended(1);
    return done!;
  }
  finishSoon(call: CallKey | NewCall, end: CallEnd, fence?: Fence): void {
    if (this.readonly) throw new Error(`call store ${this.file} is open read-only`);
    this.ends.push({ call, end, fence });
  }
  /** Write the ends {@link finishSoon} queued, in one transaction. Rejects with the server's error when they are still queued (a retry is scheduled). */
  async flush(): Promise<void> {
    await this.ends.flush();
  }
  async recover(): Promise<CallRecord[]> {
    await this.writable();
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
    await this.writable();
    return this.calls.requestCancel(callId, session);
  }
  async progress(callId: string, session: string, progress: CallProgressDetail): Promise<boolean> {
    await this.writable();
    return this.calls.progress(callId, session, progress);
  }
  async suspend(key: CallKey, options?: { claimed?: boolean }): Promise<boolean> {
    await this.writable();
    return this.calls.suspend(key, options);
  }
  async replayed(key: CallKey): Promise<boolean> {
    await this.writable();
    return this.calls.replayed(key);
  }
  async cancelRequested(callId: string, session: string): Promise<boolean> {
    return this.calls.cancelRequested(callId, session);
  }
  ownerAlive(record: OwnerFacts): boolean {
    return ownerAlive(record);
  }

  // Leases (calls.ts; renewed by the lease keeper).
  async claimLease(call: CallKey | NewCall, request?: LeaseRequest, decisions?: readonly DecisionRecord[]): Promise<Lease | undefined> {
    const checked = checkLeaseRequest(request, this.owner);
    await this.writable();
    return this.calls.claim(call, decisions, checked);
  }
  async takeLease(call: CallKey, request?: LeaseRequest): Promise<Lease | undefined> {
    const checked = checkLeaseRequest(request, this.owner);
    await this.writable();
    return this.calls.takeLease(call, checked);
  }
  async renewLease(call: CallKey, token: string, leaseMs?: number): Promise<Lease | undefined> {
    const ms = checkLeaseRequest({ leaseMs: leaseMs ?? this.keeper.lengthOf(call, token) }, this.owner).leaseMs;
    await this.writable();
    const expiresAt = (await this.calls.renewLeases([{ key: call, token, leaseMs: ms }])).get(token);
    if (expiresAt === undefined) {
      if (this.keeper.tokenOf(call) === token) this.keeper.drop(call);
      return undefined;
    }
    const record = await this.calls.get(call.callId, call.session);
    return { owner: record?.owner ?? '', token, expiresAt };
  }
  async releaseLease(call: CallKey, token: string): Promise<boolean> {
    await this.writable();
    const released = await this.calls.releaseLease(call, token);
    if (this.keeper.tokenOf(call) === token) this.keeper.drop(call);
    return released;
  }
  async expireLeases(): Promise<CallRecord[]> {
    await this.writable();
    return this.calls.expireLeases();
  }

  // Waiting (waits.ts, woken by LISTEN/NOTIFY).
  waitForEnd(call: CallKey, signal?: AbortSignal): Promise<CallRecord | undefined> {
    return this.waits.waitForEnd(call, signal);
  }
  waitForAnswer(approvalId: number, signal?: AbortSignal): Promise<string> {
    return this.waits.waitForAnswer(approvalId, signal);
  }
  waitForCancel(call: CallKey, signal?: AbortSignal): Promise<boolean> {
    return this.waits.waitForCancel(call, signal);
  }

  // Questions (questions.ts).
  async ask(call: CallKey | NewCall, request: unknown): Promise<number> {
    await this.writable();
    return this.questions.ask(call, request);
  }
  async answer(approvalId: number, answer: string, by: string): Promise<CountedAnswer | undefined> {
    await this.writable();
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

  // The live view, settings, task bindings (feed.ts).
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
  async sessionSettings(): Promise<SessionSetting[]> {
    return this.feed.sessionSettings();
  }
  async setSessionSetting(session: string, name: string, value: string | undefined, by: string): Promise<void> {
    await this.writable();
    return this.feed.setSessionSetting(session, name, value, by);
  }
  async bindTask(callId: string, session: string, requestor: string): Promise<void> {
    await this.writable();
    return this.feed.bindTask(callId, session, requestor);
  }
  async unbindTask(callId: string, session: string): Promise<void> {
    if (!this.readonly) await this.feed.unbindTask(callId, session);
  }
  async taskRequestor(callId: string, session: string): Promise<string | undefined> {
    return this.feed.taskRequestor(callId, session);
  }
  async tasksOf(session: string, requestor: string): Promise<Set<string>> {
    return this.feed.tasksOf(session, requestor);
  }

  // Scheduled tasks (tasks.ts).
  async createTask(task: NewTask): Promise<TaskRecord> {
    await this.writable();
    return this.scheduled.create(task);
  }
  async task(id: string): Promise<TaskRecord | undefined> {
    return this.scheduled.get(id);
  }
  async tasks(filter?: TaskFilter): Promise<TaskRecord[]> {
    return this.scheduled.list(filter);
  }
  async updateTask(id: string, from: readonly TaskState[], change: TaskChange): Promise<TaskRecord | undefined> {
    await this.writable();
    return this.scheduled.update(id, from, change);
  }

  // Retention (retention.ts).
  async tombstone(callId: string, session?: string): Promise<TombstoneRecord | undefined> {
    return this.retention.tombstone(callId, session);
  }
  async prune(): Promise<number> {
    await this.writable();
    return this.retention.prune();
  }
  async pruneStep(maxCalls?: number): Promise<number> {
    await this.writable();
    return this.retention.pruneStep(maxCalls);
  }
  retentionSettled(): Promise<void> {
    return this.retention.retentionSettled();
  }

  /** Write the queued ends, stop renewing leases (the calls still open lapse), take a last retention step, and disconnect (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ends.close();
    this.keeper.close();
    if (!this.readonly) await this.retention.close();
    for (const wakes of this.topics.values()) for (const wake of wakes) wake();
    this.topics.clear();
    await this.db.close();
  }

  /**
   * The memory of workspace `workspace` (its identity) in this store (`memory.ts`), on this
   * store's connections: usable until this store is closed.
   */
  openMemory(workspace: string): PgMemoryStore {
    return new PgMemoryStore(this.db, workspace, this.readonly, this.file);
  }

  /** Rejects on a read-only handle. */
  private async writable(): Promise<void> {
    if (this.readonly) throw new Error(`call store ${this.file} is open read-only`);
  }

  /** Wake `wake` on notifications of `topic` (and after every reconnection of the listener). */
  private subscribe(wake: () => void, topic: string): () => void {
    this.db.listen((payload) => {
      for (const t of payload.split(' ')) for (const w of [...(this.topics.get(t) ?? [])]) w();
    }, () => {
      for (const wakes of [...this.topics.values()]) for (const w of [...wakes]) w();
    });
    let wakes = this.topics.get(topic);
    if (wakes === undefined) this.topics.set(topic, (wakes = new Set()));
    wakes.add(wake);
    return () => {
      wakes.delete(wake);
      if (wakes.size === 0 && this.topics.get(topic) === wakes) this.topics.delete(topic);
    };
  }
}
