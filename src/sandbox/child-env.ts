/**
 * The environment toolgate gives the child processes it starts (shell commands, stdio MCP
 * servers): an allowlist of harmless host variables, never a secret-looking one.
 * Dependency-free, so tool modules can import it (through `toolgate/tool`).
 *
 * @module
 */
import { isSecretKey } from '../logging/secrets.js';

/**
 * Variables a child inherits from the host, when the host has them; nothing else is inherited.
 *
 * @internal
 */
export const INHERITED_ENV = Object.freeze([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TERM', 'TZ', 'TMPDIR',
  'COLUMNS', 'LINES', 'NO_COLOR',
]);

/**
 * The environment of a command: the {@link INHERITED_ENV} variables the host has, then the
 * host variables named in `TOOLGATE_SHELL_PASS_ENV` (comma-separated; the operator's choice),
 * then `extra` (the call's own). A name that looks like a secret ({@link isSecretKey}) is
 * never passed from the host; in `extra` it is an error. `host` is typed without Node's types
 * (`process.env` fits), so that tool projects compiled against `toolgate/tool` need none.
 * @throws Error naming the variable when `extra` holds a secret-looking or malformed name.
 *
 * @internal
 */
export function commandEnv(host: Readonly<Record<string, string | undefined>>, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  const pass = (host.TOOLGATE_SHELL_PASS_ENV ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  for (const name of [...INHERITED_ENV, ...pass]) {
    const value = host[name];
    if (value !== undefined && !isSecretKey(name)) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  for (const [name, value] of Object.entries(extra)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`env: ${JSON.stringify(name)} is not a valid variable name`);
    if (isSecretKey(name)) throw new Error(`env: ${name} looks like it holds a secret; secrets are not passed to commands`);
    env[name] = value;
  }
  return env;
}
