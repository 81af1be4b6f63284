/**
 * The executor: one model tool call from raw arguments to a {@link ToolExecutionResult}.
 *
 * The path of every call, in order (each step a module of its own):
 * 1. resolve the tool in the registry (name, optional semver range);
 * 2. prepare: parse and validate the arguments, resolve every path argument inside the
 *    workspace (a {@link PreparedCall});
 * 3. decide: the decision pipeline (`src/decisions/`), then rate-limit admission;
 * 4. dispatch: the runner of the tool's kind (`src/runner/runners.ts`); this is the one place
 *    a call is about to start, where a ledger claims it before its runner runs;
 * 5. close out: the result is built by `src/closeout/results.ts`.
 *
 * @module
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import crypto from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { PathTraversalError, ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import { OutputStore, type OutputStoreOptions } from '../closeout/output-store.js';
import { byStopPriority, failedResult, requestedCallId, requestedName, resultOf, toolFailure } from '../closeout/results.js';
import { ledgerKeepsText, ledgerView } from '../closeout/projection.js';
import { MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import { buildDeciders } from '../decisions/deciders.js';
import { APPROVAL_MODES, type ApprovalMode, type Decision, type PreparedCall, type ResolvedPath } from '../decisions/decision.js';
import { ANSWER_STEP } from '../decisions/approval.js';
import { DecisionPipeline, type Decided } from '../decisions/pipeline.js';
import type { PolicyHook } from '../decisions/policy-hook.decider.js';
import { RateLimiter } from '../decisions/rate-limit.js';
import { createLogger, redactSecrets, type Logger } from '../logging/logger.js';
import { RememberedApprovals, type SavedApprovals } from '../policy/remembered-approvals.js';
import { PolicyFileApprovals } from '../policy/saved-approvals.js';
import { defaultPolicyPaths } from '../policy/policy-set.js';
import type { PolicyFilesOptions } from '../decisions/policy-files.decider.js';
import type { ShellAnalysis } from '../policy/shell/types.js';
import type { ShellAnalyzer } from '../policy/shell/analyze.js';
import { resolveMode, type AgentMode } from '../modes/modes.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import { DEFAULT_RUNNER, type RunnerKind } from '../runner/kinds.js';
import type { Runner, RunOutcome, RunRequest } from '../runner/runner.js';
import { RUNNERS, type RunnerOptions } from '../runner/runners.js';
import { dropNullOptionals, pathValues } from '../schema/path-arguments.js';
import { DEFAULT_SANDBOX, SANDBOX_PROFILES, type SandboxPolicy, type SandboxProfile } from '../sandbox/bubblewrap.js';
import type { DecisionRecord, StopReason, ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import type { ToolClient } from '../types/tool.js';
import { workspaceFor, type Workspace } from '../workspace/workspace.js';
import { clip, isThenable, kindOf } from '../util/values.js';
import { checkJsonData, copyJsonData, DEFAULT_MAX_ARGUMENT_BYTES, isPlainObject, MAX_ARGUMENT_VALUES, parseArguments, textHasTooManyValues, textTooLarge, TOO_LARGE, TOO_MANY_VALUES } from './arguments.js';
import { sweepStaleOnce } from '../workspace/leftovers.js';
import { runBatch } from './batch.js';
import { observeCall } from './telemetry.js';
import { argumentsSha256, Ledger, type CallStatus, type LedgerOptions, type NewCall, type StoredCallOptions } from '../ledger/store.js';
import { ledgerQuestions } from '../ledger/questions.js';
import { ledgerApprovalModes } from '../ledger/session-approval-modes.js';
import type { DurableQuestions } from '../decisions/approval.js';
import fs from 'node:fs';

/** Options of a {@link ToolExecutor}; every option documents its default. */
export interface ToolExecutorOptions {
  /** Workspace root when a call gives none. Default: `process.cwd()` at call time. */
  workspaceRoot?: string;
  /**
   * Where the whole output of a call is kept when the model sees only part of it (results
   * then carry `fullOutput`). Default `{}`: a temporary folder, removed by `close()`, holding
   * at most 100 files and 256 MiB (oldest deleted first). `false` keeps nothing. With a
   * `ledger` and no `dir`, whole outputs are kept in the ledger instead (`Ledger.result`,
   * `toolgate result`; results carry no `fullOutput`), the temporary folder only carrying them there.
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
  /**
   * What a call no rule decided gets: `allow-all`, `deny-all`, `read-only` or `always-ask`
   * (see `APPROVAL_MODES`). A call's own `approvalMode` overrides it. Default: none, so the
   * tools that declare `requiresConfirmation` ask and the rest run; with no confirmation
   * handler, what asks is refused (`CONFIRMATION_REQUIRED`).
   */
  approvalMode?: ApprovalMode;
  /**
   * Policy files: the user's and each workspace's (docs/policy.md). Re-checked before every
   * call; an unreadable or invalid file denies every call, naming the file and line. Default:
   * none read (the CLI, `toolgate mcp` and `toolgate agent` read both unless `--no-policy`).
   */
  policy?: PolicyOptions;
  /**
   * Where `always` answers are saved and read. Default: the user's policy file when `policy`
   * reads one, else none, and then `always` is not offered (answers count for the turn).
   */
  savedApprovals?: SavedApprovals;
  /** Child processes per memory cap (process runner) and worker threads per pool (pool runner). Default `max(2, available parallelism)`. */
  poolSize?: number;
  /**
   * Runners already made (and perhaps warmed up: `toolgate call` starts its tool's process
   * before it loads the executor), used for their kinds instead of the factories' runners.
   * The executor owns them from then on and closes them with itself. Default none.
   */
  runners?: Partial<Readonly<Record<RunnerKind, Runner>>>;
  /** Heap cap in MiB for tools that declare none (process and pool runners). Default 1024. */
  defaultMemoryMb?: number;
  /** Calls a pool worker holds at once; see the pool runner's `callsPerWorker`. Default 2. */
  callsPerWorker?: number;
  /**
   * Names of the tools read-only modes may let write inside scoped folders. Only tools that
   * declare `scopedWrite` qualify; this list narrows them further. Default: every tool that
   * declares `scopedWrite`.
   */
  scopedWriteTools?: Iterable<string>;
  /**
   * Names (`.env`: wherever they appear) and workspace-relative paths (`config/secrets`: with
   * everything below) that writing tools must ask before touching, besides `.git` and
   * `.toolgate`, which are always protected; in read-only modes such writes are denied. Default none.
   */
  protectedPaths?: readonly string[];
  /** Longest wait, in ms, for a rate-limited call's turn before it is refused. Default 10000. */
  rateLimitMaxWaitMs?: number;
  /** Concurrency bound of {@link ToolExecutor.executeMany}. Default 8. */
  concurrency?: number;
  /**
   * Largest arguments a call may have, in bytes of their JSON text (UTF-8; arguments given
   * as an object are measured as they are copied, and the copy stops at the bound). Larger
   * ones are refused with `INVALID_ARGUMENTS` before they are parsed or copied whole, and the
   * message tells the model to pass large data as a file in the workspace. A positive
   * integer, or `Infinity` for no bound. Default 67108864 (64 MiB).
   */
  maxArgumentBytes?: number;
  /**
   * Remove, once per process and off the call path, what toolgate processes that are gone
   * left: their temporary files (found through their journals), output folders and empty pids
   * cgroups (`src/workspace/leftovers.ts`). Default true. Set false where the temporary folder
   * is shared with processes of another PID namespace (containers sharing `/tmp`): their live
   * processes look gone from here.
   */
  sweepLeftovers?: boolean;
  /**
   * How the processes tools start (`run_command`, `exec_command`, `execute_python`) are
   * confined: `workspace-write` (default; the workspace writable, the rest read-only),
   * `read-only`, or `none`, no sandbox at all, which must be chosen explicitly. Where
   * bubblewrap is missing, those tools refuse (`SANDBOX_UNAVAILABLE`) unless it is `none`.
   */
  sandbox?: SandboxProfile;
  /** Let sandboxed processes use the host's network (loopback included). Default false: no network. */
  sandboxNetwork?: boolean;
  /**
   * A durable call ledger (`src/ledger/`, docs/ledger.md): every call whose arguments are
   * valid is recorded before the deciders (one whose path argument leaves the workspace is
   * stored `denied`, `PATH_TRAVERSAL`, before the error is thrown), a question is stored before it is asked, the call
   * is claimed `running` before its runner starts, and its decisions, end state and result
   * (the whole output too) are stored when it closes out; a call id already ended in the same
   * session returns its stored result without running again. A {@link Ledger} is used as
   * given (the caller closes it); {@link LedgerOptions} open one (default file: the
   * `workspaceRoot`'s ledger in the state folder), closed by `close()`. Default `false`: none
   * (the CLI, `toolgate mcp` and `toolgate agent` use one unless `--no-ledger`).
   * @throws ToolgateOptionError (from the constructor) when the ledger cannot be opened.
   */
  ledger?: Ledger | LedgerOptions | false;
  /** The session of calls that name none (with the call id, a ledger's idempotency key). Default: a random id per executor. */
  session?: string;
}

/** Which policy files an executor reads (its `policy` option). */
export interface PolicyOptions {
  /**
   * The user's policy file: a path, `true` for the default place
   * (`$XDG_CONFIG_HOME/toolgate/policy.toml`, else `~/.config/toolgate/policy.toml`; `policy.json`
   * there when only it exists), or `false` for none. Default `true`.
   */
  user?: string | boolean;
  /** Whether each workspace's `.toolgate/policy.toml` (or `policy.json`) counts. Default `true`. */
  workspace?: boolean;
}

/** Per-call options. */
export interface ExecuteOptions {
  /** Agent mode: `default`, `explore`, `plan`, or a custom {@link AgentMode}. Default `default`. An unknown name is denied. */
  mode?: string | AgentMode;
  /** Extra scoped write folders for read-only modes (workspace-relative). Default none. */
  scopedWriteDirs?: readonly string[];
  /** The user already approved this call. Default false. */
  confirm?: boolean;
  /**
   * The registration revision of the definition a person approved this call for (the
   * {@link CallPreview.revision} the question was asked with). When the tool the call resolves
   * to now has another revision (its `name@version` was registered again in between), the
   * call is answered `TOOL_REPLACED` and not run. Default: not checked.
   */
  approvedRevision?: string;
  /** Overrides the executor's confirmation handler for this call; `null` disables it. */
  confirmationHandler?: ConfirmationHandler | null;
  /**
   * The approval mode of this call, overriding the executor's (an agent passes its session's
   * current mode with every call, so a change counts from the next decision). An unknown value
   * is an `INVALID_OPTIONS` result.
   */
  approvalMode?: ApprovalMode;
  /**
   * The turn this call belongs to (an agent's turn id): `allow_for_turn` answers, and denials
   * that are not asked again, last for the calls of the same turn. Default `''`: one turn that
   * lasts as long as the executor.
   */
  turnId?: string;
  /**
   * Timeout in ms for this call, overriding the tool's (shorter or longer); `<= 0` or
   * `Infinity` disables it; values above 2147483647 (about 24.8 days) are capped there; `NaN`
   * or a non-number is an `INVALID_OPTIONS` result. Either timeout counts from when the call
   * arrived (reading its arguments and the gates included), except the time it waited for a
   * confirmation; a call whose time is up before it starts is answered `TIMEOUT` unrun.
   */
  timeoutMs?: number;
  /** Workspace root for this call (request-scoped override). */
  workspaceRoot?: string;
  /** Aborts the call: the result is `ABORTED`, and the tool is stopped. */
  signal?: AbortSignal;
  /**
   * The session the call belongs to: with the call id, a ledger's idempotency key (a call id
   * already ended in the session returns its stored result). Default: the executor's `session`.
   */
  session?: string;
  /**
   * Handlers for what the tool sends or asks its caller while it runs: `ctx.progress`,
   * `ctx.log`, `ctx.elicit`, `ctx.sample` (in every runner; workers and child processes pass
   * them to the main thread). The MCP server passes one per `tools/call`. Default none:
   * progress and logs go nowhere, elicit and sample fail with `CLIENT_UNAVAILABLE`.
   */
  client?: ToolClient;
}

/** What {@link ToolExecutor.preview} found: what would happen to a call if it ran now. */
export interface CallPreview {
  /** `allow`: it would run; `ask`: a person would be asked; `deny`: it would be refused (or fail before the gates). */
  verdict: 'allow' | 'ask' | 'deny';
  /** On `deny`: the result code the call would get (`POLICY_DENIED`, `MODE_DENIED`, `INVALID_ARGUMENTS`, `PATH_TRAVERSAL`...). */
  code?: ToolErrorCode;
  /** On `ask` and `deny`: why, in words. */
  reason?: string;
  /** The deciders' opinions, in order (absent when the call failed before the gates). */
  decisions?: DecisionRecord[];
  /**
   * Registration revision (SHA-256 hex) of the definition the call resolved to; absent when
   * no tool was found. Pass it back as {@link ExecuteOptions.approvedRevision} with the
   * approved call, so a replaced definition does not run under this approval.
   */
  revision?: string;
}

/** Options of {@link ToolExecutor.executeMany}. */
export interface ExecuteManyOptions extends ExecuteOptions {
  /** Read-only calls run at most this many at once. Default: the executor's `concurrency`. */
  concurrency?: number;
}

/**
 * One call on its way through the executor. It is at once the {@link PreparedCall} the
 * deciders read and the {@link RunRequest} a runner is given, so a call allocates one object.
 */
class CallState implements PreparedCall, RunRequest {
  /** The validated arguments (set once checked). */
  args: Record<string, unknown> = NO_ARGUMENTS;
  /** Workspace root of the call, as given (set once the arguments are checked). */
  workspaceRoot = '';
  /** Path arguments, resolved (set once the arguments are checked). */
  paths: readonly ResolvedPath[] = NO_PATHS;
  /** Repairs made to the arguments, if any. */
  repairs: string[] | undefined = undefined;
  /** Timeout in ms (the call's override, else the tool's); `<= 0` for none. */
  timeoutMs: number;
  /** `performance.now()` the timeout counts from: the arrival, moved on by a wait for confirmation. */
  timeoutFrom: number;
  /** The mode, or `undefined` for an invalid one (the mode decider then denies). */
  mode: AgentMode | undefined = undefined;
  /** The mode's name as given (clipped), for messages and the policy hook. */
  modeName = 'default';
  /** Scoped write folders (real paths) when a decision confined the call's writes. */
  writeRoots: string[] | undefined = undefined;
  /** Where a runner that cuts the output keeps the whole of it, if anywhere. */
  fullOutputDir: string | undefined = undefined;
  /** How processes the tool starts are confined (the executor's options). */
  sandbox: SandboxPolicy = DEFAULT_SANDBOX;
  /** What the deciders said (left unset when none had an opinion): logged, and what a ledger records. */
  decisions: readonly Decision[] | undefined = undefined;
  /** The approval mode (the call's, else the executor's). */
  approvalMode: ApprovalMode | undefined = undefined;
  /** The turn of the call (`''` for none). */
  turnId = '';
  /** The session of the call (the call's option, else the executor's). */
  session = '';
  /** Analyses of the shell-command arguments (set once the arguments are checked). */
  commands: readonly ShellAnalysis[] = NO_COMMANDS;
  /**
   * The call as a ledger records it, once the ledger's check let it go on: it is written with
   * the next state change (question, claim or end), and its end is written at close-out.
   */
  entry: NewCall | undefined = undefined;
  /** The ledger's claim committed (the decisions were stored with it). */
  claimed = false;
  /** W3C trace context of the call's span, when one is recorded (OpenTelemetry). */
  traceparent: string | undefined = undefined;
  readonly signal: AbortSignal | undefined;
  readonly scopedWriteDirs: readonly string[];
  private ws: Workspace | undefined;

  /** The caller's handlers for `ctx.progress` and the like (the call's `client` option). */
  get client(): ToolClient | undefined {
    return this.options.client;
  }

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
    this.timeoutFrom = started;
    this.signal = options.signal;
    this.scopedWriteDirs = options.scopedWriteDirs ?? NO_DIRS;
  }

  /** The workspace of the call (looked up on first use: most calls never need it here). */
  get workspace(): Workspace {
    return (this.ws ??= workspaceFor(this.workspaceRoot));
  }
}

const NO_ARGUMENTS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** JSON text this short cannot nest deeper than the 64 levels arguments may have: it skips the check. */
const SMALL_TEXT = 128;
const NO_PATHS: readonly ResolvedPath[] = Object.freeze([]);
const NO_DIRS: readonly string[] = Object.freeze([]);
const NO_COMMANDS: readonly ShellAnalysis[] = Object.freeze([]);

const CALL_ID_PREFIX = `tg_${crypto.randomBytes(4).toString('hex')}_`;

/** Error codes of a gate's refusal: a recorded call refused with one of them ends `denied`. */
const DENIALS: ReadonlySet<string> = new Set(['MODE_DENIED', 'POLICY_DENIED', 'CONFIRMATION_REQUIRED', 'CONFIRMATION_DENIED', 'RATE_LIMITED', 'INVALID_POLICY_FILE', 'PATH_TRAVERSAL']);

/**
 * Runs tool calls. Never throws for a call except {@link PathTraversalError}: every other
 * failure (unknown tool, bad arguments, a decision, a timeout, a crash) is a result.
 *
 * Call {@link ToolExecutor.close} when done, to end worker threads.
 */
export class ToolExecutor {
  /** The registry calls are resolved in (tools registered later are callable too). */
  readonly registry: ToolRegistry;
  /** The `scopedWriteTools` option: which `scopedWrite` tools read-only modes let write (`undefined`: all that declare it). */
  readonly scopedWriteTools: ReadonlySet<string> | undefined;
  private readonly logger: Logger;
  private readonly logInfo: boolean;
  private readonly logDebug: boolean;
  private readonly options: ToolExecutorOptions;
  private readonly pipeline: DecisionPipeline;
  /** The answers people gave, per turn and saved. */
  private readonly remembered: RememberedApprovals;
  private readonly runnerOptions: RunnerOptions;
  private readonly sandbox: SandboxPolicy;
  /** Runners by kind, each made on the first call of its kind. */
  private readonly runners = new Map<RunnerKind, Runner>();
  private rateLimit: RateLimiter | undefined;
  private readonly outputs: OutputStore | undefined;
  /** The durable ledger, if any, and whether this executor opened it (and closes it). */
  private readonly store: Ledger | undefined;
  private readonly ownsStore: boolean;
  /** The ledger's questions, for the decision pipeline (undefined without a ledger). */
  private readonly questions: DurableQuestions | undefined;
  /** The session of calls that name none. */
  readonly session: string;
  /** Whole outputs go to the ledger, the output store's temporary folder only carrying them there. */
  private readonly outputsInLedger: boolean;
  private readonly maxArgumentBytes: number;
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
    this.logger = options.logger ?? createLogger('silent');
    this.logInfo = this.logger.isLevelEnabled('info');
    this.logDebug = this.logger.isLevelEnabled('debug');
    try {
      this.outputs = options.outputStore === false ? undefined : new OutputStore(options.outputStore ?? {});
    } catch (error) {
      throw ToolgateOptionError.fromBadOption('outputStore', (error as Error).message);
    }
    if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
      throw ToolgateOptionError.fromBadOption('concurrency', `must be a positive integer; got ${options.concurrency}`);
    }
    const policyTimeoutMs = options.policyTimeoutMs ?? 10_000;
    if (typeof policyTimeoutMs !== 'number' || !(policyTimeoutMs > 0) || policyTimeoutMs > MAX_TIMEOUT_MS) {
      throw ToolgateOptionError.fromBadOption('policyTimeoutMs', `must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; got ${options.policyTimeoutMs}`);
    }
    this.maxArgumentBytes = options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
    if (typeof this.maxArgumentBytes !== 'number' || !(this.maxArgumentBytes === Number.POSITIVE_INFINITY || (Number.isSafeInteger(this.maxArgumentBytes) && this.maxArgumentBytes > 0))) {
      throw ToolgateOptionError.fromBadOption('maxArgumentBytes', `must be a positive integer number of bytes, or Infinity for no bound; got ${String(options.maxArgumentBytes).slice(0, 50)}`);
    }
    if (options.sandbox !== undefined && !SANDBOX_PROFILES.includes(options.sandbox)) {
      throw ToolgateOptionError.fromBadOption('sandbox', `must be one of ${SANDBOX_PROFILES.join(', ')}; got ${JSON.stringify(options.sandbox)}`);
    }
    if (options.sandboxNetwork !== undefined && typeof options.sandboxNetwork !== 'boolean') {
      throw ToolgateOptionError.fromBadOption('sandboxNetwork', `must be a boolean; got ${JSON.stringify(options.sandboxNetwork)}`);
    }
    this.sandbox = options.sandbox === undefined && options.sandboxNetwork === undefined
      ? DEFAULT_SANDBOX
      : Object.freeze({ profile: options.sandbox ?? DEFAULT_SANDBOX.profile, network: options.sandboxNetwork ?? DEFAULT_SANDBOX.network });
    if (options.approvalMode !== undefined && !APPROVAL_MODES.includes(options.approvalMode)) {
      throw ToolgateOptionError.fromBadOption('approvalMode', `must be one of ${APPROVAL_MODES.join(', ')}; got ${JSON.stringify(options.approvalMode)}`);
    }
    this.scopedWriteTools = options.scopedWriteTools === undefined ? undefined : new Set(options.scopedWriteTools);
    if (options.session !== undefined && (typeof options.session !== 'string' || options.session === '')) {
      throw ToolgateOptionError.fromBadOption('session', `must be a non-empty string; got ${kindOf(options.session)}`);
    }
    this.session = options.session ?? `s_${crypto.randomBytes(8).toString('hex')}`;
    if (options.ledger instanceof Ledger) {
      this.store = options.ledger;
      this.ownsStore = false;
    } else if (options.ledger !== undefined && options.ledger !== false) {
      try {
        this.store = Ledger.open({ workspace: options.workspaceRoot, ...options.ledger });
      } catch (error) {
        throw ToolgateOptionError.fromBadOption('ledger', `could not be opened: ${(error as Error).message}`);
      }
      this.ownsStore = true;
    } else {
      this.store = undefined;
      this.ownsStore = false;
    }
    this.questions = this.store === undefined ? undefined : ledgerQuestions(this.store);
    this.outputsInLedger = this.store !== undefined && this.outputs !== undefined && (options.outputStore === undefined || (options.outputStore !== false && options.outputStore.dir === undefined));
    const policyFiles = policyFilesOf(options.policy);
    const saved = options.savedApprovals ?? (policyFiles?.userFile === undefined ? undefined : new PolicyFileApprovals(policyFiles.userFile, this.logger));
    this.remembered = new RememberedApprovals(saved);
    const deciders = buildDeciders({
      policyFiles,
      scopedWriteTools: this.scopedWriteTools,
      policyHook: options.policyHook,
      policyTimeoutMs,
      protectedPaths: options.protectedPaths ?? [],
      remembered: this.remembered,
      logger: this.logger,
      sessionApprovalModes: this.store === undefined ? undefined : ledgerApprovalModes(this.store, this.logger),
    });
    this.pipeline = new DecisionPipeline(deciders, this.logger, this.closing.signal, (call) => this.remembered.offers(call));
    if (options.rateLimitMaxWaitMs !== undefined) this.rateLimit = new RateLimiter(options.rateLimitMaxWaitMs);
    this.runnerOptions = { poolSize: options.poolSize, defaultMemoryMb: options.defaultMemoryMb, callsPerWorker: options.callsPerWorker };
    // Runner options are checked now, by making the runner they are for.
    for (const [kind, runner] of Object.entries(options.runners ?? {}) as Array<[RunnerKind, Runner]>) this.runners.set(kind, runner);
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined) this.runnerFor(DEFAULT_RUNNER);
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined || options.callsPerWorker !== undefined) this.runnerFor('pool');
    // What hosts killed before left (temporary files, output folders, cgroups): once per
    // process, on a later turn, off every call's path.
    if (options.sweepLeftovers !== false) this.sweepLeftovers();
  }

  /** Run the once-per-process sweep of leftovers, and log what it removed. */
  private sweepLeftovers(): void {
    void sweepStaleOnce().then((swept) => {
      if (swept.temporaries + swept.journals + swept.outputFolders + swept.cgroups !== 0) this.logger.info({ event: 'leftovers_removed', ...swept }, 'removed what stopped toolgate processes left');
    });
  }

  /** The runner of a kind, made on first use. */
  private runnerFor(kind: RunnerKind): Runner {
    let runner = this.runners.get(kind);
    if (runner === undefined) {
      runner = RUNNERS[kind](this.runnerOptions);
      this.runners.set(kind, runner);
    }
    return runner;
  }

  /** The durable ledger calls are recorded in, or `undefined` without one. */
  get ledger(): Ledger | undefined {
    return this.store;
  }

  /**
   * Start the default runner's processes now, so the first call does not wait for them; with
   * a tool, the processes of that tool's runner (and memory cap). No tool module is loaded.
   */
  warmUp(tool?: RegisteredTool): void {
    if (this.closed) return;
    this.runnerFor(tool?.runner ?? DEFAULT_RUNNER).warmUp?.(tool);
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
    return (this.runnerFor('pool') as Runner & { ping(): Promise<void> }).ping();
  }

  /**
   * Run one tool call.
   * @param call - `{ name, arguments, callId?, version? }` as the model sent it.
   * @returns the result; see {@link ToolExecutionResult}. Failures of every kind are results.
   * @throws PathTraversalError when a path argument leaves the workspace (also when a tool
   *   finds one inside a worker).
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
        return Promise.resolve(this.finish(started, failedResult('INVALID_ARGUMENTS', `a tool call must be an object { name, arguments }; got ${kindOf(call)}`, { tool: name, callId })));
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
   * What an exception on the call path becomes: a `PathTraversalError` is thrown on (callers
   * must see it); anything else, a bug in toolgate or in a caller's hook, becomes an
   * `INTERNAL` result instead of escaping.
   */
  private internalError(error: unknown, name: string, callId: string, started: number): ToolExecutionResult {
    if (error instanceof PathTraversalError) throw error;
    this.logger.error({ event: 'tool_call_internal_error', tool: name, callId, err: (error as Error)?.stack ?? String(error) }, 'internal error');
    return this.finish(started, failedResult('INTERNAL', `internal error while running ${name}: ${clip((error as Error)?.message ?? String(error), 2000)}`, { tool: name, callId }));
  }

  /**
   * Steps 1 to 3. Returns the result directly when nothing on the way had to wait
   * (validation failures, denials, synchronous main-runner tools), else a promise.
   */
  private run(call: ToolCallRequest, name: string, callId: string, options: ExecuteOptions, started: number, traceparent: string | undefined): ToolExecutionResult | Promise<ToolExecutionResult> {
    const found = this.registry.resolve(name, typeof call.version === 'string' ? call.version : undefined);
    if (!(found instanceof RegisteredTool)) return this.finish(started, failedResult(found.code, found.message, { tool: name, callId }));
    const state = new CallState(found, call.arguments, options, callId, started);
    if (traceparent !== undefined) state.traceparent = traceparent;
    if (this.closed) return this.fail(state, 'ABORTED', 'the executor is closed; no more calls run.');
    const badOptions = applyOptions(options, state, this.options.approvalMode);
    if (badOptions !== undefined) return this.fail(state, 'INVALID_OPTIONS', badOptions);
    state.session = typeof options.session === 'string' && options.session !== '' ? options.session : this.session;
    const invalid = this.prepare(state, call.arguments);
    if (invalid !== undefined) return invalid;
    const { tool } = state;
    if (tool.commandArguments.length !== 0 || tool.inputArguments.length !== 0) {
      // Shell commands (and shell input) are analysed once, before any decider: the parser
      // loads on first use, and a tool with shell input is asked what reads it (its class loaded).
      const analyze = readyCommandAnalysis;
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

  /** Step 3 begins: the decision pipeline, then admission. */
  private decideOn(state: CallState, options: ExecuteOptions): ToolExecutionResult | Promise<ToolExecutionResult> {
    if (this.store !== undefined) {
      const known = this.recordCall(state, options);
      if (known !== undefined) return known;
    }
    const ask = {
      confirm: options.confirm, handler: options.confirmationHandler === null ? undefined : options.confirmationHandler ?? this.options.confirmationHandler,
      questions: this.questions, call: state.entry,
    };
    const decided = this.pipeline.decide(state, ask, state.signal);
    if (!isThenable(decided)) return this.admit(state, decided);
    // A bug on the way after a wait is an INTERNAL result; a workspace escape is thrown on.
    return decided.then((d) => this.admit(state, d)).then(undefined, (error: unknown) => this.callError(error, state));
  }

  /**
   * Record a call whose arguments are valid in the ledger (before the deciders).
   * @returns `undefined` when the call goes on (recorded, or taken over from a process that is
   *   gone), else its result: the stored one of a call that ended before (exactly once: the
   *   caller retried), `CALL_IN_PROGRESS` for one a live process handles, or `INTERNAL` when
   *   the ledger cannot be written (the call does not run unrecorded).
   */
  private recordCall(state: CallState, options: ExecuteOptions): ToolExecutionResult | undefined {
    const store = this.store!;
    if (options.session !== undefined && (typeof options.session !== 'string' || options.session === '')) {
      return this.fail(state, 'INVALID_OPTIONS', `options.session must be a non-empty string; got ${kindOf(options.session)}`);
    }
    const session = options.session ?? this.session;
    const stored: StoredCallOptions = {};
    if (state.mode !== undefined) stored.mode = state.mode.name;
    if (state.approvalMode !== undefined) stored.approvalMode = state.approvalMode;
    if (state.scopedWriteDirs.length !== 0) stored.scopedWriteDirs = state.scopedWriteDirs;
    if (options.timeoutMs !== undefined) stored.timeoutMs = options.timeoutMs;
    if (state.sandbox !== DEFAULT_SANDBOX) {
      stored.sandbox = state.sandbox.profile;
      stored.sandboxNetwork = state.sandbox.network;
    }
    const entry: NewCall = {
      callId: state.callId, session, tool: state.tool.name, version: state.tool.version, arguments: state.args,
      workspace: state.workspaceRoot, turn: state.turnId, options: stored,
    };
    let outcome;
    try {
      // Read only: a new call is written with its next state change (one commit fewer).
      outcome = store.check(entry);
    } catch (error) {
      return this.fail(state, 'INTERNAL', `the call was not run: the ledger ${store.file} could not be read (${clip((error as Error)?.message ?? String(error), 500)}).`);
    }
    if (outcome.kind === 'ended') {
      // A retry repeats the call; the same id with another tool or other arguments is another
      // request, which must not be answered with the first one's result.
      const earlier = store.get(state.callId, session);
      // A call retention deleted left a tombstone: its tool and a hash of its arguments.
      const pruned = earlier === undefined ? store.tombstone(state.callId, session) : undefined;
      const other = earlier !== undefined
        ? earlier.tool !== entry.tool || !isDeepStrictEqual(earlier.arguments, entry.arguments)
        : pruned !== undefined && (pruned.tool !== entry.tool || pruned.argumentsSha256 !== argumentsSha256(entry.arguments));
      if (other) {
        return this.fail(state, 'INVALID_ARGUMENTS', `call id ${state.callId} of session ${session} was used before for another request (${earlier?.tool ?? pruned?.tool} with other arguments); it was not run. A retry repeats the same call; a new call needs a new call id.`);
      }
      return this.finish(state.started, outcome.result, 'ledger');
    }
    if (outcome.kind === 'in_progress') {
      const { record } = outcome;
      return this.fail(
        state, 'CALL_IN_PROGRESS',
        `call ${state.callId} of session ${session} is already being handled (${record.state}, process ${record.ownerPid}); it was not started again. Its result is stored when it ends: \`toolgate result ${state.callId}\` prints it.`,
      );
    }
    if (outcome.kind === 'recorded') {
      // Recorded ahead by its caller (an MCP task, before its id was answered): store what
      // this call checked, so that a later process runs it the same way.
      try {
        store.amend(entry);
      } catch (error) {
        return this.fail(state, 'INTERNAL', `the call was not run: the ledger ${store.file} could not be written (${clip((error as Error)?.message ?? String(error), 500)}).`);
      }
    }
    state.entry = entry;
    return undefined;
  }

  /**
   * Step 2: parse (or copy) the arguments, validate them, and resolve the path arguments.
   * @param record - record a workspace escape in the ledger ({@link refusedEscape}); a preview does not.
   * @returns a failed result, or `undefined` when `state` is prepared.
   * @throws PathTraversalError when a path argument leaves the workspace.
   */
  private prepare(state: CallState, given: unknown, record = true): ToolExecutionResult | undefined {
    const { tool } = state;
    // Parse text, or copy an object once, so that what is checked is what runs; neither
    // past the argument bound.
    let value: Record<string, unknown>;
    if (typeof given === 'object' && given !== null && isPlainObject(given)) {
      const copied = copyJsonData(given, this.maxArgumentBytes);
      if (copied === TOO_LARGE) return this.tooLarge(state);
      if (copied === TOO_MANY_VALUES) return this.tooLarge(state, true);
      if (typeof copied === 'string') return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${copied}.`);
      value = copied;
    } else {
      if (typeof given === 'string' && textTooLarge(given, this.maxArgumentBytes)) return this.tooLarge(state);
      if (typeof given === 'string' && textHasTooManyValues(given)) return this.tooLarge(state, true);
      const parsed = parseArguments(given);
      if (!parsed.ok) return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${parsed.message}.`);
      // Parsed text gets the checks a given object gets (nesting, values), without a copy (it
      // is fresh already); text too short to nest 64 levels skips them.
      if (typeof given === 'string' && given.length > SMALL_TEXT) {
        const checked = checkJsonData(parsed.value, this.maxArgumentBytes);
        if (checked === TOO_LARGE) return this.tooLarge(state);
        if (checked === TOO_MANY_VALUES) return this.tooLarge(state, true);
        if (typeof checked === 'string') return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${checked}.`);
      }
      value = parsed.value;
      if (parsed.repairs.length) state.repairs = parsed.repairs;
    }
    const args = dropNullOptionals(tool.inputSchema, value) as Record<string, unknown>;
    const problem = tool.validateInput(args);
    if (problem !== undefined) {
      return this.fail(state, 'INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${problem}. Expected ${signatureOf(tool)}.`);
    }
    state.args = args;
    state.workspaceRoot = state.options.workspaceRoot ?? this.options.workspaceRoot ?? process.cwd();
    state.sandbox = this.sandbox;
    // Path arguments are resolved once here, for every decider (the tool resolves again in
    // its own context, at the moment of use).
    if (tool.pathArguments.length !== 0) {
      const resolved: ResolvedPath[] = [];
      const { workspace } = state;
      for (const p of pathValues(args, tool.pathArguments)) {
        try {
          resolved.push({ given: p, real: workspace.resolve(p) });
        } catch (error) {
          if (error instanceof PathTraversalError) throw record ? this.refusedEscape(state, this.traversal(error, tool, state.callId)) : error;
          return this.fail(state, 'INVALID_PATH', (error as Error).message);
        }
      }
      state.paths = resolved;
    }
    return undefined;
  }

  /** The result of a call whose arguments pass `maxArgumentBytes`, or {@link MAX_ARGUMENT_VALUES} values (logged by their size only). */
  private tooLarge(state: CallState, values = false): ToolExecutionResult {
    const limit = this.maxArgumentBytes;
    const shown = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
    const what = values ? `they hold more than ${MAX_ARGUMENT_VALUES} values` : `they are larger than ${shown} (the executor's maxArgumentBytes)`;
    return this.fail(
      state, 'INVALID_ARGUMENTS',
      `Invalid arguments for ${state.tool.name}: ${what} and were not read. Pass large data as a file instead: write it into the workspace in parts of a few MiB, then give its path.`,
      undefined, undefined, undefined, values ? `[arguments with more than ${MAX_ARGUMENT_VALUES} values]` : `[arguments larger than ${limit} bytes]`,
    );
  }

  /** Step 3, after the decisions: a denial's result, or rate-limit admission and dispatch. */
  private admit(state: CallState, decided: Decided): ToolExecutionResult | Promise<ToolExecutionResult> {
    if (decided.trail.length !== 0) state.decisions = decided.trail;
    // A person's time to answer a confirmation is not the call's time.
    if (decided.answerWaitMs !== undefined) state.timeoutFrom += decided.answerWaitMs;
    if (decided.final.verdict === 'deny') return this.denied(state, decided.final);
    if (decided.writeRoots !== undefined) state.writeRoots = [...decided.writeRoots];
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

  /** The result of a call a decision refused. */
  private denied(state: CallState, decision: Decision): ToolExecutionResult {
    // `confirmed: false` only when the answer to an ask refused the call.
    return this.fail(state, decision.code ?? 'POLICY_DENIED', decision.reason, undefined, decision.decider !== ANSWER_STEP, decision.decider, state.args, decision.retryAfterMs);
  }

  /**
   * Step 4: run the call on its runner, then close it out. Everything before this point only
   * decided; from here the tool may act. A durable ledger claims the call here, before the
   * runner starts. Never rejects but with a workspace escape: the runner's promise is settled
   * through {@link settle} and its own guard, so callers add none (a promise turn saved on
   * every pool call).
   */
  private dispatch(state: CallState): ToolExecutionResult | Promise<ToolExecutionResult> {
    const { tool } = state;
    if (this.closed) return this.fail(state, 'ABORTED', 'the executor was closed before the call could run.');
    // An approval is for the definition it was asked about: a replacement runs only on a new call.
    if (this.registry.isReplaced(tool)) return this.fail(state, 'TOOL_REPLACED', replacedMessage(tool), undefined, undefined, 'registry');
    const approvedRevision = state.options.approvedRevision;
    if (approvedRevision !== undefined && approvedRevision !== tool.revision) return this.fail(state, 'TOOL_REPLACED', replacedMessage(tool), undefined, undefined, 'registry');
    if (state.timeoutMs > 0) {
      const spentMs = performance.now() - state.timeoutFrom;
      if (spentMs >= state.timeoutMs) {
        return this.fail(
          state, 'TIMEOUT',
          `${tool.name} timed out before it started and did not run: its limit of ${state.timeoutMs} ms counts from when the call arrived, and reading its arguments and the gates took ${Math.round(spentMs)} ms; try a smaller request.`,
          'timeout',
        );
      }
    }
    if (state.entry !== undefined) {
      // The claim commits before the runner starts: a crash from here on leaves a `running`
      // row that recovery marks `interrupted`; nothing runs it again.
      let claimed: boolean;
      try {
        claimed = this.store!.claim(state.entry, state.decisions?.map(recordOf));
      } catch (error) {
        return this.fail(state, 'INTERNAL', `the call was not run: the ledger ${this.store!.file} could not claim it (${clip((error as Error)?.message ?? String(error), 500)}).`);
      }
      state.claimed = claimed;
      if (!claimed) {
        const { session } = state.entry;
        state.entry = undefined; // someone else's now: leave its row alone
        return this.fail(state, 'CALL_IN_PROGRESS', `call ${state.callId} of session ${session} was claimed or ended by another process meanwhile; it was not started again.`);
      }
    }
    if (this.outputs !== undefined && tool.cutInWorker && tool.maxOutputLength > 0) state.fullOutputDir = this.outputs.directory();
    const runner = this.runnerFor(tool.runner);
    if (runner.runThen !== undefined) return runner.runThen(state, state.signal, this.settleRun);
    const running = runner.run(state, state.signal);
    if (isThenable(running)) {
      return Promise.resolve(running).then((outcome) => this.settle(state, outcome), (error: unknown) => this.callError(error, state));
    }
    return this.settle(state, running);
  }

  /** {@link settle} as the one function runners with `runThen` hand every outcome to (no closure per call). */
  private readonly settleRun = (outcome: RunOutcome, request: RunRequest): ToolExecutionResult => this.settle(request as CallState, outcome);

  /** Step 5: the result of a run (a bug on the way becomes `INTERNAL`; a workspace escape is thrown on). */
  private settle(state: CallState, outcome: RunOutcome): ToolExecutionResult {
    try {
      const result = resultOf(state, byStopPriority(outcome, state.signal?.aborted === true), this.outputs, this.closed);
      const finished = this.finish(state.started, result, undefined, result.success ? state.args : state.rawArguments, state.decisions);
      return state.entry !== undefined ? this.closeOut(state, finished) : finished;
    } catch (error) {
      if (error instanceof PathTraversalError) throw this.closeOutEscape(state, this.traversal(error, state.tool, state.callId));
      return this.callError(error, state);
    }
  }

  /** {@link internalError} of a resolved call (closed out in the ledger when recorded). */
  private callError(error: unknown, state: CallState): ToolExecutionResult {
    if (error instanceof PathTraversalError) throw this.closeOutEscape(state, error);
    const result = this.internalError(error, state.tool.name, state.callId, state.started);
    return state.entry !== undefined ? this.closeOut(state, result) : result;
  }

  /**
   * A call refused because a path argument leaves the workspace (its arguments are valid
   * otherwise): with a ledger, it is recorded and stored `denied` (`PATH_TRAVERSAL`, not run),
   * so that `toolgate trace` and the cockpit show the attempt, before the error is thrown on.
   * A call id that ended before is left as it is (the error is thrown all the same).
   */
  private refusedEscape(state: CallState, error: PathTraversalError): PathTraversalError {
    if (this.store === undefined || this.recordCall(state, state.options) !== undefined) return error;
    this.closeOut(state, toolFailure(state.tool, 'PATH_TRAVERSAL', error.message, { callId: state.callId, stopReason: 'not_run' }));
    return error;
  }

  /** A recorded call that ends in a workspace escape is stored `failed` (`PATH_TRAVERSAL`) before the error is thrown on. */
  private closeOutEscape(state: CallState, error: PathTraversalError): PathTraversalError {
    if (state.entry !== undefined) this.closeOut(state, toolFailure(state.tool, 'PATH_TRAVERSAL', error.message, { callId: state.callId, stopReason: 'error' }));
    return error;
  }

  /**
   * Write a recorded call's end to the ledger: its state (`done`, `denied` for a gate's
   * refusal, else `failed`), its decisions and its result, with the whole output when the
   * result shows part of it. A call whose wait for an answer was ended by `close()` is left
   * `pending`: its question survives for `toolgate approvals`. A ledger that cannot be
   * written is logged; the caller still gets the result.
   */
  private closeOut(state: CallState, result: ToolExecutionResult): ToolExecutionResult {
    const entry = state.entry!;
    state.entry = undefined;
    if (this.closed && result.errorCode === 'ABORTED' && result.stopReason === 'not_run') return result;
    const status: Exclude<CallStatus, 'pending' | 'running'> = result.success ? 'done' : result.stopReason === 'not_run' && DENIALS.has(result.errorCode!) ? 'denied' : 'failed';
    let fullOutput: string | undefined;
    if (result.fullOutput !== undefined && ledgerKeepsText(state.tool)) {
      try {
        fullOutput = fs.readFileSync(result.fullOutput.path, 'utf8');
      } catch {
        // the output store dropped it (its cap): the ledger keeps what the model saw
      }
      if (this.outputsInLedger && fullOutput !== undefined) {
        // The ledger keeps it now; the temporary file was only the way there.
        this.outputs!.discard(result.fullOutput.path);
        delete result.fullOutput;
      }
    }
    try {
      // A call that ran ends in a group commit (with the next claim, or on the next turn); a
      // call that never ran is written at once (nothing else may be coming to carry it).
      const end = { state: status, decisions: state.claimed ? undefined : result.decisions, result: ledgerView(state.tool, result), fullOutput };
      if (state.claimed) this.store!.finishSoon(entry, end);
      else this.store!.finish(entry, end);
    } catch (error) {
      this.logger.error({ event: 'ledger_write_failed', tool: state.tool.name, callId: state.callId, err: (error as Error)?.message }, 'the ledger could not record the end of a call');
    }
    return result;
  }

  /**
   * A failed result of a resolved tool (logged with `gate`, and at debug level with `args`,
   * by default the arguments as given).
   */
  private fail(
    state: CallState, code: ToolErrorCode, message: string, stopReason?: StopReason, confirmed?: boolean, gate?: string, args?: unknown, retryAfterMs?: number,
  ): ToolExecutionResult {
    const result = toolFailure(state.tool, code, message, { callId: state.callId, repairs: state.repairs, stopReason, confirmed, retryAfterMs });
    const finished = this.finish(state.started, result, gate, args ?? state.rawArguments, state.decisions);
    return state.entry !== undefined ? this.closeOut(state, finished) : finished;
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
      invalid = this.prepare(state, call.arguments, false);
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
    if (final.decider === ANSWER_STEP && final.code === 'CONFIRMATION_REQUIRED') return { verdict: 'ask', reason: decided.trail.find((d) => d.verdict === 'ask')?.reason ?? final.reason, decisions, revision };
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
    const runners = [...this.runners.values()];
    const [closed] = await Promise.all([Promise.all(runners.map((r) => r.close())), this.rateLimit?.close()]);
    this.outputs?.close();
    if (this.ownsStore) this.store!.close();
    else this.store?.flush();
    for (const { key, error } of closed.flat()) {
      this.logger.warn({ event: 'tool_close_failed', tool: key, err: error }, 'a tool instance failed to close');
    }
  }

  private traversal(error: PathTraversalError, tool: RegisteredTool, callId: string): PathTraversalError {
    this.logger.warn({ event: 'tool_call', tool: tool.name, version: tool.version, callId, gate: 'workspace', success: false, errorCode: 'PATH_TRAVERSAL', path: error.path }, 'path traversal refused');
    return error;
  }

  /**
   * Set the duration and log the `tool_call` event: `gate` names the step that refused the
   * call, `decisions` the pipeline's trail (`decider:verdict`, with the rule when there is
   * one) when any decider had an opinion.
   */
  private finish(started: number, result: ToolExecutionResult, gate?: string, args?: unknown, decisions?: readonly Decision[]): ToolExecutionResult {
    result.durationMs = performance.now() - started;
    if (decisions !== undefined) {
      result.decisions = decisions.map(recordOf);
      // The audit: one event per decision, naming the decider, the rule, its file and line.
      if (this.logInfo) {
        for (const d of result.decisions) this.logger.info({ event: 'decision', tool: result.tool, version: result.version, callId: result.callId, ...d }, `decision: ${d.decider} ${d.verdict}`);
      }
    }
    if (this.logInfo) {
      const event: Record<string, unknown> = {
        event: 'tool_call', tool: result.tool, version: result.version, callId: result.callId, gate: gate ?? (result.errorCode === 'UNKNOWN_TOOL' || result.errorCode === 'VERSION_NOT_FOUND' || result.errorCode === 'INVALID_ARGUMENTS' || result.errorCode === 'INVALID_PATH' ? 'validation' : 'passed'),
        durationMs: Math.round(result.durationMs * 1000) / 1000, success: result.success, errorCode: result.errorCode,
      };
      if (decisions !== undefined) event.decisions = decisions.map((d) => `${d.decider}:${d.verdict}${d.rule === undefined ? '' : `:${d.rule}`}`);
      if (this.logDebug && args !== undefined) {
        // Raw JSON text that failed to parse cannot be redacted key by key: log its size only.
        event.arguments = typeof args === 'string' ? `[unparsed arguments, ${args.length} characters]` : redactSecrets(args);
      }
      if (result.success) this.logger.info(event, 'tool call');
      else this.logger.info(event, 'tool call failed');
    }
    return result;
  }
}

/**
 * Check per-call options that come from the caller's code (not the model) and put them in
 * `state`: a bad value is an `INVALID_OPTIONS` result (the message is returned), or for modes
 * a denial (fail closed: `state.mode` stays undefined).
 */
function applyOptions(options: ExecuteOptions, state: CallState, approvalMode: ApprovalMode | undefined): string | undefined {
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    return `options.signal must be an AbortSignal; got ${kindOf(options.signal)}`;
  }
  if (options.approvalMode !== undefined) {
    if (!APPROVAL_MODES.includes(options.approvalMode)) return `options.approvalMode must be one of ${APPROVAL_MODES.join(', ')}; got ${clip(JSON.stringify(options.approvalMode) ?? kindOf(options.approvalMode), 100)}`;
    state.approvalMode = options.approvalMode;
  } else {
    state.approvalMode = approvalMode;
  }
  if (options.turnId !== undefined) {
    if (typeof options.turnId !== 'string') return `options.turnId must be a string; got ${kindOf(options.turnId)}`;
    state.turnId = options.turnId;
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

/**
 * The policy files the `policy` option names.
 * @throws ToolgateOptionError for a value of the wrong type or a relative path.
 */
function policyFilesOf(policy: PolicyOptions | undefined): PolicyFilesOptions | undefined {
  if (policy === undefined) return undefined;
  if (policy === null || typeof policy !== 'object') throw ToolgateOptionError.fromBadOption('policy', `must be an object { user?, workspace? }; got ${kindOf(policy)}`);
  const { user = true, workspace = true } = policy;
  if (typeof workspace !== 'boolean') throw ToolgateOptionError.fromBadOption('policy', `policy.workspace must be a boolean; got ${kindOf(workspace)}`);
  if (typeof user === 'string' && !path.isAbsolute(user)) throw ToolgateOptionError.fromBadOption('policy', `policy.user must be an absolute path; got ${JSON.stringify(user)}`);
  if (typeof user !== 'string' && typeof user !== 'boolean') throw ToolgateOptionError.fromBadOption('policy', `policy.user must be a path or a boolean; got ${kindOf(user)}`);
  const userFile = typeof user === 'string' ? user : user ? defaultPolicyPaths().user : undefined;
  return { userFile, workspaceFiles: workspace };
}

/** The analyses of a call's command and shell-input arguments (`callAnalyses` with the parser bound). */
type CommandAnalysis = (tool: RegisteredTool, args: Readonly<Record<string, unknown>>, workspaceRoot: string) => ShellAnalysis[];

/** {@link commandAnalysis} once the parser has loaded: the synchronous path of later calls. */
let readyCommandAnalysis: CommandAnalysis | undefined;

/**
 * The command-argument analysis, importing the shell analysis modules and loading the parser on
 * first use (calls of tools without a command or shell-input argument load neither), and the
 * class of a tool with shell input (`tool.load()`: it says what reads the input). When the parser cannot
 * load, every command line is uncertain, and a later call tries again.
 */
async function commandAnalysis(tool: RegisteredTool): Promise<CommandAnalysis> {
  // A tool with shell input says what reads it from its class: load it (once) first.
  if (tool.inputArguments.length !== 0) await tool.load();
  if (readyCommandAnalysis !== undefined) return readyCommandAnalysis;
  const [{ loadShellAnalyzer }, { callAnalyses }] = await Promise.all([import('../policy/shell/analyze.js'), import('../policy/shell-input.js')]);
  let loaded = true;
  const analyze = await loadShellAnalyzer().then(undefined, (error: unknown) => {
    loaded = false;
    return unavailableAnalyzer(error);
  });
  const analysis: CommandAnalysis = (t, args, workspaceRoot) => callAnalyses(analyze, t, args, workspaceRoot);
  if (loaded) readyCommandAnalysis = analysis;
  return analysis;
}

/**
 * The analyzer when the parser cannot be loaded: every command line is uncertain, so no rule
 * allows it and no approval is remembered for its commands (fail closed).
 */
function unavailableAnalyzer(error: unknown): ShellAnalyzer {
  const why = `the shell parser could not be loaded (${clip((error as Error)?.message ?? String(error), 200)})`;
  return () => ({ commands: [], uncertain: [why], kind: 'shell_command' });
}

/** A decision as results and audit events carry it (the pipeline's flags left out). */
function recordOf(d: Decision): DecisionRecord {
  const record: DecisionRecord = { decider: d.decider, verdict: d.verdict, reason: d.reason };
  if (d.rule !== undefined) record.rule = d.rule;
  if (d.source !== undefined) {
    record.file = d.source.file;
    record.line = d.source.line;
  }
  return record;
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

/** What a call whose tool was registered again while it waited is answered. */
function replacedMessage(tool: RegisteredTool): string {
  return `${tool.key} was registered again (its definition replaced) while this call waited, so it was not run: it was checked and approved for the definition it replaced. Call the tool again to run the new definition.`;
}
