/**
 * The call store: what toolgate keeps of every call it handles (its record, claim, decisions,
 * questions and answers, event log and result), behind one interface, {@link CallStore}, so
 * that the store can change (SQLite on one machine today: {@link Ledger} in `store.ts`; a
 * PostgreSQL store shared by several machines next) without touching its callers. Every
 * implementation passes the contract suite in `test/ledger/call-store-contract.ts`.
 *
 * The interface is split by concern ({@link CallJournal}, {@link QuestionBook},
 * {@link CallFeed}, {@link Retention}, {@link SessionSettings}, {@link TaskBindings}, `ScheduledTasks` of
 * `scheduled-tasks.ts`); {@link CallStore} is all of
 * them. Every method that touches storage returns a promise: a store on another machine
 * (PostgreSQL through `pg`) can only answer asynchronously, and a synchronous interface would
 * force it to block the event loop. A store that is synchronous inside (SQLite through
 * better-sqlite3) resolves at once; errors are rejections, never synchronous throws. Only
 * {@link CallJournal.finishSoon} (fire-and-forget, see there), {@link CallJournal.ownerAlive}
 * (no storage) and the properties are synchronous. Times are milliseconds since the epoch;
 * sizes are bytes.
 *
 * Words used below:
 * - **call key**: call id and session; at most one call per key, ever (the idempotency key).
 * - **owner**: who handles a call: an owner id ({@link CallRecord.owner}: `host:pid:start` for a
 *   process, or a worker's own id) and the process behind it (host, pid and start time). A
 *   call whose owner is gone is repaired by the next reader or writer that meets it: a
 *   `pending` one is taken over, a `running` one becomes `interrupted`. "Gone" is
 *   `ownerAlive()`'s answer (`owner.ts`): a lapsed lease, or a process of this host that is not running.
 * - **claim**: the `pending -> running` step, taken by exactly one owner; it lasts until the
 *   call ends or its owner is gone (then the call is `interrupted`, never run again). A claim
 *   is never taken twice, by this process or another.
 * - **lease** ({@link CallLeases}, for owners that are not one process tree: workers on other
 *   machines): a claim (or a hold on a `pending` call) with a random token and an expiry. The
 *   owner renews it while it works; the owner's writes are fenced by the token (a late or
 *   redelivered worker cannot claim or end a call it does not own); a lease that lapses makes
 *   a `running` call `interrupted` ("may have run"), never `pending` again. Without a lease
 *   request the SQLite store behaves as before (process liveness only).
 * - **pool**: a call recorded for workers of a named pool ({@link NewCall.pool}); a `pending`
 *   call with a pool and no live lease is queued, waiting for a worker ({@link queuedFor}).
 * - **atomic**: a method marked so commits all of its writes together or none, and two
 *   processes calling it at once see one of them first.
 *
 * @module
 */
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';
import type { OwnerFacts } from './owner.js';
import type { ScheduledTasks } from './scheduled-tasks.js';

export type { OwnerFacts } from './owner.js';
import type { Fence, Lease, LeaseRequest } from './call-leases.js';

/** States of a call: `pending -> running -> done | failed | interrupted`, or `pending -> denied` (also `pending -> failed` for a call that ended before it ran). */
export type CallStatus = 'pending' | 'running' | 'done' | 'failed' | 'interrupted' | 'denied';

/** The states a call ends in. */
export const ENDED_STATES: readonly CallStatus[] = Object.freeze(['done', 'failed', 'interrupted', 'denied']);

/** The message of an interrupted call's result (what the model reads). */
export const INTERRUPTED_MESSAGE = 'interrupted: toolgate stopped while this call ran; the tool may have run — check before repeating';

/** Per-call options a store keeps, so that another process can run a pending call the same way. */
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
  /**
   * A queued call's reply key (random, from its caller; `src/distributed/reply.ts`): the worker
   * that ends the call signs the stored result with it in its job's return value, so that the
   * caller takes the result from the job's completion without reading the store again, and a
   * result forged in the queue (which holds no key) is never taken. Read back, it is not
   * enumerable (`stored-options.ts`): JSON and copies of a record (trace, cockpit, logs) leave it out.
   */
  replyKey?: string;
}

/** What names a call: its call id and session (the idempotency key). */
export interface CallKey {
  /** The call id (the model's, or generated). */
  callId: string;
  /** The session; with `callId`, the idempotency key. */
  session: string;
}

/**
 * A call as {@link CallJournal.record} takes it. `claim`, `ask` and `finish` take one too: a
 * call not yet recorded is then recorded in the same atomic write.
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
  /**
   * The pool of workers the call is queued for (`toolgate worker --pool NAME`); absent for a
   * call handled where it is recorded. A `pending` call with a pool and no live lease waits for
   * a worker of that pool ({@link queuedFor}): a retry of its key is `in_progress` (never taken
   * over by the retrying caller), and a reconciler may send it to the pool again. 1 to 200 characters.
   */
  pool?: string;
}

/** A stored call. */
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
  /** The owner id ({@link LeaseRequest.owner}; `host:pid:start` of the process when none was given, `processOwner()` of `owner.ts`). */
  owner: string;
  /** The host of the owning process (`hostId()` of `owner.ts`); `undefined` for a call recorded before leases (this host). */
  ownerHost: string | undefined;
  /** When the owner's lease lapses, in ms since the epoch; `undefined` without a lease (process liveness only). */
  leaseExpiresAt: number | undefined;
  /** The pool the call is queued for ({@link NewCall.pool}), if any. */
  pool: string | undefined;
  /** Someone asked for the call to be cancelled ({@link CallJournal.requestCancel}). */
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
  /** The question's id (what `toolgate approvals allow ID` names): a positive integer, unique in the store. */
  id: number;
  callId: string;
  session: string;
  tool: string;
  /** The request the person is shown (a `ConfirmationRequest`, as JSON). */
  request: Record<string, unknown>;
  askedAt: number;
  /** The answer (`allow_once`, `allow_for_turn`, `always`, `deny`, `cancelled`, or an `ask_user` reply as JSON), once given. */
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
  /** The stored output (UTF-8): what the model saw, or more when it was cut; itself cut past the store's per-output bound, with a note saying so. */
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

/** The detail of a `progress` event ({@link CallJournal.progress}). */
export interface CallProgressDetail {
  /** Absent for a log message's line. */
  done?: number;
  total?: number;
  message?: string;
}

/** One event of {@link CallFeed.eventsAfter}. */
export interface LedgerFeedEvent extends LedgerEvent {
  /** The event's id (grows with every event). */
  id: number;
  callId: string;
  session: string;
}

/** A part of a stored output ({@link CallFeed.outputPage}); offsets and size in bytes. */
export interface OutputPage {
  text: string;
  offset: number;
  /** Where the next part starts, `undefined` after the last. */
  next: number | undefined;
  size: number;
}

/** A session's setting ({@link SessionSettings.sessionSetting}). */
export interface SessionSetting {
  session: string;
  name: string;
  value: string;
  /** Who set it (`cockpit:<pid>`, ...). */
  setBy: string;
  /** When, in ms since the epoch. */
  setAt: number;
}

/**
 * The key of a store's synchronous read of a session setting, where it has one (SQLite's
 * `Ledger`: better-sqlite3 reads are synchronous): same answer as
 * {@link SessionSettings.sessionSetting}, but it throws instead of rejecting. The
 * approval-mode decider reads through it so that a decision with nothing to wait for stays
 * synchronous (no promise, no abort listeners per call). Not public API.
 */
export const SESSION_SETTING_NOW: unique symbol = Symbol('toolgate.sessionSettingNow');

/** A store that may read a session setting synchronously ({@link SESSION_SETTING_NOW}). */
export interface SessionSettingNow {
  [SESSION_SETTING_NOW]?: (session: string, name: string, fallback?: string) => SessionSetting | undefined;
}

/** What retention leaves of a call it deleted ({@link Retention.tombstone}). */
export interface TombstoneRecord {
  callId: string;
  session: string;
  tool: string;
  version: string;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of the call's arguments. */
  argumentsSha256: string;
  /** How the call ended. */
  state: Exclude<CallStatus, 'pending' | 'running'>;
  errorCode: string | undefined;
  endedAt: number | undefined;
  /** When retention deleted the call. */
  prunedAt: number;
}

/** What {@link CallJournal.record} (and {@link CallJournal.check}) found. */
export type RecordOutcome =
  /**
   * A new call: recorded `pending`, owned by this process. `adopted`: the row was not written
   * now but recorded earlier by this process (an MCP task, say) and is this caller's from now
   * on; its tool, version and arguments are the stored ones, which the caller must compare with
   * its own request (src/executor/call-journal.ts).
   */
  | { readonly kind: 'recorded'; readonly adopted?: true }
  /** A `pending` call of a process that is gone, now owned by this one (its question, if any, kept). */
  | { readonly kind: 'taken_over' }
  /** The call is not recorded (only from {@link CallJournal.check}). */
  | { readonly kind: 'unknown' }
  /** The call ended before: its stored result (exactly once: the caller retried). */
  | { readonly kind: 'ended'; readonly result: ToolExecutionResult }
  /** The call is being handled by a live process (this one or another). */
  | { readonly kind: 'in_progress'; readonly record: CallRecord };

/** How a call ended, as {@link CallJournal.finish} writes it. */
export interface CallEnd {
  state: Exclude<CallStatus, 'pending' | 'running'>;
  /** The decision path, in order. */
  decisions: readonly DecisionRecord[] | undefined;
  /** The result the model sees. */
  result: ToolExecutionResult;
  /** The whole output when the result shows only part of it. Default: `result.output`. */
  fullOutput?: string;
}

/** Filters of {@link CallJournal.list}. */
export interface ListFilter {
  session?: string;
  callId?: string;
  state?: CallStatus;
  /** Calls of one turn (an agent run's `turnId`; a subagent's runs name their parent call, docs/subagents.md). */
  turn?: string;
  /** Calls queued for (or recorded with) this pool ({@link NewCall.pool}). */
  pool?: string;
  /** At most this many, newest first. Default 1000. */
  limit?: number;
}

/** The answer that counts after {@link QuestionBook.answer}. */
export interface CountedAnswer {
  /** The first answer given (this one when `first`). */
  answer: string;
  /** Whether this answer was the first. */
  first: boolean;
}

/**
 * Calls: record, claim, end, and read them back. Every write is atomic. Writes reject with
 * the store's error when it cannot be written (full, busy past its timeout, read-only); no write
 * is half done then.
 */
export interface CallJournal {
  /** Where the store lives (a file, a URL without credentials): for messages only. */
  readonly file: string;
  /** Opened to read only: every write rejects. */
  readonly readonly: boolean;
  /** Calls the store marked `interrupted` when it was opened (their owner was gone). */
  readonly recovered: readonly CallRecord[];

  /**
   * Record a call `pending`, owned by this process, unless its key is known: then say what
   * became of it. A `pending` call whose owner is gone is `taken_over` (its question kept); a
   * `running` one whose owner is gone becomes `interrupted` and is `ended` with that result; a
   * call retention deleted is `ended` with a `RESULT_PRUNED` result from its tombstone. Atomic.
   */
  record(call: NewCall): Promise<RecordOutcome>;
  /**
   * Like {@link record} without writing a new call: an unknown key is `unknown` (the next
   * `claim`, `ask` or `finish` given the {@link NewCall} records it). A `pending` call this
   * process recorded and nobody here checked yet is `recorded` (the caller adopts it); from
   * then on, until it ends, a second check is `in_progress`. Writes only to repair a call whose
   * owner is gone.
   */
  check(key: CallKey): Promise<RecordOutcome>;
  /** Update a `pending` call this process owns with the caller's validated arguments, workspace, turn and options. @returns whether it was updated. Atomic. */
  amend(call: NewCall): Promise<boolean>;
  /**
   * Claim a `pending` call: it becomes `running`, owned by this process, with `decisions`
   * stored when given. Atomic and exclusive: of any number of claims of one call (in any
   * process) exactly one returns true. A {@link NewCall} not yet recorded is recorded and
   * claimed at once. Committed before it returns: a crash after it leaves the call `running`,
   * which becomes `interrupted` and never runs again.
   * @returns false when the call is not `pending` (claimed or ended already, or unknown).
   */
  claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): Promise<boolean>;
  /**
   * End a `pending` or `running` call: its state, decisions (when given), result and stored
   * output, and an event; an unanswered question of it is answered `cancelled`. Atomic. Never
   * prunes on the way (retention runs apart, {@link Retention}). A {@link NewCall} not yet
   * recorded is recorded with its end.
   *
   * Fenced: a call under a lease ({@link CallLeases}) ends only with its lease's `fence`
   * (or, without one, by the store handle that took the lease); a `pending` call whose lease
   * lapsed ends without one.
   * @returns false when the call is unknown or ended already (an ended call stays as it was),
   *   or the fence does not match.
   */
  finish(call: CallKey | NewCall, end: CallEnd, fence?: Fence): Promise<boolean>;
  /**
   * {@link finish}, committed later (with the next write, at the latest on the next turn of
   * the event loop, or on {@link flush} or close): a group commit. This process's reads see
   * the end at once. A crash before the commit leaves the call `running` (then `interrupted`).
   *
   * Fire-and-forget, so synchronous (returns nothing to await): it is the executor's fast path
   * for the end of a call that ran, where the caller's result must not wait for a commit; a
   * store commits the queued ends itself, and an end that cannot be written is retried and
   * reported by the store (a process warning, or {@link flush}'s rejection), never to the
   * call. May throw synchronously only when the store cannot queue any more ends.
   */
  finishSoon(call: CallKey | NewCall, end: CallEnd, fence?: Fence): void;
  /** Commit what {@link finishSoon} queued. Rejects with the store's error when it cannot be written (the ends stay queued and are retried). */
  flush(): Promise<void>;
  /**
   * Mark every `running` call whose owner is gone (its lease lapsed, or its process on this
   * host is not running) `interrupted`, with a failed result (`INTERRUPTED`, stop reason
   * `interrupted`, {@link INTERRUPTED_MESSAGE}). Nothing runs again. Atomic. @returns the
   * calls marked. See also {@link CallLeases.expireLeases}.
   */
  recover(): Promise<CallRecord[]>;
  /** A call: of `session`, or without one, the newest call with that id. */
  get(callId: string, session?: string): Promise<CallRecord | undefined>;
  /** Calls, newest first, filtered. */
  list(filter?: ListFilter): Promise<CallRecord[]>;
  /** The decision path of a call, in order (empty when none or unknown). */
  decisions(callId: string, session: string): Promise<DecisionRecord[]>;
  /** The event log of a call, oldest first (empty when unknown). */
  events(callId: string, session: string): Promise<LedgerEvent[]>;
  /** The stored result of a call (of `session`, else the newest call with that id); `undefined` while it has none. */
  result(callId: string, session?: string): Promise<StoredResult | undefined>;
  /**
   * Record the latest progress of a `running` call (an event `progress` with
   * `{ done?, total?, message? }`), for the cockpit of any process to show. Callers throttle
   * it (the executor: at most one a second per call, the message cut to 500 characters).
   * @returns false when unknown or not running.
   */
  progress(callId: string, session: string, progress: CallProgressDetail): Promise<boolean>;
  /**
   * A `pending` call of this process was left waiting, its question open, by a caller whose
   * framework suspended (a LangGraph `interrupt()` in a confirmation handler): writes an event
   * `suspended`, and the next {@link check} of its key here adopts it (`recorded`, adopted: the
   * run resumed). Its lease lapses at once (this process no longer renews it), so another process
   * resuming it (an MCP 2026-07-28 retry sent to another instance) takes it over (`taken_over`,
   * atomic; the claim that runs it stays exclusive). Optional (without it
   * such a call is `in_progress` until this process is gone). @returns false when unknown or not `pending`.
   *
   * With `claimed`: a `running` call this process claimed whose run suspended (a tool on the
   * `main` runner that asked a question only a later request answers: `ask_user` of an MCP
   * 2026-07-28 client) goes back to `pending` the same way, its lease lapsed, to be claimed
   * (exclusively, as ever) and run again from the start when resumed. @returns false when
   * unknown, not `running`, or not this process's.
   */
  suspend?(key: CallKey, options?: { claimed?: boolean }): Promise<boolean>;
  /** A retry of an ended call was answered with its stored result: writes an event `replayed` (`toolgate trace` counts them). Optional. @returns false when unknown. */
  replayed?(key: CallKey): Promise<boolean>;
  /** Set the cancel flag of a `pending` or `running` call (stopping it is its owner's part). @returns false when unknown or ended. Atomic. */
  requestCancel(callId: string, session: string): Promise<boolean>;
  /** Whether someone asked for the call to be cancelled. */
  cancelRequested(callId: string, session: string): Promise<boolean>;
  /**
   * Whether the owner of a call (or the asker of a question) is still there: its lease, if
   * any, has not lapsed, and its process, when on this host, runs (`ownerAlive()` of `owner.ts`).
   */
  ownerAlive(record: OwnerFacts): boolean;
  /** Release the store, committing what is queued (idempotent). */
  close(): Promise<void>;
}

/**
 * Questions put to a person about a call, and their answers. The first answer counts: an
 * answer is a conditional write, atomic across processes.
 */
export interface QuestionBook {
  /** How often a caller waiting for an answer given elsewhere should look, in milliseconds. */
  readonly pollMs: number;
  /**
   * Store a question about a call (the request shown, JSON), or return the call's latest one
   * of the same kind (`questionKind`, question-kind.ts: an approval, or an `ask_user` question) when it is
   * unanswered or answered but not acted on. A {@link NewCall} not yet recorded is
   * recorded with it. Atomic. @returns the question's id. Rejects with an Error when the call is not recorded.
   */
  ask(call: CallKey | NewCall, request: unknown): Promise<number>;
  /**
   * Answer a question; the first answer counts. Atomic.
   * @param by - who answers (`handler`, `cli:<pid>`, `cockpit:<pid>`).
   * @returns the answer that counts and whether it is this one; `undefined` for an unknown question.
   */
  answer(approvalId: number, answer: string, by: string): Promise<CountedAnswer | undefined>;
  /**
   * The answer of a call's latest approval (not an `ask_user` question: `questionKind`, question-kind.ts),
   * when it has one answered and not cancelled.
   */
  answeredQuestion(callId: string, session: string): Promise<string | undefined>;
  /** The answer of a question so far (`undefined` while unanswered or unknown): cheap enough to poll. */
  answerOf(approvalId: number): Promise<string | undefined>;
  /** A question, or `undefined`. */
  approval(approvalId: number): Promise<ApprovalRecord | undefined>;
  /** The questions waiting, oldest first: unanswered ones, and answered ones of `pending` calls whose asker is gone. */
  pendingApprovals(): Promise<ApprovalRecord[]>;
}

/** A live view of every call: the event feed and stored outputs by pages (the cockpit). */
export interface CallFeed {
  /** Events of every call after event id `afterId`, oldest first (ids grow with every event); at most `limit` (default 500). */
  eventsAfter(afterId: number, limit?: number): Promise<LedgerFeedEvent[]>;
  /** The id of the newest event (0 when none). */
  lastEventId(): Promise<number>;
  /** At most `maxBytes` bytes of a call's stored output from byte `offset`, never cutting a UTF-8 character; `undefined` when unknown or without a result. */
  outputPage(callId: string, session: string, offset: number, maxBytes: number): Promise<OutputPage | undefined>;
}

/** Settings a person changes for a session while it runs (the cockpit's approval mode). */
export interface SessionSettings {
  /** A session's setting, else `fallback`'s; `undefined` when neither is set. Cheap enough for every decision. */
  sessionSetting(session: string, name: string, fallback?: string): Promise<SessionSetting | undefined>;
  /** Every setting, newest first. */
  sessionSettings(): Promise<SessionSetting[]>;
  /** Set (or with `undefined`, clear) a setting. Atomic. */
  setSessionSetting(session: string, name: string, value: string | undefined, by: string): Promise<void>;
}

/**
 * What the store keeps, and for how long: at most a number of ended calls and a number of
 * bytes of stored results (each output itself cut to a per-output bound); `pending` and
 * `running` calls are never removed. A deleted call leaves a tombstone, so that a retry of
 * its key is answered `RESULT_PRUNED` and never runs again. Retention runs off the call path,
 * in small steps a store schedules itself after writes; never inside `record`, `claim` or
 * `finish`.
 */
export interface Retention {
  /** What retention left of a deleted call: of `session`, or without one, the newest with that id. */
  tombstone(callId: string, session?: string): Promise<TombstoneRecord | undefined>;
  /** Apply retention now, all of it (deleting the oldest ended calls past the limits, and aged tombstones). @returns how many calls were deleted. */
  prune(): Promise<number>;
  /**
   * One small step of retention: delete at most `maxCalls` of the oldest ended calls past the
   * limits (default: the store's step size). Atomic. @returns how many calls were deleted (0: within the limits).
   */
  pruneStep(maxCalls?: number): Promise<number>;
  /** Resolves once the retention steps scheduled so far have run (at once when none are). */
  retentionSettled(): Promise<void>;
}

/**
 * Who asked for each MCP task (an opaque requestor key), kept beside the task's call so that
 * the binding outlives the process as the task does: only that requestor finds the task. A
 * task bound to nobody is nobody's (fail closed). A binding goes when retention deletes its call.
 */
interface TaskBindings {
  /** Bind a call (a task) to its requestor, before the call is recorded. Rejects with the store's error when it cannot be written (nothing is bound then), also when the key is bound already. */
  bindTask(callId: string, session: string, requestor: string): Promise<void>;
  /** Undo {@link bindTask} (the call could not be recorded). Never rejects. */
  unbindTask(callId: string, session: string): Promise<void>;
  /** The requestor a call is bound to; `undefined` when none. */
  taskRequestor(callId: string, session: string): Promise<string | undefined>;
  /** The call ids of `session` bound to `requestor`. */
  tasksOf(session: string, requestor: string): Promise<Set<string>>;
}


export { DEFAULT_LEASE_MS, LEASE_BOUNDS_MS, type Fence, type Lease, type LeaseRequest } from './call-leases.js';

/**
 * Leases, for owners that are not one process tree (workers on other machines, fed by a
 * queue that may deliver a call twice). Every method is atomic and conditional on the lease
 * token, so that of two owners racing for a call exactly one wins, and a late owner (its lease
 * lapsed, its call `interrupted` or taken) cannot write it. Clocks: expiries are ms since the
 * epoch on the clock of the store's writer (SQLite: this host; PostgreSQL: the server's).
 */
export interface CallLeases {
  /** This store handle's default owner id (`processOwner()` of `owner.ts`). */
  readonly owner: string;
  /**
   * Claim a `pending` call under a fresh lease: it becomes `running`, owned by
   * `request.owner`, with `decisions` stored when given. Exactly one of any number of claims
   * wins. A `pending` call held by another owner's live lease is not claimed; with
   * `request.token` only the hold with that token is. A {@link NewCall} not yet recorded is
   * recorded and claimed at once.
   * @returns the lease, or `undefined` when the call is not `pending` or is held by another.
   */
  claimLease(call: CallKey | NewCall, request?: LeaseRequest, decisions?: readonly DecisionRecord[]): Promise<Lease | undefined>;
  /**
   * Hold a `pending` call without running it (to decide it, to ask about it): it stays
   * `pending`, owned by `request.owner` under a fresh lease. Granted when the call has no live
   * lease and is queued for a pool, or its owner is gone.
   * @returns the lease, or `undefined` (not `pending`, or held by a live owner).
   */
  takeLease(call: CallKey, request?: LeaseRequest): Promise<Lease | undefined>;
  /**
   * Extend a lease by `leaseMs` (default: the length it was granted with, else
   * {@link DEFAULT_LEASE_MS}) from now. A lease that lapsed is renewed while nobody has
   * interrupted or taken its call.
   * @returns the renewed lease; `undefined` when it is lost (the call ended, was interrupted, or is held under another token).
   */
  renewLease(call: CallKey, token: string, leaseMs?: number): Promise<Lease | undefined>;
  /**
   * Give up the hold on a `pending` call (the owner parks it: it asked a person and holds no
   * worker slot). The call stays `pending`, without a lease: queued for its pool again.
   * @returns false when the token is not the call's or the call is not `pending`.
   */
  releaseLease(call: CallKey, token: string): Promise<boolean>;
  /**
   * The sweep: every `running` call whose lease lapsed (or whose owner is gone, as
   * {@link CallJournal.recover}) becomes `interrupted` ("may have run"; never `pending` again,
   * never run again); every `pending` call whose lease lapsed loses it (queued for its pool
   * again, or taken over by the next caller). Anyone may run it; atomic per call.
   * @returns the calls marked `interrupted`.
   */
  expireLeases(): Promise<CallRecord[]>;
}

/**
 * Waiting for a change another process makes, without each waiter polling: the SQLite store
 * checks on one shared timer every `pollMs`; the PostgreSQL store is woken by
 * `LISTEN/NOTIFY` (with a slow check as a safety net and after a reconnection). Each promise
 * settles at once when the thing waited for is there already, and rejects with the signal's
 * reason when `signal` aborts (the waiter is removed then).
 */
export interface CallWaits {
  /**
   * The call once it has ended (`done`, `failed`, `denied`, `interrupted`); a call not yet
   * recorded is waited for. `undefined` when retention deleted it (its tombstone says how it ended).
   */
  waitForEnd(call: CallKey, signal?: AbortSignal): Promise<CallRecord | undefined>;
  /** The answer of question `approvalId` once given (`cancelled` when its call ended unanswered). Rejects with an Error for an unknown question. */
  waitForAnswer(approvalId: number, signal?: AbortSignal): Promise<string>;
  /** Resolves `true` once someone asked for the call to be cancelled, `false` once it ended without that. */
  waitForCancel(call: CallKey, signal?: AbortSignal): Promise<boolean>;
}

/** The whole call store. */
export interface CallStore extends CallJournal, QuestionBook, CallFeed, SessionSettings, Retention, TaskBindings, CallLeases, CallWaits, ScheduledTasks {}

/**
 * The pool a call waits in for a worker: its pool, when it is `pending`, queued for a pool,
 * and held by no live lease (`now`: ms since the epoch); else `undefined`. What a reconciler
 * re-sends and `toolgate trace` shows as "waiting for a worker of pool P".
 */
export function queuedFor(record: Pick<CallRecord, 'state' | 'pool' | 'leaseExpiresAt'>, now = Date.now()): string | undefined {
  if (record.state !== 'pending' || record.pool === undefined) return undefined;
  return record.leaseExpiresAt === undefined || record.leaseExpiresAt <= now ? record.pool : undefined;
}
