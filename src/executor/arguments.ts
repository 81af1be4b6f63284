/**
 * Turning a model's raw arguments into a plain object, with clear errors (case A2).
 *
 * @module
 */

/** Parsed arguments, or why they could not be parsed. */
export type ParsedArguments =
  | { ok: true; value: Record<string, unknown>; repairs: string[] }
  | { ok: false; message: string };

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
