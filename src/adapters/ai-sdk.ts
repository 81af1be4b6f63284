/**
 * `toolgate/ai-sdk`: a {@link ToolSystem}'s tools as a Vercel AI SDK `ToolSet` for
 * `generateText`, `streamText` and `ToolLoopAgent` (AI SDK 6; `ai` is an optional peer
 * dependency).
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { ToolSystem } from 'toolgate';
 * import { toAiSdkTools } from 'toolgate/ai-sdk';
 *
 * const system = new ToolSystem({ workspace: '/work/project' });
 * await system.start();
 * const { text } = await generateText({ model, tools: toAiSdkTools(system), stopWhen: stepCountIs(8), prompt });
 * ```
 *
 * Decisions map onto the SDK: `allow` runs; `deny` comes back as an `execution-denied` tool
 * result the model reads; `ask` sets the tool's `needsApproval`, so the SDK stops with a
 * `tool-approval-request` and runs the call once the conversation holds an approving
 * `tool-approval-response` for it. Every other failure, a path outside the workspace
 * included, is an `error-text` result; images come back as `image-data` parts next to the
 * text; the tool's structured value is kept in the tool output (`structured`); the SDK's
 * `abortSignal` stops the call.
 *
 * @module
 */
import { jsonSchema, tool, type ModelMessage, type Tool, type ToolSet } from 'ai';
import { codesWhere } from '../errors/error-codes.js';
import type { OpenAITool } from '../formats/openai.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import { callForModel, callOptionsOf, frameworkApproval, modelText, offeredTools, rememberAsked, splitDataUrl, type AdapterOptions } from './adapter-call.js';

/** What `toModelOutput` gives the AI SDK (its `ToolResultOutput`, which `ai` does not export by name). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** Options of {@link toAiSdkTools}; every option documents its default. */
export type AiSdkToolsOptions = AdapterOptions;

/**
 * What a toolgate tool returns to the AI SDK (the `output` of its `tool-result` part): the
 * executor's result, less what only the host needs. {@link toAiSdkTools}'s `toModelOutput`
 * turns it into what the model reads.
 */
export interface AiSdkToolOutput {
  /** True when the tool ran and its output passed the output schema. */
  success: boolean;
  /** The text the model reads (a failure's readable message included). */
  output: string;
  /** On failure: the result code (`POLICY_DENIED`, `PATH_TRAVERSAL`, `TIMEOUT`...). */
  errorCode?: string;
  /** The tool's return value when it is not a string. */
  structured?: unknown;
  /** Images the tool attached, as base64 data URLs. */
  images?: string[];
}

/**
 * Result codes of the class `denied` (`ERROR_CODES`): the SDK reads them as a denied execution.
 * A workspace escape is the exception: it is answered as error text, the model's mistake
 * rather than a person's or a policy's refusal.
 */
const DENIED: ReadonlySet<string> = codesWhere((e, code) => e.errorClass === 'denied' && code !== 'PATH_TRAVERSAL');

/**
 * The tools `system` offers (its mode, tags and pins; see {@link AdapterOptions}), keyed by
 * name, as AI SDK tools. Call after `system.start()`; tools registered later are not in the
 * set (build it again).
 * @throws nothing itself; each call answers with a result, never a throw (a workspace escape included).
 */
export function toAiSdkTools(system: ToolSystem, options: AiSdkToolsOptions = {}): ToolSet {
  const base = callOptionsOf(options);
  const tools: ToolSet = {};
  for (const registered of offeredTools(system, options)) {
    const { function: spec } = system.spec(registered, 'openai') as OpenAITool;
    const name = registered.name;
    tools[name] = tool<Record<string, unknown>, AiSdkToolOutput>({
      description: spec.description,
      inputSchema: jsonSchema<Record<string, unknown>>(spec.parameters as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (input, { toolCallId }) => {
        const preview = await system.preview({ name, arguments: input, callId: toolCallId }, base);
        if (preview.verdict !== 'ask') return false;
        rememberAsked(system, toolCallId, name, input, preview);
        return true;
      },
      execute: async (input, { toolCallId, abortSignal, messages }) => {
        // The SDK runs a call whose needsApproval said yes only after a person approved it
        // in the conversation; that approval is the person's answer to our question, for this
        // call only: the definition (a replacement is not run) and the arguments it was asked about.
        const approval = approvedInConversation(messages, toolCallId) ? frameworkApproval(system, toolCallId, name, input, { unasked: true }) : undefined;
        const result = await callForModel(system, { name, arguments: input, callId: toolCallId }, { ...base, signal: abortSignal, ...approval });
        return outputOf(result);
      },
      toModelOutput: ({ output }) => modelOutputOf(output),
    }) as Tool;
  }
  return tools;
}

/** The tool output of a result. */
function outputOf(result: ToolExecutionResult): AiSdkToolOutput {
  const out: AiSdkToolOutput = { success: result.success, output: modelText(result) };
  if (!result.success) out.errorCode = result.errorCode ?? 'TOOL_ERROR';
  if (result.structured !== undefined) out.structured = result.structured;
  if (result.images !== undefined && result.images.length !== 0) out.images = result.images;
  return out;
}

/** What the model reads of a tool output: text, a denial, an error, or text and images. */
export function modelOutputOf(output: AiSdkToolOutput): AiSdkModelOutput {
  if (!output.success) {
    return output.errorCode !== undefined && DENIED.has(output.errorCode) ? { type: 'execution-denied', reason: output.output } : { type: 'error-text', value: output.output };
  }
  const images = (output.images ?? []).map(splitDataUrl).filter((p) => p !== undefined);
  if (images.length === 0) return { type: 'text', value: output.output };
  return { type: 'content', value: [{ type: 'text', text: output.output }, ...images.map((p) => ({ type: 'image-data' as const, data: p.data, mediaType: p.mediaType }))] };
}

/**
 * Does the conversation hold an approving `tool-approval-response` for this call (the SDK's
 * approval mechanism: an assistant `tool-approval-request` for the call id, answered
 * `approved: true` in a tool message)?
 */
export function approvedInConversation(messages: readonly ModelMessage[], toolCallId: string): boolean {
  const requests = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId) requests.add(part.approvalId);
    }
  }
  if (requests.size === 0) return false;
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-response' && requests.has(part.approvalId)) return part.approved === true;
    }
  }
  return false;
}
