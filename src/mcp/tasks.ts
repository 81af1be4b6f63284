/**
 * MCP tasks (specification 2025-11-25, experimental) kept in the call ledger: the SDK's
 * {@link TaskStore} interface, implemented over `src/ledger/`, so that `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` (answered by the SDK's `Protocol` once a
 * server is given a `taskStore`) read what the ledger holds, in this process or any later one.
 *
 * A task is a ledger call: its task id is the call id, in the ledger session
 * {@link TASK_SESSION}. Its status is read from the call:
 *
 * | ledger                                   | task status      |
 * |------------------------------------------|------------------|
 * | not recorded yet (deciders), `running`   | `working`        |
 * | `pending` with an unanswered question    | `input_required` |
 * | ended with a successful result           | `completed`      |
 * | ended unsuccessfully, `denied`, `interrupted` (the server died while it ran) | `failed` |
 * | `tasks/cancel` asked (the cancel flag)   | `cancelled`      |
 *
 * The ttl is the server's (`ttlMs`, a receiver may override what a client asks for) and counts
 * from creation; a task that ended more than `ttlMs` after it was created is no longer found. A
 * task that has not ended is never dropped. The ledger's retention (10,000 calls by default)
 * may drop one earlier.
 *
 * Tasks are not bound to a client's session: a client that reconnects (a new session, or a new
 * `toolgate mcp` on the same state folder) finds its tasks. Everyone who can reach the server
 * can read them, as everyone who can reach it can call its tools.
 *
 * @module
 */
import crypto from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CallRecord, Ledger, NewCall } from '../ledger/store.js';
import { INTERRUPTED_MESSAGE } from '../ledger/store.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { toCallToolResult } from '../formats/mcp.js';
import { failedResult } from '../closeout/results.js';
import { PathTraversalError } from '../errors/errors.js';

/** The ledger session of calls made as MCP tasks (with the task id as call id, their idempotency key). */
export const TASK_SESSION = 'mcp-tasks';

/** Options of {@link LedgerTaskStore}; every option documents its default. */
export interface LedgerTaskStoreOptions {
  /** How long a task stays fetchable, counted from its creation, in milliseconds. Default 3600000 (one hour). */
  ttlMs?: number;
  /** How often clients should poll `tasks/get` (and how often a blocking `tasks/result` checks), in milliseconds. Default 500. */
  pollIntervalMs?: number;
  /** Tasks `tasks/list` returns per page. Default 100. */
  pageSize?: number;
}

/** A task this process runs. */
interface LiveTask {
  readonly createdAt: number;
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
const DEFAULTS = { ttlMs: 3_600_000, pollIntervalMs: 500, pageSize: 100 };

/**
 * The SDK's `TaskStore` over a {@link Ledger}. One per ledger, shared by every MCP server (HTTP
 * session) of a process, so that a client reconnecting to the same process finds the tasks it
 * runs; another process on the same ledger reads them from the file.
 */
export class LedgerTaskStore implements TaskStore {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly live = new Map<string, LiveTask>();

  constructor(
    readonly ledger: Ledger,
    /** Finds a tool by name (its output schema shapes the result); `undefined` for one no longer served. */
    private readonly toolNamed: (name: string) => RegisteredTool | undefined,
    options: LedgerTaskStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULTS.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULTS.pollIntervalMs;
    this.pageSize = options.pageSize ?? DEFAULTS.pageSize;
  }

  /** A new task, `working`, with a fresh id (nothing runs until {@link start}). */
  async createTask(_params: CreateTaskOptions, _requestId: RequestId, _request: Request, _sessionId?: string): Promise<Task> {
    const createdAt = Date.now();
    // The creation time is part of the id, so that every process reports the same createdAt
    // (the ledger records the call a little later, when the executor first writes it).
    const taskId = `task_${createdAt.toString(36)}_${crypto.randomUUID()}`;
    this.live.set(taskId, { createdAt, controller: new AbortController(), done: Promise.resolve(), cancelled: false, result: undefined, success: false });
    return this.taskOf(taskId, 'working', createdAt, createdAt);
  }

  /**
   * Run a created task's call in the background: `run` is given the task's signal (aborted by
   * `tasks/cancel`). Its end is in the ledger (the executor writes it; a call the executor never
   * recorded, such as one with invalid arguments, is recorded here with its result).
   * @param entry - the call as the ledger would record it, for one the executor did not.
   * @param onEnd - told the result once the call ended (a status notification, for instance).
   */
  start(taskId: string, entry: Omit<NewCall, 'callId' | 'session'>, run: TaskRun, onEnd?: (result: CallToolResult, success: boolean) => void): void {
    const task = this.live.get(taskId);
    if (task === undefined) throw new Error(`task ${taskId} was not created by this store`);
    this.forgetOld();
    task.done = run(task.controller.signal)
      .catch((error: unknown) => failedResult(
        error instanceof PathTraversalError ? 'PATH_TRAVERSAL' : 'INTERNAL', `the task failed: ${(error as Error)?.message ?? String(error)}`, { tool: entry.tool, callId: taskId },
      ))
      .then((result) => {
        task.result = toCallToolResult(this.toolNamed(entry.tool) ?? NO_SCHEMA, result);
        task.success = result.success;
        // A call the executor never recorded (invalid arguments, say) is recorded with its end, so it outlives this process.
        if (this.ledger.get(taskId, TASK_SESSION) === undefined) {
          this.ledger.finish({ ...entry, callId: taskId, session: TASK_SESSION }, { state: 'failed', decisions: result.decisions, result });
        }
        onEnd?.(task.result, result.success);
      })
      .catch(() => undefined);
  }

  async getTask(taskId: string, _sessionId?: string): Promise<Task | null> {
    const record = this.ledger.get(taskId, TASK_SESSION);
    const task = this.live.get(taskId);
    if (record === undefined) {
      if (task === undefined) return null;
      const status = task.cancelled ? 'cancelled' : task.result === undefined ? 'working' : task.success ? 'completed' : 'failed';
      return this.expired(task.createdAt, status) ? null : this.taskOf(taskId, status, task.createdAt, task.createdAt);
    }
    const { status, message } = this.statusOf(record, task);
    const createdAt = createdAtOf(taskId) ?? record.createdAt;
    if (this.expired(createdAt, status)) return null;
    return this.taskOf(taskId, status, createdAt, record.endedAt ?? record.startedAt ?? record.createdAt, message);
  }

  /** Results are the ledger's (the executor stores them); this keeps only the converted one for this process. */
  async storeTaskResult(taskId: string, _status: 'completed' | 'failed', result: Result, _sessionId?: string): Promise<void> {
    const task = this.live.get(taskId);
    if (task !== undefined && task.result === undefined) task.result = result as CallToolResult;
  }

  async getTaskResult(taskId: string, _sessionId?: string): Promise<Result> {
    const task = this.live.get(taskId);
    const stored = this.ledger.result(taskId, TASK_SESSION);
    if (stored !== undefined) {
      const record = this.ledger.get(taskId, TASK_SESSION)!;
      return toCallToolResult(this.toolNamed(record.tool) ?? NO_SCHEMA, stored.result);
    }
    if (task?.result !== undefined) return task.result;
    if (task?.cancelled === true || this.ledger.get(taskId, TASK_SESSION)?.cancelRequested === true) {
      return { content: [{ type: 'text', text: 'Error: the task was cancelled before its tool ran.' }], isError: true };
    }
    throw new Error(`task ${taskId} has no result yet`);
  }

  /**
   * `cancelled` (from `tasks/cancel`): set the ledger's cancel flag and abort the call's signal
   * (the executor stops the tool). A call of another process is flagged only; one of a process
   * that is gone, still waiting for an answer, is ended here. Other statuses are read from the
   * ledger, not set.
   */
  async updateTaskStatus(taskId: string, status: Task['status'], _statusMessage?: string, _sessionId?: string): Promise<void> {
    if (status !== 'cancelled') return;
    const task = this.live.get(taskId);
    if (task !== undefined) task.cancelled = true;
    const record = this.ledger.get(taskId, TASK_SESSION);
    if (record !== undefined) {
      this.ledger.requestCancel(taskId, TASK_SESSION);
      if (task === undefined && record.state === 'pending' && !this.ledger.ownerAlive(record)) {
        const result: ToolExecutionResult = {
          success: false, output: 'Error: cancelled by tasks/cancel before it ran', error: 'cancelled by tasks/cancel before it ran', errorCode: 'ABORTED',
          durationMs: 0, confirmed: false, tool: record.tool, version: record.version, callId: taskId, stopReason: 'not_run',
        };
        this.ledger.finish({ callId: taskId, session: TASK_SESSION }, { state: 'failed', decisions: undefined, result });
      }
    }
    task?.controller.abort(new Error('cancelled by tasks/cancel'));
  }

  async listTasks(cursor?: string, _sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const ids = this.ledger.list({ session: TASK_SESSION, limit: 10_000 }).map((r) => r.callId);
    const known = new Set(ids);
    // Tasks still in their deciders (not recorded yet) come first: they are the newest.
    const all = [...[...this.live.keys()].filter((id) => !known.has(id)).reverse(), ...ids];
    let from = 0;
    if (cursor !== undefined) {
      const at = all.indexOf(cursor);
      if (at < 0) throw new Error(`unknown cursor ${JSON.stringify(cursor.slice(0, 100))}`);
      from = at + 1;
    }
    const tasks: Task[] = [];
    let i = from;
    for (; i < all.length && tasks.length < this.pageSize; i++) {
      const task = await this.getTask(all[i]!);
      if (task !== null) tasks.push(task);
    }
    return i < all.length ? { tasks, nextCursor: all[i - 1]! } : { tasks };
  }

  /**
   * Settles once every task this process runs has ended or waits for an answer (which the
   * ledger keeps: `toolgate approvals allow` runs it later): what `toolgate mcp` waits for when
   * its client goes away, so that started tasks finish.
   */
  async idle(): Promise<void> {
    for (;;) {
      const waiting = [...this.live.entries()].filter(([id, t]) => t.result === undefined && this.ledger.get(id, TASK_SESSION)?.state !== 'pending');
      if (waiting.length === 0) return;
      await Promise.race([Promise.all(waiting.map(([, t]) => t.done)), new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs))]);
    }
  }

  private statusOf(record: CallRecord, task: LiveTask | undefined): { status: Task['status']; message?: string } {
    if (record.cancelRequested || task?.cancelled === true) return { status: 'cancelled', message: 'cancelled by tasks/cancel' };
    switch (record.state) {
      case 'running':
        return { status: 'working' };
      case 'pending': {
        const question = this.ledger.pendingApprovals().find((q) => q.callId === record.callId && q.session === TASK_SESSION);
        if (question === undefined) return { status: 'working' };
        return { status: 'input_required', message: `${record.tool} waits for confirmation (question ${question.id}): answer the client's prompt, or run \`toolgate approvals allow ${question.id}\` (or deny).` };
      }
      case 'interrupted':
        return { status: 'failed', message: INTERRUPTED_MESSAGE };
      case 'denied':
        return { status: 'failed', message: `denied${record.errorCode ? ` (${record.errorCode})` : ''}` };
      default: {
        const stored = this.ledger.result(record.callId, TASK_SESSION);
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
