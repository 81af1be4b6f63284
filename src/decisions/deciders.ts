/**
 * The list of deciders, in the order the pipeline asks them. The one place the list is built:
 * adding a decider is one file implementing `Decider` and one line here.
 *
 * Order: visibility first (a tool its caller cannot see, a lazy domain still hidden or a
 * caller tool whose caller lent nothing, is refused before any rule is read about it), then
 * the mode (it fails closed and costs nothing), then protected paths (`.git`,
 * `.toolgate` and the caller's list ask, or are denied in read-only modes), then the policy
 * files (their `deny` comes before any remembered answer: a deny beats a saved approval),
 * then remembered approvals (a request answered before), then the caller's policy hook, then the approval mode
 * (the default question: a tool's own `requiresConfirmation`, or the mode's). An `ask` is
 * answered by `approval.ts` after every decider has spoken, so that a later `deny` never
 * bothers a person. Rate limiting is not a decider: it is admission, after the decisions
 * (`rate-limit.ts`).
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import type { RememberedApprovals } from '../policy/remembered-approvals.js';
import { ApprovalModeDecider, type SessionApprovalModes } from './approval-mode.decider.js';
import type { Decider } from './decision.js';
import { ModeDecider } from './mode.decider.js';
import { PolicyHookDecider, type PolicyHook } from './policy-hook.decider.js';
import { PolicyFilesDecider, type PolicyFilesOptions } from './policy-files.decider.js';
import { ProtectedPathsDecider } from './protected-paths.decider.js';
import { RememberedDecider } from './remembered.decider.js';
import { VisibilityDecider } from './visibility.decider.js';
import { ownStatePaths } from '../workspace/own-state-paths.js';

/** What the deciders are configured with (the executor's options). */
export interface DeciderOptions {
  /** Narrows which `scopedWrite` tools read-only modes let write; `undefined` for all that declare it. */
  scopedWriteTools: ReadonlySet<string> | undefined;
  /** The caller's policy hook, if any. */
  policyHook: PolicyHook | undefined;
  /** Longest wait for an async policy hook, in ms. */
  policyTimeoutMs: number;
  /** Protected names and workspace-relative paths beyond `.git` and `.toolgate`. */
  protectedPaths: readonly string[];
  /** The answers people gave (the executor's). */
  remembered: RememberedApprovals;
  /** The policy files, or `undefined` to read none. */
  policyFiles: PolicyFilesOptions | undefined;
  logger: Logger;
  /** Approval modes set per session while it runs (a ledger's), or `undefined` for none. */
  sessionApprovalModes?: SessionApprovalModes;
  /**
   * toolgate's own files beyond the defaults (a ledger file, an output store's folder),
   * absolute: with the default config and state folders and the user's policy file
   * (`ownStatePaths`), no call may write there. Default none beyond those.
   */
  ownState?: readonly (string | undefined)[];
}

/** Build the deciders, in order. */
export function buildDeciders(options: DeciderOptions): Decider[] {
  const policy = options.policyFiles === undefined ? undefined : new PolicyFilesDecider(options.policyFiles);
  // an explicit allow rule naming a program the analysis cannot see is the person's grant for it (no policy files: none)
  const grantsProgram = policy === undefined ? undefined : policy.grantsProgram.bind(policy);
  const deciders: Decider[] = [new VisibilityDecider(options.scopedWriteTools), new ModeDecider(options.scopedWriteTools), new ProtectedPathsDecider(options.protectedPaths, ownStateOf(options), grantsProgram)];
  if (policy !== undefined) deciders.push(policy);
  deciders.push(new RememberedDecider(options.remembered));
  if (options.policyHook !== undefined) deciders.push(new PolicyHookDecider(options.policyHook, options.logger, options.policyTimeoutMs));
  deciders.push(new ApprovalModeDecider(options.sessionApprovalModes));
  return deciders;
}

/** toolgate's own files for the deciders' configuration (see {@link DeciderOptions.ownState}). */
function ownStateOf(options: DeciderOptions): string[] {
  const extra: string[] = [];
  for (const entry of options.ownState ?? []) {
    if (entry === undefined) continue;
    extra.push(entry);
    // SQLite's companions of a ledger file.
    if (entry.endsWith('.sqlite')) extra.push(`${entry}-wal`, `${entry}-shm`, `${entry}-journal`);
  }
  return ownStatePaths({ policyFile: options.policyFiles?.userFile, extra });
}
