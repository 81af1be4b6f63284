/**
 * Agents: a model loop over a {@link ToolSystem}. Each round sends the conversation and the
 * offered tools to the model, runs the tool calls it answers with through the
 * {@link ToolCallHandler}, appends the results, and goes on until the model answers without
 * tool calls, a turn limit is reached (`maxModelCalls`, `maxToolRounds`), or the run is aborted.
 *
 * @module
 */
import crypto from 'node:crypto';
import { ASK_USER_TOOL, askUserSpec } from '../builtin/ask-user.js';
import { offeredCallerTools } from '../decisions/visibility.decider.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { ApprovalMode } from '../decisions/decision.js';
import { MODES, resolveMode, type AgentMode, type ModeName } from '../modes/modes.js';
import type { ToolSystem } from '../system/tool-system.js';
import { ToolgateOptionError } from '../errors/errors.js';
import type { ToolExecutionResult } from '../types/result.js';
import { dropTrailingImages, type OpenAIAssistantMessage, type OpenAIChatMessage, type OpenAITool } from '../formats/openai.js';
import type { ChatModel } from './model-client.js';
import { isModelClass, type ModelClass } from '../types/model-class.js';
import { SubagentSessions, type SubagentEvent, type SubagentOptions } from './subagents.js';
import type { PendingToolCall } from '../formats/common.js';
import type { QuestionHandler } from '../builtin/ask-user.js';
import { RunRetries, retrySettings, type RetryEvent, type RetryOptions } from './retry.js';
import { REQUEST_TOOLS_NAME, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import { AgentLazyTools, lazyDomainsOption } from './lazy-tools.js';
import { turnLimitReached, turnLimits, type TurnLimits } from './turn-limits.js';

/** What an agent reports while it runs (for a terminal or a UI). */
export type AgentEvent =
  | { type: 'model_request'; round: number }
  | { type: 'assistant'; message: OpenAIAssistantMessage }
  | { type: 'tool_call'; call: PendingToolCall }
  | { type: 'tool_result'; call: PendingToolCall; result: ToolExecutionResult }
  | SubagentEvent<AgentEvent>
  | ({ type: 'tool_retry' } & RetryEvent);

/** Options of a {@link BaseAgent}; every option documents its default. */
export interface AgentOptions {
  /** The tool system calls run on (started by the first `run` if it was not). */
  tools: ToolSystem;
  /** The chat model. */
  model: ChatModel;
  /** Agent name: the key of its version pins. Default: the agent kind (`general`, `explore`, `plan`). */
  name?: string;
  /** System prompt; the mode's addendum is appended to it. Default: the agent kind's own. */
  systemPrompt?: string;
  /** Mode. Default: the agent kind's (`default` for {@link GeneralAgent}). */
  mode?: ModeName | AgentMode;
  /** Folders (workspace-relative) where file-editing tools may write in a read-only mode. Default: the kind's (`plans` for {@link PlanAgent}). */
  scopedWriteDirs?: readonly string[];
  /**
   * Run tools that need confirmation without asking (`confirm: true` on every call). Default
   * false. Questions only a person answers still go to `confirmationHandler` (a protected
   * path: `.git`, `.toolgate`, toolgate's own files; a policy file's `always_ask`; a line a
   * deny rule may hide in): without one, such a call is answered `CONFIRMATION_REQUIRED`.
   */
  autoConfirmTools?: boolean;
  /**
   * Asked when a call needs confirmation (and `autoConfirmTools` is off, or the question is
   * one only a person answers); on yes the call
   * runs. Without one, such a call is answered `CONFIRMATION_REQUIRED` and the model is told
   * the user must approve. Default: none (the tool system's executor handler, if it has one).
   */
  confirmationHandler?: ConfirmationHandler;
  /**
   * The approval mode of this agent's calls (`allow-all`, `deny-all`, `read-only`,
   * `always-ask`), or a function read before each batch of calls (each model reply: a session
   * whose mode a person may change; the change counts from the next batch and does not answer
   * a pending question).
   * Default: the executor's.
   */
  approvalMode?: ApprovalMode | (() => ApprovalMode | undefined);
  /**
   * Answers the model's `ask_user` questions. With one, the `ask_user` spec is offered and its
   * calls run through the executor (decided, recorded, audited; a policy may deny them) and are
   * answered by this handler; without one it is not offered, and a call to it anyway is denied
   * as unavailable. Default: none.
   */
  questionHandler?: QuestionHandler;
  /**
   * What the model takes in: `vision` or `text-only`. Only tools meant for this class or for
   * every model are offered (`ToolOptions.forModel`): a vision model gets `read_image`, a
   * text-only one `describe_image`. Default: the model's own `modelClass`, else `vision`.
   */
  modelClass?: ModelClass;
  /**
   * Model turns with tool calls at most; the run then stops with `max_tool_rounds`. In this loop
   * it counts the same as `maxModelCalls` (kept for callers that set it; see
   * `src/agents/turn-limits.ts`). Default: none (`maxModelCalls` bounds the run).
   */
  maxToolRounds?: number;
  /** Requests to the model in one run (one turn) at most; the run then stops with `max_model_calls`. Positive integer. Default 32. */
  maxModelCalls?: number;
  /**
   * Tool calls of one model response that run at most, in order; the rest are answered
   * `OVERLOADED` without running (every call id still gets a result). Positive integer. Default 64.
   */
  maxToolCallsPerResponse?: number;
  /**
   * Lazy visibility (`true`, or `{ tagDomains }`): tools with a domain are not offered until
   * the model calls `request_tools` for it (offered while the selection has a domain); a direct
   * call of a hidden tool is answered `TOOL_HIDDEN`. Domains made visible stay so until the run
   * returns. Visibility is not authorization. Default: off (every tool offered).
   */
  lazyDomains?: boolean | LazyDomainsOptions;
  /** Version pins of this agent, `{ tool: semverRange }`, applied when the run starts. Default none. */
  pins?: Readonly<Record<string, string>>;
  /** Progress events. Default: none. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Offer `run_subagent` / `input_subagent` (docs/subagents.md): which agent kinds and models a
   * child may use, its foreground window, how many children are kept. Default: none (not offered).
   */
  subagents?: SubagentOptions;
  /**
   * Retries of recoverable tool failures without side effects, before the model sees them
   * (see {@link RetryOptions} and docs/outcomes.md), or `false` for none. Default: on, with
   * the defaults of {@link RetryOptions}.
   */
  retry?: RetryOptions | false;
}

/** How a run ended. `final`: the model answered without tool calls. */
export type AgentStopReason = 'final' | 'max_tool_rounds' | 'max_model_calls' | 'aborted';

/** What {@link BaseAgent.run} returns. */
export interface AgentRunResult {
  /** The model's final answer (the last assistant text; empty when there was none). */
  text: string;
  /** How the run ended. */
  stopReason: AgentStopReason;
  /** Model turns that had tool calls. */
  toolRounds: number;
  /** The whole conversation, system message first. */
  messages: OpenAIChatMessage[];
  /** Every tool result, in order. */
  results: ToolExecutionResult[];
}

/** Options of one run. */
export interface AgentRunOptions {
  /** Stops the loop and the tools running: the run returns with `aborted`. */
  signal?: AbortSignal;
  /** The run's turn id (a ledger's `turn` of its calls; `allow_for_turn` lasts for it). Default `<name>:<random UUID>`. */
  turnId?: string;
}

/** Defaults a concrete agent gives. */
export interface AgentKind {
  /** Agent kind, the default name. */
  name: string;
  /** Default system prompt. */
  systemPrompt: string;
  /** Default mode. */
  mode: ModeName | AgentMode;
  /** Default scoped write folders. */
  scopedWriteDirs: readonly string[];
}

/**
 * The agent loop. Every call runs with the agent's mode and `confirm: autoConfirmTools`; the
 * mode's system-prompt addendum (and the scoped write folders) is appended to the system
 * message so the model knows its limits, while the executor's mode gate enforces them.
 *
 * A call that needs confirmation is put to the confirmation handler at the executor's
 * confirmation gate, with the resolved target paths, and runs on yes: the same as running it
 * again with `confirm: true` after the yes, without passing it through validation and the
 * policy hook twice. A no is answered `CONFIRMATION_DENIED`.
 */
export class BaseAgent {
  /** Agent name (key of its pins). */
  readonly name: string;
  /** The mode every call runs in. */
  readonly mode: AgentMode;
  /** Scoped write folders of read-only modes. */
  readonly scopedWriteDirs: readonly string[];
  /** Model turns with tool calls at most. */
  readonly maxToolRounds: number;
  /** Whether calls run with `confirm: true`. */
  readonly autoConfirmTools: boolean;
  /** The model class tools are offered for. */
  readonly modelClass: ModelClass;
  /** The children of this agent with the `subagents` option (`undefined` without it). */
  readonly subagents: SubagentSessions | undefined;
  /** Model calls and tool calls per response at most (see `src/agents/turn-limits.ts`). */
  readonly limits: TurnLimits;
  private readonly lazyDomains: LazyDomainsOptions | undefined;
  private readonly systemPrompt: string;
  private pinned = false;
  private readonly retry: ReturnType<typeof retrySettings> | undefined;

  constructor(protected readonly options: AgentOptions, kind: AgentKind) {
    this.name = options.name ?? kind.name;
    const mode = resolveMode(options.mode ?? kind.mode);
    if (mode === undefined) throw ToolgateOptionError.fromBadOption('mode', `must be default, explore, plan or an AgentMode; got ${JSON.stringify(options.mode)}`);
    this.mode = mode;
    this.scopedWriteDirs = options.scopedWriteDirs ?? kind.scopedWriteDirs;
    this.limits = turnLimits(options);
    this.maxToolRounds = this.limits.maxToolRounds ?? this.limits.maxModelCalls;
    this.lazyDomains = lazyDomainsOption(options.lazyDomains);
    this.autoConfirmTools = options.autoConfirmTools ?? false;
    this.modelClass = options.modelClass ?? options.model?.modelClass ?? 'vision';
    if (!isModelClass(this.modelClass)) throw ToolgateOptionError.fromBadOption('modelClass', `must be "vision" or "text-only"; got ${JSON.stringify(this.modelClass)}`);
    this.systemPrompt = options.systemPrompt ?? kind.systemPrompt;
    this.subagents = SubagentSessions.of(this, options);
    this.retry = options.retry === false ? undefined : retrySettings(options.retry);
  }

  /** The system message: the system prompt, then the mode's addendum and the write folders. */
  systemMessage(): string {
    const parts = [this.systemPrompt];
    if (this.mode.systemPromptAddendum) parts.push(this.mode.systemPromptAddendum);
    const dirs = [...(this.mode.scopedWriteDirs ?? []), ...this.scopedWriteDirs];
    if (this.mode.readOnly && dirs.length) parts.push(`Folders you may write in: ${dirs.map((d) => `${d.replace(/\/+$/, '')}/`).join(', ')}.`);
    return parts.join('\n\n');
  }

  /**
   * The tools offered to the model: the mode's and model class's selection, plus the caller
   * tools the visibility decider offers for what this agent answers them with (`ask_user` with a
   * question handler, the subagent tools with `subagents` for a parent, `request_tools` with
   * lazy visibility while a domain exists); with lazy visibility, `lazy`'s visible tools.
   */
  toolSpecs(lazy?: AgentLazyTools): OpenAITool[] {
    const specs = this.options.tools.toolSpecs('openai', { mode: this.mode, scopedWriteDirs: this.scopedWriteDirs, agent: this.name, modelClass: this.modelClass, visibility: lazy?.visibility });
    const offer = { askUser: this.options.questionHandler !== undefined, subagentDepth: this.subagents?.depth, lazyDomains: lazy?.domains() };
    let subagentSpecs: OpenAITool[] | undefined;
    for (const name of offeredCallerTools(offer, this.mode)) {
      if (name === ASK_USER_TOOL.name) specs.push(askUserSpec('openai') as OpenAITool);
      else if (name === REQUEST_TOOLS_NAME) specs.push(lazy!.requestToolsSpec());
      else specs.push(...(subagentSpecs ??= this.subagents!.specs()).filter((spec) => spec.function.name === name));
    }
    return specs;
  }

  /**
   * Run a task to its end.
   * @param task - the user's request, or a whole conversation to continue (a system message
   *   at its start is replaced by {@link systemMessage}).
   * @throws what the model client throws (endpoint down, bad key), unless the run was aborted.
   */
  async run(task: string | readonly OpenAIChatMessage[], runOptions: AgentRunOptions = {}): Promise<AgentRunResult> {
    const { tools, model, onEvent } = this.options;
    const signal = runOptions.signal;
    // Aborting this run stops every background child, those earlier runs started included.
    this.subagents?.watch(signal);
    await tools.start();
    if (!this.pinned) {
      for (const [name, range] of Object.entries(this.options.pins ?? {})) tools.versions.pin(this.name, name, range);
      this.pinned = true;
    }
    const messages: OpenAIChatMessage[] = [{ role: 'system', content: this.systemMessage() }];
    if (typeof task === 'string') messages.push({ role: 'user', content: task });
    else messages.push(...task.filter((m, i) => !(i === 0 && m.role === 'system')));
    const lazy = this.lazyDomains === undefined ? undefined
      : new AgentLazyTools(tools, { mode: this.mode, scopedWriteDirs: this.scopedWriteDirs, agent: this.name }, this.lazyDomains);
    let specs = this.toolSpecs(lazy);
    const results: ToolExecutionResult[] = [];
    let toolRounds = 0;
    let modelCalls = 0;
    let text = '';
    const done = (stopReason: AgentStopReason): AgentRunResult => ({ text, stopReason, toolRounds, messages, results });
    // One run is one turn: `allow_for_turn` answers last until it returns.
    const turnId = runOptions.turnId ?? `${this.name}:${crypto.randomUUID()}`;
    const retry = this.retry && new RunRetries(this.retry, (event) => onEvent?.({ type: 'tool_retry', ...event }));

    for (;;) {
      if (signal?.aborted) return done('aborted');
      onEvent?.({ type: 'model_request', round: toolRounds + 1 });
      let reply: OpenAIAssistantMessage;
      modelCalls += 1;
      try {
        reply = await model.complete({ messages, tools: specs, signal });
      } catch (error) {
        if (signal?.aborted) return done('aborted');
        throw error;
      }
      if (signal?.aborted) return done('aborted');
      messages.push(reply);
      onEvent?.({ type: 'assistant', message: reply });
      if (typeof reply.content === 'string' && reply.content.trim() !== '') text = reply.content;
      if (!reply.tool_calls?.length) return done('final');
      toolRounds += 1;
      const approvalMode = this.options.approvalMode;
      const batch = await tools.handler.answerOpenAI(reply, messages, {
        agent: this.name,
        approvalMode: typeof approvalMode === 'function' ? approvalMode() : approvalMode,
        turnId,
        // Models reuse call ids across rounds (local ones count from 0 again): the ledger's
        // idempotency key (call id and session) names a call within one round.
        session: `${turnId}:${toolRounds}`,
        mode: this.mode,
        scopedWriteDirs: this.scopedWriteDirs,
        confirm: this.autoConfirmTools,
        confirmationHandler: this.subagents?.confirmationHandler ?? this.options.confirmationHandler,
        questionHandler: this.subagents?.questionHandler ?? this.options.questionHandler,
        // What the caller tools answer with (ask_user: the question handler above), lent to
        // every call of the batch (src/builtin/caller-services.ts).
        subagents: this.subagents,
        visibility: lazy?.visibility,
        lazyDomains: lazy?.scope,
        maxCalls: this.limits.maxToolCallsPerResponse,
        signal,
        onCall: (call) => onEvent?.({ type: 'tool_call', call }),
        onResult: (call, result) => onEvent?.({ type: 'tool_result', call, result }),
        retry,
      });
      results.push(...batch);
      if (this.modelClass === 'text-only') dropTrailingImages(messages); // images a tool attached (a screenshot) are for vision models
      if (signal?.aborted) return done('aborted');
      const limit = turnLimitReached(this.limits, modelCalls, toolRounds);
      if (limit !== undefined) return done(limit);
      // What request_tools made visible is offered from the next round on.
      if (lazy !== undefined) specs = this.toolSpecs(lazy);
    }
  }
}

/** Options of the concrete agents (all of {@link AgentOptions}). */
export type GeneralAgentOptions = AgentOptions;

/** A general agent: default mode, every tool (writes and commands ask for confirmation). */
export class GeneralAgent extends BaseAgent {
  constructor(options: AgentOptions) {
    super(options, {
      name: 'general',
      mode: 'default',
      scopedWriteDirs: [],
      systemPrompt:
        'You are an agent working in a project workspace through tools. Read before you change anything, keep changes small, and check your work. ' +
        'When the task is done, answer with a short summary of what you did and found.',
    });
  }
}

/** An explore agent: read-only mode; it reads and searches, and answers with what it found. */
export class ExploreAgent extends BaseAgent {
  constructor(options: AgentOptions) {
    super(options, {
      name: 'explore',
      mode: 'explore',
      scopedWriteDirs: [],
      systemPrompt: 'You explore a project workspace to answer questions about it. Read and search with the tools, then answer with what you found, naming the files.',
    });
  }
}

/** Options of a {@link PlanAgent}. */
export interface PlanAgentOptions extends AgentOptions {
  /** The folder plans are written in (workspace-relative). Default `plans`. */
  planDir?: string;
}

/**
 * A plan agent: read-only mode, except that file-editing tools may write inside the plan
 * folder (`plans/` by default); it investigates and writes its plan there.
 */
export class PlanAgent extends BaseAgent {
  constructor(options: PlanAgentOptions) {
    const planDir = options.planDir ?? 'plans';
    super(options, {
      name: 'plan',
      mode: MODES.plan,
      scopedWriteDirs: [planDir],
      systemPrompt:
        `You plan changes to a project workspace. Investigate with the read-only tools, write the plan as a Markdown file inside ${planDir}/, ` +
        'and answer with a short summary of the plan and the path of its file.',
    });
  }
}
