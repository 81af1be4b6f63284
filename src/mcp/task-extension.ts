/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663, the
 * modelcontextprotocol/experimental-ext-tasks specification) on the call store: task creation
 * for a `tools/call`, and `tasks/get`, `tasks/update`, `tasks/cancel` for 2026-07-28 servers.
 *
 * Why this module exists under SDK v2: SDK v2 2.4.0 ships no runtime for the extension. It
 * knows its names (the `Mcp-Name` header of `tasks/get|update|cancel` mirrors `params.taskId`,
 * and `tasks/get` / `tasks/cancel` registered with our own schemas are let through on a
 * 2026-07-28 server), and its client refuses a `resultType: "task"` answer ("Unsupported result
 * type"). So toolgate answers the methods here, from the same {@link LedgerTaskStore} as the
 * 2025-11-25 methods (`task-methods.ts`); a task is a ledger call (session `mcp-tasks`, the
 * task id as call id), so every instance sharing the store reads, answers and cancels it.
 *
 * - Creation (server-directed, as the extension says): a `tools/call` whose request declares
 *   the extension in its `_meta` client capabilities is answered at once with a
 *   `CreateTaskResult` (`resultType: "task"`, the task's fields inline), after the call is
 *   recorded in the store (so a `tasks/get` through any instance finds it). A client that does
 *   not declare it never gets one. `request_tools` and retries carrying a `requestState` are
 *   answered directly.
 * - Questions: a task whose call needs confirmation reads `input_required`, its `tasks/get`
 *   carrying the confirmation form in `inputRequests` under the key
 *   `toolgate_confirmation_<question id>` (unique over the task's life); `tasks/update` with an
 *   answer under that key stores the answer in the call store (the first answer counts, as for
 *   `toolgate approvals allow`), and the instance running the call goes on. Other keys are
 *   ignored, as the extension says.
 * - Results: `completed` carries the `CallToolResult` (also one with `isError: true`: a tool
 *   error, a denial); `failed` is kept for calls that ended without a result (the server stopped
 *   while it ran), with a JSON-RPC `error`; `cancelled` after `tasks/cancel`.
 * - Binding: every method acts for the requestor of its request ({@link modernRequestor}): the
 *   task of another requestor is "Task not found" (`-32602`), as an unknown id is.
 *
 * @module
 */
import crypto from 'node:crypto';
import { inputResponse, ProtocolError, ProtocolErrorCode, type ClientCapabilities, type Result, type Server, type ServerContext, type Task } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ApprovalAnswer } from '../decisions/approval.js';
import type { CallStore } from '../ledger/call-store.js';
import { answerOfForm, confirmationForm } from './confirmation.js';
import { TASK_SESSION, type LedgerTaskStore } from './tasks.js';

/** The extension's identifier, in client capabilities and in `server/discover`'s `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Prefix of the `inputRequests` key of a task's confirmation question (the question id follows). */
const QUESTION_KEY = 'toolgate_confirmation_';

const TASK_ID_PARAMS = z.looseObject({ taskId: z.string() });
// The SDK lifts `inputResponses` out of the params (into `ctx.mcpReq.inputResponses`), as for a retry.
const UPDATE_PARAMS = z.looseObject({ taskId: z.string() });

/** Whether a 2026-07-28 request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return extensions !== null && typeof extensions === 'object' && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/**
 * The requestor of a 2026-07-28 request (no session on that revision): the authenticated
 * principal when the HTTP layer passed one (`authInfo`, as an OAuth-checking front of
 * `createMcpHandler` does: its client id and subject (`extra.sub` or `extra.subject`), hashed;
 * without a subject, its client id and access token, so that the users of one client
 * application never share tasks), else `fallback` (for
 * `toolgate mcp --http`, {@link tokenRequestor} of its bearer token; over stdio the local user).
 */
export function modernRequestor(ctx: ServerContext, fallback: string): string {
  const auth = ctx.http?.authInfo;
  if (auth === undefined) return fallback;
  const extra = auth.extra ?? {};
  const subject = typeof extra.sub === 'string' ? extra.sub : typeof extra.subject === 'string' ? extra.subject : null;
  // Without a subject the client id names an application, not a user (one public client has
  // many users): the access token then names the requestor too (fail closed).
  const who = subject !== null ? ['sub', subject] : ['token', crypto.createHash('sha256').update(String(auth.token)).digest('hex')];
  return `auth:${crypto.createHash('sha256').update(JSON.stringify([auth.clientId, ...who])).digest('hex')}`;
}

/**
 * The requestor of 2026-07-28 requests to `toolgate mcp --http`: a SHA-256 of the bearer token
 * every request carried (the empty string without one), so that every instance given the same
 * token (`TOOLGATE_MCP_TOKEN`) binds a client's tasks alike, and the store keeps no secret.
 */
export function tokenRequestor(token: string | undefined): string {
  return `token:${crypto.createHash('sha256').update(token ?? '').digest('hex')}`;
}

/** A 2025-11-25 task as the extension's wire `Task` (`ttlMs`, `pollIntervalMs`). */
export function wireTask(task: Task): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    taskId: task.taskId, status: task.status, createdAt: task.createdAt, lastUpdatedAt: task.lastUpdatedAt, ttlMs: task.ttl ?? null,
  };
  if (task.pollInterval !== undefined) wire.pollIntervalMs = task.pollInterval;
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  return wire;
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found: ${taskId.slice(0, 200)}`);
}

/** The unanswered question a task's call waits on, if any. */
async function openQuestion(ledger: CallStore, taskId: string) {
  return (await ledger.pendingApprovals()).find((q) => q.callId === taskId && q.session === TASK_SESSION && q.answer === undefined);
}

/**
 * The extension's `DetailedTask` of `taskId` as `requestor` sees it: the task, with its
 * `inputRequests`, `result` or `error` by status; `null` when it is unknown, expired or another
 * requestor's.
 */
async function detailedTask(store: LedgerTaskStore, taskId: string, requestor: string): Promise<Record<string, unknown> | null> {
  const task = await store.getTask(taskId, requestor);
  if (task === null) return null;
  const wire = wireTask(task);
  if (task.status === 'input_required') {
    const question = await openQuestion(store.ledger, taskId);
    if (question === undefined) return { ...wire, status: 'working' };
    const form = confirmationForm(question.request as never, question.id);
    wire.inputRequests = {
      [`${QUESTION_KEY}${question.id}`]: { method: 'elicitation/create', params: { mode: 'form', message: `${form.message}\n(question ${question.id})`, requestedSchema: form.requestedSchema } },
    };
    return wire;
  }
  if (task.status === 'completed' || task.status === 'failed') {
    try {
      // A tool error or a denial is a result (isError): the extension's `completed`.
      const result = await store.getTaskResult(taskId, requestor);
      return { ...wire, status: 'completed', result };
    } catch (error) {
      const message = task.statusMessage ?? (error as Error)?.message ?? 'the task ended without a result';
      return { ...wire, status: 'failed', error: { code: ProtocolErrorCode.InternalError, message } };
    }
  }
  return wire;
}

/**
 * Answer `tasks/get`, `tasks/update` and `tasks/cancel` on a 2026-07-28 `server` from `store`,
 * each for the requestor `requestorOf` names for its request (see the module's text).
 */
export function registerTaskExtension(server: Server, store: LedgerTaskStore, requestorOf: (ctx: ServerContext) => string): void {
  server.setRequestHandler('tasks/get', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    const task = await detailedTask(store, taskId, requestorOf(ctx));
    if (task === null) throw notFound(taskId);
    return task as Result;
  });
  server.setRequestHandler('tasks/update', { params: UPDATE_PARAMS }, async ({ taskId }, ctx) => {
    const task = await store.getTask(taskId, requestorOf(ctx));
    if (task === null) throw notFound(taskId);
    const question = await openQuestion(store.ledger, taskId);
    // Keys not outstanding (never issued, answered, superseded) are ignored.
    if (question === undefined) return {};
    const view = inputResponse(ctx.mcpReq.inputResponses, `${QUESTION_KEY}${question.id}`);
    if (view.kind !== 'elicit') return {};
    const offers = (question.request as { offers?: unknown }).offers;
    const answer = answerOfForm(view.action, view.content as Record<string, unknown> | undefined, Array.isArray(offers) ? offers as ApprovalAnswer[] : ['allow_once', 'deny']);
    await store.ledger.answer(question.id, answer, 'mcp:tasks/update');
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: TASK_ID_PARAMS }, async ({ taskId }, ctx) => {
    const requestor = requestorOf(ctx);
    const task = await store.getTask(taskId, requestor);
    if (task === null) throw notFound(taskId);
    // An ended task is acknowledged as it is (cancellation is cooperative and eventually consistent).
    if (task.status === 'working' || task.status === 'input_required') await store.updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.', requestor);
    return {};
  });
}
