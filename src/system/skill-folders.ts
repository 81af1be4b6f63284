/**
 * Whether there are skill folders to read, decided with a few `lstat`s and no import of the
 * skills' modules (`tools-ported/skills/`): the fast start of commands that only read the
 * tool list, and the early `initialize` answer of `toolgate mcp` (which says whether the MCP
 * skills extension is offered before the SDK loads), depend on it.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownStateFolders } from '../workspace/own-state-paths.js';

/**
 * Is there a skill folder to read: the user's (`<config>/toolgate/skills`), the workspace's
 * (`.toolgate/skills`), or a symbolic link at `.toolgate` (reported as a problem by the
 * skills)?
 * @param workspace - the workspace root (absolute).
 * @param env - environment for `XDG_CONFIG_HOME` and `HOME`. Default `process.env`.
 */
export function skillFoldersPresent(workspace: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const places = [path.join(ownStateFolders(env)[0]!, 'skills'), path.join(workspace, '.toolgate', 'skills'), path.join(workspace, '.toolgate')];
  return places.some((place, i) => {
    const stat = fs.lstatSync(place, { throwIfNoEntry: false });
    return stat !== undefined && (i < 2 || stat.isSymbolicLink());
  });
}
