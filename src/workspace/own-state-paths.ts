/**
 * toolgate's own files: the user's configuration folder (the policy file, its saved
 * approvals), the state folder (the ledgers, with their approval modes and stored outputs)
 * and an output store's folder. A model's tool call must never change them, whatever the
 * workspace is (a workspace at the user's home folder holds all of them): the protected-paths
 * decider denies file-tool writes there, and the sandbox binds them read-only.
 *
 * @module
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What {@link ownStatePaths} reads; every field is optional and has a documented default. */
export interface OwnStatePathsOptions {
  /**
   * The user's policy file in use (absolute): the default one or the one a `--policy` flag or
   * the executor's `policy.user` names. Default: none beyond the default config folder.
   */
  readonly policyFile?: string;
  /** The state folder in use (`--state-dir`, a ledger's folder), absolute. Default: none beyond the default state folder. */
  readonly stateDir?: string;
  /** Further files or folders of toolgate's own (an output store's folder, a ledger file elsewhere), absolute. Default none. */
  readonly extra?: readonly string[];
  /** Environment for `XDG_CONFIG_HOME`, `XDG_STATE_HOME` and `HOME`. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The absolute paths (files and folders, each protected with everything below it) of
 * toolgate's own state for a configuration: the default config folder
 * (`$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`), the default state folder
 * (`$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`), the configured policy file
 * and its lock file (`<file>.lock`; not its whole folder, which may be any folder), the
 * configured state folder, and `extra`. Each path that exists and is reached through a symbolic link is listed
 * a second time as its real path (a dotfile manager's linked policy file). No duplicates; the
 * order is stable.
 *
 * Used by the protected-paths decider (file tools) and meant for the sandbox's read-only
 * binds.
 */
export function ownStatePaths(options: OwnStatePathsOptions = {}): string[] {
  const listed: string[] = ownStateFolders(options.env ?? process.env);
  if (options.policyFile !== undefined) listed.push(options.policyFile, `${options.policyFile}.lock`);
  if (options.stateDir !== undefined) listed.push(options.stateDir);
  if (options.extra !== undefined) listed.push(...options.extra);
  const out = new Set<string>();
  for (const entry of listed) {
    if (!path.isAbsolute(entry)) continue;
    const absolute = path.resolve(entry);
    out.add(absolute);
    const real = realOf(absolute);
    if (real !== undefined) out.add(real);
  }
  return [...out];
}

/**
 * The user's toolgate config folder (`$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`)
 * and the default state folder (`$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`)
 * for `env`, absolute, not resolved.
 *
 * @internal
 */
export function ownStateFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || os.homedir();
  const under = (variable: string, fallback: string): string => {
    const value = env[variable];
    return path.join(value !== undefined && path.isAbsolute(value) ? value : path.join(home, fallback), 'toolgate');
  };
  return [under('XDG_CONFIG_HOME', '.config'), under('XDG_STATE_HOME', path.join('.local', 'state'))];
}

/**
 * The real path of `absolute`, or of its nearest existing parent with the rest appended; `undefined` when nothing of it resolves.
 *
 * @internal
 */
export function realOf(absolute: string): string | undefined {
  let at = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(at), ...rest);
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return undefined;
      rest.unshift(path.basename(at));
      at = parent;
    }
  }
}
