import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_detach. */
export interface TaskDetachInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
}

/**
 * Detach a task from this turn: it goes on after the turn ends and belongs to the workspace,
 * so later runs can list it, wait for it and cancel it.
 */
@tool({ name: 'task_detach', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskDetachTool implements Tool<TaskDetachInput, string> {
  async run(args: TaskDetachInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_detach', { ...args }, ctx.signal, ctx.deadline);
  }
}
