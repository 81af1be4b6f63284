import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_resume. */
export interface TaskResumeInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
}

/**
 * Resume a paused task: it runs at its time, or at once when that has passed.
 */
@tool({ name: 'task_resume', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskResumeTool implements Tool<TaskResumeInput, string> {
  async run(args: TaskResumeInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_resume', { ...args }, ctx.signal, ctx.deadline);
  }
}
