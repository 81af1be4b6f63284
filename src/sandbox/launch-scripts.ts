/**
 * The shell scripts toolgate starts processes through, kept as files beside this module
 * (`src/sandbox/scripts/*.sh`, shipped with the package: see `files` in package.json), so that
 * they can be read, linted and tested on their own. Each is handed to its shell with `-c`
 * (its text as an argument, read from the file on first use): nothing is read from the disk
 * inside a sandbox, where the package's folder may be hidden.
 *
 * - `parent-death.sh` (`sh`): after `setpriv --pdeathsig KILL`, go on only while the parent is
 *   still toolgate ({@link parentDeathLauncher} of `executables.ts`);
 * - `command-wrapper.sh` (`bash`): a shell command's first process: join its pids cgroup (or
 *   lower the process limit), then become the launcher;
 * - `lifeline.sh` (`bash`): a shell command's lifeline: kill what it started when toolgate dies;
 * - `close-inherited-fds.sh` (`bash`): close the descriptors an interpreter would inherit.
 *
 * Dependency-free (Node's own modules), as the rest of `src/sandbox/`.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The scripts there are.
 *
 * @internal
 */
export type LaunchScriptName = 'parent-death' | 'command-wrapper' | 'lifeline' | 'close-inherited-fds';

/** Where the scripts are, relative to the package's root. */
const SCRIPTS = path.join('src', 'sandbox', 'scripts');

const texts = new Map<LaunchScriptName, string>();

/**
 * The text of a launch script, to pass after `-c`. Found from this module's file upwards (it
 * runs as `dist/src/sandbox/`, or bundled in `dist/bundle/`): the first folder holding
 * `src/sandbox/scripts/<name>.sh`.
 * @throws Error when the file is missing (a package built without it): nothing can be started safely.
 *
 * @internal
 */
export function launchScript(name: LaunchScriptName): string {
  const known = texts.get(name);
  if (known !== undefined) return known;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, SCRIPTS, `${name}.sh`);
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, 'utf8');
      texts.set(name, text);
      return text;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`toolgate's launch script ${SCRIPTS}/${name}.sh is missing from the package (looked upwards from ${path.dirname(fileURLToPath(import.meta.url))}); reinstall toolgate`);
    dir = parent;
  }
}
