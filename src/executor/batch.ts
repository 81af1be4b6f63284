/**
 * One model turn's calls, run in turn order: the one batch implementation, shared by
 * `ToolExecutor.executeMany` and the agents' `ToolCallHandler`.
 *
 * Calls that only read run concurrently (at most `concurrency` at once, through p-limit); a
 * call that writes waits for every earlier call and runs alone, so writes happen in the order
 * the model gave them and never overlap a read of the same turn. A call that tries to leave
 * the workspace is answered `PATH_TRAVERSAL`, and the calls of the turn that had not started
 * yet are not run (answered `ABORTED`); calls already running finish.
 *
 * @module
 */
import pLimit from 'p-limit';
import { failedResult, type ResultFields } from '../closeout/results.js';
import { PathTraversalError } from '../errors/errors.js';
import type { ToolExecutionResult } from '../types/result.js';

/** How {@link runBatch} runs the calls `0 .. count - 1`. */
export interface BatchPlan {
  /** Read-only calls running at once, a positive integer. */
  concurrency: number;
  /** Whether call `i` writes (or must otherwise run alone, in order). */
  runsAlone(i: number): boolean;
  /**
   * Run call `i`. May throw (reject with) `PathTraversalError`; any other rejection is a bug
   * of the caller and rejects {@link runBatch} at once (calls already queued may still start).
   */
  run(i: number): Promise<ToolExecutionResult>;
  /** Tool name and call id of call `i`, for the results of calls that do not run. */
  describe(i: number): Pick<ResultFields, 'tool' | 'callId'>;
  /** What the calls are called in messages: `turn` (default) or `batch`. */
  unit?: 'turn' | 'batch';
  /**
   * A result for call `i` without running it, or `undefined` to go on; asked first, before a
   * workspace escape skips the call (a cap on calls per turn, say).
   */
  notRun?(i: number): ToolExecutionResult | undefined;
  /** Told of a call's workspace escape as it happens (to log it). */
  onEscape?(i: number, error: PathTraversalError): void;
  /** Told of each result as it is settled, in the order they settle. */
  onResult?(i: number, result: ToolExecutionResult): void;
}

/** The batch's results in call order, and the first workspace escape, if any. */
export interface BatchOutcome {
  results: ToolExecutionResult[];
  escape: PathTraversalError | undefined;
}

/**
 * A queue that runs the functions given to it one at a time, in order: the questions of one
 * turn (confirmations, `ask_user`) reach one person, so they are asked one at a time.
 */
export function oneAtATime(): <T>(fn: () => T | PromiseLike<T>) => Promise<T> {
  return pLimit(1);
}

/** Run the calls of one turn. */
export async function runBatch(count: number, plan: BatchPlan): Promise<BatchOutcome> {
  const results = new Array<ToolExecutionResult>(count);
  let escape: PathTraversalError | undefined;
  let escaped = false;
  const one = async (i: number): Promise<void> => {
    let result = plan.notRun?.(i);
    if (result === undefined && (escape !== undefined || escaped)) {
      result = failedResult('ABORTED', `not run: an earlier call in this ${plan.unit ?? 'turn'} tried to leave the workspace.`, plan.describe(i));
    } else if (result === undefined) {
      try {
        result = await plan.run(i);
        // A target that answers an escape with a result (a ToolSystem) stops the rest too.
        if (!result.success && result.errorCode === 'PATH_TRAVERSAL') escaped = true;
      } catch (error) {
        if (!(error instanceof PathTraversalError)) throw error;
        escape ??= error;
        plan.onEscape?.(i, error);
        result = failedResult('PATH_TRAVERSAL', `refused: ${error.message}`, plan.describe(i));
      }
    }
    results[i] = result;
    plan.onResult?.(i, result);
  };
  const limit = pLimit(plan.concurrency);
  let pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    if (plan.runsAlone(i)) {
      await Promise.all(pending);
      pending = [];
      await one(i);
    } else {
      pending.push(limit(() => one(i)));
    }
  }
  await Promise.all(pending);
  return { results, escape };
}
