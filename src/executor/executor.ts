/**
 * The executor: one model tool call from raw arguments to a {@link ToolExecutionResult},
 * through validation, the gate chain, a runner and the close-out.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import crypto from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { PathTraversalError, ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import { closeOut, outputText, truncate } from '../closeout/closeout.js';
import { OutputStore, type OutputStoreOptions, type StoredOutput } from '../closeout/output-store.js';
import { DEFAULT_MAX_OUTPUT_LENGTH, MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import { confirmationGate, type ConfirmationHandler } from '../gates/confirmation.gate.js';
import type { GateDenial, GateName } from '../gates/gate.js';
import { modeGate } from '../gates/mode.gate.js';
import { policyGate, type PolicyCall, type PolicyHook } from '../gates/policy.gate.js';
import { RateLimitGate } from '../gates/rate-limit.gate.js';
import { createLogger, redactSecrets, type Logger } from '../logging/logger.js';
import { resolveMode, type AgentMode } from '../modes/modes.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import { MainRunner } from '../runner/main-runner.js';
import { PoolRunner, type PoolCall, type PoolRunnerOptions } from '../runner/pool-runner.js';
import { errorCodeOf, rebuildPathTraversal, type RunOutcome } from '../runner/protocol.js';
import { dropNullOptionals, pathValues } from '../schema/path-arguments.js';
import type { StopReason, ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { workspaceFor } from '../workspace/workspace.js';
import { clip, frozenCopy, isThenable, kindOf } from '../util/values.js';
import { copyJsonData, isPlainObject, parseArguments } from './arguments.js';
import { runInTurnOrder } from './batch.js';

/** Options of a {@link ToolExecutor}; every option documents its default. */
export interface ToolExecutorOptions {
  /** Workspace root when a call gives none. Default: `process.cwd()` at call time. */
  workspaceRoot?: string;
  /**
   * Where the whole output of a call is kept when the model sees only part of it (results
   * then carry `fullOutput`). Default `{}`: a temporary folder, removed by `close()`, holding
   * at most 100 files and 256 MiB (oldest deleted first). `false` keeps nothing.
   */
  outputStore?: OutputStoreOptions | false;
  /** pino logger for call events. Default: silent. */
  logger?: Logger;
  /** Policy hook consulted after the mode gate. Default: none. */
  policyHook?: PolicyHook;
  /** Longest wait for an async policy hook, in ms; a hook slower than this fails open, as one that throws. Default 10000. */
  policyTimeoutMs?: number;
  /** Asked when a call needs confirmation and was not given `confirm: true`. Default: none. */
  confirmationHandler?: ConfirmationHandler;
  /** Worker threads per pool. Default `max(2, available parallelism)`. */
  poolSize?: number;
  /** Memory cap in MiB of workers for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
  /** Calls a pool worker holds at once; see {@link PoolRunnerOptions.callsPerWorker}. Default 2. */
  callsPerWorker?: number;
  /**
   * Names of the tools read-only modes may let write inside scoped folders. Only tools that
   * declare `scopedWrite` qualify; this list narrows them further. Default: every tool that
   * declares `scopedWrite`.
   */
  scopedWriteTools?: Iterable<string>;
  /** Longest wait, in ms, for a rate-limited call's turn before it is refused. Default 10000. */
  rateLimitMaxWaitMs?: number;
  /** Concurrency bound of {@link ToolExecutor.executeMany}. Default 8. */
  concurrency?: number;
}

/** Per-call options. */
export interface ExecuteOptions {
  /** Agent mode: `default`, `explore`, `plan`, or a custom {@link AgentMode}. Default `default`. An unknown name is denied. */
  mode?: string | AgentMode;
  /** Extra scoped write folders for read-only modes (workspace-relative). Default none. */
  scopedWriteDirs?: readonly string[];
  /** The user already approved this call. Default false. */
  confirm?: boolean;
  /** Overrides the executor's confirmation handler for this call; `null` disables it. */
  confirmationHandler?: ConfirmationHandler | null;
  /**
   * Timeout in ms for this call, overriding the tool's (shorter or longer); `<= 0` or
   * `Infinity` disables it; values above 2147483647 (about 24.8 days) are capped there; `NaN`
   * or a non-number is an `INVALID_OPTIONS` result.
   */
  timeoutMs?: number;
  /** Workspace root for this call (request-scoped override). */
  workspaceRoot?: string;
  /** Aborts the call: the result is `ABORTED`, and the tool is stopped. */
  signal?: AbortSignal;
}

/** Options of {@link ToolExecutor.executeMany}. */
export interface ExecuteManyOptions extends ExecuteOptions {
  /** Read-only calls run at most this many at once. Default: the executor's `concurrency`. */
  concurrency?: number;
}

/**
 * What the later steps of one call need, passed along instead of recomputed. It is also what
 * the pool runner is given for the call ({@link PoolCall}), so a call allocates one object.
 */
class CallState implements PoolCall {
  /** The validated arguments (set once checked). */
  args: Record<string, unknown> = NO_ARGUMENTS;
  /** Workspace root of the call (set once the arguments are checked). */
  workspaceRoot = '';
  /** Path arguments, workspace-relative (for the confirmation request); unset when none. */
  paths: string[] | undefined = undefined;
  /** Repairs made to the arguments, if any. */
  repairs: string[] | undefined = undefined;
  /** Timeout in ms (the call's override, else the tool's); `<= 0` for none. */
  timeoutMs: number;
  /** The mode, or `undefined` for an invalid one (the mode gate then denies). */
  mode: AgentMode | undefined = undefined;
  /** The mode's name as given (clipped), for messages and the policy hook. */
  modeName = 'default';
  /** Scoped write folders (real paths) when the mode confines writes. */
  writeRoots: string[] | undefined = undefined;
  /** Where a pool worker that cuts the output keeps the whole of it, if anywhere. */
  fullOutputDir: string | undefined = undefined;
  readonly signal: AbortSignal | undefined;

  constructor(
    readonly tool: RegisteredTool,
    /** The arguments as given (logged at debug level with failures before validation). */
    readonly rawArguments: unknown,
    readonly options: ExecuteOptions,
    readonly callId: string,
    /** `performance.now()` when the call arrived. */
    readonly started: number,
  ) {
    this.timeoutMs = tool.timeoutMs;
    this.signal = options.signal;
  }
}

const NO_ARGUMENTS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** What a policy hook sees; the frozen copy of the arguments is made only if the hook reads it. */
class LazyPolicyCall implements PolicyCall {
  private frozen: Readonly<Record<string, unknown>> | undefined;
  constructor(
    readonly tool: string,
    readonly version: string,
    readonly mode: string,
    readonly callId: string,
    readonly readOnly: boolean,
    private readonly args: Record<string, unknown>,
  ) {}

  get arguments(): Readonly<Record<string, unknown>> {
    return (this.frozen ??= frozenCopy(this.args));
  }

  toJSON(): object {
    return { tool: this.tool, version: this.version, mode: this.mode, callId: this.callId, readOnly: this.readOnly, arguments: this.arguments };
  }
}

/** Results whose JSON text passes this many characters carry no `structured` copy. */
const MAX_STRUCTURED_TEXT = 1_000_000;

const CALL_ID_PREFIX = `tg_${crypto.randomBytes(4).toString('hex')}_`;

/**
 * Runs tool calls. Never throws for a call except {@link PathTraversalError}: every other
 * failure (unknown tool, bad arguments, a gate, a timeout, a crash) is a result.
 *
 * Call {@link ToolExecutor.close} when done, to end worker threads.
 */
export class ToolExecutor {
  /** The registry calls are resolved in (tools registered later are callable too). */
  readonly registry: ToolRegistry;
  private readonly logger: Logger;
  private readonly logInfo: boolean;
  private readonly logDebug: boolean;
  private readonly options: ToolExecutorOptions;
  private readonly scopedWriteTools: ReadonlySet<string> | undefined;
  private readonly mainRunner = new MainRunner();
  private poolRunner: PoolRunner | undefined;
  private rateLimit: RateLimitGate | undefined;
  private readonly outputs: OutputStore | undefined;
  private callCounter = 0;

  /**
   * @param registry - where tools are resolved.
   * @throws RangeError when an option is out of range (the message names it).
   */
  constructor(registry: ToolRegistry, options: ToolExecutorOptions = {}) {
    this.registry = registry;
    this.options = options;
    this.logger = options.logger ?? createLogger('silent');
    this.logInfo = this.logger.isLevelEnabled('info');
    this.logDebug = this.logger.isLevelEnabled('debug');
    this.scopedWriteTools = options.scopedWriteTools === undefined ? undefined : new Set(options.scopedWriteTools);
    try {
      this.outputs = options.outputStore === false ? undefined : new OutputStore(options.outputStore ?? {});
    } catch (error) {
      throw ToolgateOptionError.fromBadOption('outputStore', (error as Error).message);
    }
    if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
      throw ToolgateOptionError.fromBadOption('concurrency', `must be a positive integer; got ${options.concurrency}`);
    }
    this.policyTimeoutMs = options.policyTimeoutMs ?? 10_000;
    if (typeof this.policyTimeoutMs !== 'number' || !(this.policyTimeoutMs > 0) || this.policyTimeoutMs > MAX_TIMEOUT_MS) {
      throw ToolgateOptionError.fromBadOption('policyTimeoutMs', `must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; got ${options.policyTimeoutMs}`);
    }
    if (options.rateLimitMaxWaitMs !== undefined) this.rateLimit = new RateLimitGate(options.rateLimitMaxWaitMs);
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined || options.callsPerWorker !== undefined) this.poolRunner = this.createPoolRunner();
  }

  private createPoolRunner(): PoolRunner {
    return new PoolRunner({ poolSize: this.options.poolSize, defaultMemoryMb: this.options.defaultMemoryMb, callsPerWorker: this.options.callsPerWorker });
  }

  private pool(): PoolRunner {
    return (this.poolRunner ??= this.createPoolRunner());
  }

  private closed = false;
  /** Aborted by close(): ends waits at gates. */
  private readonly closing = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal); // every call waiting at a gate listens
    return controller;
  })();
  private readonly policyTimeoutMs: number;

  /** Start the default worker pool now, so the first call does not wait for threads. */
  warmUp(): void {
    this.pool().warmUp();
  }

  /**
   * Send a no-op task to a pool worker and wait for its answer, through Piscina alone (no
   * gates, no tool): a readiness check, and the bare worker round trip `npm run bench`
   * compares pool calls with. Starts the default pool if it is not running.
   * @returns resolves once a worker answered.
   * @throws (rejects) when the executor is closed, or with Piscina's error when no worker can run it.
   */
  ping(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the executor is closed'));
    return this.pool().ping();
  }

  /**
   * Run one tool call.
   * @param call - `{ name, arguments, callId?, version? }` as the model sent it.
   * @returns the result; see {@link ToolExecutionResult}. Failures of every kind are results.
   * @throws PathTraversalError when a path argument leaves the workspace (also when a tool
   *   finds one inside a worker).
   */
  execute(call: ToolCallRequest, options: ExecuteOptions = {}): Promise<ToolExecutionResult> {
    // Not an async function: a pool call's result then reaches the caller one promise turn
    // sooner. Every exit is a promise; called as a method, nothing throws synchronously.
    const started = performance.now();
    let callId = `${CALL_ID_PREFIX}${++this.callCounter}`;
    let name = '?';
    try {
      if (call === null || typeof call !== 'object') {
        return Promise.resolve(this.finish(started, failure('INVALID_ARGUMENTS', `a tool call must be an object { name, arguments }; got ${kindOf(call)}`, { tool: name, callId })));
      }
      if (typeof call.callId === 'string' && call.callId !== '') callId = clip(call.callId, 200);
      name = typeof call.name === 'string' ? clip(call.name, 200) : `(${kindOf(call.name)})`;
      // A promise from run() already turns a bug on the way into an INTERNAL result.
      const running = this.run(call, name, callId, options, started);
      return running instanceof Promise ? running : Promise.resolve(running);
    } catch (error) {
      try {
        return Promise.resolve(this.internalError(error, name, callId, started));
      } catch (traversal) {
        return Promise.reject(traversal);
      }
    }
  }

  /**
   * What an exception on the call path becomes: a `PathTraversalError` is thrown on (callers
   * must see it); anything else, a bug in toolgate or in a caller's hook, becomes an
   * `INTERNAL` result instead of escaping.
   */
  private internalError(error: unknown, name: string, callId: string, started: number): ToolExecutionResult {
    if (error instanceof PathTraversalError) throw error;
    this.logger.error({ event: 'tool_call_internal_error', tool: name, callId, err: (error as Error)?.stack ?? String(error) }, 'internal error');
    return this.finish(started, failure('INTERNAL', `internal error while running ${name}: ${clip((error as Error)?.message ?? String(error), 2000)}`, { tool: name, callId }));
  }

  /**
   * The call path proper. Returns the result directly when nothing on the way had to wait
   * (validation failures, gate denials, synchronous main-runner tools), else a promise.
   */
  private run(call: ToolCallRequest, name: string, callId: string, options: ExecuteOptions, started: number): ToolExecutionResult | Promise<ToolExecutionResult> {
    const found = this.registry.resolve(name, typeof call.version === 'string' ? call.version : undefined);
    if (!(found instanceof RegisteredTool)) return this.finish(started, failure(found.code, found.message, { tool: name, callId }));
    const tool = found;
    const state = new CallState(tool, call.arguments, options, callId, started);
    if (this.closed) return this.fail(state, 'ABORTED', 'the executor is closed; no more calls run.');

    const badOptions = applyOptions(options, state);
    if (badOptions !== undefined) return this.fail(state, 'INVALID_OPTIONS', badOptions);
    const { mode, modeName } = state;

    // Arguments: parse text, or copy an object once, so that what is checked is what runs.
    let value: Record<string, unknown>;
    const given = call.arguments;
    if (typeof given === 'object' && given !== null && isPlainObject(given)) {
      const copied = copyJsonData(given);
      if (typeof copied === 'string') return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${copied}.`);
      value = copied;
    } else {
      const parsed = parseArguments(given);
      if (!parsed.ok) return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${parsed.message}.`);
      value = parsed.value;
      if (parsed.repairs.length) state.repairs = parsed.repairs;
    }
    const args = dropNullOptionals(tool.inputSchema, value) as Record<string, unknown>;
    const problem = tool.validateInput(args);
    if (problem !== undefined) {
      return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${problem}. Expected ${signatureOf(tool)}.`);
    }

    const root = options.workspaceRoot ?? this.options.workspaceRoot ?? process.cwd();
    // Path arguments are resolved once here; the mode gate and the confirmation request use
    // these results (the tool resolves again in its own context, at the moment of use).
    const modeDecides = mode === undefined || (mode.readOnly && !tool.readOnly);
    const workspace = modeDecides || tool.pathArguments.length !== 0 ? workspaceFor(root) : undefined;
    let resolved: Array<{ given: string; real: string }> | undefined;
    if (tool.pathArguments.length !== 0) {
      resolved = [];
      for (const p of pathValues(args, tool.pathArguments)) {
        try {
          resolved.push({ given: p, real: workspace!.resolve(p) });
        } catch (error) {
          if (error instanceof PathTraversalError) throw this.traversal(error, tool, callId);
          return this.fail(state, 'INVALID_PATH', (error as Error).message);
        }
      }
    }

    // Gate chain: mode, policy, confirmation, rate limit. Waits on a caller's hook or handler
    // end when the call is aborted or the executor closes. (The mode gate passes read-only
    // tools in every known mode, and every tool in a mode that is not read-only.)
    let denial: GateDenial | undefined;
    if (modeDecides) {
      const decision = modeGate({
        tool, paths: resolved ?? [], mode, modeName, scopedWriteDirs: options.scopedWriteDirs ?? [], scopedWriteTools: this.scopedWriteTools, workspace: workspace!,
      });
      denial = decision.denial;
      // A scoped write carries its folders to the tool's workspace, so the check holds at the
      // moment of writing too, not only here.
      if (decision.denial === undefined) state.writeRoots = decision.writeRoots;
    }
    let policyVerdict: GateDenial | undefined | PromiseLike<GateDenial | undefined>;
    if (denial === undefined && this.options.policyHook !== undefined) {
      // Hooks get a frozen copy (made only if they read it): they cannot change what runs.
      const policyCall = new LazyPolicyCall(tool.name, tool.version, modeName, callId, tool.readOnly, args);
      policyVerdict = policyGate(this.options.policyHook, policyCall, this.logger);
      if (!isThenable(policyVerdict)) denial = policyVerdict;
    }
    if (denial !== undefined) return this.fail(state, denial.code, denial.reason, undefined, denial.gate !== 'confirmation', denial.gate, args);
    state.args = args;
    state.workspaceRoot = root;
    if (resolved !== undefined) state.paths = resolved.map((p) => workspace!.relative(p.real));
    if (isThenable(policyVerdict) || tool.requiresConfirmation || tool.rateLimitRpm !== undefined) {
      return this.waitAtGates(state, policyVerdict).then(undefined, (error: unknown) => this.internalError(error, name, callId, started));
    }
    return this.dispatch(state);
  }

  /** The gates that may wait: an async policy hook, confirmation, rate limit. */
  private async waitAtGates(context: CallState, policyVerdict: GateDenial | undefined | PromiseLike<GateDenial | undefined>): Promise<ToolExecutionResult> {
    const { tool, args, options, callId, paths } = context;
    let denial: GateDenial | undefined;
    if (isThenable(policyVerdict)) denial = await this.bounded(policyVerdict, options.signal, this.policyTimeoutMs, 'policy');
    if (denial === undefined && tool.requiresConfirmation) {
      const handler = options.confirmationHandler === null ? undefined : options.confirmationHandler ?? this.options.confirmationHandler;
      const request = { tool: tool.name, version: tool.version, arguments: frozenCopy(args), callId, description: tool.description, paths: paths ?? [] };
      denial = await this.bounded(confirmationGate(request, options.confirm, handler, this.logger), options.signal, 0, 'confirmation');
    }
    if (denial === undefined && tool.rateLimitRpm !== undefined) {
      denial = await this.bounded((this.rateLimit ??= new RateLimitGate()).acquire(tool.key, tool.name, tool.rateLimitRpm), options.signal, 0, 'rate-limit');
    }
    if (denial !== undefined) {
      return this.fail(context, denial.code, denial.reason, undefined, denial.gate !== 'confirmation', denial.gate, args);
    }
    const dispatched = this.dispatch(context);
    return dispatched instanceof Promise ? await dispatched : dispatched;
  }

  /** Run the call on its runner and close it out. */
  private dispatch(context: CallState): ToolExecutionResult | Promise<ToolExecutionResult> {
    const { tool } = context;
    if (this.closed) return this.fail(context, 'ABORTED', 'the executor was closed before the call could run.');
    if (tool.runner !== 'main') {
      if (this.outputs !== undefined && tool.cutInWorker && tool.maxOutputLength > 0) context.fullOutputDir = this.outputs.directory();
      // The pool runner turns the outcome into the result in its own promise turn.
      return this.pool().run(context, this.settleFromPool);
    }
    const running = this.mainRunner.run({
      target: tool.target, key: tool.key, name: tool.name, version: tool.version, args: context.args, workspaceRoot: context.workspaceRoot,
      callId: context.callId, timeoutMs: context.timeoutMs, signal: context.signal, maxOutputLength: tool.maxOutputLength, writeRoots: context.writeRoots,
    });
    if (running instanceof Promise) {
      return running.then(
        (outcome) => this.settleSafely(context, outcome),
        (error: unknown) => this.internalError(error, tool.name, context.callId, context.started),
      );
    }
    return this.settle(context, running);
  }

  /** What the pool runner hands each call's outcome to (one function for every call). */
  private readonly settleFromPool = (outcome: RunOutcome, call: PoolCall): ToolExecutionResult => this.settleSafely(call as CallState, outcome);

  /** {@link settle}, with a bug on the way turned into an `INTERNAL` result (a workspace escape is thrown on). */
  private settleSafely(context: CallState, outcome: RunOutcome): ToolExecutionResult {
    try {
      return this.settle(context, outcome);
    } catch (error) {
      return this.internalError(error, context.tool.name, context.callId, context.started);
    }
  }

  /**
   * A failed result of a resolved tool (logged with `gate`, and at debug level with `args`,
   * by default the arguments as given).
   */
  private fail(
    context: CallState, code: ToolErrorCode, message: string, stopReason?: StopReason, confirmed?: boolean, gate?: string, args?: unknown,
  ): ToolExecutionResult {
    const { tool } = context;
    const fields = { tool: tool.name, version: tool.version, callId: context.callId, repairs: context.repairs, stopReason, confirmed };
    const cap = tool.maxOutputLength > 0 ? tool.maxOutputLength : Number.POSITIVE_INFINITY;
    return this.finish(context.started, failure(code, message, fields, cap), gate, args ?? context.rawArguments);
  }

  /** Turn a runner's outcome into the result. */
  private settle(context: CallState, outcome: RunOutcome): ToolExecutionResult {
    const { tool, args, callId, repairs, started, options } = context;
    outcome = byStopPriority(outcome, options.signal?.aborted === true);
    switch (outcome.kind) {
      case 'ok': {
        // A string always matches an output schema that says no more than "string" (cutInWorker).
        const invalid = typeof outcome.value === 'string' && tool.cutInWorker ? undefined : tool.validateOutput(outcome.value);
        if (invalid !== undefined) {
          if (outcome.full !== undefined) this.outputs?.discard(outcome.full.path);
          return this.fail(context, 'INVALID_OUTPUT', `${tool.name} returned output that does not match its output schema: ${invalid}. This is a bug in the tool, not in the call.`, 'error');
        }
        const text = outputText(outcome.value);
        let output = closeOut(text, outcome.notes, outcome.cut ? 0 : tool.maxOutputLength, tool.truncation);
        let full: StoredOutput | undefined;
        if (this.outputs !== undefined) {
          if (outcome.full !== undefined) full = this.outputs.account(outcome.full.path, outcome.full.characters);
          else if (!outcome.cut && tool.maxOutputLength > 0 && text.length > tool.maxOutputLength) full = this.outputs.write(this.outputs.reserve(callId), text);
        }
        if (outcome.images?.length) {
          output += outcome.images.map((image, i) => `\n[image ${i + 1} of ${outcome.images!.length} attached: ${image.slice(5, image.indexOf(';'))}, ${image.length} characters as a data URL]`).join('');
        }
        const reported = outcome.reported;
        if (reported !== undefined) output += `\n[${tool.name} reported a failure: ${reported}]`;
        const result: ToolExecutionResult = {
          success: reported === undefined, output, durationMs: 0, confirmed: true, tool: tool.name, version: tool.version, callId,
          stopReason: reported === undefined ? 'completed' : 'reported_error',
        };
        if (reported !== undefined) {
          result.error = reported;
          result.errorCode = 'TOOL_ERROR';
        }
        if (typeof outcome.value !== 'string' && outcome.value !== undefined && outcome.value !== null) {
          // Keep the value for callers (MCP structuredContent), unless it is too large to carry.
          if (text.length < MAX_STRUCTURED_TEXT || tool.maxOutputLength <= 0) result.structured = outcome.value;
        }
        if (outcome.images?.length) result.images = outcome.images;
        if (full !== undefined) result.fullOutput = full;
        if (repairs) result.repairs = repairs;
        return this.finish(started, result, undefined, args);
      }
      case 'error': {
        const traversal = rebuildPathTraversal(outcome.error);
        if (traversal !== undefined) throw this.traversal(traversal, tool, callId);
        const notes = outcome.notes.length ? `\n${outcome.notes.join('\n')}` : '';
        const code = errorCodeOf(outcome.error);
        const stopReason = code === 'TIMEOUT' ? 'timeout' : code === 'ABORTED' ? 'interrupted' : 'error';
        return this.fail(context, code, `${tool.name} failed: ${outcome.error.message}${notes}`, stopReason);
      }
      case 'timeout':
        return this.fail(context, 'TIMEOUT', `${tool.name} timed out after ${formatSeconds(outcome.timeoutMs)} s (limit ${outcome.timeoutMs} ms, time waiting for a worker included) and was stopped; try a smaller request.`, 'timeout');
      case 'aborted':
        return this.fail(context, 'ABORTED', `${tool.name} was ${this.closed ? 'stopped by the executor closing' : 'aborted by the caller'} before it finished; it may have had partial effects.`, 'interrupted');
      case 'memory':
        return this.fail(context, 'MEMORY_LIMIT', `${tool.name} was stopped: the worker running it exceeded its memory cap of ${outcome.memoryMb} MB; try a smaller request.`, 'error');
      case 'crashed':
        return this.fail(context, 'WORKER_CRASHED', `${tool.name} crashed: ${outcome.message}.`, this.closed ? 'interrupted' : 'error');
      case 'unavailable':
        return this.fail(context, outcome.code, `${tool.name} did not run: ${outcome.message}.`);
      case 'invalid-output':
        return this.fail(context, 'INVALID_OUTPUT', `${tool.name} failed: ${outcome.message}. This is a bug in the tool, not in the call.`, 'error');
    }
  }

  /**
   * Wait for a gate's promise, ending early with `ABORTED` when the call's signal aborts or
   * the executor closes, or, with `timeoutMs > 0`, failing open when a policy hook takes too
   * long (as when it throws).
   */
  private bounded(pending: PromiseLike<GateDenial | undefined>, signal: AbortSignal | undefined, timeoutMs: number, gate: GateName): Promise<GateDenial | undefined> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: GateDenial | undefined) => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.closing.signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => done({ gate, code: 'ABORTED', reason: this.closed ? 'the executor was closed while the call waited at a gate.' : 'the call was aborted while it waited at a gate.' });
      if (signal?.aborted || this.closing.signal.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.closing.signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.logger.warn({ event: 'policy_hook_timeout', timeoutMs }, 'policy hook did not answer in time; failing open');
          done(undefined);
        }, timeoutMs);
      }
      Promise.resolve(pending).then(done, (error: unknown) => {
        // The rate-limit gate rejects when its limiter is stopped by close().
        done({ gate, code: 'ABORTED', reason: `the call could not pass the ${gate} gate: ${(error as Error)?.message ?? String(error)}` });
      });
    });
  }

  /**
   * Convenience form of {@link execute}.
   * @param name - tool name.
   * @param args - arguments object or JSON text.
   * @param options - per-call options, plus `callId` and `version` (a semver range).
   * @throws PathTraversalError when a path argument leaves the workspace.
   */
  call(name: string, args?: unknown, options?: ExecuteOptions & { callId?: string; version?: string }): Promise<ToolExecutionResult> {
    return this.execute({ name, arguments: args, callId: options?.callId, version: options?.version }, options);
  }

  /**
   * Run a batch of calls (one model turn). Read-only calls run concurrently, at most
   * `concurrency` at once; a call to a tool that writes waits for every earlier call and runs
   * alone, so writes happen in the order the model gave. Results come back in call order.
   * @throws PathTraversalError when a call tries to leave the workspace: calls not yet started
   *   are not run (their results say `ABORTED`), the batch settles, and the error carries the
   *   batch's results in `results`.
   */
  async executeMany(calls: readonly ToolCallRequest[], options: ExecuteManyOptions = {}): Promise<ToolExecutionResult[]> {
    const list = Array.isArray(calls) ? calls : [];
    const concurrency = options.concurrency ?? this.options.concurrency ?? 8;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      return list.map((c) => failure('INVALID_OPTIONS', `options.concurrency must be a positive integer; got ${String(concurrency).slice(0, 50)}`, { tool: toolName(c), callId: callIdOf(c) }));
    }
    const results = new Array<ToolExecutionResult>(list.length);
    let escape: PathTraversalError | undefined;
    const skipped = (i: number): ToolExecutionResult =>
      failure('ABORTED', 'not run: an earlier call in this batch tried to leave the workspace.', { tool: toolName(list[i]), callId: callIdOf(list[i]) });
    const run = async (i: number) => {
      if (escape !== undefined) {
        results[i] = skipped(i);
        return;
      }
      try {
        results[i] = await this.execute(list[i]!, options);
      } catch (error) {
        if (!(error instanceof PathTraversalError)) throw error;
        escape ??= error;
        results[i] = failure('PATH_TRAVERSAL', error.message, { tool: toolName(list[i]), callId: callIdOf(list[i]) });
      }
    };
    await runInTurnOrder(list.length, (i) => {
      const c = list[i];
      const tool = c !== null && typeof c === 'object' && typeof c.name === 'string' ? this.registry.get(c.name, typeof c.version === 'string' ? c.version : undefined) : undefined;
      return tool !== undefined && !tool.readOnly;
    }, run, concurrency);
    if (escape !== undefined) {
      escape.results = results;
      throw escape;
    }
    return results;
  }

  /**
   * End worker threads and rate limiters, and close the `main` runner's tool instances (their
   * `close()`). Calls in flight in workers end as `WORKER_CRASHED`; later calls return `ABORTED`.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    const [failures] = await Promise.all([this.mainRunner.dispose(), this.poolRunner?.close(), this.rateLimit?.close()]);
    this.outputs?.close();
    for (const { key, error } of failures) {
      this.logger.warn({ event: 'tool_close_failed', tool: key, err: error }, 'a tool instance failed to close');
    }
  }

  private traversal(error: PathTraversalError, tool: RegisteredTool, callId: string): PathTraversalError {
    this.logger.warn({ event: 'tool_call', tool: tool.name, version: tool.version, callId, gate: 'workspace', success: false, errorCode: 'PATH_TRAVERSAL', path: error.path }, 'path traversal refused');
    return error;
  }

  private finish(started: number, result: Omit<ToolExecutionResult, 'durationMs'> & { durationMs?: number }, gate?: string, args?: unknown): ToolExecutionResult {
    result.durationMs = performance.now() - started;
    if (this.logInfo) {
      const event: Record<string, unknown> = {
        event: 'tool_call', tool: result.tool, version: result.version, callId: result.callId, gate: gate ?? (result.errorCode === 'UNKNOWN_TOOL' || result.errorCode === 'VERSION_NOT_FOUND' || result.errorCode === 'INVALID_ARGUMENTS' || result.errorCode === 'INVALID_PATH' ? 'validation' : 'passed'),
        durationMs: Math.round(result.durationMs * 1000) / 1000, success: result.success, errorCode: result.errorCode,
      };
      if (this.logDebug && args !== undefined) {
        // Raw JSON text that failed to parse cannot be redacted key by key: log its size only.
        event.arguments = typeof args === 'string' ? `[unparsed arguments, ${args.length} characters]` : redactSecrets(args);
      }
      if (result.success) this.logger.info(event, 'tool call');
      else this.logger.info(event, 'tool call failed');
    }
    return result as ToolExecutionResult;
  }
}

/** A failed result; the message (and so the output) is cut at `cap` characters. */
function failure(
  code: ToolErrorCode,
  message: string,
  fields: { tool: string; callId: string; version?: string; repairs?: string[]; confirmed?: boolean; stopReason?: StopReason },
  cap = DEFAULT_MAX_OUTPUT_LENGTH,
): ToolExecutionResult {
  const text = truncate(message, Math.min(cap, DEFAULT_MAX_OUTPUT_LENGTH));
  const result: ToolExecutionResult = {
    success: false, output: `Error: ${text}`, error: text, errorCode: code, durationMs: 0, confirmed: fields.confirmed ?? true, tool: fields.tool, callId: fields.callId,
    stopReason: fields.stopReason ?? 'not_run',
  };
  if (fields.version !== undefined) result.version = fields.version;
  if (fields.repairs !== undefined) result.repairs = fields.repairs;
  return result;
}

function toolName(call: unknown): string {
  const name = (call as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? clip(name, 200) : '?';
}

function callIdOf(call: unknown): string {
  const id = (call as { callId?: unknown } | null)?.callId;
  return typeof id === 'string' ? clip(id, 200) : '';
}

/**
 * Check per-call options that come from the caller's code (not the model) and put them in
 * `state`: a bad value is an `INVALID_OPTIONS` result (the message is returned), or for modes
 * a denial (fail closed: `state.mode` stays undefined).
 */
function applyOptions(options: ExecuteOptions, state: CallState): string | undefined {
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    return `options.signal must be an AbortSignal; got ${kindOf(options.signal)}`;
  }
  if (options.timeoutMs !== undefined) {
    if (typeof options.timeoutMs !== 'number' || Number.isNaN(options.timeoutMs)) {
      return `options.timeoutMs must be a number of milliseconds; got ${kindOf(options.timeoutMs)} ${String(options.timeoutMs).slice(0, 50)}`;
    }
    state.timeoutMs = options.timeoutMs === Number.POSITIVE_INFINITY ? 0 : Math.min(options.timeoutMs, MAX_TIMEOUT_MS);
  }
  const raw = options.mode as unknown;
  if (raw === undefined) {
    state.mode = resolveMode(undefined);
  } else if (typeof raw === 'string') {
    state.mode = resolveMode(raw);
    state.modeName = clip(raw, 100);
  } else if (raw !== null && typeof raw === 'object' && typeof (raw as AgentMode).name === 'string' && typeof (raw as AgentMode).readOnly === 'boolean') {
    state.mode = raw as AgentMode;
    state.modeName = clip((raw as AgentMode).name, 100);
  } else {
    // fail closed: the mode gate denies
    state.modeName = `(invalid mode: ${kindOf(raw)}; a mode needs a string name and a boolean readOnly)`;
  }
  const dirs = options.scopedWriteDirs as unknown;
  if (dirs !== undefined && (!Array.isArray(dirs) || dirs.some((d) => typeof d !== 'string' || d.trim() === ''))) {
    state.mode = undefined;
    state.modeName = '(invalid scopedWriteDirs: it must be an array of folder names)';
  }
  return undefined;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(s < 1 ? 3 : 1);
}

/** `read_file(filepath: string, max_lines?: number)`: a compact signature for error messages. */
function signatureOf(tool: RegisteredTool): string {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const parts = Object.entries(props).map(([k, s]) => `${k}${required.has(k) ? '' : '?'}: ${typeName(s)}`);
  return `${tool.name}(${parts.join(', ')})`;
}

function typeName(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') return `${typeName(schema.items as Record<string, unknown>)}[]`;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Record<string, unknown>[]).map(typeName).join(' | ');
  return 'any';
}

/**
 * Apply the stop-reason priority (user interrupt > timeout > thrown error > reported error)
 * to a runner's outcome: when the caller's signal has aborted, an outcome that ended the call
 * some other way after the tool started (a timeout, a thrown error, a crash, memory, invalid
 * output) is reported as the interrupt. A workspace escape stays an escape, and outcomes of
 * calls that never ran or finished (`ok`, `unavailable`) are left as they are.
 */
export function byStopPriority(outcome: RunOutcome, interrupted: boolean): RunOutcome {
  if (!interrupted) return outcome;
  switch (outcome.kind) {
    case 'timeout':
    case 'memory':
    case 'crashed':
    case 'invalid-output':
      return { kind: 'aborted' };
    case 'error':
      return outcome.error.code === 'PATH_TRAVERSAL' ? outcome : { kind: 'aborted' };
    default:
      return outcome;
  }
}
