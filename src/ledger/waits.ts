/**
 * Waiting for another process's change ({@link CallWaits}) on any store: a look at the store
 * now, then again each time the store's `subscribe` wakes the waiter (the SQLite store: its
 * shared poller, every `pollMs`; the PostgreSQL store: a notification), until the look finds
 * what it waits for or the signal aborts. Looks never overlap: a wake during a look makes one
 * more look after it.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { ENDED_STATES, type CallKey, type CallRecord, type CallStore, type CallWaits } from './call-store.js';

/**
 * Subscribes a waiter to the store's wake-ups about `topic` ({@link callTopic},
 * {@link questionTopic}; a store may wake it on other changes too); returns the unsubscribe function.
 */
export type Subscribe = (wake: () => void, topic: string) => () => void;

/** The topic of changes to a call (its end, its cancel flag, its questions): a short hash of its key. */
export function callTopic(call: CallKey): string {
  return `c${createHash('sha256').update(`${call.session}\u0000${call.callId}`).digest('hex').slice(0, 20)}`;
}

/** The topic of a question's answer. */
export function questionTopic(approvalId: number): string {
  return `q${approvalId}`;
}

/** What a look found: `{ value }` once the wait is over. */
type Found<T> = { value: T } | undefined;

/**
 * Look with `look` now and on every wake until it finds something.
 * Rejects with the signal's reason when `signal` aborts, or with what `look` rejects with.
 */
export function waitUntil<T>(look: () => Promise<Found<T>>, subscribe: Subscribe, topic: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let done = false;
    let looking = false;
    let again = false;
    let unsubscribe = (): void => undefined;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = (): void => finish(() => reject(signal!.reason));
    const run = (): void => {
      if (done) return;
      if (looking) {
        again = true;
        return;
      }
      looking = true;
      again = false;
      look().then((found) => {
        looking = false;
        if (found !== undefined) finish(() => resolve(found.value));
        else if (again) run();
      }, (error: unknown) => {
        looking = false;
        finish(() => reject(error));
      });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    unsubscribe = subscribe(run, topic);
    run();
  });
}

const ENDED: ReadonlySet<string> = new Set(ENDED_STATES);

/** {@link CallWaits} of `store`, woken by `subscribe`. */
export function storeWaits(store: Pick<CallStore, 'get' | 'tombstone' | 'answerOf' | 'approval'>, subscribe: Subscribe): CallWaits {
  return {
    waitForEnd: (call: CallKey, signal?: AbortSignal) => waitUntil<CallRecord | undefined>(async () => {
      const record = await store.get(call.callId, call.session);
      if (record !== undefined) return ENDED.has(record.state) ? { value: record } : undefined;
      return (await store.tombstone(call.callId, call.session)) !== undefined ? { value: undefined } : undefined;
    }, subscribe, callTopic(call), signal),
    waitForAnswer: async (approvalId: number, signal?: AbortSignal) => {
      if ((await store.approval(approvalId)) === undefined) throw new Error(`no question ${approvalId} in the store`);
      return waitUntil<string>(async () => {
        const answer = await store.answerOf(approvalId);
        return answer === undefined ? undefined : { value: answer };
      }, subscribe, questionTopic(approvalId), signal);
    },
    waitForCancel: (call: CallKey, signal?: AbortSignal) => waitUntil<boolean>(async () => {
      const record = await store.get(call.callId, call.session);
      if (record?.cancelRequested === true) return { value: true };
      if (record !== undefined && ENDED.has(record.state)) return { value: false };
      if (record === undefined && (await store.tombstone(call.callId, call.session)) !== undefined) return { value: false };
      return undefined;
    }, subscribe, callTopic(call), signal),
  };
}
