/**
 * The MCP 2025-11-25 task methods (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`)
 * on a 2025-era server, answered from a {@link TaskStore} view bound to the server's client.
 *
 * Why this module exists under SDK v2: SDK v1's `Protocol` answered these methods itself from
 * a `taskStore` option; SDK v2 keeps the 2025-11-25 task vocabulary only as types ("no SDK
 * runtime") and moves tasks to the `io.modelcontextprotocol/tasks` extension of 2026-07-28. So
 * toolgate answers them here, as SDK v1 did: the same results, the same errors ("Task not
 * found" `-32602` for an unknown id or another requestor's task, `-32602` for cancelling an
 * ended task), `tasks/result` blocking until the task ends (polling the store every
 * `pollIntervalMs`), and the result carrying `_meta["io.modelcontextprotocol/related-task"]`.
 * Registered on 2025-era servers only: 2026-07-28 servers answer the tasks extension instead
 * (`task-extension.ts`: `tasks/get`, `tasks/update`, `tasks/cancel`, over the same store).
 *
 * @module
 */
import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Server, type Task } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { TaskStore } from './tasks.js';

/** Statuses after which a task does not change. */
const TERMINAL: ReadonlySet<Task['status']> = new Set(['completed', 'failed', 'cancelled']);

const TASK_ID_PARAMS = z.looseObject({ taskId: z.string() });
const LIST_PARAMS = z.looseObject({ cursor: z.string().optional() });

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 200)}`);
}

/** Wait `ms`, or less when `signal` aborts (then reject with its reason). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Answer the four 2025-11-25 task methods on `server` from `store` (a view bound to the
 * server's client: {@link LedgerTaskStore.boundTo}).
 * @param pollIntervalMs - how often a blocked `tasks/result` reads the task again.
 */
export function registerTaskMethods(server: Server, store: TaskStore, pollIntervalMs: number): void {
  server.setRequestHandler('tasks/get', { params: TASK_ID_PARAMS }, async ({ taskId }) => {
    const task = await store.getTask(taskId);
    if (task === null) throw notFound(taskId);
    return { ...task };
  });
  server.setRequestHandler('tasks/result', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    for (;;) {
      const task = await store.getTask(taskId);
      if (task === null) throw notFound(taskId);
      if (TERMINAL.has(task.status)) {
        const result = await store.getTaskResult(taskId);
        return { ...result, _meta: { ...(result._meta ?? {}), [RELATED_TASK_META_KEY]: { taskId } } };
      }
      await pause(task.pollInterval ?? pollIntervalMs, ctx.mcpReq.signal);
    }
  });
  server.setRequestHandler('tasks/list', { params: LIST_PARAMS }, async ({ cursor }) => {
    try {
      const { tasks, nextCursor } = await store.listTasks(cursor);
      return nextCursor === undefined ? { tasks } : { tasks, nextCursor };
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to list tasks: ${(error as Error)?.message ?? String(error)}`);
    }
  });
  server.setRequestHandler('tasks/cancel', { params: TASK_ID_PARAMS }, async ({ taskId }) => {
    const task = await store.getTask(taskId);
    if (task === null) throw notFound(taskId);
    if (TERMINAL.has(task.status)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`);
    await store.updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.');
    const cancelled = await store.getTask(taskId);
    if (cancelled === null) throw notFound(taskId);
    return { ...cancelled };
  });
}
