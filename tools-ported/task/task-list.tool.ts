import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_list. */
export interface TaskListInput {
  /** Only tasks in this stored state. Default: every state. */
  state?: 'scheduled' | 'paused' | 'cancelled' | 'started';
}

/**
 * List your tasks (those of this turn, and detached ones of the workspace), earliest due
 * first, with their status (results: task_get). Read-only.
 */
@tool({ name: 'task_list', version: '1.0.0', kind: 'internal', readOnly: true, domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskListTool implements Tool<TaskListInput, string> {
  async run(args: TaskListInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_list', { ...args }, ctx.signal, ctx.deadline);
  }
}
