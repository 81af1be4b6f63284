/**
 * A call's stored options as read back from a store: its reply key (`StoredCallOptions.replyKey`,
 * the secret a worker signs the caller's reply with) stays readable by name for the worker
 * but is not enumerable, so that nothing that prints or copies a call record shows it:
 * `JSON.stringify` (`toolgate trace --json`, the cockpit's API, logs) and object spreads skip it.
 *
 * @module
 */
import type { StoredCallOptions } from './call-store.js';

/** Parse a call's stored options (JSON text of an object), hiding its reply key. */
export function storedOptions(json: string): StoredCallOptions {
  const options = JSON.parse(json) as StoredCallOptions;
  if (options.replyKey !== undefined) Object.defineProperty(options, 'replyKey', { enumerable: false });
  return options;
}
