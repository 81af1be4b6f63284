/**
 * The tool-call handler: one assistant turn's tool calls in, one answer per call out, in the
 * provider's conversation shape. Every call id is threaded and every call is answered, even
 * when its arguments are malformed or its tool is unknown, because providers reject a
 * conversation in which a tool call has no result.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { QuestionHandler } from '../builtin/ask-user.js';
import { CallerServices, servicesOf, withServices, type LazyDomainsScope } from '../builtin/caller-services.js';
import { CALLER_TOOL_NAMES, registerCallerTools } from '../builtin/caller-tools.js';
import type { SubagentDriver } from '../builtin/subagent.js';
import { PathTraversalError, type ToolErrorCode } from '../errors/errors.js';
import type { ExecuteOptions, ToolExecutor } from '../executor/executor.js';
import { oneAtATime, runBatch } from '../executor/batch.js';
import { failedResult, withNote } from '../closeout/results.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { Logger } from '../logging/logger.js';
import type { StopReason, ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import { anthropicToolUses, toAnthropicToolResults, type AnthropicMessage } from '../formats/anthropic.js';
import type { PendingToolCall } from '../formats/common.js';
import type { DomainVisibility } from '../registry/lazy-visibility.js';
import type { ToolRegistry } from '../registry/registry.js';
import { openAIToolCalls, toOpenAIToolMessages, type OpenAIAssistantMessage, type OpenAIChatMessage } from '../formats/openai.js';

export type { QuestionHandler, UserQuestion } from '../builtin/ask-user.js';
export { ASK_USER_UNAVAILABLE } from '../builtin/ask-user.js';

/** Per-call options of a {@link ToolCallTarget}: the executor's, plus the agent whose version pins apply. */
export interface AgentCallOptions extends ExecuteOptions {
  /** Agent name: its version pins (see `ToolVersionManager.pin`) select the versions that run. */
  agent?: string;
  /**
   * Lazy visibility of this session: the visibility decider denies a call of a tool its domain
   * still hides `TOOL_HIDDEN` without running it (see `src/registry/lazy-visibility.ts`). It
   * travels with the call as the client's `services` (`src/builtin/caller-services.ts`).
   * Default: none (every tool visible).
   */
  visibility?: DomainVisibility;
}

/**
 * What the handler runs calls on: a `ToolSystem`, or a `ToolExecutor` wrapped by
 * {@link executorTarget}.
 */
export interface ToolCallTarget {
  /** Run one call; failures are results, only `PathTraversalError` throws. */
  execute(call: ToolCallRequest, options: AgentCallOptions): Promise<ToolExecutionResult>;
  /** Does this call change anything (so it must run alone and in order)? Unknown tools: false. */
  writes(call: ToolCallRequest, options: AgentCallOptions): boolean;
  /**
   * The registry the target's calls resolve in: the handler registers the caller tools there
   * (`ask_user`, `request_tools`, `run_subagent`, `input_subagent`; `src/builtin/caller-tools.ts`)
   * before a turn runs. Without one, calls of them are unknown unless the caller registered them.
   */
  readonly registry?: ToolRegistry;
}

/**
 * Options of {@link ToolCallHandler.handle}. What the caller lends the caller tools
 * (`questionHandler`, `visibility` with `lazyDomains`, `subagents`) goes with every call of the
 * turn as the client's `services` (`src/builtin/caller-services.ts`): the calls of those tools
 * run through the target's executor like every call (decided, recorded, audited), and the
 * visibility decider denies the ones whose service was not lent.
 */
export interface HandleOptions extends AgentCallOptions {
  /**
   * Answers `ask_user` calls (asked one at a time, with the confirmation handler's questions).
   * Without one, an `ask_user` call is denied `UNKNOWN_TOOL`, saying that the tool is
   * unavailable. Default: none.
   */
  questionHandler?: QuestionHandler;
  /**
   * With `visibility`: what `request_tools` chooses from (the caller's selection, and what its
   * mode runs). Without it, a `request_tools` call is denied as unavailable. Default: none.
   */
  lazyDomains?: LazyDomainsScope;
  /** The caller's children, answering `run_subagent` / `input_subagent`. Without them, those calls are denied as unavailable. Default: none. */
  subagents?: SubagentDriver;
  /** Calls of this turn that run at most (overrides the handler's `maxCallsPerTurn`). Default: the handler's. */
  maxCalls?: number;
  /** Called when a call starts (before any confirmation question). */
  onCall?: (call: PendingToolCall) => void;
  /** Called with each call's result as it ends. */
  onResult?: (call: PendingToolCall, result: ToolExecutionResult) => void;
  /** Makes failed calls again in their place (an agent's retry policy, `src/agents/retry.ts`). Default: none. */
  retry?: CallRetryPolicy;
}

/**
 * Whether a call's result is final or the same call is made again, in its place (a write
 * still runs alone and in order). Made again under the session `<session>:retry-<attempt>`,
 * so a durable ledger does not answer it with the stored failure.
 */
export interface CallRetryPolicy {
  /**
   * Called with each result of a tool call (never of a caller tool: `ask_user`, `request_tools`, `run_subagent`, `input_subagent`), after `attempt` tries (1 for
   * the first). Resolves, after any wait, `{ again: true }` to make the call again, or
   * `{ again: false }` to keep the result, with a `note` appended to its output for the model.
   */
  decide(call: PendingToolCall, result: ToolExecutionResult, attempt: number, signal: AbortSignal | undefined): Promise<{ again: true } | { again: false; note?: string }>;
}

/** Options of a {@link ToolCallHandler}. */
export interface ToolCallHandlerOptions {
  /** Read-only calls of one turn run at most this many at once. Default 4. */
  concurrency?: number;
  /**
   * Calls of one turn that run at most; the rest are answered `OVERLOADED` without running
   * (a model that sends a thousand calls would otherwise run them all, or ask a person a
   * thousand times). Default {@link MAX_CALLS_PER_TURN}.
   */
  maxCallsPerTurn?: number;
  /** Where a workspace escape is logged (at `warn`). Default: nowhere. */
  logger?: Logger;
}

/** Default of {@link ToolCallHandlerOptions.maxCallsPerTurn}: calls of one model turn that run. */
export const MAX_CALLS_PER_TURN = 64;

/**
 * Runs the tool calls of one model turn and turns the results into conversation messages.
 *
 * Read-only calls run concurrently (at most `concurrency` at once); a call
 * that writes, and a call of a caller tool (an `ask_user` question, `request_tools`, a
 * subagent), waits for every earlier call and runs alone, so writes happen in the order the
 * model gave. Results come back in the order of the calls.
 * Confirmation and question handlers are asked one at a time (they reach one person).
 *
 * A call that tries to leave the workspace is answered with a `PATH_TRAVERSAL` error, logged,
 * and the calls of the turn that had not started are not run (answered `ABORTED`).
 */
export class ToolCallHandler {
  private readonly concurrency: number;
  private readonly maxCalls: number;
  private readonly logger: Logger | undefined;

  constructor(private readonly target: ToolCallTarget, options: ToolCallHandlerOptions = {}) {
    this.concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError(`options.concurrency must be a positive integer; got ${options.concurrency}`);
    this.maxCalls = options.maxCallsPerTurn ?? MAX_CALLS_PER_TURN;
    if (!Number.isInteger(this.maxCalls) || this.maxCalls < 1) throw new RangeError(`options.maxCallsPerTurn must be a positive integer; got ${options.maxCallsPerTurn}`);
    this.logger = options.logger;
  }

  /**
   * Run the calls and return one result per call, in call order; `result.callId` is the
   * call's id. Never throws for a call.
   */
  async handle(calls: readonly PendingToolCall[], options: HandleOptions = {}): Promise<ToolExecutionResult[]> {
    const { questionHandler, onCall, onResult, maxCalls = this.maxCalls, agent: _agent, visibility, lazyDomains, subagents, retry: _retry, ...rest } = options;
    if (this.target.registry !== undefined) registerCallerTools(this.target.registry);
    // One person answers both kinds of question: ask one at a time.
    const ask = oneAtATime();
    const confirmationHandler: ConfirmationHandler | null | undefined = typeof rest.confirmationHandler === 'function'
      ? ((handler): ConfirmationHandler => (request, context) => ask(() => handler(request, context)))(rest.confirmationHandler)
      : rest.confirmationHandler;
    const askUser: QuestionHandler | undefined = questionHandler === undefined ? undefined : (question, signal) => ask(() => questionHandler(question, signal));
    const lent = askUser === undefined && visibility === undefined && subagents === undefined ? undefined
      : (servicesOf(rest.client) ?? new CallerServices({})).with({ askUser, visibility, domains: lazyDomains, subagents, session: rest.session, turnId: rest.turnId });
    const callOptions: AgentCallOptions = { ...rest, confirmationHandler, agent: options.agent, client: withServices(rest.client, lent) };
    const run = async (i: number): Promise<ToolExecutionResult> => {
      const call = calls[i]!;
      let result: ToolExecutionResult;
      if (options.signal?.aborted) {
        result = notRun(call, 'ABORTED', 'not run: the run was aborted.', 'interrupted');
      } else {
        onCall?.(call);
        try {
          result = await this.target.execute({ name: call.name, arguments: call.arguments, callId: call.id }, callOptions);
          // A caller tool's answer is for the model (a question, a child's report): never retried.
          const own = CALLER_TOOL_NAMES.has(call.name);
          for (let attempt = 1; options.retry !== undefined && !own; attempt++) {
            const verdict = await options.retry.decide(call, result, attempt, options.signal);
            if (!verdict.again) {
              if (verdict.note !== undefined) result = withNote(result, verdict.note);
              break;
            }
            result = await this.target.execute({ name: call.name, arguments: call.arguments, callId: call.id }, { ...callOptions, session: `${callOptions.session ?? randomUUID()}:retry-${attempt}` });
          }
        } catch (error) {
          if (error instanceof PathTraversalError) throw error;
          // A target that breaks its contract (only PathTraversalError throws) must not leave
          // the turn without answers: the provider would reject the whole conversation.
          this.logger?.warn({ event: 'agent_target_threw', tool: call.name, callId: call.id, err: (error as Error)?.message ?? String(error) }, 'a tool call target threw');
          result = notRun(call, 'TOOL_ERROR', `${clip(String(call.name), 200)} failed: ${clip((error as Error)?.message ?? String(error), 500)}`, 'error');
        }
      }
      result.callId = call.id;
      return result;
    };

    const { results } = await runBatch(calls.length, {
      concurrency: this.concurrency,
      runsAlone: (i) => {
        const call = calls[i]!;
        return CALLER_TOOL_NAMES.has(call.name) || this.target.writes({ name: call.name, arguments: call.arguments, callId: call.id }, callOptions);
      },
      run,
      describe: (i) => ({ tool: clip(String(calls[i]!.name), 200), callId: calls[i]!.id }),
      notRun: (i) => i < maxCalls ? undefined : notRun(calls[i]!, 'OVERLOADED',
        `not run: at most ${maxCalls} tool calls of one turn run, and this is call ${i + 1} of ${calls.length}. Send the rest in your next turn if they are still needed.`),
      onEscape: (i, error) => {
        this.logger?.warn({ event: 'agent_path_traversal', tool: calls[i]!.name, callId: calls[i]!.id, path: error.path }, 'a tool call tried to leave the workspace');
      },
      onResult: (i, result) => onResult?.(calls[i]!, result),
    });
    return results;
  }

  /**
   * OpenAI Chat Completions: run the tool calls of `message` and append one `role: "tool"`
   * message per call (`tool_call_id` = the call's id, in call order) to `conversation`. Images
   * that tools attached follow in one `role: "user"` message (tool messages carry text only),
   * each after a line naming its call. `message` is appended first when it is not already the
   * conversation's last message.
   * @returns the results, in call order.
   */
  async answerOpenAI(message: OpenAIAssistantMessage, conversation: OpenAIChatMessage[], options: HandleOptions = {}): Promise<ToolExecutionResult[]> {
    if (conversation[conversation.length - 1] !== message) conversation.push(message);
    const calls = openAIToolCalls(message);
    const results = await this.handle(calls, options);
    conversation.push(...toOpenAIToolMessages(calls, results));
    return results;
  }

  /**
   * Anthropic Messages: run the `tool_use` blocks of `message` and append one user message
   * whose content is one `tool_result` block per call (`tool_use_id` = the block's id, in
   * order; `is_error: true` on failures; attached images as image blocks after the text).
   * `message` is appended first when it is not already the conversation's last message.
   * @returns the results, in call order.
   */
  async answerAnthropic(message: AnthropicMessage, conversation: AnthropicMessage[], options: HandleOptions = {}): Promise<ToolExecutionResult[]> {
    if (conversation[conversation.length - 1] !== message) conversation.push(message);
    const calls = anthropicToolUses(message);
    const results = await this.handle(calls, options);
    if (calls.length) conversation.push(toAnthropicToolResults(calls, results));
    return results;
  }
}

/** Wrap a bare {@link ToolExecutor} as a {@link ToolCallTarget} (no pins, no tag filter). */
export function executorTarget(executor: ToolExecutor): ToolCallTarget {
  return {
    execute: (call, options) => executor.execute(call, options),
    writes: (call) => executor.writes(call),
    registry: executor.registry,
  };
}

/** A result for a call that did not run. */
function notRun(call: PendingToolCall, code: ToolErrorCode, message: string, stopReason: StopReason = 'not_run'): ToolExecutionResult {
  return failedResult(code, message, { tool: clip(String(call.name), 200), callId: call.id, stopReason });
}
