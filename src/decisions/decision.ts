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
import type { Workspace } from '../workspace/workspace.js';

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
  /** The rule that produced it, when the decider has named rules (a policy file's rule id). */
  readonly rule?: string;
  /**
   * On `allow`: real paths of the only folders the call may write in (a scoped write in a
   * read-only mode). The tool's workspace checks them again at the moment of writing.
   */
  readonly writeRoots?: readonly string[];
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
  decide(call: PreparedCall): Decision | undefined | PromiseLike<Decision | undefined>;
}

/** A deny decision. */
export function deny(decider: string, code: ToolErrorCode, reason: string, rule?: string): Decision {
  return rule === undefined ? { verdict: 'deny', decider, code, reason } : { verdict: 'deny', decider, code, reason, rule };
}
