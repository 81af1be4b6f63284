/**
 * An agent's retries of failed tool calls (issue 19 item 2, seed `004_1a9ea3106da7ef2e.txt`).
 * Only a `recoverable` failure of a class in `retryOn` whose call had no side effects
 * (`sideEffects: 'none'`: it never started, or its tool is read-only) is made again, in its
 * place, before the model sees it: the model sees the last result only. Retries are bounded
 * per call and per run; a wait comes first (the result's `retryAfterMs`, so a rate-limit
 * refusal waits for its turn, else an exponential backoff), and a wait longer than
 * `maxWaitMs` is not made. A breaker counts failures of the same tool with the same
 * canonical arguments in a run: past `breakerThreshold` the call is not made again, and the
 * model is told, so neither the agent nor the model loops on identical arguments.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolgateOptionError } from '../errors/errors.js';
import { parseArguments } from '../executor/arguments.js';
import type { PendingToolCall } from '../formats/common.js';
import type { CallRetryPolicy } from '../system/tool-call-handler.js';
import type { ToolErrorClass, ToolExecutionResult } from '../types/result.js';
import { canonicalSha256 } from '../util/canonical-hash.js';

/** Retry options of an agent ({@link AgentOptions.retry}); every option documents its default. */
export interface RetryOptions {
  /** Times one call is made again at most (so `1 + maxRetriesPerCall` attempts). Default 2. */
  maxRetriesPerCall?: number;
  /** Retries in one run (one turn) at most, over all calls. Default 8. */
  maxRetriesPerRun?: number;
  /** Error classes retried (of `recoverable` failures). Default `['transient', 'rate_limited', 'overloaded', 'unavailable']`. */
  retryOn?: readonly ToolErrorClass[];
  /** Wait before the first retry of a failure without `retryAfterMs`, in milliseconds; doubled each attempt. Default 250. */
  backoffMs?: number;
  /**
   * Longest wait before a retry, in milliseconds: a failure whose `retryAfterMs` (or backoff)
   * is longer is not retried, and the model is told when the call may succeed. Default 15000.
   */
  maxWaitMs?: number;
  /**
   * Failures of the same tool with the same canonical arguments in one run after which the
   * call is not retried and the model is told not to repeat it unchanged. Default 3.
   */
  breakerThreshold?: number;
}

/** Default of {@link RetryOptions.retryOn}. */
export const DEFAULT_RETRY_ON: readonly ToolErrorClass[] = Object.freeze(['transient', 'rate_limited', 'overloaded', 'unavailable']);

/** What a {@link RunRetries} reports: a failed attempt that is made again after `delayMs`. */
export interface RetryEvent {
  call: PendingToolCall;
  /** The failed result that is retried. */
  result: ToolExecutionResult;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Milliseconds waited before the next attempt. */
  delayMs: number;
}

/** Settled retry options. */
interface Settled {
  maxRetriesPerCall: number;
  maxRetriesPerRun: number;
  retryOn: ReadonlySet<ToolErrorClass>;
  backoffMs: number;
  maxWaitMs: number;
  breakerThreshold: number;
}

/**
 * Check retry options and fill in defaults.
 * @throws ToolgateOptionError naming the option (`retry.maxRetriesPerCall` ...).
 */
export function retrySettings(options: RetryOptions = {}): Settled {
  const count = (name: keyof RetryOptions, value: number | undefined, fallback: number, min: number): number => {
    const v = value ?? fallback;
    if (!Number.isInteger(v) || v < min) throw ToolgateOptionError.fromBadOption(`retry.${name}`, `must be an integer >= ${min}; got ${String(value)}`);
    return v;
  };
  const retryOn = options.retryOn ?? DEFAULT_RETRY_ON;
  if (!Array.isArray(retryOn)) throw ToolgateOptionError.fromBadOption('retry.retryOn', 'must be an array of error classes');
  return {
    maxRetriesPerCall: count('maxRetriesPerCall', options.maxRetriesPerCall, 2, 0),
    maxRetriesPerRun: count('maxRetriesPerRun', options.maxRetriesPerRun, 8, 0),
    retryOn: new Set(retryOn),
    backoffMs: count('backoffMs', options.backoffMs, 250, 0),
    maxWaitMs: count('maxWaitMs', options.maxWaitMs, 15_000, 0),
    breakerThreshold: count('breakerThreshold', options.breakerThreshold, 3, 1),
  };
}

/** The breaker's key of a call: tool name and the SHA-256 of its canonical arguments (the raw text when it is not JSON). */
function callKey(call: PendingToolCall): string {
  const parsed = parseArguments(call.arguments);
  return `${call.name}\u0000${canonicalSha256(parsed.ok ? parsed.value : String(call.arguments))}`;
}

/** The retry policy of one agent run: its budget and its breaker live as long as the run. */
export class RunRetries implements CallRetryPolicy {
  private retriesLeft: number;
  private readonly failures = new Map<string, number>();

  constructor(private readonly settings: Settled, private readonly onRetry?: (event: RetryEvent) => void) {
    this.retriesLeft = settings.maxRetriesPerRun;
  }

  async decide(call: PendingToolCall, result: ToolExecutionResult, attempt: number, signal: AbortSignal | undefined): Promise<{ again: true } | { again: false; note?: string }> {
    if (result.success) return { again: false };
    const key = callKey(call);
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const s = this.settings;
    if (failures >= s.breakerThreshold) {
      return { again: false, note: `[${call.name} has failed ${failures} times with these same arguments in this run; it is not retried. Do not call it again unchanged: change the arguments or take another approach.]` };
    }
    if (result.outcome !== 'recoverable' || result.errorClass === undefined || !s.retryOn.has(result.errorClass)) return { again: false };
    if (result.sideEffects !== 'none') return { again: false };
    if (attempt > s.maxRetriesPerCall || this.retriesLeft <= 0) {
      return { again: false, note: `[not retried again: ${attempt} attempts made${this.retriesLeft <= 0 ? ', and this run\u2019s retry budget is spent' : ''}.]` };
    }
    const delayMs = result.retryAfterMs ?? s.backoffMs * 2 ** (attempt - 1);
    if (delayMs > s.maxWaitMs) {
      return { again: false, note: `[not retried: the call may succeed in about ${Math.ceil(delayMs / 1000)} s, longer than this agent waits (${s.maxWaitMs} ms).]` };
    }
    if (signal?.aborted) return { again: false };
    this.retriesLeft -= 1;
    this.onRetry?.({ call, result, attempt, delayMs });
    if (delayMs > 0) {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        return { again: false };
      }
    }
    return { again: true };
  }
}
