import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_pause. */
export interface TaskPauseInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
}

/**
 * Pause a scheduled task: it does not run, even when due, until task_resume.
 */
@tool({ name: 'task_pause', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskPauseTool implements Tool<TaskPauseInput, string> {
  async run(args: TaskPauseInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_pause', { ...args }, ctx.signal, ctx.deadline);
  }
}
