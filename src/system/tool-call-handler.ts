/**
 * The tool-call handler: one assistant turn's tool calls in, one answer per call out, in the
 * provider's conversation shape. Every call id is threaded and every call is answered, even
 * when its arguments are malformed or its tool is unknown, because providers reject a
 * conversation in which a tool call has no result.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ASK_USER_TOOL, checkAskUserArguments, type AskUserInput } from '../builtin/ask-user.js';
import { PathTraversalError, type ToolErrorCode } from '../errors/errors.js';
import type { ExecuteOptions, ToolExecutor } from '../executor/executor.js';
import { parseArguments } from '../executor/arguments.js';
import { oneAtATime, runBatch } from '../executor/batch.js';
import { completedResult, failedResult, withNote } from '../closeout/results.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { Logger } from '../logging/logger.js';
import type { StopReason, ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import { anthropicToolUses, toAnthropicToolResults, type AnthropicMessage } from '../formats/anthropic.js';
import type { PendingToolCall } from '../formats/common.js';
import { REQUEST_TOOLS_NAME, type DomainVisibility } from '../registry/lazy-visibility.js';
import { openAIToolCalls, toOpenAIToolMessages, type OpenAIAssistantMessage, type OpenAIChatMessage } from '../formats/openai.js';

/** Per-call options of a {@link ToolCallTarget}: the executor's, plus the agent whose version pins apply. */
export interface AgentCallOptions extends ExecuteOptions {
  /** Agent name: its version pins (see `ToolVersionManager.pin`) select the versions that run. */
  agent?: string;
  /**
   * Lazy visibility of this session: a call of a tool its domain still hides is answered
   * `TOOL_HIDDEN` without running (see `src/registry/lazy-visibility.ts`). Default: none (every tool visible).
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
}

/** A question the model put through `ask_user`, with the id of its call. */
export interface UserQuestion extends AskUserInput {
  /** Call id of the `ask_user` call. */
  callId: string;
}

/**
 * Answers an `ask_user` question: the user's answer as text, or the chosen choices (an array
 * for `multi`). A handler that throws makes the call a `TOOL_ERROR` result.
 */
export type QuestionHandler = (question: UserQuestion, signal: AbortSignal | undefined) => string | string[] | Promise<string | string[]>;

/** Options of {@link ToolCallHandler.handle}. */
export interface HandleOptions extends AgentCallOptions {
  /**
   * Answers `ask_user` calls. Without one, an `ask_user` call is answered with an error saying
   * that the tool is unavailable (it is never run as a tool).
   */
  questionHandler?: QuestionHandler;
  /**
   * Calls the caller answers itself, by tool name (an agent's `run_subagent`): never run as
   * tools, never seen by the executor. Default: none.
   */
  builtins?: Readonly<Record<string, BuiltinCallHandler>>;
  /**
   * Answers `request_tools` calls (lazy visibility; an agent passes one). It runs alone, after
   * every earlier call of the turn and before every later one. Without one, such a call goes to
   * the target like any other name (and is unknown there). Default: none.
   */
  requestTools?: (call: PendingToolCall) => ToolExecutionResult;
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
   * Called with each result of a tool call (never `ask_user`, `request_tools` or a builtin such as `run_subagent`), after `attempt` tries (1 for
   * the first). Resolves, after any wait, `{ again: true }` to make the call again, or
   * `{ again: false }` to keep the result, with a `note` appended to its output for the model.
   */
  decide(call: PendingToolCall, result: ToolExecutionResult, attempt: number, signal: AbortSignal | undefined): Promise<{ again: true } | { again: false; note?: string }>;
}

/** Answers one call the caller handles itself ({@link HandleOptions.builtins}). */
export interface BuiltinCallHandler {
  /** Answer the call; a throw becomes a `TOOL_ERROR` result. `options` are the turn's (signal, session, turn id). */
  run(call: PendingToolCall, options: HandleOptions): Promise<ToolExecutionResult>;
  /** Whether the call waits for every earlier call and runs alone, as a write does. Default false: beside reads. */
  runsAlone?: boolean;
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

/** Message of an `ask_user` call when nobody can be asked. */
export const ASK_USER_UNAVAILABLE =
  'ask_user is unavailable: nobody can be asked during this run. Decide with what you have, and say in your final answer what you would need from the user.';

/**
 * Runs the tool calls of one model turn and turns the results into conversation messages.
 *
 * Read-only calls run concurrently (at most `concurrency` at once); a call
 * that writes, and an `ask_user` question, waits for every earlier call and runs alone, so
 * writes happen in the order the model gave. Results come back in the order of the calls.
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
    const { questionHandler, onCall, onResult, requestTools, maxCalls = this.maxCalls, agent: _agent, builtins, ...rest } = options;
    const builtinOf = (name: unknown) => (builtins !== undefined && typeof name === 'string' && Object.hasOwn(builtins, name) ? builtins[name] : undefined);
    // One person answers both kinds of question: ask one at a time.
    const ask = oneAtATime();
    const confirmationHandler: ConfirmationHandler | null | undefined = typeof rest.confirmationHandler === 'function'
      ? ((handler) => (request) => ask(() => handler(request)))(rest.confirmationHandler)
      : rest.confirmationHandler;
    const callOptions: AgentCallOptions = { ...rest, confirmationHandler, agent: options.agent };
    const run = async (i: number): Promise<ToolExecutionResult> => {
      const call = calls[i]!;
      let result: ToolExecutionResult;
      if (options.signal?.aborted) {
        result = notRun(call, 'ABORTED', 'not run: the run was aborted.', 'interrupted');
      } else {
        onCall?.(call);
        try {
          const builtin = builtinOf(call.name);
          // Only the target's tools are retried: a builtin's, request_tools' or ask_user's
          // answer is for the model (and the target does not know their names).
          const own = builtin !== undefined || (call.name === REQUEST_TOOLS_NAME && requestTools !== undefined) || call.name === ASK_USER_TOOL.name;
          result = builtin !== undefined ? await builtin.run(call, options) : call.name === REQUEST_TOOLS_NAME && requestTools !== undefined ? requestTools(call) : call.name === ASK_USER_TOOL.name
            ? await this.askUser(call, questionHandler === undefined ? undefined : (q, s) => ask(() => questionHandler(q, s)), options.signal)
            : await this.target.execute({ name: call.name, arguments: call.arguments, callId: call.id }, callOptions);
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
        const builtin = builtinOf(call.name);
        if (builtin !== undefined) return builtin.runsAlone === true;
        return call.name === ASK_USER_TOOL.name || (call.name === REQUEST_TOOLS_NAME && requestTools !== undefined) || this.target.writes({ name: call.name, arguments: call.arguments, callId: call.id }, callOptions);
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

  /** Answer an `ask_user` call through the question handler, or say it is unavailable. */
  private async askUser(call: PendingToolCall, handler: QuestionHandler | undefined, signal: AbortSignal | undefined): Promise<ToolExecutionResult> {
    if (handler === undefined) return notRun(call, 'UNKNOWN_TOOL', ASK_USER_UNAVAILABLE);
    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) return notRun(call, 'INVALID_ARGUMENTS', `Invalid arguments for ask_user: ${parsed.message}.`);
    const problem = checkAskUserArguments(parsed.value);
    if (problem !== undefined) return notRun(call, 'INVALID_ARGUMENTS', `Invalid arguments for ask_user: ${problem}.`);
    const input = parsed.value as unknown as AskUserInput;
    const question: UserQuestion = { callId: call.id, question: input.question };
    if (Array.isArray(input.choices)) question.choices = input.choices;
    if (input.multi === true) question.multi = true;
    const started = Date.now();
    try {
      const answer = await untilAborted(Promise.resolve(handler(question, signal)), signal);
      if (answer === ABORTED) return notRun(call, 'ABORTED', 'ask_user was aborted before the user answered.', 'interrupted');
      const text = Array.isArray(answer) ? answer.map(String).join('\n') : String(answer ?? '');
      const result = completedResult(text.trim() === '' ? '(the user gave an empty answer)' : text, { tool: ASK_USER_TOOL.name, callId: call.id });
      result.durationMs = Date.now() - started;
      return result;
    } catch (error) {
      return notRun(call, 'TOOL_ERROR', `ask_user failed: the question could not be put to the user (${clip((error as Error)?.message ?? String(error), 500)}).`, 'error');
    }
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
  };
}

/** A result for a call that did not run (or an `ask_user` failure). */
function notRun(call: PendingToolCall, code: ToolErrorCode, message: string, stopReason: StopReason = 'not_run'): ToolExecutionResult {
  return failedResult(code, message, { tool: clip(String(call.name), 200), callId: call.id, stopReason });
}

const ABORTED = Symbol('aborted');

/** `promise`, or {@link ABORTED} as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
