/**
 * How a task looks to the model (`task_get`, `task_wait`, `task_list`): its stored record
 * (`src/ledger/scheduled-tasks.ts`) joined with the call it became once started, whose state
 * and stored result are the task's. Also the bounds of the task domain and the checks of its
 * inputs, shared by the scheduler's operations (`task-scheduler.ts`).
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import type { CallStore } from '../ledger/call-store.js';
import type { TaskRecord } from '../ledger/scheduled-tasks.js';

/** Bounds of the task domain. */
export const TASK_LIMITS = Object.freeze({
  /** Longest `task_wait`, in seconds. */
  waitSeconds: 300,
  /** Furthest a task may be scheduled ahead, in seconds (30 days). */
  aheadSeconds: 30 * 24 * 3600,
  /** Tasks of one workspace not yet started (scheduled or paused) at most. */
  openTasks: 200,
  /** Characters of a task's arguments as JSON at most. */
  argumentChars: 64 * 1024,
  /** Characters of a title at most. */
  titleChars: 200,
  /** Characters of a call's output a task view shows at most (the whole output: `toolgate result <call id>`). */
  outputChars: 4000,
  /** Tasks one `task_list` returns at most. */
  listed: 100,
});

/** What a task is doing, as the model is told: a stored state, or its call's. */
export type TaskStatus = 'scheduled' | 'paused' | 'cancelled' | 'starting' | 'pending' | 'waiting_for_approval' | 'running' | 'done' | 'failed' | 'denied' | 'interrupted';

/** Statuses after which nothing more happens. */
export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['cancelled', 'done', 'failed', 'denied', 'interrupted']);

/** A task as the model sees it. */
export interface TaskView {
  id: string;
  title?: string;
  tool: string;
  arguments: Record<string, unknown>;
  status: TaskStatus;
  /** When it is (or was) due, ISO 8601 UTC. */
  runAt: string;
  detached: boolean;
  /** The call it runs as (for `toolgate trace`, `toolgate approvals`, `toolgate result`). */
  callId: string;
  /** Once ended: the call's result. */
  result?: { success: boolean; output: string; errorCode?: string; error?: string };
  /** The id of the question waiting for a person, when `waiting_for_approval`. */
  approvalId?: number;
}

/** The view of `task` now (its call's state and result once started). */
export async function viewOf(store: CallStore, task: TaskRecord, withResult = true): Promise<TaskView> {
  const view: TaskView = {
    id: task.id, ...(task.title ? { title: task.title } : {}), tool: task.tool, arguments: task.arguments, status: task.state as TaskStatus,
    runAt: new Date(task.runAt).toISOString(), detached: task.detached, callId: task.callId,
  };
  if (task.state !== 'started') return view;
  const call = await store.get(task.callId, task.session);
  if (call === undefined) {
    view.status = 'starting';
    return view;
  }
  if (call.state === 'pending') {
    const question = (await store.pendingApprovals()).find((q) => q.callId === task.callId && q.session === task.session && q.answer === undefined);
    view.status = question === undefined ? 'pending' : 'waiting_for_approval';
    if (question !== undefined) view.approvalId = question.id;
    return view;
  }
  view.status = call.state;
  if (call.state !== 'running' && withResult) {
    const stored = await store.result(task.callId, task.session);
    if (stored !== undefined) {
      const r = stored.result;
      const output = r.output.length > TASK_LIMITS.outputChars ? `${r.output.slice(0, TASK_LIMITS.outputChars)}\n[cut at ${TASK_LIMITS.outputChars} characters; the whole output: toolgate result ${task.callId}]` : r.output;
      view.result = { success: r.success, output, ...(r.errorCode ? { errorCode: r.errorCode } : {}), ...(r.error && r.error !== r.output ? { error: r.error.slice(0, 1000) } : {}) };
    }
  }
  return view;
}

/** A bad input: `INVALID_ARGUMENTS`, saying nothing changed. */
export function badInput(message: string): ToolExecutionError {
  return new ToolExecutionError(/Nothing was \w+\.$/.test(message) ? message : `${message} Nothing was changed.`, 'INVALID_ARGUMENTS');
}

/** A change the task's state does not allow: `TOOL_ERROR`, saying nothing changed. */
export function refused(message: string): ToolExecutionError {
  return new ToolExecutionError(/Nothing was \w+\.$/.test(message) ? message : `${message} Nothing was changed.`);
}

/**
 * When a task is due, from `at` (ISO 8601 with a zone) or `delaySeconds`; now when neither.
 * @throws ToolExecutionError for both, a malformed time, a time in the past or too far ahead.
 */
export function dueTime(args: { at?: unknown; delaySeconds?: unknown }, now = Date.now()): number {
  if (args.at !== undefined && args.delaySeconds !== undefined) throw badInput('Give at or delaySeconds, not both.');
  let runAt = now;
  if (args.at !== undefined) {
    const text = String(args.at);
    // A zone is required: a time without one means a different instant on every machine.
    const parsed = /(Z|[+-]\d\d:?\d\d)$/i.test(text.trim()) ? Date.parse(text) : Number.NaN;
    if (!Number.isFinite(parsed)) throw badInput(`at ${JSON.stringify(text.slice(0, 100))} is not an ISO 8601 time with a zone, such as "2026-12-05T14:30:00Z".`);
    if (parsed < now) throw badInput(`at ${text.slice(0, 100)} is in the past (it is now ${new Date(now).toISOString()}): a task runs now or later.`);
    runAt = parsed;
  } else if (args.delaySeconds !== undefined) {
    const delay = Number(args.delaySeconds);
    if (!Number.isFinite(delay) || delay < 0) throw badInput(`delaySeconds must be 0 or more; got ${String(args.delaySeconds).slice(0, 50)}: a task runs now or later.`);
    runAt = now + delay * 1000;
  }
  if (runAt > now + TASK_LIMITS.aheadSeconds * 1000) throw badInput(`a task may be scheduled at most ${TASK_LIMITS.aheadSeconds / 86_400} days ahead.`);
  return runAt;
}
