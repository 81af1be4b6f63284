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
import type { ApprovalAnswer, ConfirmationHandler } from '../decisions/approval.js';
import type { CallPreview } from '../executor/executor-options.js';
import { canonicalSha256 } from '../util/canonical-hash.js';
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

/** Most asked calls a system remembers (the oldest are forgotten first). */
const ASKED_LIMIT = 10_000;

/** What a framework's approval step was asked about, kept until the approved call runs. */
interface AskedCall {
  /** The tool's name. */
  readonly tool: string;
  /** The registration revision the question was asked for. */
  readonly revision: string | undefined;
  /** Canonical hash of the arguments as the framework gave them. */
  readonly inputKey: string;
  /** Canonical hash of the validated arguments the question showed (when the preview had a question). */
  readonly argsKey: string | undefined;
  /** Why toolgate asks, for the framework's question. */
  readonly reason: string | undefined;
}

/** Per system: call id → the call its approval question was asked about. */
const askedCalls = new WeakMap<ToolSystem, Map<string, AskedCall>>();

/**
 * Remember that a person is asked, through the framework's own approval step, about call
 * `callId` of `tool` with `input` (the framework's arguments), for the definition and
 * question of `preview`; {@link frameworkApproval} binds the approval to exactly that. Kept
 * per system (a tool set built again still finds it), at most 10,000 calls.
 */
export function rememberAsked(system: ToolSystem, callId: string | undefined, tool: string, input: unknown, preview: CallPreview): void {
  if (callId === undefined) return;
  let asked = askedCalls.get(system);
  if (asked === undefined) askedCalls.set(system, (asked = new Map()));
  asked.delete(callId);
  const argsKey = preview.question === undefined ? undefined : canonicalSha256(preview.question.arguments);
  asked.set(callId, { tool, revision: preview.revision, inputKey: canonicalSha256(input), argsKey, reason: preview.reason });
  if (asked.size > ASKED_LIMIT) asked.delete(asked.keys().next().value!);
}

/** The remembered question about call `callId`, without forgetting it. */
export function askedAbout(system: ToolSystem, callId: string | undefined): Pick<AskedCall, 'tool' | 'reason'> | undefined {
  return callId === undefined ? undefined : askedCalls.get(system)?.get(callId);
}

/** The per-call options that carry a person's answer given through a framework's approval step. */
export interface FrameworkApproval {
  /** Answers the executor's question with the person's answer, for this exact call only. */
  confirmationHandler: ConfirmationHandler;
  /** The revision the person approved: a definition registered again meanwhile is not run (`TOOL_REPLACED`). */
  approvedRevision?: string;
}

/**
 * The approval a person gave through the framework for call `callId` (and forget the
 * question), bound to what they were asked: the tool, its revision and the arguments, compared
 * canonically (key order aside). `undefined` when the framework's arguments are not those it
 * asked about (an edited call), or when this process asked nothing for the call and
 * `unasked` is false. The handler answers `answer` only a question about the same tool and
 * validated arguments; any other question goes to `fallback` (else it is refused as a
 * failed answer, not as the person's no).
 * @param unasked - approve a call this process did not ask about (the framework's own record
 *   binds the approval to the call: the AI SDK's conversation, Agents JS's run state).
 */
export function frameworkApproval(
  system: ToolSystem, callId: string | undefined, tool: string, input: unknown,
  options: { answer?: ApprovalAnswer | boolean; unasked?: boolean; fallback?: ConfirmationHandler } = {},
): FrameworkApproval | undefined {
  const asked = callId === undefined ? undefined : askedCalls.get(system)?.get(callId);
  if (asked !== undefined) askedCalls.get(system)!.delete(callId!);
  if (asked === undefined ? options.unasked !== true : asked.tool !== tool || asked.inputKey !== canonicalSha256(input)) return undefined;
  const answer = options.answer ?? 'allow_once';
  const argsKey = asked?.argsKey;
  const { fallback } = options;
  const confirmationHandler: ConfirmationHandler = (request) => {
    if (request.tool === tool && (argsKey === undefined || canonicalSha256(request.arguments) === argsKey)) return answer;
    if (fallback !== undefined) return fallback(request);
    throw new Error(`the approval given for ${tool} was for other arguments`);
  };
  return asked?.revision === undefined ? { confirmationHandler } : { confirmationHandler, approvedRevision: asked.revision };
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
