/**
 * `toolgate/openai-agents`: a {@link ToolSystem}'s tools as OpenAI Agents JS function tools
 * (`@openai/agents` is an optional peer dependency).
 *
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { ToolSystem } from 'toolgate';
 * import { toAgentsTools } from 'toolgate/openai-agents';
 *
 * const system = new ToolSystem({ workspace: '/work/project' });
 * await system.start();
 * const agent = new Agent({ name: 'coder', instructions, tools: toAgentsTools(system) });
 * let result = await run(agent, 'Fix the failing test');
 * for (const item of result.interruptions) result.state.approve(item); // after asking a person
 * if (result.interruptions.length) result = await run(agent, result.state);
 * ```
 *
 * Decisions map onto Agents JS: `allow` runs; `deny` comes back as the tool's output (a
 * readable `Error: ...` text the model reads); `ask` sets `needsApproval`, so the run stops
 * with `result.interruptions` and the call runs once `state.approve(item)` approved it
 * (`state.reject(item)` leaves it unrun, with the SDK's rejection message). Schemas are
 * strict where OpenAI's strict subset can express them. Every other failure, a path outside
 * the workspace included, is a readable output; images come back as image output items next
 * to the text; the run's abort signal stops the call.
 *
 * @module
 */
import { tool, type FunctionTool, type RunContext } from '@openai/agents';
import type { OpenAITool } from '../formats/openai.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import { callForModel, callOptionsOf, frameworkApproval, modelText, offeredTools, rememberAsked, splitDataUrl, type AdapterOptions } from './adapter-call.js';

/** Options of {@link toAgentsTools}; every option documents its default. */
export interface AgentsToolsOptions extends AdapterOptions {
  /**
   * Offer strict schemas (OpenAI structured outputs) for the tools whose schema the strict
   * subset can express; the others are offered non-strict. Default true.
   */
  strict?: boolean;
}

/** What a call returns to Agents JS: the text, or the text followed by the images the tool attached. */
export type AgentsToolOutput = string | Array<{ type: 'text'; text: string } | { type: 'image'; image: { data: string; mediaType: string } }>;

/**
 * The tools `system` offers (its mode, tags and pins; see {@link AdapterOptions}) as
 * Agents JS function tools, in name order. Call after `system.start()`.
 */
export function toAgentsTools(system: ToolSystem, options: AgentsToolsOptions = {}): FunctionTool[] {
  const base = callOptionsOf(options);
  return offeredTools(system, options).map((registered) => {
    const { function: spec } = system.spec(registered, options.strict === false ? 'openai' : 'openai-strict') as OpenAITool;
    const name = registered.name;
    const strict = spec.strict === true;
    const made = tool({
      name,
      description: spec.description,
      parameters: spec.parameters as never,
      strict: strict as false,
      needsApproval: async (_context: RunContext, input: unknown, callId?: string) => {
        const preview = await system.preview({ name, arguments: input, callId }, base);
        if (preview.verdict !== 'ask') return false;
        rememberAsked(system, callId, name, input, preview);
        return true;
      },
      execute: async (input: unknown, context?: RunContext, details?: { toolCall?: { callId?: string }; signal?: AbortSignal }) => {
        const callId = details?.toolCall?.callId;
        // The runner calls a tool whose needsApproval said yes only once the run state
        // approved it (`state.approve(item)`): that approval is the person's answer to our
        // question, for this call only: the definition (a replacement is not run) and the
        // arguments it was asked about.
        const approved = callId !== undefined && context?.isToolApproved({ toolName: name, callId }) === true;
        const approval = approved ? frameworkApproval(system, callId, name, input, { unasked: true }) : undefined;
        const result = await callForModel(system, { name, arguments: input, callId }, { ...base, signal: details?.signal, ...approval });
        return outputOf(result);
      },
    });
    return made as unknown as FunctionTool;
  });
}

/** What the model reads of a result: the text, then the images. */
function outputOf(result: ToolExecutionResult): AgentsToolOutput {
  const text = modelText(result);
  const images = (result.images ?? []).map(splitDataUrl).filter((p) => p !== undefined);
  if (images.length === 0) return text;
  return [{ type: 'text', text }, ...images.map((p) => ({ type: 'image' as const, image: { data: p.data, mediaType: p.mediaType } }))];
}
