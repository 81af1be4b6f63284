/**
 * Finding the system programs toolgate starts processes through (`bwrap`, `setpriv`, `sh`), and
 * the parent-death launcher every child process of toolgate starts with.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { launchScript } from './launch-scripts.js';

/**
 * The absolute path of an executable program: `name` itself when it is an absolute path,
 * else the first match in an absolute `PATH` entry (relative and empty entries are skipped:
 * they would resolve against the host's working folder, often the workspace).
 * @returns `undefined` when it is not found.
 *
 * @internal
 */
export function findExecutable(name: string): string | undefined {
  if (name.includes('/')) return path.isAbsolute(name) && isExecutable(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

let launcher: string[] | undefined;

/**
 * The prefix that gives a child process a parent-death signal (SIGKILL when this process dies,
 * `kill -9` included): util-linux's `setpriv --pdeathsig KILL`, kept across the execs that
 * follow, then a check that the parent is still this process (a signal set after the parent
 * died would never fire), then `exec` of the rest (`scripts/parent-death.sh`). `[]` where `setpriv` or `sh` is missing
 * (Debian always has both). Spawn from the thread that must outlive the child: the signal is
 * tied to the thread that started it.
 *
 * @internal
 */
export function parentDeathLauncher(): string[] {
  if (launcher !== undefined) return launcher;
  const setpriv = process.platform === 'linux' ? findExecutable('setpriv') : undefined;
  const sh = findExecutable('sh');
  launcher = setpriv === undefined || sh === undefined ? [] : [setpriv, '--pdeathsig', 'KILL', '--', sh, '-c', launchScript('parent-death'), 'toolgate-child', String(process.pid)];
  return launcher;
}
