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
 * with the text. `deny`, a path outside the workspace and every other failure come back as
 * readable results; images come as `image_url` content blocks after the text; the run's
 * `signal` stops the call.
 *
 * An `ask` reaches a person in one of two ways:
 * - LangChain's own approval step: `humanInTheLoopMiddleware({ interruptOn:
 *   toLangChainInterruptOn(system) })` with `createAgent` and a checkpointer. Its `when`
 *   interrupts exactly the calls toolgate asks about; an `approve` reaches toolgate as the
 *   person's answer for that call only (its tool revision and canonical arguments: an edited
 *   call is not approved by it), a `reject` leaves the call unrun;
 * - the `confirm` option, toolgate's confirmation handler (a terminal prompt, a queue to a
 *   person, or LangGraph's `interrupt()`): it is asked before the call runs, and an
 *   `interrupt()` inside it pauses the graph (the error propagates); on resume the tool runs
 *   again, `confirm` is asked again and `interrupt()` returns the person's answer.
 * With neither, the executor's confirmation handler is asked, if it has one; otherwise the
 * call is refused with a `CONFIRMATION_REQUIRED` result the model reads.
 *
 * @module
 */
import { visibleJson, visibleText } from '../decisions/shown-arguments.js';
import { randomUUID } from 'node:crypto';
import { ToolMessage, type MessageContent } from '@langchain/core/messages';
import { DynamicStructuredTool, ToolInputParsingException, type ToolRunnableConfig } from '@langchain/core/tools';
import type { ConfirmationHandler, ConfirmationRequest } from '../decisions/approval.js';
import type { OpenAITool } from '../formats/openai.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ToolExecutionResult } from '../types/result.js';
import type { AgentCallOptions } from '../system/tool-call-handler.js';
import { askedAbout, callForModel, callOptionsOf, frameworkApproval, modelText, offeredTools, rememberAsked, type AdapterOptions, type FrameworkApproval } from './adapter-call.js';

/** Options of {@link toLangChainTools}; every option documents its default. */
export interface LangChainToolsOptions extends AdapterOptions {
  /**
   * Answers a call the decisions `ask` about: `true` / `allow_once`, `allow_for_turn`,
   * `always`, or `false` / `deny` (see `ConfirmationHandler`). Asked before the call runs,
   * outside the executor: an error LangGraph raises to pause the graph (`interrupt()`'s
   * `GraphInterrupt`, any error with `is_bubble_up`) propagates; any other throw counts as a
   * refusal. Default: the executor's confirmation handler, if it has one; otherwise such calls
   * are refused (`CONFIRMATION_REQUIRED`) unless `humanInTheLoopMiddleware` approved them
   * (see {@link toLangChainInterruptOn}).
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
      const call = { name, arguments: input, callId };
      const callOptions: AgentCallOptions = { ...base, signal: config?.signal };
      // Approved through humanInTheLoopMiddleware (its `when` asked toolgate, then a person said yes)?
      const approval = frameworkApproval(system, callId, name, input, options.confirm === undefined ? {} : { fallback: options.confirm })
        ?? (options.confirm === undefined ? undefined : await askFirst(system, call, base, options.confirm));
      const result = await callForModel(system, call, { ...callOptions, ...approval });
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

/** A tool call as LangChain's `humanInTheLoopMiddleware` hands it over. */
export interface LangChainToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/**
 * One tool's entry of `humanInTheLoopMiddleware`'s `interruptOn` (its `InterruptOnConfig`):
 * interrupt when toolgate asks, offer `approve` and `reject`, describe the question.
 */
export interface LangChainInterruptOn {
  /** `approve` and `reject` (an `edit` would change the call the person was asked about). */
  allowedDecisions: Array<'approve' | 'reject'>;
  /** The question shown to the person: the tool, why toolgate asks, and the arguments. */
  description: (toolCall: LangChainToolCall) => string;
  /** True exactly when toolgate's decisions `ask` about the call (`ToolSystem.preview`). */
  when: (request: { toolCall: LangChainToolCall }) => Promise<boolean>;
}

/**
 * The `interruptOn` map of LangChain's `humanInTheLoopMiddleware` for the tools
 * {@link toLangChainTools} offers with the same options: each tool interrupts the agent
 * exactly when toolgate asks about the call (`allow` runs, `deny` answers the model without
 * asking anybody). A person's `approve` then reaches toolgate as their answer to that call
 * (bound to the tool revision and the canonical arguments they saw); `reject` leaves it unrun.
 *
 * ```ts
 * import { createAgent, humanInTheLoopMiddleware } from 'langchain';
 * import { MemorySaver } from '@langchain/langgraph';
 * const agent = createAgent({
 *   model, tools: toLangChainTools(system), checkpointer: new MemorySaver(),
 *   middleware: [humanInTheLoopMiddleware({ interruptOn: toLangChainInterruptOn(system) })],
 * });
 * ```
 */
export function toLangChainInterruptOn(system: ToolSystem, options: LangChainToolsOptions = {}): Record<string, LangChainInterruptOn> {
  const base = callOptionsOf(options);
  const out: Record<string, LangChainInterruptOn> = {};
  for (const registered of offeredTools(system, options)) {
    const name = registered.name;
    out[name] = {
      allowedDecisions: ['approve', 'reject'],
      description: (toolCall) => {
        const reason = askedAbout(system, toolCall.id)?.reason;
        // Whole, with nothing rendered that could hide part of it (bidi, control characters, long space runs: \uXXXX escapes).
        return `${name} needs your approval${reason === undefined ? '' : `: ${visibleText(reason, false)}`}\n\nArguments: ${visibleJson(toolCall.args, 2)}`;
      },
      when: async ({ toolCall }) => {
        const preview = await system.preview({ name, arguments: toolCall.args, callId: toolCall.id }, base);
        if (preview.verdict !== 'ask') return false;
        rememberAsked(system, toolCall.id, name, toolCall.args, preview);
        return true;
      },
    };
  }
  return out;
}

/**
 * Ask `confirm` about a call before it runs, outside the executor, so that LangGraph's
 * `interrupt()` inside it pauses the graph instead of being caught; the answer then goes with
 * the call, bound to the question (tool and validated arguments). A call that does not ask
 * gets `confirm` as its handler (in case it asks when it runs).
 */
async function askFirst(system: ToolSystem, call: { name: string; arguments: unknown; callId?: string }, base: AgentCallOptions, confirm: ConfirmationHandler): Promise<FrameworkApproval> {
  const preview = await system.preview(call, base);
  if (preview.verdict !== 'ask' || preview.question === undefined) return { confirmationHandler: confirm };
  const question: ConfirmationRequest = preview.question;
  let answer: Awaited<ReturnType<ConfirmationHandler>>;
  try {
    answer = await confirm(question);
  } catch (error) {
    if (isBubbleUp(error)) throw error;
    // Any other throw is a refusal, as the executor counts a handler that throws.
    return { confirmationHandler: () => { throw error; } };
  }
  const id = call.callId ?? `langchain_${randomUUID()}`;
  rememberAsked(system, id, call.name, call.arguments, preview);
  return frameworkApproval(system, id, call.name, call.arguments, { answer, fallback: confirm })!;
}

/** Is `error` one LangGraph raises to stop a node and resume it later (`GraphInterrupt`, `ParentCommand`)? */
function isBubbleUp(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { is_bubble_up?: unknown }).is_bubble_up === true;
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
