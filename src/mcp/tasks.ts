/**
 * MCP tasks (specification 2025-11-25, experimental) kept in the call ledger: a
 * {@link TaskStore} interface, implemented over `src/ledger/`, so that `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` (answered by `task-methods.ts` for clients of
 * the 2025 revisions) read what the ledger holds, in this process or any later one.
 *
 * A task is a ledger call: its task id is the call id, in the ledger session
 * {@link TASK_SESSION}. Its status is read from the call:
 *
 * | ledger                                   | task status      |
 * |------------------------------------------|------------------|
 * | not recorded yet (deciders), `running`   | `working`        |
 * | `pending` with an unanswered question    | `input_required` |
 * | ended with a successful result           | `completed`      |
 * | ended unsuccessfully, `denied`, `interrupted` (the server died while it ran; a server already running sees that when asked, not only a newly started one) | `failed` |
 * | `tasks/cancel` asked (the cancel flag)   | `cancelled`      |
 *
 * The ttl is the server's (`ttlMs`, a receiver may override what a client asks for: a larger
 * one asked for is clamped to it; a negative or non-number one is refused with `-32602`) and counts
 * from creation; a task that ended more than `ttlMs` after it was created is no longer found. A
 * task that has not ended is never dropped. The ledger's retention (10,000 calls by default)
 * may drop one earlier.
 *
 * A task is recorded in the ledger (`pending`) before its task id is answered, so that a task
 * id a client holds is always one the ledger knows; a task whose server died before its call
 * ran (no question asked) reads `failed` ("it did not run").
 *
 * At most `maxLiveTasks` tasks (default 64) run or wait at once in one process (shared by
 * every session of `toolgate mcp --http`); a `tools/call` asking for a task beyond that is
 * refused with the JSON-RPC error `-32600` (invalid request) saying so. Waiting tasks share one
 * poller per ledger (`ledger.pollMs`, 250 ms by default) for their questions and cancel flags.
 *
 * `tasks/cancel` for a task another live process runs (another `toolgate mcp` on the same state
 * folder) sets the ledger's cancel flag; the running process sees it at its next poll and
 * aborts the call's signal, so the tool stops.
 *
 * Tasks are bound to their requestor (MCP 2025-11-25, "Security considerations" of tasks): the
 * key the server gives when a task is created ({@link LOCAL_REQUESTOR} over stdio; for
 * streamable HTTP, a hash of the session id and the server's token, {@link httpRequestor}).
 * `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` of another requestor find
 * nothing: the same "not found" as for an id that never existed. The binding is kept in the
 * ledger (`src/ledger/task-requestors.ts`), so it outlives the process as the task does: a
 * restarted `toolgate mcp` over stdio finds the tasks of the stdio clients before it (the
 * local user, who can read the ledger anyway), and nobody finds the tasks of an HTTP session
 * that is gone. A server hands the SDK a view of the store bound to its client
 * ({@link LedgerTaskStore.boundTo}); the SDK's session id is never trusted for this.
 *
 * @module
 */
import crypto from 'node:crypto';
import type { CallToolResult, Request, RequestId, Result, Task } from '@modelcontextprotocol/server';
import { createRequire } from 'node:module';
import { INTERRUPTED_MESSAGE, type CallRecord, type CallStore, type NewCall } from '../ledger/call-store.js';
import { pollerOf } from '../ledger/poller.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { toCallToolResult } from '../formats/mcp.js';
import { failedResult } from '../closeout/results.js';
import { PathTraversalError, ToolgateOptionError } from '../errors/errors.js';

/** The ledger session of calls made as MCP tasks (with the task id as call id, their idempotency key). */
export const TASK_SESSION = 'mcp-tasks';

/** The requestor of tasks created over stdio (or any transport without sessions): the local user. */
export const LOCAL_REQUESTOR = 'local';

/**
 * The requestor of tasks created by one streamable HTTP session: a SHA-256 of the session id
 * and the server's token (none: the empty string), so that the ledger keeps no secret.
 */
export function httpRequestor(sessionId: string, token: string | undefined): string {
  return `http:${crypto.createHash('sha256').update(JSON.stringify([sessionId, token ?? ''])).digest('hex')}`;
}

/** What a `tools/call` asks of its task (MCP 2025-11-25 `TaskMetadata`): a ttl the server may override. */
export interface CreateTaskOptions {
  /** The ttl the client asks for, in ms, 0 or more (this store keeps its own `ttlMs`: a larger one is clamped to it; a negative one is refused). */
  ttl?: number;
}

/**
 * A task store as one MCP server sees it: the 2025-11-25 task methods of `task-methods.ts`
 * answer from it. SDK v1 defined this interface (`TaskStore`) and answered the methods itself;
 * SDK v2 has no runtime for 2025-11-25 tasks, so the shape is ours now (the same methods).
 */
export interface TaskStore {
  createTask(params: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task>;
  /** `sessionId` (what SDK v1 passed) is ignored by a bound view: it acts as its requestor. */
  getTask(taskId: string, sessionId?: string): Promise<Task | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void>;
  getTaskResult(taskId: string): Promise<Result>;
  updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void>;
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
}

let errors: typeof import('./protocol-errors.js') | undefined;

/**
 * The SDK's `ProtocolError` and its codes, loaded when first needed (`protocol-errors.ts`):
 * the root entry exports this store, and `import('toolgate')` does not load the SDK.
 */
function protocolErrors(): typeof import('./protocol-errors.js') {
  // Not named `require`: the build's bundler would take a call of that name for its own.
  const load = createRequire(import.meta.url);
  errors ??= load('./protocol-errors.js') as typeof import('./protocol-errors.js');
  return errors;
}

/**
 * Check the ttl a client asks for (MCP 2025-11-25 `TaskMetadata.ttl`: a requested duration in
 * milliseconds, which the receiver may override). A negative, non-finite or non-number ttl is
 * refused; any other is clamped to the server's own (`ttlMs`, what every task gets and
 * `tasks/get` reports), so that `1e308` asks for nothing more than an hour.
 * @throws ProtocolError `-32602` (invalid params) naming the value.
 */
function checkRequestedTtl(ttl: unknown): void {
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0) {
    const { ProtocolError, ProtocolErrorCode } = protocolErrors();
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `task.ttl must be a number of milliseconds, 0 or more (got ${JSON.stringify(ttl)?.slice(0, 40) ?? typeof ttl}); the server keeps a task for its own ttl, at most, whatever is asked`);
  }
}

/** What another requestor gets for a task that is not theirs, as for one that does not exist. */
function notFound(taskId: string): Error & { code: number } {
  // A plain error with a code (the SDK sends its message and code as they are).
  return Object.assign(new Error(`Task not found: ${taskId.slice(0, 200)}`), { code: protocolErrors().ProtocolErrorCode.InvalidParams });
}

/** Options of {@link LedgerTaskStore}; every option documents its default. */
export interface LedgerTaskStoreOptions {
  /** How long a task stays fetchable, counted from its creation, in milliseconds. Default 3600000 (one hour). */
  ttlMs?: number;
  /** How often clients should poll `tasks/get` (and how often a blocking `tasks/result` checks), in milliseconds. Default 500. */
  pollIntervalMs?: number;
  /** Tasks `tasks/list` returns per page. Default 100. */
  pageSize?: number;
  /**
   * Tasks this process runs or keeps waiting (for an answer) at once, at most; a task asked
   * for beyond that is refused with the JSON-RPC error `-32600`. Default 64.
   */
  maxLiveTasks?: number;
}

/** A task this process runs. */
interface LiveTask {
  readonly createdAt: number;
  /** Who created it: only they find it. */
  readonly requestor: string;
  readonly controller: AbortController;
  /** Settles when the call has ended (never rejects). */
  done: Promise<void>;
  /** `tasks/cancel` asked. */
  cancelled: boolean;
  /** The result, once ended (also when the ledger never recorded the call). */
  result: CallToolResult | undefined;
  success: boolean;
}

/** What {@link LedgerTaskStore.start} runs: the call through the executor, with the task's signal. */
export type TaskRun = (signal: AbortSignal) => Promise<ToolExecutionResult>;

/** The shape of a tool no longer served: its result is plain text. */
const NO_SCHEMA = { outputSchema: null };
const DEFAULTS = { ttlMs: 3_600_000, pollIntervalMs: 500, pageSize: 100, maxLiveTasks: 64 };

/** The message of a task whose server stopped before its call ran. */
const NOT_RUN_MESSAGE = 'toolgate stopped before this task\'s call ran; it did not run';

/**
 * A {@link TaskStore} over a call store (a `Ledger`, or any {@link CallStore}). One per ledger, shared by every MCP server (HTTP
 * session) of a process, so that a client reconnecting to the same process finds the tasks it
 * runs; another process on the same ledger reads them from the file.
 */
export class LedgerTaskStore {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Tasks that may run or wait at once in this process. */
  readonly maxLiveTasks: number;
  private readonly pageSize: number;
  private readonly live = new Map<string, LiveTask>();

  constructor(
    readonly ledger: CallStore,
    /** Finds a tool by name (its output schema shapes the result); `undefined` for one no longer served. */
    private readonly toolNamed: (name: string) => RegisteredTool | undefined,
    options: LedgerTaskStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULTS.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULTS.pollIntervalMs;
    this.pageSize = options.pageSize ?? DEFAULTS.pageSize;
    this.maxLiveTasks = options.maxLiveTasks ?? DEFAULTS.maxLiveTasks;
    if (!Number.isSafeInteger(this.maxLiveTasks) || this.maxLiveTasks < 1) {
      throw ToolgateOptionError.fromBadOption('tasks.maxLiveTasks', `must be a positive integer; got ${String(options.maxLiveTasks).slice(0, 50)}`);
    }
  }

  /** Tasks of this process that have not ended (running, or waiting for an answer). */
  get liveCount(): number {
    let n = 0;
    for (const task of this.live.values()) if (task.result === undefined) n++;
    return n;
  }

  /**
   * A view of this store for one requestor, to hand the SDK's `Server` as its `taskStore`:
   * every method acts as `requestor` whatever session id the SDK passes.
   */
  boundTo(requestor: string): TaskStore {
    return {
      createTask: (params, requestId, request) => this.createTask(params, requestId, request, requestor),
      getTask: (taskId) => this.getTask(taskId, requestor),
      storeTaskResult: (taskId, status, result) => this.storeTaskResult(taskId, status, result, requestor),
      getTaskResult: (taskId) => this.getTaskResult(taskId, requestor),
      updateTaskStatus: (taskId, status, message) => this.updateTaskStatus(taskId, status, message, requestor),
      listTasks: (cursor) => this.listTasks(cursor, requestor),
    };
  }

  /**
   * Whether `requestor` may see the task: the one that created it (in this process: the live
   * task says; else the ledger's binding). A task bound to nobody is nobody's.
   */
  private async ownedBy(taskId: string, requestor: string): Promise<boolean> {
    const task = this.live.get(taskId);
    if (task !== undefined) return task.requestor === requestor;
    return (await this.ledger.taskRequestor(taskId, TASK_SESSION)) === requestor;
  }

  /**
   * A new task, `working`, with a fresh id, bound to `requestor` (nothing runs until
   * {@link start}, which records it and its binding).
   * @param requestor - who asks (the SDK passes its session id here when this store is handed
   *   to a `Server` directly; toolgate's servers hand it {@link boundTo} views). Default {@link LOCAL_REQUESTOR}.
   * @throws ProtocolError `-32600` (invalid request) when `maxLiveTasks` tasks have not ended yet;
   *   `-32602` (invalid params) when the ttl asked for is not a number of milliseconds, 0 or
   *   more ({@link checkRequestedTtl}).
   */
  async createTask(params: CreateTaskOptions, _requestId: RequestId, _request: Request, requestor: string = LOCAL_REQUESTOR): Promise<Task> {
    checkRequestedTtl(params?.ttl);
    if (this.liveCount >= this.maxLiveTasks) {
      const { ProtocolError, ProtocolErrorCode } = protocolErrors();
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `too many tasks: this server runs or keeps waiting at most ${this.maxLiveTasks} tasks at once, and that many have not ended. Wait for one to end (tasks/get), cancel one (tasks/cancel), or call the tool without a task.`,
      );
    }
    const createdAt = Date.now();
    // The creation time is part of the id, so that every process reports the same createdAt
    // (the ledger records the call a little later, when the executor first writes it).
    const taskId = `task_${createdAt.toString(36)}_${crypto.randomUUID()}`;
    this.live.set(taskId, { createdAt, requestor, controller: new AbortController(), done: Promise.resolve(), cancelled: false, result: undefined, success: false });
    return this.taskOf(taskId, 'working', createdAt, createdAt);
  }

  /**
   * Record a created task's call in the ledger (`pending`, committed before this resolves, so
   * before the task id is answered; its requestor bound first), then run it in the background: `run` is given the task's
   * signal, aborted by `tasks/cancel` (in this process, or by another one through the ledger's
   * cancel flag, checked every `ledger.pollMs`). Its end is in the ledger (the executor writes
   * it; a call the executor ended before running it, such as one with invalid arguments, is
   * ended here with its result).
   * @param entry - the call as the ledger records it until the executor amends it.
   * @param onEnd - told the result once the call ended (a status notification, for instance).
   * Rejects with ProtocolError `-32603` (internal error) when the ledger cannot record the call; nothing runs.
   */
  async start(taskId: string, entry: Omit<NewCall, 'callId' | 'session'>, run: TaskRun, onEnd?: (result: CallToolResult, success: boolean) => void): Promise<void> {
    const task = this.live.get(taskId);
    if (task === undefined) throw new Error(`task ${taskId} was not created by this store`);
    this.forgetOld();
    let bound = false;
    try {
      await this.ledger.bindTask(taskId, TASK_SESSION, task.requestor);
      bound = true;
      await this.ledger.record({ ...entry, callId: taskId, session: TASK_SESSION });
    } catch (error) {
      if (bound) await this.ledger.unbindTask(taskId, TASK_SESSION);
      this.live.delete(taskId);
      const { ProtocolError, ProtocolErrorCode } = protocolErrors();
      throw new ProtocolError(ProtocolErrorCode.InternalError, `the task was not started: the ledger ${this.ledger.file} could not record it (${(error as Error)?.message ?? String(error)})`);
    }
    // A tasks/cancel received by another process sets the cancel flag: abort the call here.
    let looking = false; // one look at a time: a slow store is awaited, not asked again meanwhile
    const unwatch = pollerOf(this.ledger).add(() => {
      if (looking || task.result !== undefined || task.controller.signal.aborted) return;
      looking = true;
      this.ledger.cancelRequested(taskId, TASK_SESSION).then((cancel) => {
        if (!cancel || task.result !== undefined) return;
        task.cancelled = true;
        task.controller.abort(new Error('cancelled by tasks/cancel'));
      }, () => undefined).finally(() => { looking = false; });
    });
    task.done = run(task.controller.signal)
      .catch((error: unknown) => failedResult(
        error instanceof PathTraversalError ? 'PATH_TRAVERSAL' : 'INTERNAL', `the task failed: ${(error as Error)?.message ?? String(error)}`, { tool: entry.tool, callId: taskId },
      ))
      .then(async (result) => {
        unwatch();
        task.result = toCallToolResult(this.toolNamed(entry.tool) ?? NO_SCHEMA, result);
        task.success = result.success;
        // A call the executor ended before it checked the ledger (invalid arguments, say) is
        // still pending there: it ends with its result, so it outlives this process.
        const state = (await this.ledger.get(taskId, TASK_SESSION))?.state;
        if (state === undefined || state === 'pending') {
          await this.ledger.finish({ ...entry, callId: taskId, session: TASK_SESSION }, { state: 'failed', decisions: result.decisions, result });
        }
        onEnd?.(task.result, result.success);
      })
      .catch(() => undefined)
      .finally(unwatch);
  }

  /** The task as `requestor` sees it: `null` when it does not exist, has expired, or is another requestor's. */
  async getTask(taskId: string, requestor: string = LOCAL_REQUESTOR): Promise<Task | null> {
    if (!(await this.ownedBy(taskId, requestor))) return null;
    let record = await this.ledger.get(taskId, TASK_SESSION);
    const task = this.live.get(taskId);
    if (record !== undefined && task === undefined && ((await this.endIfNeverRun(record)) || (await this.interruptIfOwnerDied(record)))) {
      record = await this.ledger.get(taskId, TASK_SESSION);
    }
    if (record === undefined) {
      if (task === undefined) return null;
      const status = task.cancelled ? 'cancelled' : task.result === undefined ? 'working' : task.success ? 'completed' : 'failed';
      return this.expired(task.createdAt, status) ? null : this.taskOf(taskId, status, task.createdAt, task.createdAt);
    }
    const { status, message } = await this.statusOf(record, task);
    const createdAt = createdAtOf(taskId) ?? record.createdAt;
    if (this.expired(createdAt, status)) return null;
    return this.taskOf(taskId, status, createdAt, record.endedAt ?? record.startedAt ?? record.createdAt, message);
  }

  /** Results are the ledger's (the executor stores them); this keeps only the converted one for this process. */
  async storeTaskResult(taskId: string, _status: 'completed' | 'failed', result: Result, requestor: string = LOCAL_REQUESTOR): Promise<void> {
    const task = this.live.get(taskId);
    if (task !== undefined && task.requestor === requestor && task.result === undefined) task.result = result as CallToolResult;
  }

  /** @throws ProtocolError `-32602` "Task not found" for another requestor's task, as for one that does not exist. */
  async getTaskResult(taskId: string, requestor: string = LOCAL_REQUESTOR): Promise<Result> {
    if (!(await this.ownedBy(taskId, requestor))) throw notFound(taskId);
    const task = this.live.get(taskId);
    const stored = await this.ledger.result(taskId, TASK_SESSION);
    if (stored !== undefined) {
      const record = (await this.ledger.get(taskId, TASK_SESSION))!;
      return toCallToolResult(this.toolNamed(record.tool) ?? NO_SCHEMA, stored.result);
    }
    if (task?.result !== undefined) return task.result;
    const record = await this.ledger.get(taskId, TASK_SESSION);
    if (task?.cancelled === true || record?.cancelRequested === true) {
      // As every error result: its code, outcome and side effects (none: the tool did not run).
      return toCallToolResult(NO_SCHEMA, failedResult('ABORTED', 'the task was cancelled before its tool ran.', { tool: record?.tool ?? '', callId: taskId }));
    }
    throw new Error(`task ${taskId} has no result yet`);
  }

  /**
   * `cancelled` (from `tasks/cancel`): set the ledger's cancel flag and abort the call's signal
   * (the executor stops the tool). A call another live process runs is stopped by that process
   * when its poller sees the flag (within `ledger.pollMs`); one of a process that is gone,
   * still waiting for an answer, is ended here. Other statuses are read from the
   * ledger, not set.
   * @throws ProtocolError `-32602` "Task not found" for another requestor's task, as for one that does not exist.
   */
  async updateTaskStatus(taskId: string, status: Task['status'], _statusMessage?: string, requestor: string = LOCAL_REQUESTOR): Promise<void> {
    if (!(await this.ownedBy(taskId, requestor))) throw notFound(taskId);
    if (status !== 'cancelled') return;
    const task = this.live.get(taskId);
    if (task !== undefined) task.cancelled = true;
    const record = await this.ledger.get(taskId, TASK_SESSION);
    if (record !== undefined) {
      await this.ledger.requestCancel(taskId, TASK_SESSION);
      if (task === undefined && record.state === 'pending' && !this.ledger.ownerAlive(record)) {
        const result = failedResult('ABORTED', 'cancelled by tasks/cancel before it ran', { tool: record.tool, version: record.version, callId: taskId, stopReason: 'not_run', confirmed: false });
        await this.ledger.finish({ callId: taskId, session: TASK_SESSION }, { state: 'failed', decisions: undefined, result });
      }
    }
    task?.controller.abort(new Error('cancelled by tasks/cancel'));
  }

  /** The tasks of `requestor`, newest first; a cursor naming another requestor's task is unknown. */
  async listTasks(cursor?: string, requestor: string = LOCAL_REQUESTOR): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const mine = await this.ledger.tasksOf(TASK_SESSION, requestor);
    const ids = (await this.ledger.list({ session: TASK_SESSION, limit: 10_000 })).map((r) => r.callId).filter((id) => mine.has(id));
    const known = new Set(ids);
    // Tasks not recorded yet come first: they are the newest.
    const all = [...[...this.live.entries()].filter(([id, t]) => t.requestor === requestor && !known.has(id)).map(([id]) => id).reverse(), ...ids];
    let from = 0;
    if (cursor !== undefined) {
      const at = all.indexOf(cursor);
      if (at < 0) throw new Error(`unknown cursor ${JSON.stringify(cursor.slice(0, 100))}`);
      from = at + 1;
    }
    const tasks: Task[] = [];
    let i = from;
    for (; i < all.length && tasks.length < this.pageSize; i++) {
      const task = await this.getTask(all[i]!, requestor);
      if (task !== null) tasks.push(task);
    }
    return i < all.length ? { tasks, nextCursor: all[i - 1]! } : { tasks };
  }

  /**
   * End a task recorded by a process that is gone before its call asked a question or ran
   * (`pending`, no question): nobody will run it, so it reads `failed` (it did not run).
   * @returns whether it was ended here.
   */
  private async endIfNeverRun(record: CallRecord): Promise<boolean> {
    if (record.state !== 'pending' || this.ledger.ownerAlive(record)) return false;
    if ((await this.ledger.answeredQuestion(record.callId, TASK_SESSION)) !== undefined) return false;
    if ((await this.ledger.pendingApprovals()).some((q) => q.callId === record.callId && q.session === TASK_SESSION)) return false;
    const result = failedResult('INTERRUPTED', NOT_RUN_MESSAGE, { tool: record.tool, version: record.version, callId: record.callId, stopReason: 'not_run', confirmed: false });
    return this.ledger.finish({ callId: record.callId, session: TASK_SESSION }, { state: 'failed', decisions: undefined, result });
  }

  /**
   * A task another process was running when it died (`kill -9`, say): the ledger recovers such
   * calls only when it is opened, so a server already running on the same state folder marks
   * it `interrupted` here (with every other call of a dead owner) when it is asked about it.
   * @returns whether it was marked here.
   */
  private async interruptIfOwnerDied(record: CallRecord): Promise<boolean> {
    if (record.state !== 'running' || this.ledger.ownerAlive(record)) return false;
    return (await this.ledger.recover()).some((r) => r.callId === record.callId && r.session === TASK_SESSION);
  }

  /**
   * Settles once every task this process runs has ended or waits for an answer (which the
   * ledger keeps: `toolgate approvals allow` runs it later): what `toolgate mcp` waits for when
   * its client goes away, so that started tasks finish.
   */
  async idle(): Promise<void> {
    for (;;) {
      // Parked: waiting for an answer to a question the ledger keeps.
      const parked = new Set((await this.ledger.pendingApprovals()).filter((q) => q.session === TASK_SESSION).map((q) => q.callId));
      const waiting = [...this.live.entries()].filter(([id, t]) => t.result === undefined && !parked.has(id));
      if (waiting.length === 0) return;
      await Promise.race([Promise.all(waiting.map(([, t]) => t.done)), new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs))]);
    }
  }

  private async statusOf(record: CallRecord, task: LiveTask | undefined): Promise<{ status: Task['status']; message?: string }> {
    if (record.cancelRequested || task?.cancelled === true) return { status: 'cancelled', message: 'cancelled by tasks/cancel' };
    switch (record.state) {
      case 'running':
        return { status: 'working' };
      case 'pending': {
        const question = (await this.ledger.pendingApprovals()).find((q) => q.callId === record.callId && q.session === TASK_SESSION);
        if (question === undefined) return { status: 'working' };
        return { status: 'input_required', message: `${record.tool} waits for confirmation (question ${question.id}): answer the client's prompt, or run \`toolgate approvals allow ${question.id}\` (or deny).` };
      }
      case 'interrupted':
        return { status: 'failed', message: INTERRUPTED_MESSAGE };
      case 'denied':
        return { status: 'failed', message: `denied${record.errorCode ? ` (${record.errorCode})` : ''}` };
      default: {
        const stored = await this.ledger.result(record.callId, TASK_SESSION);
        if (stored?.result.success === true) return { status: 'completed' };
        return { status: 'failed', message: stored?.result.errorCode ?? record.errorCode ?? 'failed' };
      }
    }
  }

  /** Drop the tasks of this process that ended and are past their ttl (the ledger keeps what is left of them). */
  private forgetOld(): void {
    const now = Date.now();
    for (const [id, t] of this.live) if (t.result !== undefined && now > t.createdAt + this.ttlMs) this.live.delete(id);
  }

  /** Whether a task is past its ttl: only ended ones expire. */
  private expired(createdAt: number, status: Task['status']): boolean {
    return status !== 'working' && status !== 'input_required' && Date.now() > createdAt + this.ttlMs;
  }

  private taskOf(taskId: string, status: Task['status'], createdAt: number, updatedAt: number, statusMessage?: string): Task {
    const task: Task = {
      taskId, status, ttl: this.ttlMs, createdAt: new Date(createdAt).toISOString(), lastUpdatedAt: new Date(updatedAt).toISOString(), pollInterval: this.pollIntervalMs,
    };
    if (statusMessage !== undefined) task.statusMessage = statusMessage;
    return task;
  }
}

/** The creation time a task id carries (`task_<ms, base 36>_<uuid>`), or `undefined` for another id. */
function createdAtOf(taskId: string): number | undefined {
  const m = /^task_([0-9a-z]+)_/.exec(taskId);
  if (m === null) return undefined;
  const ms = parseInt(m[1]!, 36);
  return Number.isSafeInteger(ms) ? ms : undefined;
}
