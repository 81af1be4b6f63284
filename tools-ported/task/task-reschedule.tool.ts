import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_reschedule. */
export interface TaskRescheduleInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
  /**
   * The new time: ISO 8601 with a zone, such as "2026-12-05T14:30:00Z".
   * @maxLength 64
   */
  at?: string;
  /**
   * Or: this many seconds from now (0 to 2592000).
   * @minimum 0
   * @maximum 2592000
   */
  delaySeconds?: number;
}

/**
 * Move a task that has not started yet (scheduled or paused) to another time: at an ISO 8601
 * time with a zone, or delaySeconds from now (not in the past, at most 30 days ahead).
 */
@tool({ name: 'task_reschedule', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskRescheduleTool implements Tool<TaskRescheduleInput, string> {
  async run(args: TaskRescheduleInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_reschedule', { ...args }, ctx.signal, ctx.deadline);
  }
}
