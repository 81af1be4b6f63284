import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** Arguments of task_wait. */
export interface TaskWaitInput {
  /**
   * The task's id (task_ and 16 hex digits).
   * @maxLength 64
   */
  id: string;
  /**
   * Longest wait in seconds (0 to 300: 0 only looks).
   * @minimum 0
   * @maximum 300
   * @default 30
   */
  timeoutSeconds?: number;
}

/**
 * Wait for a task to finish, at most timeoutSeconds, and return its status and, once finished,
 * its result. Returns early when it finishes or is paused; after the wait it returns the
 * status so far (waitEnded "timeout"), so call again to wait more. Read-only.
 */
@tool({ name: 'task_wait', version: '1.0.0', kind: 'internal', readOnly: true, domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 330_000 })
export class TaskWaitTool implements Tool<TaskWaitInput, string> {
  async run(args: TaskWaitInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_wait', { ...args }, ctx.signal, ctx.deadline);
  }
}
