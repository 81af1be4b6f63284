import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_cancel. */
export interface TaskCancelInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
}

/**
 * Cancel a task: one that has not run yet never runs; one that runs is asked to stop. A task
 * that has finished cannot be cancelled (an error; nothing changes).
 */
@tool({ name: 'task_cancel', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskCancelTool implements Tool<TaskCancelInput, string> {
  async run(args: TaskCancelInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_cancel', { ...args }, ctx.signal, ctx.deadline);
  }
}
