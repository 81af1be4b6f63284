/**
 * Decisions as data: what a decider says about one prepared call ({@link Decision}), what it
 * is shown ({@link PreparedCall}), and the {@link Decider} interface. The order of the
 * deciders and how their decisions combine live in `pipeline.ts`; the list is built in
 * `deciders.ts`.
 *
 * @module
 */
import type { ToolErrorCode } from '../errors/errors.js';
import type { AgentMode } from '../modes/modes.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ShellAnalysis } from '../policy/shell/types.js';
import type { SandboxPolicy } from '../sandbox/bubblewrap.js';
import type { ToolClient } from '../types/tool.js';
import type { Workspace } from '../workspace/workspace.js';

/**
 * Approval modes (seed `000_ba529e068cefa394.txt`): what happens to a call no rule decided.
 * - `allow-all`: run without asking, except what a rule, a protected path or `always_ask` asks;
 * - `deny-all`: refuse every call (nothing runs; a switch that stops an agent's actions);
 * - `read-only`: run tools whose action kind only reads (`internal`, `file_read`, `mcp_read`)
 *   without asking, ask for the rest;
 * - `always-ask`: ask a person about every call, afresh each time.
 * With no approval mode, the tools that declare `requiresConfirmation` ask, and the rest run.
 * Explicit policy rules apply in every mode: a `deny` rule denies, an `ask` rule asks, and an
 * `allow` rule lifts a tool's own question (but not `always-ask`).
 */
export const APPROVAL_MODES = Object.freeze(['allow-all', 'deny-all', 'read-only', 'always-ask'] as const);
/** One of {@link APPROVAL_MODES}. */
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** What a decider says of a call: let it run, ask a person (or a handler) first, or refuse it. */
type Verdict = 'allow' | 'ask' | 'deny';

/**
 * One decider's decision about one call. A decision is a value with a reason, never a bare
 * boolean, so approvals, audits and a ledger can carry it as it is.
 */
export interface Decision {
  readonly verdict: Verdict;
  /** Which decider said it (`mode`, `policy`, `confirmation`, `rate-limit`, or a custom decider's name). */
  readonly decider: string;
  /**
   * The result code when the call does not run: `MODE_DENIED`, `POLICY_DENIED`,
   * `CONFIRMATION_REQUIRED`, `CONFIRMATION_DENIED`, `RATE_LIMITED`, `ABORTED`. Set on `deny`.
   */
  readonly code?: ToolErrorCode;
  /** Readable reason: shown to the model on `deny`, to the person asked on `ask`. */
  readonly reason: string;
  /** The rule that produced it, when the decider has named rules (a policy file's `file:line`, a protected name, an approval mode). */
  readonly rule?: string;
  /** Where the rule is written, when it is in a file: the file's path and the rule's line (1-based). */
  readonly source?: { readonly file: string; readonly line: number };
  /**
   * On `ask`: only a person's answer, given now, settles it. Remembered approvals, `allow`
   * rules and the `allow-all` approval mode do not (a policy file's `always_ask`, the
   * `always-ask` approval mode).
   */
  readonly fresh?: boolean;
  /**
   * On `ask`: a person answers it, never an approval given in advance (the caller's
   * `confirm: true`, the CLI's `--yes`, an agent's `autoConfirmTools`, `toolgate mcp --yes`):
   * a handler (a terminal, an MCP client's elicitation, `toolgate approvals allow ID`, the
   * cockpit), or a person's remembered answer to this exact request. With nobody to ask, the
   * call is refused (`CONFIRMATION_REQUIRED`, naming the question's reason). Set on every
   * question of the protected-paths decider: `.git`, `.toolgate` and the other protected paths,
   * toolgate's own files, a line whose writes the analysis cannot see without a sandbox.
   */
  readonly person?: boolean;
  /**
   * On `allow`: this decision is a remembered answer to this exact request (see
   * `remembered.decider.ts`): it settles every `ask` of the call that is not `fresh`.
   */
  readonly answersAsk?: boolean;
  /**
   * On `allow`: an explicit grant (a policy rule, the `allow-all` or `read-only` approval
   * mode): it lifts the tool's own default question (`requiresConfirmation`), and nothing else.
   */
  readonly grants?: boolean;
  /**
   * On `allow`: real paths of the only folders the call may write in (a scoped write in a
   * read-only mode). The tool's workspace checks them again at the moment of writing.
   */
  readonly writeRoots?: readonly string[];
  /** On `deny` by the rate limit: milliseconds until the tool's next free turn (the result's `retryAfterMs`). */
  readonly retryAfterMs?: number;
}

/** A path argument of a call, resolved once before any decider runs. */
export interface ResolvedPath {
  /** As the model sent it. */
  readonly given: string;
  /** Its real path (links resolved), inside the workspace. */
  readonly real: string;
}

/**
 * A call ready to be decided on: its tool resolved, its arguments parsed and validated, every
 * `@format workspace-path` argument resolved inside the workspace. Deciders only read it.
 */
export interface PreparedCall {
  readonly tool: RegisteredTool;
  /** Validated arguments: what will run if the call is allowed. Deciders must not change them. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly callId: string;
  /** The workspace the call is confined to. */
  readonly workspace: Workspace;
  /** Every path argument, resolved (empty when the tool takes none). */
  readonly paths: readonly ResolvedPath[];
  /** The mode, or `undefined` for a mode name that is unknown or invalid (the mode decider denies: fail closed). */
  readonly mode: AgentMode | undefined;
  /** The mode's name as given (clipped), for messages and hooks. */
  readonly modeName: string;
  /** Scoped write folders the caller added for this call (workspace-relative). */
  readonly scopedWriteDirs: readonly string[];
  /** The approval mode of this call (the call's option, else the executor's), `undefined` for none. */
  readonly approvalMode: ApprovalMode | undefined;
  /** The session the call belongs to (the call option `session`, else the executor's): with the call id, a ledger's key. */
  readonly session: string;
  /** The turn the call belongs to (the call option `turnId`): what `allow_for_turn` and a denial in this turn are scoped to. `''` when the caller names none. */
  readonly turnId: string;
  /**
   * The analysis of each `@format shell-command` argument, in schema order (empty for tools
   * without one): made once before any decider runs, so rules and remembered approvals judge
   * the same commands.
   */
  readonly commands: readonly ShellAnalysis[];
  /**
   * The caller's side of the call (the `client` execute option), if any: the visibility
   * decider reads the session state a caller lends through its `services`
   * (`src/builtin/caller-services.ts`). Deciders must not call its handlers.
   */
  readonly client?: ToolClient | undefined;
  /**
   * The sandbox the call's commands run in (`none` when the user chose none): with a sandbox,
   * the shell tools' commands find the paths a deny rule covers hidden, so a folder a command
   * names need not be judged by all it holds. Absent: judged as `none` (fail closed).
   */
  readonly sandbox?: SandboxPolicy | undefined;
}

/**
 * One step of the decision pipeline. `decide` returns a {@link Decision}, or `undefined` for
 * "no opinion" (the same as `allow` when it comes to combining), synchronously or as a
 * promise. It must not throw; a decider that can fail decides what failing means (the policy
 * hook fails open, for instance) and says so in its TSDoc.
 *
 * Adding a decider: one file (`src/decisions/NAME.decider.ts`, a class implementing this) and
 * one line in `deciders.ts`.
 */
export interface Decider {
  /** Short name, recorded on its decisions and in logs. */
  readonly name: string;
  /**
   * Longest wait, in milliseconds, for a decision given as a promise, and what counts when it
   * does not come in time (`undefined`: no opinion). Default: wait as long as it takes (the
   * call's signal and the executor closing still end the wait).
   */
  readonly waitLimit?: { readonly ms: number; readonly onTimeout: () => Decision | undefined };
  /**
   * @param earlier - what the deciders before this one said (an empty array when none had an
   *   opinion); read-only. The approval-mode decider reads it to skip the default question of
   *   a call a rule already allowed.
   */
  decide(call: PreparedCall, earlier: readonly Decision[]): Decision | undefined | PromiseLike<Decision | undefined>;
  /**
   * True for deciders whose inputs can change while a person answers (policy files): after an
   * `ask` is answered yes, they are asked again before the call runs, and a `deny` then wins.
   */
  readonly recheckAfterAnswer?: boolean;
  /**
   * Told the answer to an `ask` about `call` (an `allow` whose `rule` is `allow_once`,
   * `allow_for_turn` or `always`, or a `deny`), before the call runs: remembered approvals
   * learn here. Must not throw.
   */
  answered?(call: PreparedCall, answer: Decision): void;
}

/** A deny decision. */
export function deny(decider: string, code: ToolErrorCode, reason: string, rule?: string): Decision {
  return rule === undefined ? { verdict: 'deny', decider, code, reason } : { verdict: 'deny', decider, code, reason, rule };
}
