/**
 * Turning a model's raw arguments into a plain object, with clear errors (case A2).
 *
 * @module
 */
import { kindOf } from '../util/values.js';

/** Parsed arguments, or why they could not be parsed. */
export type ParsedArguments =
  | { ok: true; value: Record<string, unknown>; repairs: string[] }
  | { ok: false; message: string };


/**
 * Accept an object, or JSON text holding one. Rules:
 * - `undefined`, `""` or whitespace count as `{}` (providers send that for argument-less calls);
 * - JSON text that holds a JSON string holding an object (double-encoded) is decoded once more,
 *   and the repair is reported;
 * - anything else that is not a plain object (null, arrays, numbers, truncated JSON, objects
 *   with a non-standard prototype) is an error that names what was received.
 */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined) return { ok: true, value: {}, repairs: [] };
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { ok: true, value: {}, repairs: [] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      return { ok: false, message: `arguments are not valid JSON (${(error as Error).message}); send one JSON object` };
    }
    if (typeof parsed === 'string') {
      const inner = parsed.trim();
      if (inner.startsWith('{')) {
        try {
          const decoded: unknown = JSON.parse(inner);
          if (isPlainObject(decoded)) {
            return { ok: true, value: decoded, repairs: ['arguments were a JSON string holding a JSON object (double-encoded); decoded once'] };
          }
        } catch {
          // fall through to the type error below
        }
      }
    }
    return check(parsed);
  }
  return check(raw);
}

function check(value: unknown): ParsedArguments {
  if (!isPlainObject(value)) {
    const kind = kindOf(value);
    const extra = kind === 'object' ? ' with a non-standard prototype' : '';
    return { ok: false, message: `arguments must be a JSON object; got ${kind}${extra}` };
  }
  return { ok: true, value, repairs: [] };
}

/** A plain object: not null, not an array, with `Object.prototype` or no prototype. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deepest nesting accepted in arguments given as an object. */
const MAX_ARGUMENT_DEPTH = 64;

/**
 * Most values (objects, arrays, strings, numbers, booleans, nulls, keys) arguments may hold.
 * Bytes alone do not bound what arguments cost: 63 MiB of `{},` is 21 million objects, over a
 * gigabyte of the host's heap. A million small values take tens of MiB.
 */
export const MAX_ARGUMENT_VALUES = 1_000_000;

/** Thrown and returned when arguments hold more than {@link MAX_ARGUMENT_VALUES} values. */
export const TOO_MANY_VALUES: unique symbol = Symbol('arguments hold too many values');

/**
 * Whether JSON text holds more than `limit` values, counted before it is parsed (parsing would
 * build them all): every `{`, `[`, `,` and `:` outside strings counts. A linear scan that stops
 * at the limit; short texts cannot hold that many and are not scanned.
 */
export function textHasTooManyValues(text: string, limit = MAX_ARGUMENT_VALUES): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if ((c === 123 || c === 91 || c === 44 || c === 58) && ++count > limit) return true;
  }
  return false;
}

/** The default bound on a call's arguments: 64 MiB (the executor's `maxArgumentBytes`). */
export const DEFAULT_MAX_ARGUMENT_BYTES = 64 * 1024 * 1024;

/**
 * Whether JSON text is longer than `maxBytes` bytes in UTF-8, judged before it is parsed (in
 * constant time but for text of `maxBytes / 3` to `maxBytes` characters, which is counted).
 * Arguments given as an object are measured by {@link copyJsonData} as it copies them.
 */
export function textTooLarge(text: string, maxBytes: number): boolean {
  // A UTF-16 code unit takes 1 to 3 bytes in UTF-8: only the middle needs counting.
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return Buffer.byteLength(text, 'utf8') > maxBytes;
}

/** What {@link copyJsonData} returns for arguments larger than its bound. */
export const TOO_LARGE: unique symbol = Symbol('arguments too large');

/** The UTF-8 length of `text`, or its length alone when that already passes `maxBytes` (no scan). */
function utf8Length(text: string, maxBytes: number): number {
  return text.length > maxBytes ? text.length : Buffer.byteLength(text, 'utf8');
}

/**
 * A private copy of arguments given as an object, taking each value once: the executor then
 * validates, gates and runs that copy, so a getter or a caller changing the object between
 * the checks and the run cannot change what runs. Only JSON data passes (plain objects,
 * arrays, strings, finite numbers, booleans, null; `undefined` properties are dropped as
 * JSON would); `__proto__` stays an ordinary key for the schema to judge.
 *
 * The copy measures what it takes against `maxBytes`, as the size of the JSON text the
 * arguments make (the UTF-8 length of strings and keys, escapes not counted, and a few bytes
 * for every other value and separator), and stops as soon as the bound is passed: strings are
 * taken by reference, so a copy never holds more than the bound's worth of new structure.
 * @param maxBytes - the bound; default none.
 * @returns the copy; {@link TOO_LARGE} past `maxBytes`; {@link TOO_MANY_VALUES} past
 *   {@link MAX_ARGUMENT_VALUES} values; or (a string) a message naming the
 *   first value that is not JSON data.
 */
export function copyJsonData(value: Record<string, unknown>, maxBytes = Number.POSITIVE_INFINITY): Record<string, unknown> | string | typeof TOO_LARGE | typeof TOO_MANY_VALUES {
  return walk(value, maxBytes, true);
}

/**
 * {@link copyJsonData}'s checks without the copy, for arguments that are fresh already (parsed
 * from JSON text): the bound, the values, the nesting.
 * @returns `value` itself; {@link TOO_LARGE}; {@link TOO_MANY_VALUES}; or a message (string).
 */
export function checkJsonData(value: Record<string, unknown>, maxBytes = Number.POSITIVE_INFINITY): Record<string, unknown> | string | typeof TOO_LARGE | typeof TOO_MANY_VALUES {
  return walk(value, maxBytes, false);
}

function walk(value: Record<string, unknown>, maxBytes: number, build: boolean): Record<string, unknown> | string | typeof TOO_LARGE | typeof TOO_MANY_VALUES {
  try {
    return copy(value, 0, { left: maxBytes - 2, maxBytes, values: MAX_ARGUMENT_VALUES, build }) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof NotJsonData) return error.describe();
    if (error === TOO_LARGE) return TOO_LARGE;
    if (error === TOO_MANY_VALUES) return TOO_MANY_VALUES;
    throw error;
  }
}

/** What is left of the bound while a copy goes on. */
interface Budget {
  left: number;
  readonly maxBytes: number;
  /** Values still allowed (see {@link MAX_ARGUMENT_VALUES}). */
  values: number;
  /** Build the copy (false: only check, and hand back the value walked). */
  readonly build: boolean;
}

/** Take `bytes` from the budget; throws {@link TOO_LARGE} past it. */
function spend(budget: Budget, bytes: number): void {
  budget.left -= bytes;
  if (budget.left < 0) throw TOO_LARGE;
  if (--budget.values < 0) throw TOO_MANY_VALUES;
}

/**
 * Thrown by {@link copy}: what is wrong, and where. The path is collected as the error passes
 * up (innermost step first), so a copy that succeeds builds no path strings.
 */
class NotJsonData extends Error {
  /** Steps from the arguments object to the bad value (`.key`, `[i]`), innermost first. */
  readonly steps: string[] = [];

  /** @param problem - what the value is, completed by its path (`is NaN, which JSON cannot hold`); `whole` when it stands alone. */
  constructor(readonly problem: string, readonly whole = false) {
    super(problem);
  }

  describe(): string {
    return this.whole ? this.problem : `arguments${this.steps.reverse().join('')} ${this.problem}`;
  }
}

function copy(value: unknown, depth: number, budget: Budget): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    spend(budget, utf8Length(value, budget.maxBytes) + 2);
    return value;
  }
  if (value === null || typeof value === 'boolean') {
    spend(budget, 5);
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonData(`is ${value}, which JSON cannot hold`);
    spend(budget, 5);
    return value;
  }
  if (typeof value !== 'object') throw new NotJsonData(`is a ${typeof value}, which JSON cannot hold`);
  if (depth >= MAX_ARGUMENT_DEPTH) throw new NotJsonData(`arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`, true);
  spend(budget, 2);
  if (Array.isArray(value)) {
    // Not `new Array(length)`: a huge length must not be allocated before the bound is checked.
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      spend(budget, 1);
      try {
        const v = copy(value[i], depth + 1, budget);
        if (budget.build) out[i] = v;
      } catch (error) {
        if (error instanceof NotJsonData) error.steps.push(`[${i}]`);
        throw error;
      }
    }
    return budget.build ? out : value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new NotJsonData(`is a ${(value as object).constructor?.name ?? 'non-plain object'}, not plain JSON data`);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    spend(budget, utf8Length(key, budget.maxBytes) + 4);
    let v: unknown;
    try {
      v = copy((value as Record<string, unknown>)[key], depth + 1, budget);
    } catch (error) {
      if (error instanceof NotJsonData) error.steps.push(`.${key.slice(0, 100)}`);
      throw error;
    }
    if (v === undefined || !budget.build) continue;
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return budget.build ? out : value;
}
