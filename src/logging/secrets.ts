/**
 * Recognising names that hold secrets (API keys, tokens, passwords), for log redaction and
 * for keeping secrets out of child processes' environments. Dependency-free, so tool modules
 * can import it.
 *
 * @module
 */

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
 *
 * @internal
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
