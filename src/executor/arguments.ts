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
 * A private copy of arguments given as an object, taking each value once: the executor then
 * validates, gates and runs that copy, so a getter or a caller changing the object between
 * the checks and the run cannot change what runs. Only JSON data passes (plain objects,
 * arrays, strings, finite numbers, booleans, null; `undefined` properties are dropped as
 * JSON would); `__proto__` stays an ordinary key for the schema to judge.
 * @returns the copy, or (a string) a message naming the first value that is not JSON data.
 */
export function copyJsonData(value: Record<string, unknown>): Record<string, unknown> | string {
  try {
    return copy(value, 0) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof NotJsonData) return error.describe();
    throw error;
  }
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

function copy(value: unknown, depth: number): unknown {
  if (value === undefined) return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonData(`is ${value}, which JSON cannot hold`);
    return value;
  }
  if (typeof value !== 'object') throw new NotJsonData(`is a ${typeof value}, which JSON cannot hold`);
  if (depth >= MAX_ARGUMENT_DEPTH) throw new NotJsonData(`arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`, true);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      try {
        out[i] = copy(value[i], depth + 1);
      } catch (error) {
        if (error instanceof NotJsonData) error.steps.push(`[${i}]`);
        throw error;
      }
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new NotJsonData(`is a ${(value as object).constructor?.name ?? 'non-plain object'}, not plain JSON data`);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    let v: unknown;
    try {
      v = copy((value as Record<string, unknown>)[key], depth + 1);
    } catch (error) {
      if (error instanceof NotJsonData) error.steps.push(`.${key.slice(0, 100)}`);
      throw error;
    }
    if (v === undefined) continue;
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
