import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_get. */
export interface TaskGetInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
}

/**
 * Show one task: its tool, arguments, status (scheduled, paused, cancelled, pending,
 * waiting_for_approval, running, done, failed, denied, interrupted), when it runs, and its
 * result once finished. Read-only; does not wait (task_wait does).
 */
@tool({ name: 'task_get', version: '1.0.0', kind: 'internal', readOnly: true, domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskGetTool implements Tool<TaskGetInput, string> {
  async run(args: TaskGetInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_get', { ...args }, ctx.signal, ctx.deadline);
  }
}
