/**
 * The executor's options: the executor's own ({@link ToolExecutorOptions}, checked once by
 * {@link settingsOf}), per call ({@link ExecuteOptions}, checked by {@link applyOptions}), and
 * the shapes of a preview and of a batch's options.
 *
 * @module
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { OutputStoreOptions } from '../closeout/output-store.js';
import type { ConfirmationHandler, ConfirmationRequest } from '../decisions/approval.js';
import { APPROVAL_MODES, type ApprovalMode } from '../decisions/decision.js';
import type { PolicyFilesOptions } from '../decisions/policy-files.decider.js';
import type { PolicyHook } from '../decisions/policy-hook.decider.js';
import type { RateAdmission } from '../decisions/rate-limit.js';
import { MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import { ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import type { CallStore } from '../ledger/call-store.js';
import type { Ledger, LedgerOptions } from '../ledger/store.js';
import type { Logger } from '../logging/logger.js';
import { resolveMode, type AgentMode } from '../modes/modes.js';
import { defaultPolicyPaths } from '../policy/policy-set.js';
import type { SavedApprovals } from '../policy/remembered-approvals.js';
import type { RunnerKind } from '../runner/kinds.js';
import type { Runner } from '../runner/runner.js';
import { DEFAULT_SANDBOX, SANDBOX_PROFILES, type SandboxPolicy, type SandboxProfile } from '../sandbox/bubblewrap.js';
import type { DecisionRecord, StopReason } from '../types/result.js';
import type { ToolClient } from '../types/tool.js';
import { clip, kindOf } from '../util/values.js';
import { DEFAULT_MAX_ARGUMENT_BYTES } from './arguments.js';

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
  /**
   * Where `rateLimitRpm` turns are taken: a limiter shared by several processes (the workers
   * of a pool use one on the queue's server, `src/distributed/shared-rate-limit.ts`). Closed with the
   * executor. Default: one in this process (bottleneck), bounded by `rateLimitMaxWaitMs`.
   */
  rateLimiter?: RateAdmission;
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
   * session returns its stored result without running again. A {@link Ledger} (or any other
   * {@link CallStore}) is used as given (the caller closes it); {@link LedgerOptions} open one (default file: the
   * `workspaceRoot`'s ledger in the state folder), closed by `close()`. Default `false`: none
   * (the CLI, `toolgate mcp` and `toolgate agent` use one unless `--no-ledger`).
   * @throws ToolgateOptionError (from the constructor) when the ledger cannot be opened.
   */
  ledger?: Ledger | CallStore | LedgerOptions | false;
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
  /**
   * On `ask`: the question a confirmation handler would be asked (tool, version, validated
   * arguments, paths, why, the answers offered). Adapters put it to a person through their
   * framework's own approval step before the call runs.
   */
  question?: ConfirmationRequest;
}

/** Options of {@link ToolExecutor.executeMany}. */
export interface ExecuteManyOptions extends ExecuteOptions {
  /** Read-only calls run at most this many at once. Default: the executor's `concurrency`. */
  concurrency?: number;
}

/** The executor's options once checked, with their defaults applied. */
export interface ExecutorSettings {
  /** Longest wait for an async policy hook, in ms. */
  readonly policyTimeoutMs: number;
  /** Largest arguments, in bytes of JSON text (`Infinity`: no bound). */
  readonly maxArgumentBytes: number;
  /** How processes tools start are confined. */
  readonly sandbox: SandboxPolicy;
  /** The session of calls that name none. */
  readonly session: string;
  /** Which `scopedWrite` tools read-only modes let write (`undefined`: all that declare it). */
  readonly scopedWriteTools: ReadonlySet<string> | undefined;
  /** The policy files the `policy` option names (`undefined`: none read). */
  readonly policyFiles: PolicyFilesOptions | undefined;
  /** Workspace root of calls that give none (the `workspaceRoot` option; `undefined`: `process.cwd()` at call time). */
  readonly workspaceRoot: string | undefined;
}

/**
 * Check the executor's options (those not checked where they are used: the output store, the
 * ledger, the policy files and the runners check their own) and apply their defaults.
 * @throws ToolgateOptionError naming the option that is out of range.
 */
export function settingsOf(options: ToolExecutorOptions): ExecutorSettings {
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw ToolgateOptionError.fromBadOption('concurrency', `must be a positive integer; got ${options.concurrency}`);
  }
  const policyTimeoutMs = options.policyTimeoutMs ?? 10_000;
  if (typeof policyTimeoutMs !== 'number' || !(policyTimeoutMs > 0) || policyTimeoutMs > MAX_TIMEOUT_MS) {
    throw ToolgateOptionError.fromBadOption('policyTimeoutMs', `must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; got ${options.policyTimeoutMs}`);
  }
  const maxArgumentBytes = options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
  if (typeof maxArgumentBytes !== 'number' || !(maxArgumentBytes === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxArgumentBytes) && maxArgumentBytes > 0))) {
    throw ToolgateOptionError.fromBadOption('maxArgumentBytes', `must be a positive integer number of bytes, or Infinity for no bound; got ${String(options.maxArgumentBytes).slice(0, 50)}`);
  }
  if (options.sandbox !== undefined && !SANDBOX_PROFILES.includes(options.sandbox)) {
    throw ToolgateOptionError.fromBadOption('sandbox', `must be one of ${SANDBOX_PROFILES.join(', ')}; got ${JSON.stringify(options.sandbox)}`);
  }
  if (options.sandboxNetwork !== undefined && typeof options.sandboxNetwork !== 'boolean') {
    throw ToolgateOptionError.fromBadOption('sandboxNetwork', `must be a boolean; got ${JSON.stringify(options.sandboxNetwork)}`);
  }
  const sandbox = options.sandbox === undefined && options.sandboxNetwork === undefined
    ? DEFAULT_SANDBOX
    : Object.freeze({ profile: options.sandbox ?? DEFAULT_SANDBOX.profile, network: options.sandboxNetwork ?? DEFAULT_SANDBOX.network });
  if (options.approvalMode !== undefined && !APPROVAL_MODES.includes(options.approvalMode)) {
    throw ToolgateOptionError.fromBadOption('approvalMode', `must be one of ${APPROVAL_MODES.join(', ')}; got ${JSON.stringify(options.approvalMode)}`);
  }
  const scopedWriteTools = options.scopedWriteTools === undefined ? undefined : new Set(options.scopedWriteTools);
  if (options.session !== undefined && (typeof options.session !== 'string' || options.session === '')) {
    throw ToolgateOptionError.fromBadOption('session', `must be a non-empty string; got ${kindOf(options.session)}`);
  }
  const session = options.session ?? `s_${crypto.randomBytes(8).toString('hex')}`;
  return { policyTimeoutMs, maxArgumentBytes, sandbox, session, scopedWriteTools, policyFiles: policyFilesOf(options.policy), workspaceRoot: options.workspaceRoot };
}

/** The fields of a call (its `CallState`) that its per-call options set. */
interface OptionTarget {
  approvalMode: ApprovalMode | undefined;
  turnId: string;
  timeoutMs: number;
  mode: AgentMode | undefined;
  modeName: string;
}

/**
 * Check per-call options that come from the caller's code (not the model) and put them in
 * `state`: a bad value is an `INVALID_OPTIONS` result (the message is returned), or for modes
 * a denial (fail closed: `state.mode` stays undefined).
 */
export function applyOptions(options: ExecuteOptions, state: OptionTarget, approvalMode: ApprovalMode | undefined): string | undefined {
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

/** Why the call's `session` option cannot name a ledger session (only checked with a ledger), or `undefined`. */
export function badSession(options: ExecuteOptions): string | undefined {
  const { session } = options;
  if (session === undefined || (typeof session === 'string' && session !== '')) return undefined;
  return `options.session must be a non-empty string; got ${kindOf(session)}`;
}

/** How a call failed: what `ToolExecutor.fail` puts in its result and its log event. */
export interface Failure {
  readonly code: ToolErrorCode;
  readonly message: string;
  /** Default `not_run`. */
  readonly stopReason?: StopReason;
  /** False only when the answer to a question refused the call. Default true. */
  readonly confirmed?: boolean;
  /** The step that refused the call, for the log (default: `validation` or `passed`, by the code). */
  readonly gate?: string;
  /** What the log shows as the arguments at debug level. Default: the arguments as given. */
  readonly loggedArguments?: unknown;
  /** Milliseconds until the same call may succeed (a rate limit's estimate). */
  readonly retryAfterMs?: number;
}
