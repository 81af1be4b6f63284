/**
 * Subagents: `run_subagent` / `input_subagent` for a {@link BaseAgent} given a `subagents`
 * option. Their calls run through the executor like every call (decided, recorded, audited;
 * the caller tools of `src/builtin/caller-tools.ts`), answered by the parent's
 * {@link SubagentSessions}, which the agent lends with its calls as their `SubagentDriver`: it builds a
 * child agent of an allowed kind on the same tool system, runs it on the prompt, waits for it
 * during a foreground window and, past the window, lets it go on in the background under an id
 * (`sa-1`, ...) the model polls or sends follow-up prompts to with `input_subagent`.
 *
 * - Depth 1: a child is offered neither tool, and a call to either is answered that
 *   subagents cannot start subagents.
 * - At most `maxSessions` (8) children are kept: when full, the oldest finished one is
 *   evicted; running ones never are, so with all of them running a new one is refused
 *   (`OVERLOADED`).
 * - Approvals are the parent's: a child's calls run with the parent's approval mode,
 *   `autoConfirmTools` and confirmation handler (its questions go to the same person, one at
 *   a time with the parent's), and a child never runs in a more permissive mode than its
 *   parent (a read-only parent's child runs in the parent's mode and write folders).
 * - Each child run is a turn of its own whose id names the parent call
 *   (`<parent session>/<parent call id>/subagent:<id>`, `subagentTurnId`), so with a ledger the
 *   child's calls are stored under their own call ids and sessions, and `ledger.list({ turn })`
 *   finds them from the parent call. A person supervising (the cockpit, a session's approval
 *   mode in the ledger) sees them as part of the parent's run (`supervisedSession`).
 * - Aborting a parent run aborts every running child; so does {@link SubagentSessions.abortAll}.
 *
 * This module knows agents only by the shapes below (it does not import `base-agent.ts`,
 * which imports it).
 *
 * @module
 */
import type { QuestionHandler } from '../builtin/ask-user.js';
import {
  INPUT_SUBAGENT, MAX_SUBAGENT_YIELD_MS, RUN_SUBAGENT, SUBAGENT_DEPTH_MESSAGE, subagentArgumentCheckers, subagentSpecs, subagentTurnId, withoutNulls,
  type InputSubagentInput, type RunSubagentInput, type SubagentCall, type SubagentDriver, type SubagentReport,
} from '../builtin/subagent.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { ApprovalMode } from '../decisions/decision.js';
import { ToolExecutionError, ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import { oneAtATime } from '../executor/batch.js';
import type { OpenAIChatMessage, OpenAITool } from '../formats/openai.js';
import type { AgentMode } from '../modes/modes.js';
import type { ToolSystem } from '../system/tool-system.js';
import type { ModelClass } from '../types/model-class.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import type { ChatModel } from './model-client.js';

/** The `subagents` option of an agent; every option documents its default. */
export interface SubagentOptions {
  /**
   * Agent kinds a child may be, by the name the model passes as `agent_id`: agent classes
   * (`GeneralAgent`, `ExploreAgent`, `PlanAgent`, or your own subclass of `BaseAgent`). The
   * first is the default `agent_id`. Default: the parent's own class, under the parent's name.
   */
  agents?: Readonly<Record<string, SubagentAgentClass>>;
  /** Models a child may use instead of the parent's, by the name the model passes as `model_id`. Default: none (children use the parent's model). */
  models?: Readonly<Record<string, ChatModel>>;
  /** Foreground window of `run_subagent` (and of `input_subagent` with a prompt), in milliseconds, 0 to 600000. Default 300000. */
  windowMs?: number;
  /** Wait of an `input_subagent` poll (no prompt), in milliseconds, 0 to 600000. Default 10000. */
  pollWindowMs?: number;
  /** Children kept at most, 1 to 64; when full, the oldest finished child is evicted, and with every child running `run_subagent` is refused. Default 8. */
  maxSessions?: number;
  /** Model turns with tool calls one child task may take. Default: the parent's `maxToolRounds`. */
  maxToolRounds?: number;
}

/** An event of a child agent, passed to the parent's `onEvent` tagged with the child's id. */
export interface SubagentEvent<E = unknown> {
  type: 'subagent';
  /** The child's id (`sa-1`, ...). */
  subagentId: string;
  /** The child's own event. */
  event: E;
}

/** What a parent agent is to this module (a `BaseAgent`). */
export interface SubagentParent {
  readonly name: string;
  readonly mode: AgentMode;
  readonly scopedWriteDirs: readonly string[];
  readonly maxToolRounds: number;
  readonly autoConfirmTools: boolean;
  /** What the parent's model reads (`vision` or `text-only`): a child on the same model gets it. */
  readonly modelClass: ModelClass;
}

/** The parent's options this module reads (a `BaseAgent`'s `AgentOptions`). */
export interface SubagentParentOptions {
  tools: ToolSystem;
  model: ChatModel;
  confirmationHandler?: ConfirmationHandler;
  approvalMode?: ApprovalMode | (() => ApprovalMode | undefined);
  questionHandler?: QuestionHandler;
  onEvent?: (event: SubagentEvent<never>) => void;
  subagents?: SubagentOptions;
}

/** The options a child agent is built with (a subset of `AgentOptions`). */
interface SubagentChildOptions {
  tools: ToolSystem;
  model: ChatModel;
  name: string;
  mode?: AgentMode;
  scopedWriteDirs?: readonly string[];
  autoConfirmTools: boolean;
  confirmationHandler?: ConfirmationHandler;
  approvalMode?: ApprovalMode | (() => ApprovalMode | undefined);
  questionHandler?: QuestionHandler;
  maxToolRounds: number;
  /**
   * What the child's model reads: the parent's on the parent's model; on another model
   * (`model_id`), that model's own `modelClass`, else the parent's.
   */
  modelClass: ModelClass;
  onEvent: (event: unknown) => void;
  subagents: SubagentOptions;
}

/** What one child run returns (a `BaseAgent`'s `AgentRunResult`). */
interface SubagentRunResult {
  text: string;
  stopReason: string;
  toolRounds: number;
  messages: OpenAIChatMessage[];
  results: ToolExecutionResult[];
}

/** A child agent (a `BaseAgent`). */
export interface SubagentAgent extends SubagentParent {
  run(task: string | readonly OpenAIChatMessage[], options: { signal?: AbortSignal; turnId?: string }): Promise<SubagentRunResult>;
}

/** An agent class a child may be built from (`GeneralAgent`, `ExploreAgent`, `PlanAgent`...). */
export type SubagentAgentClass = new (options: SubagentChildOptions) => SubagentAgent;

/** Where a child is: working on a task, done with it (`idle`: takes a follow-up), failed (its model threw), or aborted. */
type SubagentStatus = 'running' | 'idle' | 'failed' | 'aborted';

/** A child as {@link SubagentSessions.list} shows it. */
export interface SubagentInfo {
  /** Its id (`sa-1`, ...). */
  id: string;
  /** Its agent kind (`agent_id`). */
  agentId: string;
  /** Its model's name (`model_id`), `undefined` for the parent's model. */
  modelId: string | undefined;
  status: SubagentStatus;
  /** Tool calls it made (ended), over all its tasks. */
  toolCalls: number;
  /** The turn ids of its runs, in order: `<parent session>/<parent call id>/subagent:<id>` (a ledger's `turn` of its calls). */
  turns: readonly string[];
  /** Its last final answer (empty while it has none). */
  text: string;
  /** Why it failed, when it did. */
  error: string | undefined;
}

export { SUBAGENT_DEPTH_MESSAGE } from '../builtin/subagent.js';

const DEFAULTS = { windowMs: 300_000, pollWindowMs: 10_000, maxSessions: 8 } as const;

/** Option objects that mark an agent as a child (depth 1). */
const CHILD_MARKERS = new WeakSet<object>();

interface Session {
  readonly id: string;
  readonly agentId: string;
  readonly modelId: string | undefined;
  agent: SubagentAgent | undefined;
  controller: AbortController;
  status: SubagentStatus;
  running: Promise<void> | undefined;
  last: SubagentRunResult | undefined;
  error: string | undefined;
  toolCalls: number;
  readonly turns: string[];
}

/**
 * The children of one parent agent (`agent.subagents`), and the driver that answers its
 * `run_subagent` / `input_subagent` calls. Built by the agent from its `subagents` option.
 */
export class SubagentSessions implements SubagentDriver {
  /** 0 for a parent, 1 for a child (which offers the tools to nobody; the visibility decider denies its calls of them with `SUBAGENT_DEPTH_MESSAGE`). */
  readonly depth: 0 | 1;
  /** The parent's confirmation handler, asked one question at a time with its children's. */
  readonly confirmationHandler: ConfirmationHandler | undefined;
  /** The parent's question handler, asked one question at a time with its children's. */
  readonly questionHandler: QuestionHandler | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly agents: ReadonlyMap<string, SubagentAgentClass>;
  private readonly models: ReadonlyMap<string, ChatModel>;
  private readonly windowMs: number;
  private readonly pollWindowMs: number;
  private readonly maxSessions: number;
  private readonly maxToolRounds: number | undefined;
  private readonly check: ReturnType<typeof subagentArgumentCheckers> | undefined;
  private readonly watched = new WeakSet<AbortSignal>();
  private next = 1;
  private evicted = 0;

  /**
   * The sessions of `parent`, or `undefined` when `options.subagents` is not given.
   * @throws ToolgateOptionError naming the option (`options.subagents.windowMs ...`) when one is wrong.
   */
  static of(parent: SubagentParent, options: SubagentParentOptions): SubagentSessions | undefined {
    return options.subagents === undefined ? undefined : new SubagentSessions(parent, options, options.subagents);
  }

  private constructor(private readonly parent: SubagentParent, private readonly parentOptions: SubagentParentOptions, options: SubagentOptions) {
    if (options === null || typeof options !== 'object') throw ToolgateOptionError.fromBadOption('subagents', `must be an object; got ${String(options)}`);
    this.depth = CHILD_MARKERS.has(options) ? 1 : 0;
    this.windowMs = checkedInteger(options.windowMs, 'windowMs', DEFAULTS.windowMs, 0, MAX_SUBAGENT_YIELD_MS);
    this.pollWindowMs = checkedInteger(options.pollWindowMs, 'pollWindowMs', DEFAULTS.pollWindowMs, 0, MAX_SUBAGENT_YIELD_MS);
    this.maxSessions = checkedInteger(options.maxSessions, 'maxSessions', DEFAULTS.maxSessions, 1, 64);
    this.maxToolRounds = options.maxToolRounds === undefined ? undefined : checkedInteger(options.maxToolRounds, 'maxToolRounds', 1, 1, Number.MAX_SAFE_INTEGER);
    const agents = options.agents ?? { [parent.name]: parent.constructor as SubagentAgentClass };
    if (agents === null || typeof agents !== 'object') throw ToolgateOptionError.fromBadOption('subagents.agents', 'must be an object of agent classes by name');
    for (const [name, value] of Object.entries(agents)) {
      if (typeof value !== 'function') throw ToolgateOptionError.fromBadOption(`subagents.agents.${name}`, `must be an agent class (GeneralAgent, ExploreAgent, PlanAgent...); got ${typeof value}`);
    }
    this.agents = new Map(Object.entries(agents));
    if (this.agents.size === 0) throw ToolgateOptionError.fromBadOption('subagents.agents', 'must name at least one agent class');
    const models = options.models ?? {};
    for (const [name, value] of Object.entries(models)) {
      if (value === null || typeof value !== 'object' || typeof value.complete !== 'function') throw ToolgateOptionError.fromBadOption(`subagents.models.${name}`, 'must be a ChatModel (an object with complete())');
    }
    this.models = new Map(Object.entries(models));
    // A child's questions go to its parent's handlers as given (its own parent queues them).
    const ask = this.depth === 0 ? oneAtATime() : <T>(fn: () => T | PromiseLike<T>) => Promise.resolve(fn());
    const confirm = parentOptions.confirmationHandler;
    const question = parentOptions.questionHandler;
    this.confirmationHandler = typeof confirm === 'function' ? (request, context) => ask(() => confirm(request, context)) : confirm;
    this.questionHandler = typeof question === 'function' ? (q, signal) => ask(() => question(q, signal)) : question;
    this.check = this.depth === 0 ? subagentArgumentCheckers(this.choices()) : undefined;
  }

  /** The specs of both subagent tools, with this agent's choices (which are offered, a child's none: the visibility decider's `offeredCallerTools`). */
  specs(): OpenAITool[] {
    return subagentSpecs(this.choices());
  }

  /** The children kept, oldest first. */
  list(): SubagentInfo[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id, agentId: s.agentId, modelId: s.modelId, status: s.status, toolCalls: s.toolCalls, turns: [...s.turns], text: s.last?.text ?? '', error: s.error,
    }));
  }

  /**
   * Abort every running child (each stops as an aborted agent run does) and wait until they
   * have stopped.
   * @returns how many were running.
   */
  async abortAll(reason = 'aborted by the parent'): Promise<number> {
    const running = [...this.sessions.values()].filter((s) => s.status === 'running');
    for (const s of running) s.controller.abort(new Error(reason));
    await Promise.all(running.map((s) => s.running));
    return running.length;
  }

  private choices() {
    return { agents: [...this.agents.keys()], models: [...this.models.keys()] };
  }

  /**
   * Answer a `run_subagent` call (its arguments already checked against the registered schema):
   * start a child and wait for it up to its window. See {@link SubagentDriver.run}.
   */
  async run(args: RunSubagentInput, call: SubagentCall): Promise<SubagentReport> {
    if (this.depth === 1) throw new ToolExecutionError(`${RUN_SUBAGENT} is ${SUBAGENT_DEPTH_MESSAGE}`, 'CLIENT_UNAVAILABLE');
    const input = this.checked(RUN_SUBAGENT, args, this.check!.run) as RunSubagentInput;
    const agentId = input.agent_id ?? this.agents.keys().next().value!;
    const Agent = this.agents.get(agentId);
    if (Agent === undefined) throw refusal('INVALID_ARGUMENTS', `Invalid arguments for ${RUN_SUBAGENT}: agent_id must be one of ${[...this.agents.keys()].join(', ')}.`);
    const model = input.model_id === undefined ? this.parentOptions.model : this.models.get(input.model_id);
    if (model === undefined) throw refusal('INVALID_ARGUMENTS', `Invalid arguments for ${RUN_SUBAGENT}: model_id must be one of ${[...this.models.keys()].join(', ') || '(none: leave it out)'}.`);
    if (call.signal.aborted) throw refusal('ABORTED', 'not run: the run was aborted.');
    if (!this.makeRoom()) {
      throw refusal('OVERLOADED', `${RUN_SUBAGENT} refused: ${this.maxSessions} subagents are running, the most this agent keeps (running subagents are never evicted). ` +
        `Wait for one to finish with ${INPUT_SUBAGENT} (${[...this.sessions.keys()].join(', ')}), then try again.`);
    }
    const session: Session = {
      id: `sa-${this.next++}`, agentId, modelId: input.model_id, agent: undefined, controller: new AbortController(),
      status: 'idle', running: undefined, last: undefined, error: undefined, toolCalls: 0, turns: [],
    };
    session.agent = this.spawn(Agent, model, session);
    this.sessions.set(session.id, session);
    this.start(session, input.prompt, call);
    return this.await(session, input.yield_time_ms ?? this.windowMs, call.signal, RUN_SUBAGENT);
  }

  /**
   * Answer an `input_subagent` call (its arguments already checked against the registered
   * schema): poll a child, or send it a follow-up prompt. See {@link SubagentDriver.input}.
   */
  async input(args: InputSubagentInput, call: SubagentCall): Promise<SubagentReport> {
    if (this.depth === 1) throw new ToolExecutionError(`${INPUT_SUBAGENT} is ${SUBAGENT_DEPTH_MESSAGE}`, 'CLIENT_UNAVAILABLE');
    const input = this.checked(INPUT_SUBAGENT, args, this.check!.input) as InputSubagentInput;
    const session = this.sessions.get(input.subagent_id);
    if (session === undefined) {
      const known = [...this.sessions.values()].map((s) => `${s.id} (${s.status})`);
      throw refusal('INVALID_ARGUMENTS', `No subagent ${JSON.stringify(clip(input.subagent_id, 200))}: ` +
        `${known.length ? `the subagents are ${known.join(', ')}` : 'no subagent was started'}` +
        `${this.evicted ? `; finished subagents are evicted once ${this.maxSessions} are kept` : ''}. Use an id that ${RUN_SUBAGENT} returned.`);
    }
    const prompt = typeof input.prompt === 'string' && input.prompt.trim() !== '' ? input.prompt : undefined;
    if (prompt === undefined) {
      this.watch(call.signal);
      return this.await(session, input.yield_time_ms ?? this.pollWindowMs, call.signal, INPUT_SUBAGENT);
    }
    if (session.status === 'running') {
      throw refusal('INVALID_ARGUMENTS', `Subagent ${session.id} is still running; it takes a follow-up prompt only once it is idle. Poll it without a prompt until it finishes.`);
    }
    if (session.status !== 'idle') {
      throw refusal('INVALID_ARGUMENTS', `Subagent ${session.id} ${session.status === 'failed' ? 'failed' : 'was aborted'}; it takes no follow-up prompt. Start a new one with ${RUN_SUBAGENT}.`);
    }
    if (call.signal.aborted) throw refusal('ABORTED', 'not run: the run was aborted.');
    this.start(session, prompt, call);
    return this.await(session, input.yield_time_ms ?? this.windowMs, call.signal, INPUT_SUBAGENT);
  }

  /** The arguments (`null` fields dropped) checked against this agent's own choices (its `agent_id` and `model_id` enums). */
  private checked(tool: string, args: unknown, check: (args: unknown) => string | undefined): unknown {
    const value = withoutNulls(args);
    const problem = check(value);
    if (problem !== undefined) throw refusal('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: ${problem}.`);
    return value;
  }

  /** Room for one more child: true when there is (evicting the oldest finished child when full). */
  private makeRoom(): boolean {
    if (this.sessions.size < this.maxSessions) return true;
    for (const s of this.sessions.values()) {
      if (s.status === 'running') continue;
      this.sessions.delete(s.id);
      this.evicted += 1;
      return true;
    }
    return false;
  }

  /** A child of class `Agent` on `model`, never more permissive than the parent. */
  private spawn(Agent: SubagentAgentClass, model: ChatModel, session: Session): SubagentAgent {
    const parent = this.parent;
    const options: SubagentChildOptions = {
      tools: this.parentOptions.tools,
      model,
      name: parent.name,
      autoConfirmTools: parent.autoConfirmTools,
      maxToolRounds: this.maxToolRounds ?? parent.maxToolRounds,
      // A text-only parent's child on the same model is text-only too (no image tools offered).
      modelClass: model === this.parentOptions.model ? parent.modelClass : model.modelClass ?? parent.modelClass,
      onEvent: (event) => {
        if ((event as { type?: unknown }).type === 'tool_result') session.toolCalls += 1;
        this.parentOptions.onEvent?.({ type: 'subagent', subagentId: session.id, event: event as never });
      },
      subagents: childMarker(),
    };
    if (this.confirmationHandler !== undefined) options.confirmationHandler = this.confirmationHandler;
    if (this.questionHandler !== undefined) options.questionHandler = this.questionHandler;
    if (this.parentOptions.approvalMode !== undefined) options.approvalMode = this.parentOptions.approvalMode;
    const child = new Agent(options);
    return allowsNoMore(child, parent) ? child : new Agent({ ...options, mode: parent.mode, scopedWriteDirs: parent.scopedWriteDirs });
  }

  /** Run `prompt` on the child (a follow-up continues its conversation) in a turn naming the parent call. */
  private start(session: Session, prompt: string, call: SubagentCall): void {
    this.watch(call.signal);
    const turnId = subagentTurnId(call.session ?? call.turnId ?? this.parent.name, call.callId, session.id);
    session.turns.push(turnId);
    session.status = 'running';
    session.error = undefined;
    session.controller = new AbortController();
    const signal = session.controller.signal;
    const task: string | OpenAIChatMessage[] = session.last === undefined ? prompt : [...session.last.messages, { role: 'user', content: prompt }];
    session.running = session.agent!.run(task, { signal, turnId }).then(
      (result) => {
        session.last = result;
        session.status = result.stopReason === 'aborted' ? 'aborted' : 'idle';
      },
      (error: unknown) => {
        session.status = signal.aborted ? 'aborted' : 'failed';
        session.error = clip((error as Error)?.message ?? String(error), 500);
      },
    ).finally(() => {
      session.running = undefined;
    });
  }

  /**
   * Abort every running child (background ones started by earlier runs included) when
   * `signal`, a parent run's, aborts; listens once per signal. `BaseAgent.run` calls it at the
   * start of every run. `undefined` does nothing.
   */
  watch(signal: AbortSignal | undefined): void {
    if (signal === undefined || this.watched.has(signal)) return;
    this.watched.add(signal);
    signal.addEventListener('abort', () => void this.abortAll('the parent run was aborted'), { once: true });
  }

  /** Wait up to `ms` for the child's task, then say where it is. */
  private async await(session: Session, ms: number, signal: AbortSignal | undefined, tool: string): Promise<SubagentReport> {
    const running = session.running;
    const outcome = await waitFor(running, ms, signal);
    if (outcome === 'aborted') {
      await running;
      throw refusal('ABORTED', `${tool} was aborted with the run; subagent ${session.id} was stopped.`);
    }
    return this.report(session, outcome === 'window' ? ms : undefined);
  }

  /** The report that tells the model where `session` is; a failed or aborted child is a thrown `TOOL_ERROR` / `ABORTED`. */
  private report(session: Session, waitedMs: number | undefined): SubagentReport {
    const { id, agentId } = session;
    const structured = { subagent_id: id, agent_id: agentId, status: session.status, tool_calls: session.toolCalls, turn: session.turns[session.turns.length - 1] };
    if (session.status === 'failed') throw refusal('TOOL_ERROR', `Subagent ${id} (${agentId}) failed: ${session.error}`);
    if (session.status === 'aborted') throw refusal('ABORTED', `Subagent ${id} (${agentId}) was aborted before it finished.`);
    if (session.status === 'running') {
      return {
        structured,
        text: `Subagent ${id} (${agentId}) is still running in the background${waitedMs === undefined ? '' : ` after ${waitedMs} ms`} (${session.toolCalls} tool calls so far). ` +
          `Poll it with ${INPUT_SUBAGENT} {"subagent_id":"${id}"}, or go on with other work and poll it later.`,
      };
    }
    const last = session.last!;
    const ending = last.stopReason === 'max_tool_rounds' ? `stopped after its limit of ${last.toolRounds} tool rounds` : 'finished';
    return {
      structured,
      text: `Subagent ${id} (${agentId}) ${ending} (${last.results.length} tool calls in ${last.toolRounds} rounds); it is idle and takes a follow-up prompt through ${INPUT_SUBAGENT}. Its answer:\n\n` +
        `${last.text.trim() === '' ? '(no answer text)' : last.text}`,
    };
  }
}

/** A refusal or failure of a subagent call: the tool's result carries `code` and `message`. */
function refusal(code: ToolErrorCode, message: string): ToolExecutionError {
  return new ToolExecutionError(message, code);
}

/** A fresh `subagents` option value that marks an agent as a child (depth 1). */
function childMarker(): SubagentOptions {
  const marker: SubagentOptions = {};
  CHILD_MARKERS.add(marker);
  return marker;
}

/** Whether `child` may do no more than `parent`: a read-only parent's child is read-only and writes only inside the parent's write folders. */
function allowsNoMore(child: SubagentParent, parent: SubagentParent): boolean {
  if (!parent.mode.readOnly) return true;
  if (!child.mode.readOnly) return false;
  const parentDirs = writeDirs(parent);
  return writeDirs(child).every((dir) => parentDirs.some((p) => dir === p || dir.startsWith(`${p}/`)));
}

function writeDirs(agent: SubagentParent): string[] {
  return [...(agent.mode.scopedWriteDirs ?? []), ...agent.scopedWriteDirs].map((d) => d.replace(/^(\.\/)+/, '').replace(/\/+$/, ''));
}

/** `value`, checked as an integer in `[min, max]`, or `fallback` when undefined. */
function checkedInteger(value: number | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) throw ToolgateOptionError.fromBadOption(`subagents.${name}`, `must be an integer from ${min} to ${max}; got ${String(value)}`);
  return value;
}

/** Wait for `promise` at most `ms`, or until `signal` aborts. */
function waitFor(promise: Promise<void> | undefined, ms: number, signal: AbortSignal | undefined): Promise<'done' | 'window' | 'aborted'> {
  if (promise === undefined) return Promise.resolve('done');
  if (signal?.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const finish = (outcome: 'done' | 'window' | 'aborted') => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('window'), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => finish('done'));
  });
}
