/**
 * The executor: one model tool call from raw arguments to a {@link ToolExecutionResult}. This
 * class holds the order of the steps; each step is a module of its own:
 * 1. resolve the tool in the registry (name, optional semver range);
 * 2. prepare: parse and validate the arguments, resolve every path argument inside the
 *    workspace (`prepare-call.ts`, giving a {@link CallState});
 * 3. decide: the decision pipeline (`src/decisions/`), then rate-limit admission;
 * 4. claim and dispatch: the journal (`call-journal.ts`) claims a recorded call, then the
 *    dispatcher (`dispatcher.ts`; locally `local-dispatcher.ts`, this process's runners) runs it;
 * 5. close out: the result is built by `src/closeout/results.ts`, logged (`call-log.ts`) and
 *    written to the journal.
 * Options live in `executor-options.ts`.
 *
 * @module
 */
import crypto from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { markRefusedBeforeRun, PathTraversalError, ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import { OutputStore } from '../closeout/output-store.js';
import { byStopPriority, failedResult, requestedCallId, requestedName, resultOf, toolFailure } from '../closeout/results.js';
import { ANSWER_STEP, isSuspension } from '../decisions/approval.js';
import { buildDeciders } from '../decisions/deciders.js';
import type { Decision } from '../decisions/decision.js';
import { DecisionPipeline, type Decided } from '../decisions/pipeline.js';
import { pathFilterSpecOf } from '../decisions/policy-path-filter.js';
import { RateLimiter, type RateAdmission } from '../decisions/rate-limit.js';
import type { CallStore } from '../ledger/call-store.js';
import { createLogger } from '../logging/logger.js';
import { RememberedApprovals } from '../policy/remembered-approvals.js';
import { PolicyFileApprovals } from '../policy/saved-approvals.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import { DEFAULT_RUNNER } from '../runner/kinds.js';
import type { RunOutcome } from '../runner/runner.js';
import type { StopReason, ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip, isThenable, kindOf } from '../util/values.js';
import { sweepStaleOnce } from '../workspace/leftovers.js';
import { runBatch } from './batch.js';
import { CallJournal, type CallResult } from './call-journal.js';
import { CallLog, recordOf } from './call-log.js';
import { CallState } from './call-state.js';
import { commandAnalysis, loadedCommandAnalysis } from './command-analysis.js';
import type { CallEnd, DispatchRequest } from './dispatcher.js';
import { applyOptions, badSession, settingsOf, type CallPreview, type ExecuteManyOptions, type ExecuteOptions, type ExecutorSettings, type Failure, type ToolExecutorOptions } from './executor-options.js';
import { LocalDispatcher } from './local-dispatcher.js';
import { prepareCall } from './prepare-call.js';
import { observeCall } from './telemetry.js';

export type { CallPreview, ExecuteManyOptions, ExecuteOptions, PolicyOptions, ToolExecutorOptions } from './executor-options.js';
const CALL_ID_PREFIX = `tg_${crypto.randomBytes(4).toString('hex')}_`;

/**
 * Runs tool calls. Never throws for a call except {@link PathTraversalError}: every other
 * failure (unknown tool, bad arguments, a decision, a timeout, a crash) is a result; so is
 * all but a confirmation handler's suspension (`isSuspension`: LangGraph's `interrupt()`).
 *
 * Call {@link ToolExecutor.close} when done, to end worker threads.
 */
export class ToolExecutor {
  /** The registry calls are resolved in (tools registered later are callable too). */
  readonly registry: ToolRegistry;
  /** The `scopedWriteTools` option: which `scopedWrite` tools read-only modes let write (`undefined`: all that declare it). */
  readonly scopedWriteTools: ReadonlySet<string> | undefined;
  /** The session of calls that name none. */
  readonly session: string;
  private readonly options: ToolExecutorOptions;
  private readonly settings: ExecutorSettings;
  private readonly log: CallLog;
  private readonly pipeline: DecisionPipeline;
  /** The answers people gave, per turn and saved. */
  private readonly remembered: RememberedApprovals;
  /** Where claimed calls run: this process's runners. */
  private readonly dispatcher: LocalDispatcher;
  private rateLimit: RateAdmission | undefined;
  private readonly outputs: OutputStore | undefined;
  /** The durable ledger's journal, if any. */
  private readonly journal: CallJournal | undefined;
  private callCounter = 0;
  private closed = false;
  /** Aborted by close(): ends waits in the decision pipeline. */
  private readonly closing = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal); // every call waiting for a decision listens
    return controller;
  })();

  /**
   * @param registry - where tools are resolved.
   * @throws ToolgateOptionError when an option is out of range (the message names it).
   */
  constructor(registry: ToolRegistry, options: ToolExecutorOptions = {}) {
    this.registry = registry;
    this.options = options;
    this.log = new CallLog(options.logger ?? createLogger('silent'));
    try {
      this.outputs = options.outputStore === false ? undefined : new OutputStore(options.outputStore ?? {});
    } catch (error) {
      throw ToolgateOptionError.fromBadOption('outputStore', (error as Error).message);
    }
    this.settings = settingsOf(options);
    this.scopedWriteTools = this.settings.scopedWriteTools;
    this.session = this.settings.session;
    const outputsInLedger = this.outputs !== undefined && (options.outputStore === undefined || (options.outputStore !== false && options.outputStore.dir === undefined));
    this.journal = CallJournal.open(options.ledger, options.workspaceRoot, this.outputs, outputsInLedger, this.log.logger);
    const policyFiles = this.settings.policyFiles;
    const saved = options.savedApprovals ?? (policyFiles?.userFile === undefined ? undefined : new PolicyFileApprovals(policyFiles.userFile, this.log.logger));
    this.remembered = new RememberedApprovals(saved);
    const deciders = buildDeciders({
      policyFiles,
      scopedWriteTools: this.scopedWriteTools,
      policyHook: options.policyHook,
      policyTimeoutMs: this.settings.policyTimeoutMs,
      protectedPaths: options.protectedPaths ?? [],
      remembered: this.remembered,
      logger: this.log.logger,
      sessionApprovalModes: this.journal?.sessionApprovalModes(), ownState: [this.journal?.ledger.file, this.outputs?.directory()],
    });
    this.pipeline = new DecisionPipeline(deciders, this.log.logger, this.closing.signal, (call) => this.remembered.offers(call));
    this.rateLimit = options.rateLimiter ?? (options.rateLimitMaxWaitMs === undefined ? undefined : new RateLimiter(options.rateLimitMaxWaitMs));
    this.dispatcher = new LocalDispatcher({ poolSize: options.poolSize, defaultMemoryMb: options.defaultMemoryMb, callsPerWorker: options.callsPerWorker }, options.runners);
    // Runner options are checked now, by making the runner they are for.
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined) this.dispatcher.runnerFor(DEFAULT_RUNNER);
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined || options.callsPerWorker !== undefined) this.dispatcher.runnerFor('pool');
    // What hosts killed before left (temporary files, output folders, cgroups): once per
    // process, on a later turn, off every call's path.
    if (options.sweepLeftovers !== false) void sweepStaleOnce().then((swept) => this.log.swept(swept));
  }

  /** The durable ledger (call store) calls are recorded in, or `undefined` without one. */
  get ledger(): CallStore | undefined {
    return this.journal?.ledger;
  }

  /**
   * Start the default runner's processes now, so the first call does not wait for them; with
   * a tool, the processes of that tool's runner (and memory cap). No tool module is loaded.
   */
  warmUp(tool?: RegisteredTool): void {
    if (!this.closed) this.dispatcher.warmUp(tool);
  }

  /**
   * Send a no-op task to a pool worker and wait for its answer, through Piscina alone (no
   * decisions, no tool): a readiness check, and the bare worker round trip `npm run bench`
   * compares pool calls with. Starts the default pool if it is not running.
   * @returns resolves once a worker answered.
   * @throws (rejects) when the executor is closed, or with Piscina's error when no worker can run it.
   */
  ping(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the executor is closed'));
    return this.dispatcher.ping();
  }

  /**
   * Run one tool call.
   * @param call - `{ name, arguments, callId?, version? }` as the model sent it.
   * @returns the result; see {@link ToolExecutionResult}. Failures of every kind are results.
   * @throws PathTraversalError when a path argument leaves the workspace (also when a tool
   *   finds one inside a worker); rejects with a confirmation handler's suspension (`isSuspension`),
   *   the call then waiting, unrefused, for its call id to come again when the framework resumes.
   */
  execute(call: ToolCallRequest, options: ExecuteOptions = {}): Promise<ToolExecutionResult> {
    // OpenTelemetry: without a registered SDK `observeCall` is undefined and the call takes
    // the path below unchanged.
    const observed = observeCall(call);
    if (observed !== undefined) return observed.run((traceparent) => this.executeNow(call, options, traceparent));
    return this.executeNow(call, options, undefined);
  }

  /** {@link execute} itself; `traceparent` (the call's span) goes with the call to its runner. */
  private executeNow(call: ToolCallRequest, options: ExecuteOptions, traceparent: string | undefined): Promise<ToolExecutionResult> {
    // Not an async function: a result that needed no wait reaches the caller one promise turn
    // sooner. Every exit is a promise; called as a method, nothing throws synchronously.
    const started = performance.now();
    let callId = `${CALL_ID_PREFIX}${++this.callCounter}`;
    let name = '?';
    try {
      if (call === null || typeof call !== 'object') {
        return Promise.resolve(this.log.finish(started, failedResult('INVALID_ARGUMENTS', `a tool call must be an object { name, arguments }; got ${kindOf(call)}`, { tool: name, callId })));
      }
      if (typeof call.callId === 'string' && call.callId !== '') callId = clip(call.callId, 200);
      name = typeof call.name === 'string' ? clip(call.name, 200) : `(${kindOf(call.name)})`;
      // A promise from run() already turns a bug on the way into an INTERNAL result.
      const running = this.run(call, name, callId, options, started, traceparent);
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
   * What an exception on the call path becomes: a `PathTraversalError` and a suspension are
   * thrown on (callers must see them); anything else, a bug in toolgate or in a caller's hook, becomes an
   * `INTERNAL` result instead of escaping.
   */
  private internalError(error: unknown, name: string, callId: string, started: number): ToolExecutionResult {
    if (error instanceof PathTraversalError || isSuspension(error)) throw error;
    this.log.internalError(error, name, callId);
    return this.log.finish(started, failedResult('INTERNAL', `internal error while running ${name}: ${clip((error as Error)?.message ?? String(error), 2000)}`, { tool: name, callId }));
  }

  /**
   * Steps 1 and 2, then the decisions. Returns the result directly when nothing on the way
   * had to wait (validation failures, denials, synchronous main-runner tools), else a promise.
   */
  private run(call: ToolCallRequest, name: string, callId: string, options: ExecuteOptions, started: number, traceparent: string | undefined): CallResult {
    const found = this.registry.resolve(name, typeof call.version === 'string' ? call.version : undefined);
    if (!(found instanceof RegisteredTool)) return this.log.finish(started, failedResult(found.code, found.message, { tool: name, callId }));
    const state = new CallState(found, call.arguments, options, callId, started);
    if (traceparent !== undefined) state.traceparent = traceparent;
    if (this.closed) return this.fail(state, { code: 'ABORTED', message: 'the executor is closed; no more calls run.' });
    const badOptions = applyOptions(options, state, this.options.approvalMode);
    if (badOptions !== undefined) return this.fail(state, { code: 'INVALID_OPTIONS', message: badOptions });
    state.session = typeof options.session === 'string' && options.session !== '' ? options.session : this.session;
    const invalid = this.prepare(state, call.arguments);
    if (invalid !== undefined) return invalid;
    const tool = state.tool; // its shell commands and input are analysed once, before any decider
    if (tool.commandArguments.length !== 0 || tool.inputArguments.length !== 0) {
      const analyze = loadedCommandAnalysis();
      if (analyze === undefined || (tool.inputArguments.length !== 0 && tool.target === undefined)) {
        return commandAnalysis(tool)
          .then((loaded) => {
            state.commands = loaded(tool, state.args, state.workspace.realRoot);
            return this.decideOn(state, options);
          })
          .then(undefined, (error: unknown) => this.internalError(error, name, callId, started));
      }
      state.commands = analyze(tool, state.args, state.workspace.realRoot);
    }
    return this.decideOn(state, options);
  }

  /**
   * Step 2 ({@link prepareCall}) with its failures as results; a workspace escape is logged,
   * and recorded in the journal when `record` (a preview does not), then thrown.
   */
  private prepare(state: CallState, given: unknown, record = true): CallResult | undefined {
    let failure;
    try {
      failure = prepareCall(state, given, this.settings); // one settings object for every call
    } catch (error) {
      if (error instanceof PathTraversalError) markRefusedBeforeRun(error);
      if (!(error instanceof PathTraversalError) || !record) throw error;
      this.log.traversal(error, state.tool, state.callId);
      if (this.journal === undefined) throw error;
      // Recorded and stored `denied` (not run), so that `toolgate trace` and the cockpit show the attempt; then thrown on.
      return this.recordCall(state).then((known) => known ?? this.journal!.closeOut(state, toolFailure(state.tool, 'PATH_TRAVERSAL', error.message, { callId: state.callId, stopReason: 'not_run' }), this.closed))
        .then(() => { throw error; });
    }
    return failure === undefined ? undefined : this.fail(state, { code: failure.code, message: failure.message, loggedArguments: failure.loggedArguments });
  }

  /** Step 3 begins: the journal's record (unless `recorded`), the decision pipeline, then admission. */
  private decideOn(state: CallState, options: ExecuteOptions, recorded = this.journal === undefined): CallResult {
    if (!recorded) return this.recordCall(state).then((known) => known ?? this.decideOn(state, options, true));
    const ask = {
      confirm: options.confirm, handler: options.confirmationHandler === null ? undefined : options.confirmationHandler ?? this.options.confirmationHandler,
      questions: this.journal?.questions, call: state.entry,
    };
    const decided = this.pipeline.decide(state, ask, state.signal);
    if (!isThenable(decided)) return this.admit(state, decided);
    // A bug on the way after a wait is an INTERNAL result; a workspace escape is thrown on.
    return decided.then((d) => this.admit(state, d)).then(undefined, (error: unknown) => this.callError(error, state));
  }

  /**
   * Record a call whose arguments are valid in the journal (before the deciders).
   * @returns `undefined` when the call goes on, else its result: the stored one of a call that
   *   ended before, or the journal's refusal (see {@link CallJournal.record}).
   */
  private async recordCall(state: CallState): Promise<ToolExecutionResult | undefined> {
    const bad = badSession(state.options);
    if (bad !== undefined) return this.fail(state, { code: 'INVALID_OPTIONS', message: bad });
    const known = await this.journal!.record(state);
    if (known === undefined) return undefined;
    return 'result' in known ? this.log.finish(state.started, known.result, 'ledger') : this.fail(state, known);
  }

  /** Step 3, after the decisions: a denial's result, or rate-limit admission and dispatch. */
  private admit(state: CallState, decided: Decided): CallResult {
    if (decided.trail.length !== 0) state.decisions = decided.trail;
    // A person's time to answer a confirmation is not the call's time.
    if (decided.answerWaitMs !== undefined) state.timeoutFrom += decided.answerWaitMs;
    if (decided.final.verdict === 'deny') return this.denied(state, decided.final);
    if (decided.writeRoots !== undefined) state.writeRoots = [...decided.writeRoots];
    state.pathFilter = pathFilterSpecOf(this.settings.policyFiles, state, decided.trail);
    const rpm = state.tool.rateLimitRpm;
    if (rpm === undefined) return this.dispatch(state);
    const limiter = (this.rateLimit ??= new RateLimiter());
    return this.pipeline.bounded(limiter.acquire(state.tool.key, state.tool.name, rpm), 'rate-limit', state.signal, 0, undefined).then(async (refused) => {
      if (refused !== undefined) return this.denied(state, refused);
      // A rule added while the call waited its turn applies.
      const late = await this.pipeline.recheck(decided.trail, state, state.signal);
      if (late !== undefined) {
        state.decisions = [...decided.trail, late];
        return this.denied(state, late);
      }
      return this.dispatch(state);
    }).then(undefined, (error: unknown) => this.callError(error, state));
  }

  /** The result of a call a decision refused (`confirmed: false` only when the answer to a question refused it). */
  private denied(state: CallState, decision: Decision): CallResult {
    const { code = 'POLICY_DENIED', reason: message, decider: gate, retryAfterMs } = decision;
    return this.fail(state, { code, message, confirmed: gate !== ANSWER_STEP, gate, loggedArguments: state.args, retryAfterMs });
  }

  /**
   * Step 4: the last checks, the journal's claim, and the dispatcher. Everything before this
   * point only decided; from here the tool may act. Never rejects but with a workspace escape:
   * the dispatcher settles the run through {@link end} (no closure per call, and, but for the
   * awaited claim of a recorded call, no `.then` of ours: a promise turn saved per pool call).
   */
  private dispatch(state: CallState): CallResult {
    const { tool } = state;
    if (this.closed) return this.fail(state, CLOSED_BEFORE_RUN);
    // An approval is for the definition it was asked about: a replacement runs only on a new call.
    const { approvedRevision } = state.options;
    if (this.registry.isReplaced(tool) || (approvedRevision !== undefined && approvedRevision !== tool.revision)) {
      return this.fail(state, { code: 'TOOL_REPLACED', message: replacedMessage(tool), gate: 'registry' });
    }
    const spentMs = state.timeoutMs > 0 ? performance.now() - state.timeoutFrom : 0;
    if (state.timeoutMs > 0 && spentMs >= state.timeoutMs) return this.fail(state, { code: 'TIMEOUT', stopReason: 'timeout', message: lateMessage(tool, state.timeoutMs, spentMs) });
    if (this.outputs !== undefined && tool.cutInWorker && tool.maxOutputLength > 0) state.fullOutputDir = this.outputs.directory();
    if (state.entry === undefined) return this.dispatcher.dispatch(state, this.end) as CallResult;
    // Run once the claim is committed (not when closed meanwhile); its progress goes to the ledger.
    return this.journal!.claim(state, state.decisions?.map(recordOf)).then((refused) => refused !== undefined ? this.fail(state, refused) : this.closed ? this.fail(state, CLOSED_BEFORE_RUN)
      : this.dispatcher.dispatch(this.journal!.recordProgress(state), this.end)) as Promise<ToolExecutionResult>;
  }

  /** How the dispatcher tells a call's end (step 5): one object for every call. */
  private readonly end: CallEnd<CallResult> = {
    ended: (outcome: RunOutcome, call: DispatchRequest) => this.settle(call as CallState, outcome),
    failed: (error: unknown, call: DispatchRequest) => this.callError(error, call as CallState),
  };

  /** Step 5: the result of a run (a bug on the way becomes `INTERNAL`; a workspace escape is thrown on; a suspension waits). */
  private settle(state: CallState, outcome: RunOutcome): CallResult {
    if (outcome.kind === 'suspended') return this.suspended(state, outcome.suspension); // a main-runner tool asked what a later request answers
    try {
      const result = resultOf(state, byStopPriority(outcome, state.signal?.aborted === true), this.outputs, this.closed);
      const finished = this.log.finish(state.started, result, undefined, result.success ? state.args : state.rawArguments, state.decisions);
      return state.entry !== undefined ? this.journal!.closeOut(state, finished, this.closed) : finished;
    } catch (error) {
      if (error instanceof PathTraversalError) return this.closeOutEscape(state, this.log.traversal(error, state.tool, state.callId));
      return this.callError(error, state);
    }
  }

  /** {@link internalError} of a resolved call (closed out in the journal when recorded). */
  private callError(error: unknown, state: CallState): CallResult {
    if (error instanceof PathTraversalError) return this.closeOutEscape(state, error);
    if (isSuspension(error)) return this.suspended(state, error);
    const result = this.internalError(error, state.tool.name, state.callId, state.started);
    return state.entry !== undefined ? this.journal!.closeOut(state, result, this.closed) : result;
  }

  /** A confirmation handler or `main`-runner run suspended (`isSuspension`): the call waits ({@link CallJournal.suspend}), the error is thrown on. */
  private suspended(state: CallState, error: unknown): Promise<ToolExecutionResult> {
    this.log.logger.info({ event: 'call_suspended', tool: state.tool.name, callId: state.callId }, 'the caller suspended while its question was open; the call waits for it to resume');
    if (state.entry === undefined) return Promise.reject(error);
    return this.journal!.suspend(state).then((ended) => (ended === undefined ? Promise.reject(error) : this.log.finish(state.started, ended)));
  }

  /** A recorded call that ends in a workspace escape is stored `failed` (`PATH_TRAVERSAL`) before the error is thrown on (or the promise rejects with it). */
  private closeOutEscape(state: CallState, error: PathTraversalError): Promise<never> {
    const stored = state.entry === undefined ? undefined : this.journal!.closeOut(state, toolFailure(state.tool, 'PATH_TRAVERSAL', error.message, { callId: state.callId, stopReason: 'error' }), this.closed);
    if (!isThenable(stored)) throw error;
    return stored.then(() => { throw error; });
  }

  /** A failed result of a resolved tool: logged (with `gate`, and at debug level its arguments), and closed out in the journal when recorded. */
  private fail(state: CallState, failure: Failure): CallResult {
    const { code, message, stopReason, confirmed, gate, loggedArguments, retryAfterMs } = failure;
    const result = toolFailure(state.tool, code, message, { callId: state.callId, repairs: state.repairs, stopReason, confirmed, retryAfterMs });
    const finished = this.log.finish(state.started, result, gate, loggedArguments ?? state.rawArguments, state.decisions);
    return state.entry !== undefined ? this.journal!.closeOut(state, finished, this.closed) : finished;
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

  /** Does this call write (the version it would run is not read-only)? Unknown tools and malformed calls: false. */
  writes(call: ToolCallRequest): boolean {
    if (call === null || typeof call !== 'object' || typeof call.name !== 'string') return false;
    const tool = this.registry.get(call.name, typeof call.version === 'string' ? call.version : undefined);
    return tool !== undefined && !tool.readOnly;
  }

  /**
   * What the decision pipeline would say about a call, without running it: step 1 to 3 with
   * nobody to ask and no ledger. For adapters that must tell their framework before a call
   * runs whether it needs a person's approval (the AI SDK's and Agents JS's `needsApproval`).
   * Side effects: the policy hook is called (as it will be again when the call runs), and a
   * call that fails before the gates is logged as failed (as its run will be); nothing is
   * recorded in a ledger, remembered or rate-limited, and nobody is asked.
   * @returns `ask` when a person would be asked (the call then needs `confirm: true` or a
   *   confirmation handler), `deny` with the refusal's code and reason (a gate's refusal, or
   *   a call that fails before the gates: unknown tool, invalid arguments, a path outside the
   *   workspace), else `allow`.
   */
  async preview(call: ToolCallRequest, options: ExecuteOptions = {}): Promise<CallPreview> {
    const name = call !== null && typeof call === 'object' && typeof call.name === 'string' ? clip(call.name, 200) : '?';
    const found = this.registry.resolve(name, typeof call?.version === 'string' ? call.version : undefined);
    if (!(found instanceof RegisteredTool)) return { verdict: 'deny', code: found.code, reason: found.message };
    const state = new CallState(found, call.arguments, options, typeof call.callId === 'string' && call.callId !== '' ? clip(call.callId, 200) : 'preview', performance.now());
    const { revision } = found;
    const badOptions = applyOptions(options, state, this.options.approvalMode);
    if (badOptions !== undefined) return { verdict: 'deny', code: 'INVALID_OPTIONS', reason: badOptions, revision };
    let invalid: ToolExecutionResult | undefined;
    try {
      invalid = await this.prepare(state, call.arguments, false);
    } catch (error) {
      if (error instanceof PathTraversalError) return { verdict: 'deny', code: 'PATH_TRAVERSAL', reason: error.message, revision };
      throw error;
    }
    if (invalid !== undefined) return { verdict: 'deny', code: invalid.errorCode ?? 'INVALID_ARGUMENTS', reason: invalid.error ?? invalid.output, revision };
    if (state.tool.commandArguments.length !== 0 || state.tool.inputArguments.length !== 0) {
      state.commands = (await commandAnalysis(state.tool))(state.tool, state.args, state.workspace.realRoot);
    }
    const decided = await this.pipeline.decide(state, { confirm: options.confirm, handler: undefined }, state.signal);
    const decisions = decided.trail.map(recordOf);
    const { final } = decided;
    if (final.verdict === 'allow') return { verdict: 'allow', decisions, revision };
    if (final.decider === ANSWER_STEP && final.code === 'CONFIRMATION_REQUIRED') {
      const reason = decided.trail.find((d) => d.verdict === 'ask')?.reason ?? final.reason;
      return { verdict: 'ask', reason, decisions, revision, ...(decided.question === undefined ? {} : { question: decided.question }) };
    }
    return { verdict: 'deny', code: final.code ?? 'POLICY_DENIED', reason: final.reason, decisions, revision };
  }

  /**
   * Run a batch of calls (one model turn). Read-only calls run concurrently, at most
   * `concurrency` at once; a call to a tool that writes waits for every earlier call and runs
   * alone, so writes happen in the order the model gave. Results come back in call order.
   * @throws PathTraversalError when a call tries to leave the workspace: its result says
   *   `PATH_TRAVERSAL`, calls not yet started are not run (their results say `ABORTED`), the
   *   batch settles, and the error carries the batch's results in `results`.
   */
  async executeMany(calls: readonly ToolCallRequest[], options: ExecuteManyOptions = {}): Promise<ToolExecutionResult[]> {
    const list = Array.isArray(calls) ? calls : [];
    const concurrency = options.concurrency ?? this.options.concurrency ?? 8;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      return list.map((c) => failedResult('INVALID_OPTIONS', `options.concurrency must be a positive integer; got ${String(concurrency).slice(0, 50)}`, { tool: requestedName(c), callId: requestedCallId(c) }));
    }
    const { results, escape } = await runBatch(list.length, {
      concurrency,
      runsAlone: (i) => this.writes(list[i]!),
      run: (i) => this.execute(list[i]!, options),
      describe: (i) => ({ tool: requestedName(list[i]), callId: requestedCallId(list[i]) }),
      unit: 'batch',
    });
    if (escape !== undefined) {
      escape.results = results;
      throw escape;
    }
    return results;
  }

  /**
   * End the runners (worker threads; the `main` runner's tool instances get their `close()`)
   * and rate limiters. Calls in flight in workers end as `WORKER_CRASHED`; later calls return
   * `ABORTED`.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    const [failures] = await Promise.all([this.dispatcher.close(), this.rateLimit?.close()]);
    this.outputs?.close();
    await this.journal?.close();
    this.log.closeFailures(failures);
  }
}

/** What a call is answered that reaches its run after the executor closed. */
const CLOSED_BEFORE_RUN: Failure = { code: 'ABORTED', message: 'the executor was closed before the call could run.' };

/** What a call whose tool was registered again while it waited is answered. */
function replacedMessage(tool: RegisteredTool): string {
  return `${tool.key} was registered again (its definition replaced) while this call waited, so it was not run: it was checked and approved for the definition it replaced. Call the tool again to run the new definition.`;
}

/** What a call whose time was up before it started is answered. */
function lateMessage(tool: RegisteredTool, timeoutMs: number, spentMs: number): string {
  return `${tool.name} timed out before it started and did not run: its limit of ${timeoutMs} ms counts from when the call arrived, and reading its arguments and the gates took ${Math.round(spentMs)} ms; try a smaller request.`;
}
