/**
 * What the three framework adapters share (`toolgate/ai-sdk`, `toolgate/openai-agents`,
 * `toolgate/langchain`): the options every adapter takes, running one call through the
 * {@link ToolSystem} so that a workspace escape comes back as a result the model can read
 * (never as a throw into the framework's loop), and the text a model sees of a result.
 *
 * @module
 */
import { PathTraversalError } from '../errors/errors.js';
import { failedResult } from '../closeout/results.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { ToolSelection, ToolSystem } from '../system/tool-system.js';
import type { AgentCallOptions } from '../system/tool-call-handler.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';

/** Options every adapter takes: which tools, and how their calls run. */
export interface AdapterOptions extends ToolSelection {
  /**
   * Per-call options given to every call (`approvalMode`, `turnId`, `timeoutMs`,
   * `workspaceRoot`, `session`...). The mode, scoped folders and agent come from the
   * selection above. Default none.
   */
  call?: Omit<AgentCallOptions, 'mode' | 'scopedWriteDirs' | 'agent' | 'signal' | 'confirm' | 'confirmationHandler' | 'approvedRevision'>;
  /** Only these tool names (after the selection). Default: every tool the selection offers. */
  only?: readonly string[];
}

/** The per-call options of an adapter's calls, from its {@link AdapterOptions}. */
export function callOptionsOf(options: AdapterOptions): AgentCallOptions {
  const out: AgentCallOptions = { ...options.call };
  if (options.mode !== undefined) out.mode = options.mode;
  if (options.scopedWriteDirs !== undefined) out.scopedWriteDirs = options.scopedWriteDirs;
  if (options.agent !== undefined) out.agent = options.agent;
  return out;
}

/** Most asked calls a system remembers the asked revision of (the oldest are forgotten first). */
const ASKED_LIMIT = 10_000;
/** Per system: call id → revision of the definition its approval question was asked about. */
const askedRevisions = new WeakMap<ToolSystem, Map<string, string>>();

/**
 * Remember that a person is asked about call `callId` for the definition of `revision` (a
 * `CallPreview`'s), so that {@link approvedRevisionOf} can hand it to the approved run.
 * Kept per system (a tool set built again still finds it), at most 10,000 calls.
 */
export function rememberAsked(system: ToolSystem, callId: string | undefined, revision: string | undefined): void {
  if (callId === undefined || revision === undefined) return;
  let asked = askedRevisions.get(system);
  if (asked === undefined) askedRevisions.set(system, (asked = new Map()));
  asked.delete(callId);
  asked.set(callId, revision);
  if (asked.size > ASKED_LIMIT) asked.delete(asked.keys().next().value!);
}

/**
 * The revision the approval of call `callId` was asked for (and forget it), or `undefined`
 * when this process did not ask (then the approved call is not checked against a revision).
 * Passed as `approvedRevision`: a definition registered again in between is not run
 * (`TOOL_REPLACED`).
 */
export function approvedRevisionOf(system: ToolSystem, callId: string | undefined): string | undefined {
  if (callId === undefined) return undefined;
  const asked = askedRevisions.get(system);
  const revision = asked?.get(callId);
  if (revision !== undefined) asked!.delete(callId);
  return revision;
}

/** The tools an adapter offers: the system's selection, narrowed by `only`. */
export function offeredTools(system: ToolSystem, options: AdapterOptions): ReturnType<ToolSystem['tools']> {
  const tools = system.tools({ mode: options.mode, scopedWriteDirs: options.scopedWriteDirs, agent: options.agent, modelClass: options.modelClass });
  if (options.only === undefined) return tools;
  const only = new Set(options.only);
  return tools.filter((t) => only.has(t.name));
}

/**
 * Run one call and always return a result: a path outside the workspace, which the
 * executor throws as `PathTraversalError` on purpose, becomes a `PATH_TRAVERSAL` result
 * whose output tells the model the call was refused (the same answer the agents' handler
 * gives).
 */
export async function callForModel(
  system: ToolSystem, call: ToolCallRequest, options: AgentCallOptions & { confirmationHandler?: ConfirmationHandler | null },
): Promise<ToolExecutionResult> {
  try {
    return await system.execute(call, options);
  } catch (error) {
    if (!(error instanceof PathTraversalError)) throw error;
    system.logger.warn({ event: 'adapter_path_traversal', tool: call.name, callId: call.callId, path: error.path }, 'a tool call tried to leave the workspace');
    return failedResult('PATH_TRAVERSAL', `refused: ${error.message}`, { tool: clip(call.name, 200), callId: call.callId ?? '' });
  }
}

/**
 * The text the model reads for a result: the output, which for a failure before or around
 * the run is the readable `Error: ...` message; a tool that reported a failure while
 * returning output gets its error line first (some frameworks have no error flag on a tool
 * result).
 */
export function modelText(result: ToolExecutionResult): string {
  if (result.success || result.output.startsWith('Error:') || result.error === undefined) return result.output;
  return `Error: ${result.error}\n\n${result.output}`;
}

/** A base64 data URL's media type and data. */
export function splitDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,/.exec(url.slice(0, 100));
  return match === null ? undefined : { mediaType: match[1]!, data: url.slice(match[0].length) };
}
