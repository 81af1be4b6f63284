import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_update. */
export interface TaskUpdateInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
  /**
   * A new title.
   * @maxLength 200
   */
  title?: string;
  /** New arguments for its call (they replace the old ones whole). */
  arguments?: Record<string, unknown>;
}

/**
 * Change a task that has not started yet (scheduled or paused): its title, or the arguments of
 * its call (checked against the tool's schema). To change when it runs, use task_reschedule.
 */
@tool({ name: 'task_update', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskUpdateTool implements Tool<TaskUpdateInput, string> {
  async run(args: TaskUpdateInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_update', { ...args }, ctx.signal, ctx.deadline);
  }
}
