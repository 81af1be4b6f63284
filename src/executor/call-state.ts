/**
 * One call on its way through the executor ({@link CallState}): what the deciders read, what
 * the journal records, and what a dispatcher hands a runner, in one object.
 *
 * @module
 */
import type { RecordedProgress } from './call-progress-record.js';
import type { ApprovalMode, Decision, PreparedCall, ResolvedPath } from '../decisions/decision.js';
import type { NewCall } from '../ledger/store.js';
import type { AgentMode } from '../modes/modes.js';
import type { ShellAnalysis } from '../policy/shell/types.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { RunRequest } from '../runner/runner.js';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../sandbox/bubblewrap.js';
import type { ToolClient } from '../types/tool.js';
import type { PathFilterSpec } from '../workspace/path-filter.js';
import { workspaceFor, type Workspace } from '../workspace/workspace.js';
import type { ExecuteOptions } from './executor-options.js';

const NO_ARGUMENTS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_PATHS: readonly ResolvedPath[] = Object.freeze([]);
const NO_DIRS: readonly string[] = Object.freeze([]);
const NO_COMMANDS: readonly ShellAnalysis[] = Object.freeze([]);

/**
 * One call on its way through the executor. It is at once the {@link PreparedCall} the
 * deciders read and the {@link RunRequest} a runner is given, so a call allocates one object.
 */
export class CallState implements PreparedCall, RunRequest {
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
  /** The call's path rules for the tool (`ctx.workspace.withholds()`), set once it is allowed, when policy files count. */
  pathFilter: PathFilterSpec | undefined = undefined;
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
   * The call as the journal records it, once the ledger's check let it go on: it is written
   * with the next state change (question, claim or end), and its end is written at close-out.
   */
  entry: NewCall | undefined = undefined;
  /** The ledger's claim committed (the decisions were stored with it). */
  claimed = false;
  /** W3C trace context of the call's span, when one is recorded (OpenTelemetry). */
  traceparent: string | undefined = undefined;
  /** What stops the call while a runner runs it (see {@link RunRequest.running}). */
  running: RunRequest['running'] = undefined;
  readonly signal: AbortSignal | undefined;
  readonly scopedWriteDirs: readonly string[];
  private ws: Workspace | undefined;

  /**
   * Set when the call runs recorded: the client that also writes its latest progress to the
   * ledger (`call-progress-record.ts`); stopped when the call is closed out.
   */
  recording: RecordedProgress | undefined = undefined;

  /** The caller's handlers for `ctx.progress` and the like (the call's `client` option; once it runs recorded, wrapped by {@link recording}). */
  get client(): ToolClient | undefined {
    return this.recording ?? this.options.client;
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
