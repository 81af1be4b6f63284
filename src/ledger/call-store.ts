/**
 * The call store: what toolgate keeps of every call it handles (its record, claim, decisions,
 * questions and answers, event log and result), behind one interface, {@link CallStore}, so
 * that the store can change (SQLite on one machine today: {@link Ledger} in `store.ts`; a
 * PostgreSQL store shared by several machines next) without touching its callers. Every
 * implementation passes the contract suite in `test/ledger/call-store-contract.ts`.
 *
 * The interface is split by concern ({@link CallJournal}, {@link QuestionBook},
 * {@link CallFeed}, {@link Retention}, {@link SessionSettings}, {@link TaskBindings}); {@link CallStore} is all of
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
 * - **owner**: the process handling a call (pid and start time). A call whose owner is gone is
 *   repaired by the next reader or writer that meets it: a `pending` one is taken over, a
 *   `running` one becomes `interrupted`.
 * - **claim** (a lease without expiry): the `pending -> running` step, taken by exactly one
 *   owner; it lasts until the call ends or its owner dies (then the call is `interrupted`,
 *   never run again). A claim is never taken twice, by this process or another.
 * - **atomic**: a method marked so commits all of its writes together or none, and two
 *   processes calling it at once see one of them first.
 *
 * @module
 */
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';

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
  /** A new call: recorded `pending`, owned by this process. */
  | { readonly kind: 'recorded' }
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
   * @returns false when the call is unknown or ended already (an ended call stays as it was).
   */
  finish(call: CallKey | NewCall, end: CallEnd): Promise<boolean>;
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
  finishSoon(call: CallKey | NewCall, end: CallEnd): void;
  /** Commit what {@link finishSoon} queued. Rejects with the store's error when it cannot be written (the ends stay queued and are retried). */
  flush(): Promise<void>;
  /**
   * Mark every `running` call whose owner is gone `interrupted`, with a failed result
   * (`INTERRUPTED`, stop reason `interrupted`, {@link INTERRUPTED_MESSAGE}). Nothing runs
   * again. Atomic. @returns the calls marked.
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
   * Optional: record the latest progress of a `running` call (an event `progress` with
   * `{ done, total?, message? }`), for the cockpit of another process to show. Callers
   * throttle it (the CLI: at most one a second). @returns false when unknown or not running.
   */
  progress?(callId: string, session: string, progress: CallProgressDetail): Promise<boolean>;
  /** Set the cancel flag of a `pending` or `running` call (stopping it is its owner's part). @returns false when unknown or ended. Atomic. */
  requestCancel(callId: string, session: string): Promise<boolean>;
  /** Whether someone asked for the call to be cancelled. */
  cancelRequested(callId: string, session: string): Promise<boolean>;
  /** Whether the process that owns a call (or asked a question) still runs. */
  ownerAlive(record: Pick<CallRecord, 'ownerPid' | 'ownerStart'>): boolean;
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
   * when it is unanswered or answered but not acted on. A {@link NewCall} not yet recorded is
   * recorded with it. Atomic. @returns the question's id. Rejects with an Error when the call is not recorded.
   */
  ask(call: CallKey | NewCall, request: unknown): Promise<number>;
  /**
   * Answer a question; the first answer counts. Atomic.
   * @param by - who answers (`handler`, `cli:<pid>`, `cockpit:<pid>`).
   * @returns the answer that counts and whether it is this one; `undefined` for an unknown question.
   */
  answer(approvalId: number, answer: string, by: string): Promise<CountedAnswer | undefined>;
  /** The answer of a call's latest question, when it has one answered and not cancelled. */
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
export interface TaskBindings {
  /** Bind a call (a task) to its requestor, before the call is recorded. Rejects with the store's error when it cannot be written (nothing is bound then), also when the key is bound already. */
  bindTask(callId: string, session: string, requestor: string): Promise<void>;
  /** Undo {@link bindTask} (the call could not be recorded). Never rejects. */
  unbindTask(callId: string, session: string): Promise<void>;
  /** The requestor a call is bound to; `undefined` when none. */
  taskRequestor(callId: string, session: string): Promise<string | undefined>;
  /** The call ids of `session` bound to `requestor`. */
  tasksOf(session: string, requestor: string): Promise<Set<string>>;
}

/** The whole call store. */
export interface CallStore extends CallJournal, QuestionBook, CallFeed, SessionSettings, Retention, TaskBindings {}
