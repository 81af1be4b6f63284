/**
 * The store as a worker's executor sees it: the shared store, except that a `pending` call
 * the worker holds a job for is `recorded` to its check (the worker adopts it) although
 * another live process (its caller) recorded it. Everything else, the fenced claim first of
 * all, is the shared store's own: of two workers that adopt one call, one claims it.
 *
 * @module
 */
import type { CallKey, CallStore, RecordOutcome } from '../ledger/call-store.js';

/** The key of a call in a set. */
export function keyString(key: CallKey): string {
  return `${key.session}\u0000${key.callId}`;
}

/**
 * A view of `store` whose `check` adopts the pending calls whose keys are in `adopted`.
 * @param adopted - the keys of the calls the worker is handling jobs for (it adds and removes them).
 */
export function adoptingStore(store: CallStore, adopted: ReadonlySet<string>): CallStore {
  const check = async (key: CallKey): Promise<RecordOutcome> => {
    const outcome = await store.check(key);
    if (outcome.kind === 'in_progress' && outcome.record.state === 'pending' && adopted.has(keyString(key))) return { kind: 'recorded' };
    return outcome;
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'check') return check;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
