import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { taskServiceOf } from '../../src/internal.js';

/** A subagent run as a task (as run_subagent would start it). */
export interface TaskSubagentInput {
  /**
   * The complete subtask: all the context the subagent needs (it does not see this conversation) and the exact final answer you expect.
   * @minLength 1
   * @maxLength 100000
   */
  prompt: string;
  /**
   * The subagent's agent kind, one run_subagent allows. Default: its default.
   * @maxLength 200
   */
  agent_id?: string;
  /**
   * The subagent's model, one run_subagent allows. Default: your model.
   * @maxLength 200
   */
  model_id?: string;
}

/** Arguments of task_create. */
export interface TaskCreateInput {
  /**
   * The tool to run, such as "run_command" (any tool you may call, but not a task_* tool). Give tool or subagent.
   * @minLength 1
   * @maxLength 200
   */
  tool?: string;
  /** Its arguments, as you would pass them to the tool (checked against its schema now). Default {}. */
  arguments?: Record<string, unknown>;
  /** Or: a subagent run (when you may call run_subagent): its result is the subagent's report. */
  subagent?: TaskSubagentInput;
  /**
   * When to run it: an ISO 8601 time with a zone, such as "2026-12-05T14:30:00Z" (not in the past, at most 30 days ahead). Default: now.
   * @maxLength 64
   */
  at?: string;
  /**
   * Or: run it this many seconds from now (0 to 2592000). Give at or delaySeconds, not both.
   * @minimum 0
   * @maximum 2592000
   */
  delaySeconds?: number;
  /**
   * A short title saying what it is for.
   * @maxLength 200
   */
  title?: string;
  /** Detach it at once: it belongs to the workspace, not to this turn, so later runs can list and wait for it. Default false. */
  detach?: boolean;
}

/**
 * Start background work: one tool call (or one subagent run) that runs now or at a time you choose, while you go on.
 * Returns the task (its id, status and when it runs); check it later with task_get or
 * task_wait. The call is decided when it runs, like any call of yours: a policy that denies it
 * denies it then, and a call that needs approval waits for a person. Use it for slow work you
 * can check later, or for something that must happen at a given time; not for a quick call you
 * need now.
 */
@tool({ name: 'task_create', version: '1.0.0', kind: 'task_subagent', domain: 'task', tags: ['task', 'ported'], runner: 'main', timeoutMs: 30_000 })
export class TaskCreateTool implements Tool<TaskCreateInput, string> {
  async run(args: TaskCreateInput, ctx: ToolContext): Promise<string> {
    return taskServiceOf(ctx).answer('task_create', { ...args }, ctx.signal, ctx.deadline);
  }
}
