/**
 * A call store opened in the background: what a synchronous constructor (the tool system's)
 * hands its executor when the store it is given is a URL, whose opening is asynchronous (the
 * PostgreSQL store connects and migrates). Every method waits for the opening and then calls
 * the store; `finishSoon` queues behind it (in order, before a later `flush`); `ownerAlive`
 * needs no store. Once open, calls go straight to the store.
 *
 * @module
 */
import type { CallStore } from './call-store.js';
import { ownerAlive } from './owner.js';

/** A store still opening, and the store once open. */
export interface DeferredStore {
  /** The store to use now (its methods wait for the opening). */
  readonly store: CallStore;
  /** Resolves once the store is open; rejects with the opening's error. */
  readonly opened: Promise<CallStore>;
}

/**
 * A store standing for the one `opening` resolves to.
 * @param where - where the store lives, without credentials (its `file` until it is open).
 */
export function deferredStore(opening: Promise<CallStore>, where: string): DeferredStore {
  let open: CallStore | undefined;
  const opened = opening.then((store) => (open = store));
  // A failed opening is reported by `opened` (the tool system's start) and by each method.
  opened.catch(() => undefined);
  const local: Partial<Record<keyof CallStore, unknown>> = {
    finishSoon: (...args: Parameters<CallStore['finishSoon']>) => {
      if (open !== undefined) open.finishSoon(...args);
      else void opened.then((store) => store.finishSoon(...args), () => undefined);
    },
    ownerAlive,
    // A store whose opening failed has nothing to flush or close.
    flush: () => opened.then((ready) => ready.flush(), () => undefined),
    close: () => opened.then((ready) => ready.close(), () => undefined),
  };
  const store = new Proxy({} as CallStore, {
    get(_target, property) {
      if (open !== undefined) {
        const value = Reflect.get(open, property, open) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(open) : value;
      }
      if (property === 'file') return where;
      if (property === 'readonly') return false;
      if (property === 'recovered') return [];
      if (property === 'then') return undefined; // not a thenable
      if (Object.hasOwn(local, property)) return local[property as keyof CallStore];
      if (typeof property !== 'string') return undefined;
      return async (...args: unknown[]) => {
        const ready = await opened;
        return (ready[property as keyof CallStore] as (...a: unknown[]) => unknown).apply(ready, args);
      };
    },
  });
  return { store, opened };
}
