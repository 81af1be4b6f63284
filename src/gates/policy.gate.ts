/**
 * Policy hook gate: a caller-supplied function may veto a call with a reason. A hook that
 * throws fails open (the call goes on) and the failure is logged.
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import type { GateDenial } from './gate.js';
import { clip, isThenable, kindOf } from '../util/values.js';

/** What a policy hook sees of a call. */
export interface PolicyCall {
  /** Tool name. */
  tool: string;
  /** Tool version that would run. */
  version: string;
  /** Validated arguments: a deep-frozen copy, made when first read. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Mode name the call runs in. */
  mode: string;
  /** Call id. */
  callId: string;
  /** Whether the tool is read-only. */
  readOnly: boolean;
}

/**
 * A policy hook: return a non-empty string to veto the call (the string is the reason the
 * model sees), or `undefined`, `null`, `''` or `false` to let it pass. Any other value (`true`,
 * an object, an `Error`) is treated as a veto, so a hook written with other conventions fails
 * closed. May be async; the executor bounds the wait (`policyTimeoutMs`).
 */
export type PolicyHook = (call: PolicyCall) => unknown;

/**
 * Decide; `undefined` means pass. Returns synchronously when the hook does (no promise, no
 * microtask), a promise when the hook returns one.
 */
export function policyGate(hook: PolicyHook, call: PolicyCall, logger: Logger): GateDenial | undefined | Promise<GateDenial | undefined> {
  let verdict: unknown;
  try {
    verdict = hook(call);
  } catch (error) {
    return failOpen(error, call, logger);
  }
  if (isThenable(verdict)) {
    return Promise.resolve(verdict).then(decide, (error: unknown) => failOpen(error, call, logger));
  }
  return decide(verdict);
}

/** A hook that threw (or rejected): log it and let the call pass. */
function failOpen(error: unknown, call: PolicyCall, logger: Logger): undefined {
  logger.warn({ event: 'policy_hook_failed', tool: call.tool, callId: call.callId, err: (error as Error)?.message ?? String(error) }, 'policy hook threw; failing open');
  return undefined;
}

function decide(verdict: unknown): GateDenial | undefined {
  if (verdict === undefined || verdict === null || verdict === false) return undefined;
  if (typeof verdict === 'string') {
    return verdict.trim() === '' ? undefined : { gate: 'policy', code: 'POLICY_DENIED', reason: `Denied by policy: ${clip(verdict.trim(), 2000)}` };
  }
  const said = verdict instanceof Error ? verdict.message : typeof verdict === 'object' && typeof (verdict as { reason?: unknown }).reason === 'string' ? (verdict as { reason: string }).reason : undefined;
  return {
    gate: 'policy',
    code: 'POLICY_DENIED',
    reason: `Denied by policy: ${said ? clip(said, 2000) : `the policy hook returned ${kindOf(verdict)} instead of a reason, which counts as a veto`}`,
  };
}
