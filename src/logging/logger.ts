/**
 * Logging with pino: one structured event per call, secrets redacted.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type { Logger, LevelWithSilent } from 'pino';
import { isSecretKey } from './secrets.js';

/** Replacement for redacted values. */
const REDACTED = '[redacted]';

/**
 * Copy of `value` with the values of secret-looking keys ({@link isSecretKey}) replaced by
 * `[redacted]` (deep, cycle-safe, at most 8 levels). Strings longer than 2000 characters are
 * cut for the log. The user-information part of URLs inside strings (`https://user:pass@host`,
 * `https://token@host`) is replaced too; other secrets inside values (a token pasted into free
 * text) are not detected.
 */
export function redactSecrets(value: unknown): unknown {
  return redactAt(value, 0, new WeakSet<object>());
}

/** The user-information part of a URL (`scheme://userinfo@`), as RFC 3986 §3.2.1 places it. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

function redactAt(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') {
    const text = value.length > 2000 ? `${value.slice(0, 2000)}...[${value.length - 2000} more characters]` : value;
    return text.includes('@') ? text.replace(URL_USERINFO, `$1${REDACTED}@`) : text;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 8 || seen.has(value)) return '[...]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactAt(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, { value: isSecretKey(k) ? REDACTED : redactAt(v, depth + 1, seen), enumerable: true, writable: true, configurable: true });
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
  // pino (CommonJS) loads with the first logger, not with this module.
  const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino');
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

export type { Logger, LevelWithSilent };
