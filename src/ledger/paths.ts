/**
 * Where a ledger's file lives: one SQLite file per workspace in a state folder,
 * `$XDG_STATE_HOME/toolgate/` (else `~/.local/state/toolgate/`), named
 * `ledger-<key>.sqlite`, the key being the first 16 hex digits of the SHA-256 of the
 * workspace's real path.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The default state folder: `$XDG_STATE_HOME/toolgate` when that variable holds an absolute
 * path, else `~/.local/state/toolgate` (`HOME` of `env`, else the OS's home folder).
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'toolgate');
  return path.join(env.HOME || os.homedir(), '.local', 'state', 'toolgate');
}

/** The key of a workspace: the first 16 hex digits of the SHA-256 of its real path (the path as given when it cannot be resolved). */
function workspaceKey(workspace: string): string {
  let real = path.resolve(workspace);
  try {
    real = fs.realpathSync(real);
  } catch {
    // a workspace that does not exist (yet) is keyed by its absolute path
  }
  return crypto.createHash('sha256').update(real).digest('hex').slice(0, 16);
}

/** The ledger file of `workspace` in the state folder `dir`. */
export function ledgerFile(dir: string, workspace: string): string {
  return path.join(path.resolve(dir), `ledger-${workspaceKey(workspace)}.sqlite`);
}
