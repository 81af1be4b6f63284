/**
 * Policy hook decider: a caller-supplied function may veto a call with a reason. A hook that
 * throws, rejects, or answers later than `policyTimeoutMs` fails open (the call goes on) and
 * the failure is logged.
 *
 * @module
 */
import type { Logger } from '../logging/logger.js';
import { clip, frozenCopy, isThenable, kindOf } from '../util/values.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

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

const NAME = 'policy-hook';

/** What a policy hook sees; the frozen copy of the arguments is made only if the hook reads it. */
class LazyPolicyCall implements PolicyCall {
  private frozen: Readonly<Record<string, unknown>> | undefined;
  readonly tool: string;
  readonly version: string;
  readonly mode: string;
  readonly callId: string;
  readonly readOnly: boolean;

  constructor(private readonly call: PreparedCall) {
    this.tool = call.tool.name;
    this.version = call.tool.version;
    this.mode = call.modeName;
    this.callId = call.callId;
    this.readOnly = call.tool.readOnly;
  }

  get arguments(): Readonly<Record<string, unknown>> {
    return (this.frozen ??= frozenCopy(this.call.args));
  }

  toJSON(): object {
    return { tool: this.tool, version: this.version, mode: this.mode, callId: this.callId, readOnly: this.readOnly, arguments: this.arguments };
  }
}

/** The policy hook step of the pipeline. */
export class PolicyHookDecider implements Decider {
  readonly name = NAME;
  readonly waitLimit: Decider['waitLimit'];

  /**
   * @param hook - the caller's hook.
   * @param logger - where failures and late answers are logged (at `warn`).
   * @param timeoutMs - longest wait for an async hook, in ms; a later answer fails open.
   */
  constructor(private readonly hook: PolicyHook, private readonly logger: Logger, timeoutMs: number) {
    this.waitLimit = {
      ms: timeoutMs,
      onTimeout: () => {
        this.logger.warn({ event: 'policy_hook_timeout', timeoutMs }, 'policy hook did not answer in time; failing open');
        return undefined;
      },
    };
  }

  /** Hooks get a frozen copy of the arguments (made only if they read it): they cannot change what runs. */
  decide(call: PreparedCall): Decision | undefined | Promise<Decision | undefined> {
    return decidePolicy(this.hook, new LazyPolicyCall(call), this.logger);
  }
}

/**
 * Ask `hook` about `call`. Returns synchronously when the hook does (no promise, no
 * microtask), a promise when the hook returns one. Never throws: a hook that throws or
 * rejects fails open.
 */
export function decidePolicy(hook: PolicyHook, call: PolicyCall, logger: Logger): Decision | undefined | Promise<Decision | undefined> {
  let verdict: unknown;
  try {
    verdict = hook(call);
  } catch (error) {
    return failOpen(error, call, logger);
  }
  if (isThenable(verdict)) {
    return Promise.resolve(verdict).then(fromHookAnswer, (error: unknown) => failOpen(error, call, logger));
  }
  return fromHookAnswer(verdict);
}

/** A hook that threw (or rejected): log it and let the call pass. */
function failOpen(error: unknown, call: PolicyCall, logger: Logger): undefined {
  logger.warn({ event: 'policy_hook_failed', tool: call.tool, callId: call.callId, err: (error as Error)?.message ?? String(error) }, 'policy hook threw; failing open');
  return undefined;
}

/** A hook's answer as a decision (see {@link PolicyHook} for what counts as a veto). */
export function fromHookAnswer(verdict: unknown): Decision | undefined {
  if (verdict === undefined || verdict === null || verdict === false) return undefined;
  if (typeof verdict === 'string') {
    return verdict.trim() === '' ? undefined : deny(NAME, 'POLICY_DENIED', `Denied by policy: ${clip(verdict.trim(), 2000)}`);
  }
  const said = verdict instanceof Error ? verdict.message : typeof verdict === 'object' && typeof (verdict as { reason?: unknown }).reason === 'string' ? (verdict as { reason: string }).reason : undefined;
  return deny(NAME, 'POLICY_DENIED', `Denied by policy: ${said ? clip(said, 2000) : `the policy hook returned ${kindOf(verdict)} instead of a reason, which counts as a veto`}`);
}
