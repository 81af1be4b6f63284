/**
 * The durable call ledger: a SQLite file (through better-sqlite3, imported only here) that
 * records every call an executor with a ledger handles, its decisions, the questions it put
 * to a person and their answers, an append-only event log, and its result with the whole
 * output. The executor records a call once its arguments are valid, claims it (`running`)
 * before its runner starts, and writes its end state when it closes out; a call id already
 * ended in the same session returns its stored result instead of running again.
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
 * can read; nothing is run again. `pending` calls and their questions stay as they are (a
 * question answered while its asker was alive, but not acted on before it died, stays listed
 * by {@link Ledger.pendingApprovals} until someone settles it).
 *
 * Retention: at most `maxCalls` ended calls and `maxBytes` bytes of stored outputs; the
 * oldest ended calls go first, with their decisions, questions, events and result. Pending
 * and running calls are never removed. Each deleted call leaves a tombstone (call id, session,
 * tool, version, a SHA-256 of its arguments, its final state), so that a retry of its call id
 * is answered `RESULT_PRUNED` and never runs again; tombstones are kept `tombstoneMaxAgeMs`
 * (default 90 days) and at most `maxTombstones` (default 1,000,000, about 150 bytes each).
 *
 * Read-only (`readonly: true`, what `toolgate trace`, `result` and `approvals list` use): the
 * file is opened with SQLite's read-only flag, must exist, and is neither migrated, recovered
 * nor pruned; every write throws.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ToolgateOptionError } from '../errors/errors.js';
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';
import { canonicalSha256 } from '../util/canonical-hash.js';
import { failedResult } from '../closeout/results.js';
import { MIGRATIONS } from './migrations.js';
import { isAlive, thisProcess } from './owner.js';
import { defaultStateDir, ledgerFile } from './paths.js';
import { makeFolders } from '../util/folders.js';

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
  /** Bytes of stored outputs (model-visible and whole) kept at most; the oldest calls go first. Default 536870912 (512 MiB). */
  maxBytes?: number;
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

/** What retention leaves of a call it deleted ({@link Ledger.tombstone}). Times are milliseconds since the epoch. */
export interface TombstoneRecord {
  callId: string;
  session: string;
  tool: string;
  version: string;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of the call's arguments ({@link argumentsSha256}). */
  argumentsSha256: string;
  /** How the call ended. */
  state: Exclude<CallStatus, 'pending' | 'running'>;
  errorCode: string | undefined;
  endedAt: number | undefined;
  /** When retention deleted the call. */
  prunedAt: number;
}

/** States of a call: `pending -> running -> done | failed | interrupted`, or `pending -> denied` (also `pending -> failed` for a call that ended before it ran). */
export type CallStatus = 'pending' | 'running' | 'done' | 'failed' | 'interrupted' | 'denied';

/** The states a call ends in. */
export const ENDED_STATES: readonly CallStatus[] = Object.freeze(['done', 'failed', 'interrupted', 'denied']);

/** Per-call options a ledger keeps, so that another process can run a pending call the same way. */
export interface StoredCallOptions {
  /** The agent mode's name. */
  mode?: string;
  /** The approval mode of the call. */
  approvalMode?: string;
  /** Scoped write folders (workspace-relative). */
  scopedWriteDirs?: readonly string[];
  /** The call's timeout override, in milliseconds. */
  timeoutMs?: number;
  /** The executor's sandbox profile, when not the default. */
  sandbox?: string;
  /** Whether sandboxed processes had the network, when not the default. */
  sandboxNetwork?: boolean;
}

/** What names a call: its call id and session (the idempotency key). */
export interface CallKey {
  /** The call id (the model's, or generated). */
  callId: string;
  /** The session; with `callId`, the idempotency key. */
  session: string;
}

/**
 * A call as {@link Ledger.record} takes it. {@link Ledger.claim}, {@link Ledger.ask} and
 * {@link Ledger.finish} take one too: a call not yet recorded is then recorded in the same
 * transaction (one commit instead of two; the executor records that way after
 * {@link Ledger.check}).
 */
export interface NewCall extends CallKey {
  tool: string;
  version: string;
  /** The validated arguments (stored as JSON). */
  arguments: Readonly<Record<string, unknown>>;
  /** The workspace root of the call (absolute). */
  workspace: string;
  /** The turn (`''` for none). */
  turn: string;
  /** What a later process needs to run it the same way. */
  options?: StoredCallOptions;
}

/** A stored call. Times are milliseconds since the epoch. */
export interface CallRecord {
  callId: string;
  session: string;
  tool: string;
  version: string;
  arguments: Record<string, unknown>;
  workspace: string;
  turn: string;
  options: StoredCallOptions;
  state: CallStatus;
  /** The process that handles (or last handled) the call. */
  ownerPid: number;
  /** That process's start time (`/proc/<pid>/stat` field 22), when known. */
  ownerStart: string | undefined;
  /** Someone asked for the call to be cancelled ({@link Ledger.requestCancel}). */
  cancelRequested: boolean;
  createdAt: number;
  startedAt: number | undefined;
  endedAt: number | undefined;
  /** The result's `errorCode`, once ended unsuccessfully. */
  errorCode: string | undefined;
  /** Bytes of the stored whole output, once ended. */
  resultSize: number | undefined;
}

/** A question put to a person about a call. */
export interface ApprovalRecord {
  /** The question's id (what `toolgate approvals allow ID` names). */
  id: number;
  callId: string;
  session: string;
  tool: string;
  /** The request the person is shown (a `ConfirmationRequest`, as JSON). */
  request: Record<string, unknown>;
  askedAt: number;
  /** The answer (`allow_once`, `allow_for_turn`, `always`, `deny`, or `cancelled`), once given. */
  answer: string | undefined;
  /** Who answered: `handler` (the asking process's own), `cli:<pid>`, or another name. */
  answeredBy: string | undefined;
  answeredAt: number | undefined;
  /** The state of the call. */
  callState: CallStatus;
  /** Whether the process that asked still runs (it resumes on an answer; else `approvals allow` runs the call). */
  ownerAlive: boolean;
}

/** A stored result. */
export interface StoredResult {
  /** The result as the model saw it. */
  result: ToolExecutionResult;
  /** The whole output (UTF-8): what the model saw, or more when it was cut. */
  fullOutput: string;
  /** Bytes of `fullOutput`. */
  size: number;
}

/** One entry of a call's event log. */
export interface LedgerEvent {
  at: number;
  kind: string;
  detail: unknown;
}

/** What {@link Ledger.record} found. */
export type RecordOutcome =
  /** A new call: recorded `pending`, owned by this process. */
  | { readonly kind: 'recorded' }
  /** A `pending` call of a process that is gone, now owned by this one (its question, if any, kept). */
  | { readonly kind: 'taken_over' }
  /** The call is not recorded (only from {@link Ledger.check}). */
  | { readonly kind: 'unknown' }
  /** The call ended before: its stored result (exactly once: the caller retried). */
  | { readonly kind: 'ended'; readonly result: ToolExecutionResult }
  /** The call is being handled by a live process (this one or another). */
  | { readonly kind: 'in_progress'; readonly record: CallRecord };

/** How a call ended, as {@link Ledger.finish} writes it. */
export interface CallEnd {
  state: Exclude<CallStatus, 'pending' | 'running'>;
  /** The decision path, in order. */
  decisions: readonly DecisionRecord[] | undefined;
  /** The result the model sees. */
  result: ToolExecutionResult;
  /** The whole output when the result shows only part of it. Default: `result.output`. */
  fullOutput?: string;
}

/** Filters of {@link Ledger.list}. */
export interface ListFilter {
  session?: string;
  callId?: string;
  state?: CallStatus;
  /** Calls of one turn (an agent run's `turnId`; a subagent's runs name their parent call, docs/subagents.md). */
  turn?: string;
  /** At most this many, newest first. Default 1000. */
  limit?: number;
}

/** The message of an interrupted call's result (what the model reads). */
export const INTERRUPTED_MESSAGE = 'interrupted: toolgate stopped while this call ran; the tool may have run — check before repeating';

const DEFAULTS = { maxCalls: 10_000, maxBytes: 512 * 1024 * 1024, busyTimeoutMs: 5_000, pollMs: 250, tombstoneMaxAgeMs: 90 * 24 * 3_600_000, maxTombstones: 1_000_000 };
/** Retention runs once per this many ended calls (and on open). */
const PRUNE_EVERY = 256;

interface CallRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; workspace: string; turn: string; options: string;
  state: CallStatus; owner_pid: number; owner_start: string | null; cancel_requested: number; created_at: number; started_at: number | null;
  ended_at: number | null; error_code: string | null; size?: number | null;
}
interface ApprovalRow {
  id: number; call_id: string; session: string; tool: string; request: string; asked_at: number; answer: string | null; answered_by: string | null;
  answered_at: number | null; state: CallStatus; owner_pid: number; owner_start: string | null;
}

/** Prepared statements, made once per ledger. */
function statements(db: Database.Database) {
  return {
    insertCall: db.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, turn, options, state, owner_pid, owner_start, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (call_id, session) DO NOTHING`),
    callByKey: db.prepare<[string, string], CallRow>('SELECT calls.*, results.size FROM calls LEFT JOIN results ON results.call = calls.id WHERE call_id = ? AND session = ?'),
    rowId: db.prepare<[string, string], { id: number }>('SELECT id FROM calls WHERE call_id = ? AND session = ?'),
    checkRow: db.prepare<[string, string], Pick<CallRow, 'id' | 'state' | 'owner_pid' | 'owner_start'>>('SELECT id, state, owner_pid, owner_start FROM calls WHERE call_id = ? AND session = ?'),
    insertRunning: db.prepare(`INSERT INTO calls (call_id, session, tool, version, arguments, workspace, turn, options, state, owner_pid, owner_start, created_at, started_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?) ON CONFLICT (call_id, session) DO NOTHING`),
    takeOver: db.prepare(`UPDATE calls SET owner_pid = ?, owner_start = ? WHERE id = ? AND state = 'pending' AND owner_pid = ? AND owner_start IS ?`),
    claim: db.prepare(`UPDATE calls SET state = 'running', started_at = ?, owner_pid = ?, owner_start = ? WHERE id = ? AND state = 'pending'`),
    end: db.prepare(`UPDATE calls SET state = ?, ended_at = ?, error_code = ? WHERE id = ? AND state IN ('pending', 'running')`),
    insertDecision: db.prepare('INSERT OR REPLACE INTO decisions (call, seq, decider, verdict, reason, rule, file, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
    insertResult: db.prepare('INSERT OR REPLACE INTO results (call, success, result, full_output, size, stored_at) VALUES (?, ?, ?, ?, ?, ?)'),
    event: db.prepare('INSERT INTO events (call, at, kind, detail) VALUES (?, ?, ?, ?)'),
    result: db.prepare<[number], { result: string; full_output: Buffer | null; size: number }>('SELECT result, full_output, size FROM results WHERE call = ?'),
    running: db.prepare<[], CallRow>(`SELECT * FROM calls WHERE state = 'running'`),
    insertApproval: db.prepare('INSERT INTO approvals (call, request, asked_at) VALUES (?, ?, ?)'),
    approvalOfCall: db.prepare<[number], { id: number }>('SELECT id FROM approvals WHERE call = ? ORDER BY id DESC LIMIT 1'),
    answerApproval: db.prepare('UPDATE approvals SET answer = ?, answered_by = ?, answered_at = ? WHERE id = ? AND answer IS NULL'),
    answerOf: db.prepare<[number], { answer: string | null; call: number }>('SELECT answer, call FROM approvals WHERE id = ?'),
    approval: db.prepare<[number], ApprovalRow>(`SELECT approvals.*, calls.call_id, calls.session, calls.tool, calls.state, calls.owner_pid, calls.owner_start
      FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.id = ?`),
    // Unanswered questions (by the partial index), and answered ones of calls still pending
    // (the caller keeps those whose asker is gone: answered, never acted on).
    pendingApprovals: db.prepare<[], ApprovalRow>(`SELECT approvals.*, calls.call_id, calls.session, calls.tool, calls.state, calls.owner_pid, calls.owner_start
      FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.answer IS NULL
      UNION ALL
      SELECT approvals.*, calls.call_id, calls.session, calls.tool, calls.state, calls.owner_pid, calls.owner_start
      FROM calls JOIN approvals ON approvals.call = calls.id WHERE calls.state = 'pending' AND approvals.answer IS NOT NULL AND approvals.answer <> 'cancelled'
        AND approvals.id = (SELECT max(id) FROM approvals AS latest WHERE latest.call = calls.id)
      ORDER BY 1`),
    cancelPendingOf: db.prepare(`UPDATE approvals SET answer = 'cancelled', answered_by = 'toolgate', answered_at = ? WHERE call = ? AND answer IS NULL`),
    decisionsOf: db.prepare<[number], { decider: string; verdict: DecisionRecord['verdict']; reason: string; rule: string | null; file: string | null; line: number | null }>(
      'SELECT decider, verdict, reason, rule, file, line FROM decisions WHERE call = ? ORDER BY seq'),
    eventsOf: db.prepare<[number], { at: number; kind: string; detail: string | null }>('SELECT at, kind, detail FROM events WHERE call = ? ORDER BY id'),
    requestCancel: db.prepare(`UPDATE calls SET cancel_requested = 1 WHERE id = ? AND state IN ('pending', 'running')`),
    cancelRequested: db.prepare<[number], { cancel_requested: number }>('SELECT cancel_requested FROM calls WHERE id = ?'),
    endedCount: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM calls WHERE state IN ('done', 'failed', 'interrupted', 'denied')`),
    storedBytes: db.prepare<[], { n: number | null }>('SELECT sum(size + length(result)) AS n FROM results'),
    oldestEnded: db.prepare<[number], EndedRow>(`SELECT calls.id, calls.call_id, calls.session, calls.tool, calls.version, calls.arguments, calls.state, calls.error_code,
      calls.ended_at, results.size + length(results.result) AS bytes FROM calls LEFT JOIN results ON results.call = calls.id
      WHERE state IN ('done', 'failed', 'interrupted', 'denied') ORDER BY calls.id LIMIT ?`),
    deleteCall: db.prepare('DELETE FROM calls WHERE id = ?'),
  };
}

/** The statements on tombstones (schema version 2 on; `undefined` for an older file opened read-only). */
function tombstoneStatements(db: Database.Database) {
  return {
    byKey: db.prepare<[string, string], TombstoneRow>('SELECT * FROM tombstones WHERE call_id = ? AND session = ?'),
    newestById: db.prepare<[string], TombstoneRow>('SELECT * FROM tombstones WHERE call_id = ? ORDER BY id DESC LIMIT 1'),
    insert: db.prepare(`INSERT OR REPLACE INTO tombstones (call_id, session, tool, version, arguments_sha256, state, error_code, ended_at, pruned_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tombstones'),
    // Ids grow with the deletion time: the oldest tombstones are the lowest ids.
    firstKept: db.prepare<[number], { id: number }>('SELECT id FROM tombstones WHERE pruned_at >= ? ORDER BY id LIMIT 1'),
    idAt: db.prepare<[number], { id: number }>('SELECT id FROM tombstones ORDER BY id LIMIT 1 OFFSET ?'),
    deleteBelow: db.prepare('DELETE FROM tombstones WHERE id < ?'),
    deleteAll: db.prepare('DELETE FROM tombstones'),
  };
}

interface EndedRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; state: Exclude<CallStatus, 'pending' | 'running'>;
  error_code: string | null; ended_at: number | null; bytes: number | null;
}
interface TombstoneRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments_sha256: string; state: Exclude<CallStatus, 'pending' | 'running'>;
  error_code: string | null; ended_at: number | null; pruned_at: number;
}

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of a call's arguments: what a tombstone keeps
 * of them, so that a retry can be told apart from another request under the same call id.
 */
export function argumentsSha256(args: unknown): string {
  return canonicalSha256(args);
}

/**
 * One ledger file. Open with {@link Ledger.open}; {@link Ledger.close} when done. Methods are
 * synchronous (SQLite through better-sqlite3). What commits when:
 * - {@link record}, {@link claim}, {@link ask}, {@link answer}, {@link finish},
 *   {@link requestCancel}, {@link recover} and {@link prune} commit before they return (one
 *   `BEGIN IMMEDIATE` transaction each);
 * - {@link finishSoon} only queues an end: it commits with the next of those writes, on the
 *   next turn of the event loop, on {@link flush}, or on {@link close}, whichever comes first.
 *   A queued end that cannot be written stays queued and is retried (see {@link flush});
 * - {@link check} writes only to repair a dead process's call (take it over, or recover it).
 * Reads see this process's queued ends (they flush first, or answer from the queue).
 * Methods throw the driver's `SqliteError` when the file cannot be written (a full disk, a
 * lock held past `busyTimeoutMs`, a read-only ledger).
 */
export class Ledger {
  /** The ledger file (absolute). */
  readonly file: string;
  /** How often a call waiting for an answer checks for one given elsewhere, in ms. */
  readonly pollMs: number;
  /** Calls {@link recover} marked `interrupted` when the ledger was opened. */
  readonly recovered: readonly CallRecord[];
  private readonly db: Database.Database;
  private readonly sql: ReturnType<typeof statements>;
  /** Opened read-only ({@link LedgerOptions.readonly}). */
  readonly readonly: boolean;
  private readonly maxCalls: number;
  private readonly maxBytes: number;
  private readonly tombstoneMaxAgeMs: number;
  private readonly maxTombstones: number;
  /** Statements on tombstones; `undefined` for a file of schema version 1 opened read-only. */
  private readonly graves: ReturnType<typeof tombstoneStatements> | undefined;
  /** One transaction function, run `.immediate(fn)` for every state change (made once: cheaper than one per change). */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  private endedSincePrune = 0;
  private closed = false;
  /** Ends {@link finishSoon} queued, committed with the next write. */
  private readonly queued: Array<{ call: CallKey | NewCall; end: CallEnd; now: number }> = [];
  /** Their results, by {@link keyOf}: what {@link check} answers for them meanwhile. */
  private readonly queuedResults = new Map<string, ToolExecutionResult>();
  private flushScheduled = false;
  /** A retry of queued ends that could not be written, while one is scheduled. */
  private retryTimer: NodeJS.Timeout | undefined;
  /** The delay of the next retry, in ms (doubles from 50 ms up to 5 s while writes fail). */
  private retryMs = RETRY_MIN_MS;
  /** A warning about ends that cannot be written was emitted since the last success. */
  private warnedFailing = false;
  /** Calls a caller of this ledger handles ({@link check}), by {@link keyOf}, until they end. */
  private readonly held = new Set<string>();

  private constructor(file: string, options: LedgerOptions) {
    this.file = file;
    this.maxCalls = positive(options.maxCalls, DEFAULTS.maxCalls, 'ledger.maxCalls');
    this.maxBytes = positive(options.maxBytes, DEFAULTS.maxBytes, 'ledger.maxBytes');
    this.pollMs = positive(options.pollMs, DEFAULTS.pollMs, 'ledger.pollMs');
    this.tombstoneMaxAgeMs = positive(options.tombstoneMaxAgeMs, DEFAULTS.tombstoneMaxAgeMs, 'ledger.tombstoneMaxAgeMs');
    this.maxTombstones = positive(options.maxTombstones, DEFAULTS.maxTombstones, 'ledger.maxTombstones');
    const busy = positive(options.busyTimeoutMs, DEFAULTS.busyTimeoutMs, 'ledger.busyTimeoutMs');
    this.readonly = options.readonly === true;
    if (this.readonly) {
      // No folder made, no permission changed, no migration, recovery or retention.
      this.db = new Database(file, { readonly: true, fileMustExist: true, timeout: busy });
      try {
        this.db.pragma(`busy_timeout = ${busy}`);
        const version = this.db.pragma('user_version', { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new Error(`ledger schema version ${version} is newer than this toolgate knows (${MIGRATIONS.length}); use a newer toolgate or another --state-dir`);
        }
        if (version < 1) throw new Error(`${file} is not a toolgate ledger (schema version ${version})`);
        this.tx = this.db.transaction((fn: () => unknown) => fn());
        this.sql = statements(this.db);
        this.graves = version >= 2 ? tombstoneStatements(this.db) : undefined;
        this.recovered = [];
      } catch (error) {
        this.db.close();
        throw error;
      }
      return;
    }
    makeFolders(path.dirname(file), 0o700);
    // Arguments and whole outputs may hold secrets: the file and its WAL and shared-memory
    // companions are the owner's alone, whatever the umask (made empty first, so no moment
    // exists where another user could open them).
    for (const companion of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.closeSync(fs.openSync(companion, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
        fs.chmodSync(companion, 0o600);
      } catch {
        // Not ours to change (a read-only or shared store): SQLite reports what matters.
      }
    }
    this.db = new Database(file, { timeout: busy });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // Checkpoint every 10,000 pages (about 40 MiB of WAL) rather than SQLite's 1,000: the
      // pages every call changes (the last leaf of calls, events, results) are then copied
      // into the file ten times less often (bench: ~150 -> ~110 µs a call under load).
      this.db.pragma('wal_autocheckpoint = 10000');
      this.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      this.db.pragma('foreign_keys = ON');
      this.db.pragma(`busy_timeout = ${busy}`);
      migrate(this.db);
      this.tx = this.db.transaction((fn: () => unknown) => fn());
      this.sql = statements(this.db);
      this.graves = tombstoneStatements(this.db);
      this.recovered = this.recover();
      this.prune();
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /**
   * Open (creating it and its folder when missing) the ledger of a workspace, run the
   * migrations it lacks, recover the calls of dead processes and apply retention; with
   * `readonly`, open an existing file to read only and do none of that.
   * @throws ToolgateOptionError for an option out of range; the driver's error when the file
   *   cannot be opened (with `readonly`: also when it does not exist) or is not a ledger.
   */
  static open(options: LedgerOptions = {}): Ledger {
    if (options === null || typeof options !== 'object') throw ToolgateOptionError.fromBadOption('ledger', 'must be an object of ledger options');
    return new Ledger(Ledger.fileOf(options), options);
  }

  /** The file {@link open} would open for `options` (absolute), without opening it. */
  static fileOf(options: LedgerOptions = {}): string {
    return options.file !== undefined
      ? path.resolve(options.file)
      : ledgerFile(options.dir ?? defaultStateDir(), options.workspace ?? process.cwd());
  }

  /**
   * The SQLite connection, for a module of `src/ledger/` that keeps one concern in tables of
   * its own (`task-requestors.ts`). @internal Not for use outside `src/ledger/`.
   */
  connection(): Database.Database {
    return this.db;
  }

  /** The schema version of the file (`PRAGMA user_version`). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /**
   * Record a call `pending`, owned by this process, unless its call id and session are known:
   * then say what became of it (see {@link RecordOutcome}). A `pending` call whose owner is
   * gone is taken over (its question, if any, is kept and may be answered already); a
   * `running` one whose owner is gone is recovered as `interrupted` and its result returned.
   * A call retention deleted is `ended` with a `RESULT_PRUNED` result ({@link tombstone}).
   */
  record(call: NewCall): RecordOutcome {
    const now = Date.now();
    return this.immediate(() => {
      if (this.sql.rowId.get(call.callId, call.session) === undefined) {
        const pruned = this.prunedOutcome(call);
        if (pruned !== undefined) return pruned;
      }
      return this.insertPending(call, now) !== undefined ? RECORDED : this.known(call, now);
    });
  }

  /** The outcome of a call retention deleted: `ended` with a `RESULT_PRUNED` result; `undefined` when it has no tombstone. */
  private prunedOutcome(key: CallKey): RecordOutcome | undefined {
    const row = this.graves?.byKey.get(key.callId, key.session);
    return row === undefined ? undefined : { kind: 'ended', result: prunedResult(tombstoneOf(row)) };
  }

  /**
   * What retention left of a deleted call: of `session`, or when none is given, the newest
   * tombstone with that call id. `undefined` when there is none (the call is still stored, was
   * never recorded, or its tombstone aged out).
   */
  tombstone(callId: string, session?: string): TombstoneRecord | undefined {
    const row = session === undefined ? this.graves?.newestById.get(callId) : this.graves?.byKey.get(callId, session);
    return row === undefined ? undefined : tombstoneOf(row);
  }

  /**
   * What the ledger knows of a call, reading only unless there is something to repair: like
   * {@link record}, but a call not recorded yet is not written (`unknown`): it is recorded by
   * the next state change ({@link claim}, {@link ask} or {@link finish} given the
   * {@link NewCall}), in that change's transaction. A `pending` call this process recorded
   * with {@link record} and nobody here has checked yet is `recorded`: the caller handles it
   * from now on (create a call record first, run it later). What the executor does before its
   * deciders; the call is held by this ledger (a second check is `in_progress`) until it ends.
   */
  check(key: CallKey): RecordOutcome {
    if (this.queuedResults.size !== 0) {
      const queued = this.queuedResults.get(keyOf(key));
      if (queued !== undefined) return { kind: 'ended', result: queued };
    }
    const row = this.sql.checkRow.get(key.callId, key.session);
    const k = keyOf(key);
    if (row === undefined) {
      // A call retention deleted ran before: answered from its tombstone, never run again.
      const pruned = this.prunedOutcome(key);
      if (pruned !== undefined) return pruned;
      this.held.add(k);
      return UNKNOWN;
    }
    if (row.state !== 'pending' && row.state !== 'running') return this.endedOutcome(row.id);
    if (isAlive(row.owner_pid, row.owner_start)) {
      // A call this process recorded ({@link record}: an MCP task, say) that nobody here
      // handles yet is adopted by the caller.
      if (row.state === 'pending' && row.owner_pid === process.pid && !this.held.has(k)) {
        this.held.add(k);
        return RECORDED;
      }
      return { kind: 'in_progress', record: this.get(key.callId, key.session)! };
    }
    // A dead owner's call: take it over or recover it, under the write lock.
    const now = Date.now();
    const outcome = this.immediate(() => this.known(key, now));
    if (outcome.kind === 'taken_over') this.held.add(k);
    return outcome;
  }

  /**
   * Bring a `pending` call this process recorded ahead of its caller ({@link record}: an MCP
   * task, recorded before its task id is answered) up to date with what the caller checked:
   * its validated arguments, workspace, turn and per-call options, which a later process needs
   * to run it the same way. A call in another state or of another owner is left as it is.
   * @returns whether the call was updated.
   */
  amend(call: NewCall): boolean {
    const me = thisProcess();
    return this.immediate(() => this.db.prepare(`UPDATE calls SET arguments = ?, workspace = ?, turn = ?, options = ?
      WHERE call_id = ? AND session = ? AND state = 'pending' AND owner_pid = ? AND owner_start IS ?`).run(
      JSON.stringify(call.arguments), call.workspace, call.turn, JSON.stringify(call.options ?? {}), call.callId, call.session, me.pid, me.start ?? null,
    ).changes === 1);
  }

  /** Insert `call` as `pending` (inside a transaction); its row id, or `undefined` when it was recorded before. */
  private insertPending(call: NewCall, now: number): number | undefined {
    const me = thisProcess();
    const inserted = this.sql.insertCall.run(
      call.callId, call.session, call.tool, call.version, JSON.stringify(call.arguments), call.workspace, call.turn,
      JSON.stringify(call.options ?? {}), me.pid, me.start ?? null, now,
    );
    if (inserted.changes !== 1) return undefined;
    const id = Number(inserted.lastInsertRowid);
    this.sql.event.run(id, now, 'recorded', null);
    return id;
  }

  /** What became of a recorded call (inside a transaction): taken over or recovered when its owner is gone. */
  private known(key: CallKey, now: number): RecordOutcome {
    const row = this.sql.callByKey.get(key.callId, key.session)!;
    const me = thisProcess();
    if (row.state === 'pending' && !isAlive(row.owner_pid, row.owner_start)) {
      this.sql.takeOver.run(me.pid, me.start ?? null, row.id, row.owner_pid, row.owner_start);
      this.sql.event.run(row.id, now, 'taken_over', JSON.stringify({ from: row.owner_pid }));
      return TAKEN_OVER;
    }
    if (row.state === 'running' && !isAlive(row.owner_pid, row.owner_start)) this.interrupt(row, now);
    else if (row.state === 'pending' || row.state === 'running') return { kind: 'in_progress', record: callOf(row) } as const;
    return this.endedOutcome(row.id);
  }

  private endedOutcome(id: number): RecordOutcome {
    const stored = this.sql.result.get(id);
    return { kind: 'ended', result: JSON.parse(stored!.result) as ToolExecutionResult } as const;
  }

  /** The row id of a call, recording it first (inside a transaction) when `call` is a {@link NewCall} not yet recorded. */
  private rowOf(call: CallKey | NewCall, now: number): number | undefined {
    const id = this.idOf(call.callId, call.session);
    if (id !== undefined || !('tool' in call)) return id;
    return this.insertPending(call, now);
  }

  /**
   * Claim a `pending` call: it becomes `running`, owned by this process, with its decision
   * path when given. Committed before it returns, so a crash after this point leaves a
   * `running` row that recovery marks `interrupted` (the tool may have run) and never runs
   * again. A {@link NewCall} not yet recorded is recorded and claimed in the same commit.
   * @returns false when the call is not `pending` (someone else claimed or ended it).
   */
  claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): boolean {
    const me = thisProcess();
    const now = Date.now();
    return this.immediate(() => {
      let id = this.idOf(call.callId, call.session);
      if (id === undefined && 'tool' in call) {
        // Recorded and claimed in one commit.
        const inserted = this.sql.insertRunning.run(
          call.callId, call.session, call.tool, call.version, JSON.stringify(call.arguments), call.workspace, call.turn,
          JSON.stringify(call.options ?? {}), me.pid, me.start ?? null, now, now,
        );
        if (inserted.changes !== 1) return false;
        id = Number(inserted.lastInsertRowid);
        this.sql.event.run(id, now, 'recorded', null);
      } else if (id === undefined || this.sql.claim.run(now, me.pid, me.start ?? null, id).changes !== 1) {
        return false;
      }
      if (decisions !== undefined) this.writeDecisions(id, decisions, now);
      this.sql.event.run(id, now, 'running', null);
      return true;
    });
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

  /**
   * End a `pending` or `running` call: its state, decisions (when given: leave them out when
   * {@link claim} stored them) and result (the whole output as a blob), and an event for the
   * end. A question still unanswered is marked `cancelled`. A call already ended is left as it
   * is. A {@link NewCall} not yet recorded is recorded in the same commit.
   * @returns false when the call is unknown or had ended already.
   */
  finish(call: CallKey | NewCall, end: CallEnd): boolean {
    const now = Date.now();
    const done = this.immediate(() => this.writeEnd(call, end, now));
    if (done && ++this.endedSincePrune >= PRUNE_EVERY) this.prune();
    return done;
  }

  /**
   * {@link finish}, committed with the next write (at the latest on the next turn of the
   * event loop, or by {@link flush} or {@link close}): a group commit, so that a call costs
   * one commit (its claim, carrying the ends before it) rather than two. Until then this
   * process's reads see the end (they flush first). A crash before the commit leaves the call
   * `running`, so recovery marks it `interrupted`: the result is lost, never a second run.
   * A commit that fails keeps the ends queued and retries them (see {@link flush}); while
   * they cannot be written a process warning says so.
   * @throws the driver's error when {@link MAX_QUEUED} ends are queued and they cannot be
   *   written now (the store is broken: the caller learns it); the end stays queued.
   */
  finishSoon(call: CallKey | NewCall, end: CallEnd): void {
    this.queued.push({ call, end, now: Date.now() });
    this.queuedResults.set(keyOf(call), end.result);
    if (this.queued.length >= MAX_QUEUED && this.retryTimer === undefined) {
      this.flush();
    } else if (!this.flushScheduled && this.retryTimer === undefined) {
      this.flushScheduled = true;
      setImmediate(this.flushQuietly);
    }
  }

  /**
   * Commit the ends {@link finishSoon} queued (nothing when none are): in one transaction, or
   * when that fails, one transaction per end. An end that fails alone on an error of the store
   * (busy, full, read-only, I/O: `SQLITE_BUSY`, `SQLITE_FULL`, ...) stays queued for the next
   * write or a retry (every 50 ms, doubling up to 5 s); one that fails alone on an error of its
   * own (its row cannot be stored) is dropped with a process warning naming it: its call stays
   * `running` until recovery marks it `interrupted`.
   * @throws the store's error when ends are still queued (a retry is scheduled).
   */
  flush(): void {
    if (this.queued.length === 0 || this.closed) return;
    try {
      this.immediate(() => undefined);
    } catch (error) {
      this.scheduleRetry(error);
      throw error;
    }
  }

  /** {@link flush} from a timer: a failure is a process warning (once while it lasts) and a retry, not an exception. */
  private readonly flushQuietly = (): void => {
    this.flushScheduled = false;
    this.retryTimer = undefined;
    try {
      this.flush();
    } catch {
      // flush scheduled a retry and warned
    }
  };

  /** Queued ends could not be written: warn (once until a write succeeds) and retry later. */
  private scheduleRetry(error: unknown): void {
    if (this.queued.length === 0 || this.closed) return;
    if (!this.warnedFailing) {
      this.warnedFailing = true;
      process.emitWarning(`toolgate ledger ${this.file}: ${this.queued.length} call ends cannot be written yet (${(error as Error)?.message}); they stay queued and are retried (calls stay running meanwhile)`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    if (this.retryTimer === undefined) {
      this.retryTimer = setTimeout(this.flushQuietly, this.retryMs);
      // A process that exits meanwhile leaves those calls running: recovery marks them interrupted.
      this.retryTimer.unref();
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    }
  }

  /**
   * Write the queued ends one transaction each, after a batch failed (outside a transaction).
   * @throws the store's error when one fails on it (the rest stay queued).
   */
  private writeQueuedOneByOne(): void {
    while (this.queued.length !== 0) {
      const q = this.queued[0]!;
      try {
        this.tx.immediate(() => this.writeEnd(q.call, q.end, q.now));
      } catch (error) {
        if (storeError(error)) throw error;
        // This end alone cannot be stored: writing it again will not help.
        this.queued.shift();
        this.queuedResults.delete(keyOf(q.call));
        process.emitWarning(`toolgate ledger ${this.file}: the end of call ${q.call.callId} (session ${q.call.session}) cannot be stored (${(error as Error)?.message}); it stays running until recovery marks it interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
        continue;
      }
      this.queued.shift();
      this.queuedResults.delete(keyOf(q.call));
      this.endedSincePrune++;
    }
  }

  /** Write one end (inside a transaction). */
  private writeEnd(call: CallKey | NewCall, end: CallEnd, now: number): boolean {
    this.held.delete(keyOf(call));
    const id = this.rowOf(call, now);
    if (id === undefined || this.sql.end.run(end.state, now, end.result.errorCode ?? null, id).changes !== 1) return false;
    if (end.decisions !== undefined) this.writeDecisions(id, end.decisions, now);
    this.sql.cancelPendingOf.run(now, id);
    const blob = Buffer.from(end.fullOutput ?? end.result.output, 'utf8');
    this.sql.insertResult.run(id, end.result.success ? 1 : 0, JSON.stringify(end.result), blob, blob.length, now);
    this.sql.event.run(id, now, end.state, end.result.errorCode === undefined ? null : JSON.stringify({ errorCode: end.result.errorCode }));
    return true;
  }

  /**
   * Store a question about a call (the request shown to the person, as JSON), or return the
   * call's latest question when it has one that is unanswered or answered but not yet acted
   * on (a call taken over after a restart). A {@link NewCall} not yet recorded is recorded in
   * the same commit.
   * @returns the question's id.
   * @throws Error when the call is not recorded.
   */
  ask(call: CallKey | NewCall, request: unknown): number {
    const now = Date.now();
    return this.immediate(() => {
      const id = this.rowOf(call, now);
      if (id === undefined) throw new Error(`ledger: call ${call.callId} of session ${call.session} is not recorded`);
      const last = this.sql.approvalOfCall.get(id);
      if (last !== undefined && this.sql.answerOf.get(last.id)!.answer !== 'cancelled') return last.id;
      const question = Number(this.sql.insertApproval.run(id, JSON.stringify(request), now).lastInsertRowid);
      this.sql.event.run(id, now, 'asked', JSON.stringify({ approval: question }));
      return question;
    });
  }

  /**
   * Answer a question: the first answer wins (a conditional update).
   * @param by - who answers (`handler`, `cli:<pid>`, ...).
   * @returns the answer that counts (`answer` when it was the first, else the earlier one)
   *   and whether this one was the first; `undefined` when there is no such question.
   */
  answer(approvalId: number, answer: string, by: string): { answer: string; first: boolean } | undefined {
    const now = Date.now();
    return this.immediate(() => {
      const row = this.sql.answerOf.get(approvalId);
      if (row === undefined) return undefined;
      if (this.sql.answerApproval.run(answer, by, now, approvalId).changes === 1) {
        this.sql.event.run(row.call, now, 'answered', JSON.stringify({ approval: approvalId, answer, by }));
        return { answer, first: true };
      }
      return { answer: this.sql.answerOf.get(approvalId)!.answer!, first: false };
    });
  }

  /**
   * The answer recorded for the latest question of a call, when it has one that was answered
   * (and not cancelled): a call taken over after a restart runs on that answer.
   */
  answeredQuestion(callId: string, session: string): string | undefined {
    this.flush();
    const id = this.idOf(callId, session);
    if (id === undefined) return undefined;
    const last = this.sql.approvalOfCall.get(id);
    const answer = last === undefined ? undefined : this.sql.answerOf.get(last.id)!.answer;
    return answer === null || answer === 'cancelled' ? undefined : answer;
  }

  /** The answer of a question so far (`undefined` while unanswered or unknown): one indexed read, cheap enough to poll. */
  answerOf(approvalId: number): string | undefined {
    this.flush();
    return this.sql.answerOf.get(approvalId)?.answer ?? undefined;
  }

  /** A question, or `undefined` when unknown. */
  approval(approvalId: number): ApprovalRecord | undefined {
    this.flush();
    const row = this.sql.approval.get(approvalId);
    return row === undefined ? undefined : approvalOf(row);
  }

  /**
   * The questions waiting to be settled, oldest first: those nobody has answered, and those
   * answered while the asking process lived that it never acted on before it died (the call
   * still `pending`, its owner gone: `answer` is set; `toolgate approvals allow|deny ID` runs
   * or ends the call on the answer that counts).
   */
  pendingApprovals(): ApprovalRecord[] {
    this.flush();
    return this.sql.pendingApprovals.all().map(approvalOf).filter((q) => q.answer === undefined || !q.ownerAlive);
  }

  /**
   * A call by id: of `session`, or when none is given, the newest call with that id in any session.
   */
  get(callId: string, session?: string): CallRecord | undefined {
    this.flush();
    if (session !== undefined) {
      const row = this.sql.callByKey.get(callId, session);
      return row === undefined ? undefined : callOf(row);
    }
    return this.list({ callId, limit: 1 })[0];
  }

  /** Calls, newest first, filtered. */
  list(filter: ListFilter = {}): CallRecord[] {
    this.flush();
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.session !== undefined) {
      where.push('session = ?');
      values.push(filter.session);
    }
    if (filter.callId !== undefined) {
      where.push('call_id = ?');
      values.push(filter.callId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      values.push(filter.state);
    }
    if (filter.turn !== undefined) {
      where.push('turn = ?');
      values.push(filter.turn);
    }
    values.push(filter.limit ?? 1000);
    const rows = this.db.prepare(`SELECT calls.*, results.size FROM calls LEFT JOIN results ON results.call = calls.id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY calls.id DESC LIMIT ?`).all(...values) as CallRow[];
    return rows.map(callOf);
  }

  /** The decision path of a call, in order (empty when none or unknown). */
  decisions(callId: string, session: string): DecisionRecord[] {
    this.flush();
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

  /** The event log of a call, oldest first (empty when unknown). */
  events(callId: string, session: string): LedgerEvent[] {
    this.flush();
    const id = this.idOf(callId, session);
    if (id === undefined) return [];
    return this.sql.eventsOf.all(id).map((e) => ({ at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail) }));
  }

  /** The stored result of a call (of `session`, else the newest call with that id), or `undefined` while it has none. */
  result(callId: string, session?: string): StoredResult | undefined {
    this.flush();
    const call = session === undefined ? this.get(callId) : undefined;
    const id = this.idOf(callId, session ?? call?.session ?? '');
    if (id === undefined) return undefined;
    const row = this.sql.result.get(id);
    if (row === undefined) return undefined;
    return { result: JSON.parse(row.result) as ToolExecutionResult, fullOutput: row.full_output === null ? '' : row.full_output.toString('utf8'), size: row.size };
  }

  /**
   * Ask for a `pending` or `running` call to be cancelled: sets a flag its owner can read
   * ({@link cancelRequested}); stopping the tool is the owner's part.
   * @returns false when the call is unknown or has ended.
   */
  requestCancel(callId: string, session: string): boolean {
    const now = Date.now();
    return this.immediate(() => {
      const id = this.idOf(callId, session);
      if (id === undefined || this.sql.requestCancel.run(id).changes !== 1) return false;
      this.sql.event.run(id, now, 'cancel_requested', null);
      return true;
    });
  }

  /** Whether someone asked for the call to be cancelled. */
  cancelRequested(callId: string, session: string): boolean {
    this.flush();
    const id = this.idOf(callId, session);
    return id !== undefined && this.sql.cancelRequested.get(id)?.cancel_requested === 1;
  }

  /** Whether the process that owns a call (or asked a question) still runs. */
  ownerAlive(record: Pick<CallRecord, 'ownerPid' | 'ownerStart'>): boolean {
    return isAlive(record.ownerPid, record.ownerStart);
  }

  /**
   * Mark every `running` call whose owner process is gone `interrupted`, with a failed result
   * (`INTERRUPTED`, stop reason `interrupted`) that tells the model the tool may have run.
   * Nothing is run again. Runs on open; call it again in a long-lived process to sweep.
   * @returns the calls marked.
   */
  recover(): CallRecord[] {
    const now = Date.now();
    return this.immediate(() => {
      const marked: CallRecord[] = [];
      for (const row of this.sql.running.all()) {
        if (isAlive(row.owner_pid, row.owner_start)) continue;
        this.interrupt(row, now);
        marked.push({ ...callOf(row), state: 'interrupted', endedAt: now, errorCode: 'INTERRUPTED' });
      }
      return marked;
    });
  }

  /**
   * Apply retention: delete the oldest ended calls past `maxCalls`, then past `maxBytes` of
   * stored results, each leaving a tombstone ({@link tombstone}); then delete tombstones older
   * than `tombstoneMaxAgeMs` and the oldest past `maxTombstones`. Pending and running calls are
   * never deleted.
   * @returns how many calls were deleted.
   */
  prune(): number {
    this.endedSincePrune = 0;
    const now = Date.now();
    return this.immediate(() => {
      let deleted = 0;
      const over = this.sql.endedCount.get()!.n - this.maxCalls;
      if (over > 0) {
        for (const row of this.sql.oldestEnded.all(over)) {
          this.bury(row, now);
          deleted++;
        }
      }
      let bytes = this.sql.storedBytes.get()!.n ?? 0;
      while (bytes > this.maxBytes) {
        const batch = this.sql.oldestEnded.all(64);
        if (batch.length === 0) break;
        for (const row of batch) {
          if (bytes <= this.maxBytes) break;
          this.bury(row, now);
          bytes -= row.bytes ?? 0;
          deleted++;
        }
      }
      this.pruneTombstones(now);
      return deleted;
    });
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
  }

  /** Tombstones past their age or count go, oldest first (inside a transaction). */
  private pruneTombstones(now: number): void {
    const graves = this.graves!;
    const kept = graves.firstKept.get(now - this.tombstoneMaxAgeMs);
    if (kept === undefined) graves.deleteAll.run();
    else graves.deleteBelow.run(kept.id);
    const over = graves.count.get()!.n - this.maxTombstones;
    if (over > 0) {
      const first = graves.idAt.get(over);
      if (first !== undefined) graves.deleteBelow.run(first.id);
    }
  }

  /**
   * Close the file (idempotent), writing the queued ends first; ends that still cannot be
   * written are named in a process warning (their calls stay `running` until recovery marks
   * them `interrupted`).
   */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    try {
      this.flush();
    } catch (error) {
      process.emitWarning(`toolgate ledger ${this.file}: closed with ${this.queued.length} call ends not written (${(error as Error)?.message}): calls ${this.queued.map((q) => q.call.callId).join(', ')} stay running until recovery marks them interrupted`, { code: 'TOOLGATE_LEDGER_WRITE' });
    }
    clearTimeout(this.retryTimer);
    this.closed = true;
    this.db.close();
  }

  /** Mark a running row interrupted, with its synthetic result (inside a transaction). */
  private interrupt(row: CallRow, now: number): void {
    this.sql.end.run('interrupted', now, 'INTERRUPTED', row.id);
    const result = failedResult('INTERRUPTED', INTERRUPTED_MESSAGE, { tool: row.tool, version: row.version, callId: row.call_id, stopReason: 'interrupted' });
    result.durationMs = Math.max(0, now - (row.started_at ?? now));
    const text = Buffer.from(result.output, 'utf8');
    this.sql.insertResult.run(row.id, 0, JSON.stringify(result), text, text.length, now);
    this.sql.event.run(row.id, now, 'interrupted', JSON.stringify({ ownerPid: row.owner_pid }));
  }

  private idOf(callId: string, session: string): number | undefined {
    return this.sql.rowId.get(callId, session)?.id;
  }

  /**
   * Run `fn` in a `BEGIN IMMEDIATE` transaction (the write lock taken at once), with the
   * queued ends first in the same commit. When that fails, the ends stay queued: they are
   * written one by one ({@link writeQueuedOneByOne}), then `fn` alone, so that one end that
   * cannot be stored never blocks the writes after it.
   */
  private immediate<T>(fn: () => T): T {
    if (this.readonly) throw new Error(`ledger ${this.file} is open read-only`);
    if (this.queued.length === 0) return this.tx.immediate(fn) as T;
    const ends = this.queued.splice(0);
    let result: T;
    try {
      result = this.tx.immediate(() => {
        // Queued ends go first, in the same commit.
        for (const q of ends) this.writeEnd(q.call, q.end, q.now);
        return fn();
      }) as T;
    } catch (error) {
      this.queued.unshift(...ends);
      if (storeError(error)) {
        this.scheduleRetry(error);
        throw error;
      }
      // An end or `fn` failed on its own: the ends one by one, then `fn` alone.
      try {
        this.writeQueuedOneByOne();
      } catch (failed) {
        this.scheduleRetry(failed);
        throw failed;
      }
      this.writtenQueued();
      return this.tx.immediate(fn) as T;
    }
    for (const q of ends) this.queuedResults.delete(keyOf(q.call));
    this.endedSincePrune += ends.length;
    this.writtenQueued();
    return result;
  }

  /** Queued ends were written: the retry schedule resets, and retention runs when due. */
  private writtenQueued(): void {
    this.warnedFailing = false;
    this.retryMs = RETRY_MIN_MS;
    if (this.endedSincePrune >= PRUNE_EVERY) this.prune();
  }

  // Reads and settings for a live view of the ledger (the cockpit): added after the rest on
  // purpose, and prepared on first use, so that they stay out of the call path.

  /** Statements of the methods below, prepared on first use. */
  private viewSql: ReturnType<typeof viewStatements> | undefined;

  private get view(): ReturnType<typeof viewStatements> {
    return (this.viewSql ??= viewStatements(this.db));
  }

  /**
   * Events of every call after event id `afterId`, oldest first, with their call's id and
   * session: what a live timeline replays from a `Last-Event-ID`. Ids grow with every event
   * (pruned calls take their events with them).
   * @param limit - at most this many (default 500).
   */
  eventsAfter(afterId: number, limit = 500): LedgerFeedEvent[] {
    this.flush();
    return this.view.eventsAfter.all(afterId, limit).map((e) => ({
      id: e.id, at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail), callId: e.call_id, session: e.session,
    }));
  }

  /** The id of the newest event (0 when there is none). */
  lastEventId(): number {
    this.flush();
    return this.view.lastEvent.get()?.id ?? 0;
  }

  /**
   * A part of a call's whole stored output: at most `maxBytes` bytes from byte `offset`,
   * both moved back to the start of a UTF-8 character so that no character is cut in two.
   * @returns the text, where it starts and where the next part starts (`undefined` after the
   *   last), and the whole output's size in bytes; `undefined` when the call is unknown or
   *   has no result yet.
   */
  outputPage(callId: string, session: string, offset: number, maxBytes: number): OutputPage | undefined {
    this.flush();
    const id = this.idOf(callId, session);
    if (id === undefined) return undefined;
    const size = this.view.resultSize.get(id)?.size;
    if (size === undefined) return undefined;
    const from = Math.max(0, Math.min(Math.floor(offset), size));
    // 3 bytes before and after the window: enough to find the character starts around it.
    const lead = Math.min(from, 3);
    const bytes = this.view.outputSlice.get(from - lead + 1, maxBytes + lead + 4, id)?.part ?? Buffer.alloc(0);
    let start = lead;
    while (start > 0 && isContinuation(bytes[start])) start--;
    let end = Math.min(lead + maxBytes, bytes.length);
    if (end <= start) end = Math.min(start + 4, bytes.length);
    while (end < bytes.length && end > start + 1 && isContinuation(bytes[end])) end--;
    const pageStart = from - lead + start;
    const next = pageStart + (end - start);
    return { text: bytes.subarray(start, end).toString('utf8'), offset: pageStart, next: next >= size ? undefined : next, size };
  }

  /**
   * A session's setting, else (when `fallback` is given) the fallback session's; `undefined`
   * when neither is set. One indexed read: cheap enough for every decision.
   */
  sessionSetting(session: string, name: string, fallback?: string): SessionSetting | undefined {
    const row = this.view.setting.get(name, session, fallback ?? session, session);
    return row === undefined ? undefined : { session: row.session, name, value: row.value, setBy: row.set_by, setAt: row.set_at };
  }

  /** Every session setting, newest first. */
  sessionSettings(): SessionSetting[] {
    return this.view.settings.all().map((row) => ({ session: row.session, name: row.name, value: row.value, setBy: row.set_by, setAt: row.set_at }));
  }

  /**
   * Set (or with `value` `undefined`, clear) a session's setting; committed before it returns.
   * @param by - who sets it (`cockpit:<pid>`, ...).
   */
  setSessionSetting(session: string, name: string, value: string | undefined, by: string): void {
    const now = Date.now();
    this.immediate(() => {
      if (value === undefined) this.view.clearSetting.run(session, name);
      else this.view.putSetting.run(session, name, value, by, now);
    });
  }
}

/** One event of {@link Ledger.eventsAfter}. */
export interface LedgerFeedEvent extends LedgerEvent {
  /** The event's id (grows with every event). */
  id: number;
  callId: string;
  session: string;
}

/** A part of a stored output ({@link Ledger.outputPage}); offsets and size in bytes. */
export interface OutputPage {
  text: string;
  offset: number;
  /** Where the next part starts, `undefined` after the last. */
  next: number | undefined;
  size: number;
}

/** A session's setting ({@link Ledger.sessionSetting}). */
export interface SessionSetting {
  session: string;
  name: string;
  value: string;
  /** Who set it (`cockpit:<pid>`, ...). */
  setBy: string;
  /** When, in ms since the epoch. */
  setAt: number;
}

/** Whether a byte continues a UTF-8 character (`10xxxxxx`). */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Statements of the live-view methods. */
function viewStatements(db: Database.Database) {
  return {
    eventsAfter: db.prepare<[number, number], { id: number; at: number; kind: string; detail: string | null; call_id: string; session: string }>(
      'SELECT events.id, events.at, events.kind, events.detail, calls.call_id, calls.session FROM events JOIN calls ON calls.id = events.call WHERE events.id > ? ORDER BY events.id LIMIT ?'),
    lastEvent: db.prepare<[], { id: number }>('SELECT max(id) AS id FROM events'),
    resultSize: db.prepare<[number], { size: number }>('SELECT size FROM results WHERE call = ?'),
    outputSlice: db.prepare<[number, number, number], { part: Buffer | null }>('SELECT substr(full_output, ?, ?) AS part FROM results WHERE call = ?'),
    setting: db.prepare<[string, string, string, string], { session: string; value: string; set_by: string; set_at: number }>(
      'SELECT session, value, set_by, set_at FROM session_settings WHERE name = ? AND session IN (?, ?) ORDER BY session = ? DESC LIMIT 1'),
    settings: db.prepare<[], { session: string; name: string; value: string; set_by: string; set_at: number }>('SELECT * FROM session_settings ORDER BY set_at DESC'),
    putSetting: db.prepare('INSERT INTO session_settings (session, name, value, set_by, set_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, set_by = excluded.set_by, set_at = excluded.set_at'),
    clearSetting: db.prepare('DELETE FROM session_settings WHERE session = ? AND name = ?'),
  };
}

const RECORDED: RecordOutcome = Object.freeze({ kind: 'recorded' });
const UNKNOWN: RecordOutcome = Object.freeze({ kind: 'unknown' });
/** {@link Ledger.finishSoon} commits at once past this many queued ends. */
const MAX_QUEUED = 64;
/** The first and the longest delay between retries of queued ends that could not be written, in ms. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5_000;

/**
 * Whether `error` is the store's (the file is busy, full, read-only, unreadable, corrupt):
 * every write fails alike until that changes; otherwise it is one row's (a constraint, a value
 * too big, a value JSON cannot hold), and writing that row again fails again.
 */
function storeError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string'
    && /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|NOMEM|PROTOCOL|CORRUPT|NOTADB|PERM|AUTH)/.test(code);
}

/** A map key of a call. */
function keyOf(call: CallKey): string {
  return `${call.session}\u0000${call.callId}`;
}
const TAKEN_OVER: RecordOutcome = Object.freeze({ kind: 'taken_over' });

function tombstoneOf(row: TombstoneRow): TombstoneRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, argumentsSha256: row.arguments_sha256, state: row.state,
    errorCode: row.error_code ?? undefined, endedAt: row.ended_at ?? undefined, prunedAt: row.pruned_at,
  };
}

/**
 * The result a retry of a pruned call gets: failed, `RESULT_PRUNED`, `not_run`, saying how the
 * call ended (its tombstone's state) and that its output is no longer kept.
 */
export function prunedResult(t: TombstoneRecord): ToolExecutionResult {
  const code = t.errorCode === undefined ? '' : ` (${t.errorCode})`;
  const how = t.state === 'done' ? 'it succeeded' : t.state === 'interrupted' ? 'it was interrupted: the tool may have run' : t.state === 'denied' ? `it was denied${code}: it never ran` : `it failed${code}`;
  const when = t.endedAt === undefined ? '' : ` at ${new Date(t.endedAt).toISOString()}`;
  const message = `call ${t.callId} of session ${t.session} already ran (${t.state}${when}: ${how}); its output is no longer kept (ledger retention) and it was not run again. A new call needs a new call id.`;
  return failedResult('RESULT_PRUNED', message, { tool: t.tool, version: t.version, callId: t.callId, stopReason: 'not_run' });
}

/**
 * Run the migrations the file lacks, each in a transaction with its version bump. The version
 * is read under the write lock: processes opening a new file at once migrate it once.
 */
function migrate(db: Database.Database): void {
  const step = db.transaction((): boolean => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(`ledger schema version ${version} is newer than this toolgate knows (${MIGRATIONS.length}); use a newer toolgate or another --state-dir`);
    }
    if (version === MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration per transaction
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw ToolgateOptionError.fromBadOption(name, `must be a positive integer; got ${String(value).slice(0, 50)}`);
  return value;
}

function callOf(row: CallRow): CallRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    workspace: row.workspace, turn: row.turn, options: JSON.parse(row.options) as StoredCallOptions, state: row.state, ownerPid: row.owner_pid,
    ownerStart: row.owner_start ?? undefined, cancelRequested: row.cancel_requested === 1, createdAt: row.created_at, startedAt: row.started_at ?? undefined,
    endedAt: row.ended_at ?? undefined, errorCode: row.error_code ?? undefined, resultSize: row.size ?? undefined,
  };
}

function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id, callId: row.call_id, session: row.session, tool: row.tool, request: JSON.parse(row.request) as Record<string, unknown>, askedAt: row.asked_at,
    answer: row.answer ?? undefined, answeredBy: row.answered_by ?? undefined, answeredAt: row.answered_at ?? undefined, callState: row.state,
    ownerAlive: isAlive(row.owner_pid, row.owner_start),
  };
}
