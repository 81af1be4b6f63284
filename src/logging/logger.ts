/**
 * Logging with pino: one structured event per call, secrets redacted.
 *
 * @module
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

/** Words that mark a key as holding a secret, when they appear as a word of the key's name. */
const SECRET_WORDS = new Set([
  'password', 'passwd', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'tokens', 'apikey', 'auth', 'authorization',
  'cookie', 'cookies', 'credential', 'credentials', 'privatekey', 'session', 'sessionid', 'bearer', 'signature',
]);
/** Two-word names that mark a secret (`api_key`, `privateKey`, `access-key`, `client_secret`). */
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'client secret', 'session id', 'auth token']);

/**
 * Does a key name a secret? Split into words at `_`, `-`, `.`, spaces and camelCase, then
 * look for a secret word or pair (so `api_key`, `GITHUB_TOKEN`, `npm_config__authToken` and
 * `password` match, and `author`, `bypass` and `tokenizer_model` do not).
 */
export function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.has(words[i]!)) return true;
    if (i + 1 < words.length && SECRET_PAIRS.has(`${words[i]} ${words[i + 1]}`)) return true;
  }
  return false;
}

/** Replacement for redacted values. */
export const REDACTED = '[redacted]';

/**
 * Copy of `value` with the values of secret-looking keys ({@link isSecretKey}) replaced by
 * `[redacted]` (deep, cycle-safe, at most 8 levels). Strings longer than 2000 characters are
 * cut for the log. Secrets inside values (a token pasted into free text) are not detected.
 */
export function redactSecrets(value: unknown): unknown {
  return redactAt(value, 0, new WeakSet<object>());
}

function redactAt(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return value.length > 2000 ? `${value.slice(0, 2000)}...[${value.length - 2000} more characters]` : value;
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
