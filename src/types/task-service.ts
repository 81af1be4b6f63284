/**
 * The seam between the `task` tools (`tools-ported/task/`) and the scheduler that keeps
 * their tasks (`src/system/task-scheduler.ts`): the tool system lends each call of a task
 * tool a {@link TaskService} bound to that call's caller (its session, turn, mode, approval
 * mode and lazy visibility) through the call's `CallerServices` (`src/builtin/caller-services.ts`), read by shape so that this base module
 * imports nothing above it; the tool reads it
 * back with {@link taskServiceOf}. A call that was lent none (a tool system without a call
 * store, or a registry used without a tool system) is answered "unavailable".
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import type { ToolContext } from './tool.js';

/** The domain of the task tools. @internal */
export const TASK_DOMAIN = 'task';

/** The task tools, by name (004_1a9ea3106da7ef2e.txt). @internal */
export const TASK_TOOL_NAMES = Object.freeze([
  'task_create', 'task_wait', 'task_cancel', 'task_update', 'task_detach', 'task_list', 'task_get', 'task_reschedule', 'task_pause', 'task_resume',
] as const);

/** One of {@link TASK_TOOL_NAMES}. @internal */
export type TaskToolName = (typeof TASK_TOOL_NAMES)[number];

/** What a task tool asks of the scheduler, for one call. @internal */
export interface TaskService {
  /**
   * Answer one call of a task tool.
   * @param tool - which tool is called.
   * @param args - its validated arguments.
   * @param signal - aborts a wait (`task_wait`).
   * @param deadline - when the call will be stopped (ms since the epoch), if ever: a wait ends before it.
   * @returns the answer for the model (JSON text).
   * @throws ToolExecutionError for bad input (`INVALID_ARGUMENTS`) or a change the task's state
   *   does not allow (`TOOL_ERROR`); nothing is changed then.
   */
  answer(tool: TaskToolName, args: Readonly<Record<string, unknown>>, signal: AbortSignal, deadline: number | undefined): Promise<string>;
}

/** Why task tools are unavailable when no service was lent. @internal */
export const TASK_SERVICE_UNAVAILABLE =
  'tasks are unavailable here: they are kept in the call store, and this tool system has none (ledger: false) or opened it read-only.';

/**
 * The task service lent to this call.
 * @throws ToolExecutionError when none was lent ({@link TASK_SERVICE_UNAVAILABLE}).
 * @internal
 */
export function taskServiceOf(ctx: Pick<ToolContext, 'client'>): TaskService {
  const service = (ctx.client?.services as { tasks?: Partial<TaskService> } | undefined)?.tasks;
  if (typeof service?.answer !== 'function') throw new ToolExecutionError(TASK_SERVICE_UNAVAILABLE);
  return service as TaskService;
}
