/**
 * The types of a call: the request a model's tool call becomes, and the result every call
 * produces.
 *
 * @module
 */
import type { ToolErrorClass, ToolErrorCode } from '../errors/error-codes.js';

export type { ToolErrorClass };

/** Audio or an embedded resource attached to a result (the MCP content block shapes). */
export type ToolAttachment =
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } };

/**
 * Why a call ended, by priority when several apply (a user interrupt outranks a timeout,
 * which outranks an error the tool threw, which outranks an error the tool reported):
 * - `completed`: the tool ran and returned;
 * - `reported_error`: the tool returned but reported a failure ({@link ToolContext.reportError});
 * - `error`: the tool threw, crashed, ran out of memory, or returned invalid output;
 * - `timeout`: the call ran past its time limit (the tool's own or the executor's);
 * - `interrupted`: the caller aborted the call or closed the executor;
 * - `not_run`: the tool never started (unknown tool, invalid arguments, a gate said no).
 */
export type StopReason = 'completed' | 'reported_error' | 'error' | 'timeout' | 'interrupted' | 'not_run';

/**
 * What a result means for whoever called (see `src/closeout/outcomes.ts`, docs/outcomes.md):
 * - `success`: the tool ran and returned;
 * - `recoverable`: the same call may succeed if made again later (rate limit, overload, a
 *   transient failure, a server that was down, a timeout);
 * - `fatal`: making the same call again will not help (a gate said no, bad arguments, the tool
 *   failed); gate denials are fatal for the turn;
 * - `partial`: the tool returned output but reported that part of its work failed
 *   (`ctx.reportError`, such as a command's non-zero exit status).
 */
export type ToolOutcome = 'success' | 'recoverable' | 'fatal' | 'partial';


/**
 * Result of one tool call. Every call, whatever happens, produces exactly one (except a
 * workspace escape, which throws {@link PathTraversalError}).
 */
export interface ToolExecutionResult {
  /** True when the tool ran and returned output that passed the output schema. */
  success: boolean;
  /**
   * The text to show the model: the tool's output (truncated, with notes) on success, or a
   * readable error message on failure. Never empty (`[no output]` when the tool said nothing).
   */
  output: string;
  /** Error message when `success` is false, else `undefined`. */
  error?: string;
  /** Machine-readable reason when `success` is false; see {@link ToolErrorCode}. */
  errorCode?: ToolErrorCode;
  /** Wall time of the call on the main thread, in milliseconds (gates and queueing included). */
  durationMs: number;
  /**
   * False only when the confirmation gate stopped the call (confirmation required or
   * denied); true otherwise. An agent that sees false may ask the user and call again with
   * `confirm: true`.
   */
  confirmed: boolean;
  /** Tool name as requested (or as resolved, when it exists). */
  tool: string;
  /** Version that ran (or would have run); `undefined` when the tool was not found. */
  version?: string;
  /** Call id, threaded from the request or generated. */
  callId: string;
  /** The tool's return value when it is not a string (validated against the output schema). */
  structured?: unknown;
  /** Repairs applied to the arguments (for example double-encoded JSON decoded once). */
  repairs?: string[];
  /** Why the call ended; see {@link StopReason}. */
  stopReason: StopReason;
  /** What the result means for a retry; see {@link ToolOutcome}. */
  outcome: ToolOutcome;
  /** Why the call failed (from `errorCode`); absent on success. */
  errorClass?: ToolErrorClass;
  /** Milliseconds to wait before the same call can succeed (a rate-limit refusal's estimate); absent when unknown. */
  retryAfterMs?: number;
  /**
   * Whether the call may have changed anything: `none` when it never started or the tool is
   * read-only, `possible` when a tool that is not read-only started (whatever its end).
   */
  sideEffects: 'none' | 'possible';
  /** Images the tool attached (base64 data URLs), to show the model after `output`. */
  images?: string[];
  /** Audio and embedded resources the tool attached (`ctx.attach`), in MCP content-block shape. */
  attachments?: ToolAttachment[];
  /**
   * Where the whole output is kept when `output` shows only part of it (case T7): a file the
   * caller can read, kept until the executor closes (or in the caller's `outputStore.dir`).
   * Absent with a ledger and no `outputStore.dir`: the ledger keeps the whole output then
   * (`Ledger.result(callId)`, `toolgate result CALL_ID`).
   */
  fullOutput?: { path: string; characters: number };
  /**
   * The decision path: what each decider that had an opinion said, in order, ending with the
   * answer to a question when one was asked. Absent when no decider had an opinion (the call
   * ran, or failed before the deciders). `toolgate call --explain` prints it.
   */
  decisions?: DecisionRecord[];
}

/** One step of a call's decision path (see `src/decisions/`). */
export interface DecisionRecord {
  /** The decider: `mode`, `protected-paths`, `policy`, `remembered`, `policy-hook`, `approval`, `confirmation` (the answer to a question), `rate-limit`, or a custom decider's name. */
  decider: string;
  verdict: 'allow' | 'ask' | 'deny';
  /** Why, in words. */
  reason: string;
  /** The rule: a policy file's `file:line`, a protected name, an approval mode, an answer (`allow_once`, `allow_for_turn`, `always`, `deny`). */
  rule?: string;
  /** The policy file the rule is in, and its line (1-based). */
  file?: string;
  line?: number;
  /**
   * On `ask`: only a person answers this question; an approval given in advance (the caller's
   * `confirm: true`, the CLI's `--yes`, an agent's `autoConfirmTools`) does not: a protected
   * path's question, a line whose program the analysis cannot read without a sandbox, an
   * `always_ask` rule, the `always-ask` approval mode. Absent otherwise.
   */
  person?: true;
}

/** The model's tool call as the executor takes it. */
export interface ToolCallRequest {
  /** Tool name as the model sent it. */
  name: string;
  /**
   * Arguments: a JSON object, or JSON text holding one (as providers deliver them). An empty
   * string or `undefined` counts as `{}`.
   */
  arguments?: unknown;
  /** Provider call id to thread into the result; generated when absent. */
  callId?: string;
  /** Semver range to select a version; default: the highest registered version. */
  version?: string;
}
