/**
 * A load run at most once at a time: concurrent callers share one attempt, a success is kept,
 * a failure is not (the next call tries again). Separate from `analyze.ts` so the memo is
 * tested without breaking the parser.
 *
 * @module
 */

/** What {@link loadOnce} gives: the shared load, and its value once it has succeeded. */
export interface LoadOnce<T> {
  /** The value, loading it if no load has succeeded and none is running; rejects with the load's error. */
  get(): Promise<T>;
  /** The value if a load has succeeded, else undefined. */
  ready(): T | undefined;
}

/** Wraps `load` so that it runs once for all callers, and again only after it failed. */
export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let pending: Promise<T> | undefined;
  let value: { readonly value: T } | undefined;
  return {
    get() {
      pending ??= load().then(
        (loaded) => {
          value = { value: loaded };
          return loaded;
        },
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      );
      return pending;
    },
    ready: () => value?.value,
  };
}
