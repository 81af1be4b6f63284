/**
 * Where the policy files are: {@link defaultPolicyPaths}. Apart from `policy-set.ts` (which
 * re-exports it) so that the CLI finds the paths without loading the policy parser.
 *
 * @module
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The policy files' paths; an absent path is a file not configured. */
export interface PolicyPaths {
  /** The user's file (see {@link defaultPolicyPaths}). */
  readonly user?: string;
  /** The workspace's file (`<workspace>/.toolgate/policy.toml`). */
  readonly workspace?: string;
}

/** Where {@link defaultPolicyPaths} looks. */
export interface DefaultPolicyPathsOptions {
  /** The workspace root (absolute); no workspace file when absent. */
  readonly workspaceRoot?: string;
  /** Environment to read `XDG_CONFIG_HOME` from. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Home folder. Default `os.homedir()`. */
  readonly home?: string;
}

/**
 * The default policy files: the user's `$XDG_CONFIG_HOME/toolgate/policy.toml` (when
 * `XDG_CONFIG_HOME` is an absolute path, else `~/.config/toolgate/policy.toml`) and the
 * workspace's `<workspaceRoot>/.toolgate/policy.toml`; for either, `policy.json` in the same
 * folder when the `.toml` file does not exist and the `.json` one does. The choice is made
 * when this is called: a `.json` file created later is seen after a restart.
 */
export function defaultPolicyPaths(options: DefaultPolicyPathsOptions = {}): PolicyPaths {
  const env = options.env ?? process.env;
  const xdg = env.XDG_CONFIG_HOME;
  const configHome = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(options.home ?? os.homedir(), '.config');
  const user = pick(path.join(configHome, 'toolgate'));
  return options.workspaceRoot === undefined ? { user } : { user, workspace: pick(path.join(options.workspaceRoot, '.toolgate')) };
}

function pick(folder: string): string {
  const toml = path.join(folder, 'policy.toml');
  const json = path.join(folder, 'policy.json');
  return !fs.existsSync(toml) && fs.existsSync(json) ? json : toml;
}
