/**
 * A subagent run as a task (`task_create` with `subagent` instead of `tool`, docs/tasks.md):
 * the task's call is one `run_subagent` call of its creating agent, decided and recorded as
 * that agent's calls are. A subagent runs on the agent's model and with the agent's
 * approvals, which live in the agent's process: the scheduler keeps the creating call's
 * caller services (its `SubagentDriver`) in memory until the task starts, and runs the call
 * with them. A task due after that process ended finds no driver: its call ends `failed`
 * with `CLIENT_UNAVAILABLE` ({@link SUBAGENT_GONE}), never run by another agent. Where
 * tasks go to a pool of workers (the queue), no agent is there, so a subagent task is refused
 * when created.
 *
 * @module
 */
import { MAX_SUBAGENT_YIELD_MS, RUN_SUBAGENT } from '../builtin/subagent.js';
import { servicesOf } from '../builtin/caller-services.js';
import type { AgentCallOptions } from './tool-call-handler.js';
import { badInput, refused } from './task-views.js';

/** Why a subagent task due without its agent did not run. */
export const SUBAGENT_GONE = 'the agent that created this subagent task is gone (its process ended, or it was created in another process): a subagent runs only with its own agent, so the task did not run';

/** What `task_create` stores for a subagent run: the `run_subagent` call. */
export interface SubagentTaskCall {
  tool: typeof RUN_SUBAGENT;
  arguments: Record<string, unknown>;
}

/**
 * The `run_subagent` call of a `task_create`'s `subagent` argument: the prompt, agent kind
 * and model, waited for in the foreground as long as a call may ask (past it, the child goes on
 * in the background and the task's result names its `subagent_id`).
 * @throws ToolExecutionError when the caller has no subagents here (not an agent with the
 *   `subagents` option in this process, a subagent itself, or tasks that go to a queue), or the
 *   argument is malformed; nothing is stored then.
 */
export function subagentTaskCall(caller: AgentCallOptions, subagent: unknown, queued: boolean): SubagentTaskCall {
  if (subagent === null || typeof subagent !== 'object' || Array.isArray(subagent)) throw badInput('subagent must be an object: { prompt, agent_id?, model_id? }. Nothing was stored.');
  const { prompt, agent_id: agent, model_id: model } = subagent as Record<string, unknown>;
  if (typeof prompt !== 'string' || prompt.trim() === '') throw badInput('subagent.prompt must be the complete subtask (a non-empty string). Nothing was stored.');
  if (queued) throw refused('A subagent task runs in the process of the agent that creates it; tasks here go to a pool of workers, where no agent is. Nothing was stored.');
  const driver = servicesOf(caller.client)?.subagents;
  if (driver === undefined) throw refused('A subagent task needs an agent with subagents (its subagents option) making this call; this caller has none. Nothing was stored.');
  if (driver.depth !== 0) throw refused('A subagent cannot start subagents, as a task or otherwise (depth is capped at 1). Nothing was stored.');
  return {
    tool: RUN_SUBAGENT,
    arguments: { prompt, ...(agent === undefined ? {} : { agent_id: agent }), ...(model === undefined ? {} : { model_id: model }), yield_time_ms: MAX_SUBAGENT_YIELD_MS },
  };
}

/**
 * The creating calls' clients (their caller services) of subagent tasks not started yet, by
 * task id, shared by every tool system of this process (whichever of them starts the task
 * finds its agent).
 */
const CLIENTS = new Map<string, NonNullable<AgentCallOptions['client']>>();

/** {@link CLIENTS}, as a scheduler uses them. */
export class SubagentClients {
  private readonly clients = CLIENTS;
  /** The tasks whose clients this scheduler put there (dropped when it closes: its agent's tool system is closing). */
  private readonly own = new Set<string>();

  /** Whether this process keeps the agent of task `id`. */
  has(id: string): boolean {
    return this.clients.has(id);
  }

  /** Keep `client` for task `id` (until {@link take} or {@link drop}). */
  hold(id: string, client: AgentCallOptions['client']): void {
    if (client === undefined) return;
    this.clients.set(id, client);
    this.own.add(id);
  }

  /** The client kept for `id`, once (forgotten here). */
  take(id: string): AgentCallOptions['client'] {
    const client = this.clients.get(id);
    this.clients.delete(id);
    return client;
  }

  drop(id: string): void {
    this.clients.delete(id);
  }

  /** Forget the clients this scheduler kept (its tool system closes: their tasks end unrun when due). */
  close(): void {
    for (const id of this.own) this.clients.delete(id);
    this.own.clear();
  }
}

export { RUN_SUBAGENT };
