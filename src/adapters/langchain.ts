/**
 * `toolgate/langchain`: a {@link ToolSystem}'s tools as LangChain.js structured tools
 * (`@langchain/core` is an optional peer dependency), with their JSON Schema as it is.
 *
 * ```ts
 * import { ToolSystem } from 'toolgate';
 * import { toLangChainTools } from 'toolgate/langchain';
 *
 * const system = new ToolSystem({ workspace: '/work/project' });
 * await system.start();
 * const tools = toLangChainTools(system, { confirm: async (request) => askPerson(request) });
 * const model = chatModel.bindTools(tools);
 * const reply = await model.invoke(messages);
 * for (const call of reply.tool_calls ?? []) messages.push(await byName[call.name].invoke(call)); // a ToolMessage
 * ```
 *
 * Invoked with a tool call (`{ name, args, id, type: 'tool_call' }`, as a model's
 * `tool_calls` hold them), a tool answers with a `ToolMessage` whose `tool_call_id` is the
 * call's id, `status` `error` for a failure, and the whole `ToolExecutionResult` as its
 * `artifact` (the structured value in `artifact.structured`); invoked with plain arguments,
 * with the text. LangChain core has no approval step of its own, so an `ask` goes to the
 * `confirm` option, toolgate's confirmation handler (a terminal prompt, a LangGraph
 * `interrupt()` wrapper, a queue to a person...); without one, the call is refused with a
 * `CONFIRMATION_REQUIRED` result the model reads. `deny`, a path outside the workspace and
 * every other failure come back as readable results; images come as `image_url` content
 * blocks after the text; the run's `signal` stops the call.
 *
 * @module
 */
import { ToolMessage, type MessageContent } from '@langchain/core/messages';
import { DynamicStructuredTool, ToolInputParsingException, type ToolRunnableConfig } from '@langchain/core/tools';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { OpenAITool } from '../formats/openai.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import { callForModel, callOptionsOf, modelText, offeredTools, type AdapterOptions } from './adapter-call.js';

/** Options of {@link toLangChainTools}; every option documents its default. */
export interface LangChainToolsOptions extends AdapterOptions {
  /**
   * Answers a call the decisions `ask` about: `true` / `allow_once`, `allow_for_turn`,
   * `always`, or `false` / `deny` (see `ConfirmationHandler`). Default: the executor's
   * confirmation handler, if it has one; otherwise such calls are refused
   * (`CONFIRMATION_REQUIRED`).
   */
  confirm?: ConfirmationHandler;
}

/**
 * The tools `system` offers (its mode, tags and pins; see {@link AdapterOptions}) as
 * LangChain `DynamicStructuredTool`s, in name order. Call after `system.start()`.
 */
export function toLangChainTools(system: ToolSystem, options: LangChainToolsOptions = {}): DynamicStructuredTool[] {
  const base = callOptionsOf(options);
  return offeredTools(system, options).map((registered) => {
    const { function: spec } = system.spec(registered, 'openai') as OpenAITool;
    const name = registered.name;
    const run = async (input: unknown, config: ToolRunnableConfig | undefined): Promise<MessageContent | ToolMessage> => {
      const callId = config?.toolCall?.id;
      const callOptions = { ...base, signal: config?.signal };
      const result = await callForModel(system, { name, arguments: input, callId }, options.confirm === undefined ? callOptions : { ...callOptions, confirmationHandler: options.confirm });
      const content = contentOf(result);
      if (callId === undefined) return content;
      return new ToolMessage({ content, tool_call_id: callId, name, status: result.success ? 'success' : 'error', artifact: result });
    };
    const made = new DynamicStructuredTool({
      name,
      description: spec.description,
      schema: spec.parameters as Record<string, unknown>,
      func: (input: unknown, _runManager?: unknown, config?: ToolRunnableConfig) => run(input, config),
    });
    // LangChain checks the arguments against the schema first and throws on a mismatch; the
    // model must read that as a result instead (toolgate validates too, and answers with an
    // INVALID_ARGUMENTS result naming the problem and the expected signature).
    const call = made.call.bind(made);
    made.call = (async (arg: unknown, configArg?: unknown, tags?: unknown) => {
      try {
        return await (call as (a: unknown, c?: unknown, t?: unknown) => Promise<unknown>)(arg, configArg, tags);
      } catch (error) {
        if (!(error instanceof ToolInputParsingException)) throw error;
        return run(isToolCall(arg) ? arg.args : arg, configArg as ToolRunnableConfig | undefined);
      }
    }) as typeof made.call;
    return made;
  });
}

/** Is `value` a LangChain tool call (`{ name, args, id, type: 'tool_call' }`)? */
function isToolCall(value: unknown): value is { args: unknown; id?: string } {
  return value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'tool_call' && 'args' in value;
}

/** What the model reads of a result: the text, then the images as `image_url` blocks. */
function contentOf(result: ToolExecutionResult): MessageContent {
  const text = modelText(result);
  const images = result.images ?? [];
  if (images.length === 0) return text;
  return [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url', image_url: { url } }))];
}
