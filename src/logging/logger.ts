/**
 * Logging with pino: one structured event per call, secrets redacted.
 *
 * @module
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

/** Argument and header names whose values never reach a log (matched case-insensitively). */
const SECRET_KEY = /(pass(word|phrase)?|secret|token|api[-_]?key|auth(orization)?|cookie|credential|private[-_]?key|session)/i;

/** Replacement for redacted values. */
export const REDACTED = '[redacted]';

/**
 * Copy of `value` with the values of secret-looking keys replaced by `[redacted]` (deep,
 * cycle-safe, at most 8 levels). Strings longer than 2000 characters are cut for the log.
 */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return value.length > 2000 ? `${value.slice(0, 2000)}...[${value.length - 2000} more characters]` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 8 || seen.has(value)) return '[...]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, { value: SECRET_KEY.test(k) ? REDACTED : redactSecrets(v, depth + 1, seen), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A pino logger for toolgate. Libraries get a silent logger unless they pass their own; the
 * CLI writes to stderr at `error` unless `--log-level` says otherwise.
 * @param level - pino level name; default `silent`.
 * @param destination - file descriptor to write to; default 2 (stderr).
 */
export function createLogger(level: LevelWithSilent = 'silent', destination = 2): Logger {
  return pino(
    {
      name: 'toolgate',
      level,
      // Defence in depth for fields that carry credentials if a caller logs them.
      redact: { paths: ['headers.authorization', 'headers.cookie', 'env', '*.apiKey', '*.token'], censor: REDACTED },
    },
    pino.destination({ fd: destination, sync: true }),
  );
}

export type { Logger };
