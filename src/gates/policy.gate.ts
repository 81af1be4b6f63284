/**
 * Policy hook gate: a caller-supplied function may veto a call with a reason. A hook that
 * throws fails open (the call goes on) and the failure is logged.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { GateDenial } from './gate.js';

/** What a policy hook sees of a call. */
export interface PolicyCall {
  /** Tool name. */
  tool: string;
  /** Tool version that would run. */
  version: string;
  /** Validated arguments (do not mutate). */
  arguments: Readonly<Record<string, unknown>>;
  /** Mode name the call runs in. */
  mode: string;
  /** Call id. */
  callId: string;
  /** Whether the tool is read-only. */
  readOnly: boolean;
}

/**
 * A policy hook: return a non-empty string to veto the call (the string is the reason the
 * model sees), or `undefined`/empty to let it pass. May be async.
 */
export type PolicyHook = (call: PolicyCall) => string | undefined | null | Promise<string | undefined | null>;

/**
 * Decide; `undefined` means pass. Returns synchronously when the hook does (no promise, no
 * microtask), a promise when the hook returns one.
 */
export function policyGate(hook: PolicyHook, call: PolicyCall, logger: Logger): GateDenial | undefined | Promise<GateDenial | undefined> {
  const failOpen = (error: unknown): undefined => {
    logger.warn({ event: 'policy_hook_failed', tool: call.tool, callId: call.callId, err: (error as Error)?.message ?? String(error) }, 'policy hook threw; failing open');
    return undefined;
  };
  let verdict: ReturnType<PolicyHook>;
  try {
    verdict = hook(call);
  } catch (error) {
    return failOpen(error);
  }
  if (verdict !== null && typeof verdict === 'object' && typeof (verdict as Promise<unknown>).then === 'function') {
    return (verdict as Promise<string | undefined | null>).then(decide, failOpen);
  }
  return decide(verdict as string | undefined | null);
}

function decide(verdict: string | undefined | null): GateDenial | undefined {
  if (typeof verdict === 'string' && verdict.trim() !== '') {
    return { gate: 'policy', code: 'POLICY_DENIED', reason: `Denied by policy: ${verdict.trim()}` };
  }
  return undefined;
}
