/**
 * Small helpers shared by several modules.
 *
 * @module
 */

/** Is `value` a promise or promise-like (has a callable `then`)? */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** JSON-ish kind of a value for messages: `null`, `array`, or its `typeof`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A deep copy of JSON data, frozen throughout. */
export function frozenCopy<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
    Object.freeze(v);
    for (const child of Object.values(v)) freeze(child);
  };
  freeze(copy);
  return copy;
}

/** `text` cut to `max` characters with a count of what was left out (for echoing input in messages). */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}...(${text.length} characters)` : text;
}
