/**
 * The order one model turn's tool calls run in, shared by `ToolExecutor.executeMany` and the
 * agents' `ToolCallHandler`: calls that only read run concurrently (at most `concurrency` at
 * once, through p-limit); a call that writes waits for every earlier call and runs alone, so
 * writes happen in the order the model gave them and never overlap a read of the same turn.
 *
 * @module
 */
import pLimit from 'p-limit';

/**
 * Run calls `0 .. count - 1` in that discipline.
 * @param count - number of calls.
 * @param runsAlone - whether call `i` writes (or must otherwise run alone, in order).
 * @param run - runs call `i`; it should store its own result and not reject (a rejection
 *   propagates after the calls already started settle).
 * @param concurrency - read-only calls running at once, a positive integer.
 */
export async function runInTurnOrder(count: number, runsAlone: (i: number) => boolean, run: (i: number) => Promise<void>, concurrency: number): Promise<void> {
  const limit = pLimit(concurrency);
  let pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    if (runsAlone(i)) {
      await Promise.all(pending);
      pending = [];
      await run(i);
    } else {
      pending.push(limit(() => run(i)));
    }
  }
  await Promise.all(pending);
}
