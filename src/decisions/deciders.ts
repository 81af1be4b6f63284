/**
 * The list of deciders, in the order the pipeline asks them. The one place the list is built:
 * adding a decider is one file implementing `Decider` and one line here.
 *
 * Order: the mode first (it fails closed and costs nothing), then protected paths (`.git`,
 * `.toolgate` and the caller's list ask, or are denied in read-only modes), then the caller's policy hook,
 * then the tool's own need for confirmation (an `ask`, answered by `approval.ts` after every
 * decider has spoken, so that a later `deny` never bothers a person). Rate limiting is not a
 * decider: it is admission, after the decisions (`rate-limit.ts`).
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import { ConfirmationDecider } from './confirmation.decider.js';
import type { Decider } from './decision.js';
import { ModeDecider } from './mode.decider.js';
import { PolicyHookDecider, type PolicyHook } from './policy-hook.decider.js';
import { ProtectedPathsDecider } from './protected-paths.decider.js';

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
  logger: Logger;
}

/** Build the deciders, in order. */
export function buildDeciders(options: DeciderOptions): Decider[] {
  const deciders: Decider[] = [new ModeDecider(options.scopedWriteTools), new ProtectedPathsDecider(options.protectedPaths)];
  if (options.policyHook !== undefined) deciders.push(new PolicyHookDecider(options.policyHook, options.logger, options.policyTimeoutMs));
  deciders.push(new ConfirmationDecider());
  return deciders;
}
