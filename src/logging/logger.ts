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

/** pino's level numbers (`pino.levels.values`), to answer level questions before pino loads. */
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = (): void => undefined;

/**
 * A pino logger for toolgate. Libraries get a silent logger unless they pass their own; the
 * CLI writes to stderr at `error` unless `--log-level` says otherwise.
 *
 * pino loads (and compiles its redaction) only when a record at or above `level` is written
 * or another of its members is used: until then the level methods below `level` are no-ops
 * and `level` / `isLevelEnabled` answer from the level given. A command that logs nothing
 * (most calls at the default `error`) never loads it.
 * @param level - pino level name; default `silent`.
 * @param destination - file descriptor to write to; default 2 (stderr).
 */
export function createLogger(level: LevelWithSilent = 'silent', destination = 2): Logger {
  let real: Logger | undefined;
  const load = (): Logger => {
    if (real === undefined) {
      const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino');
      real = pino(
        {
          name: 'toolgate',
          level,
          redact: { paths: ['headers.authorization', 'headers.cookie', 'env', '*.apiKey', '*.token'], censor: REDACTED },
        },
        pino.destination({ fd: destination, sync: true }),
      );
    }
    return real;
  };
  const threshold = LEVEL_VALUES[level] ?? LEVEL_VALUES.info!;
  return new Proxy({} as Logger, {
    get(_target, key) {
      if (real === undefined) {
        if (typeof key === 'string' && LOG_METHODS.has(key) && LEVEL_VALUES[key]! < threshold) return noop;
        if (key === 'level') return level;
        if (key === 'isLevelEnabled') return (name: string) => (LEVEL_VALUES[name] ?? Infinity) >= threshold && threshold !== Infinity;
      }
      const value = Reflect.get(load(), key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
    set(_target, key, value) {
      return Reflect.set(load(), key, value);
    },
    has(_target, key) {
      return Reflect.has(load(), key);
    },
  });
}

export type { Logger, LevelWithSilent };
