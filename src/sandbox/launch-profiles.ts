/**
 * The named ways toolgate starts a process, each the one place that says what confines it
 * and builds its launcher (the prefix of the program's command line):
 *
 * | profile | what runs | confinement |
 * |---|---|---|
 * | `tool-child` | a child of the process runner (Node, running tools) | the parent-death signal |
 * | `shell-command` | a command of `run_command` / `exec_command` | the parent-death signal, then the sandbox of the caller's policy (`bubblewrap.ts`: the workspace writable or not, toolgate's own files read-only); the command's own wrapper and lifeline scripts come after |
 * | `interpreter` | a Python interpreter (Pyodide in Node) | the parent-death signal, descriptors above 2 closed, then (unless the user chose no sandbox) bubblewrap with nothing of the host but the system libraries, Node and the paths given, read-only, as an unprivileged user, with no network |
 *
 * Every launcher ends where the program's command line starts; spawn it from the thread that
 * must outlive the program (the parent-death signal is tied to it).
 *
 * Dependency-free (Node's own modules), as the rest of `src/sandbox/`.
 *
 * @module
 */
import fs from 'node:fs';
import { sandboxLauncher, type SandboxMounts, type SandboxPolicy } from './bubblewrap.js';
import { findExecutable, parentDeathLauncher } from './executables.js';
import { launchScript } from './launch-scripts.js';

/**
 * The names of the launch profiles.
 *
 * @internal
 */
export type LaunchProfileName = 'tool-child' | 'shell-command' | 'interpreter';

/**
 * Every launch profile's name.
 *
 * @internal
 */
export const LAUNCH_PROFILES: readonly LaunchProfileName[] = Object.freeze(['tool-child', 'shell-command', 'interpreter']);

/**
 * What the `interpreter` profile needs.
 *
 * @internal
 */
export interface InterpreterLaunch {
  /**
   * The bubblewrap binary (as `probeBubblewrap` found it), or `undefined` to run without
   * bubblewrap: only where the user chose no sandbox.
   */
  bwrap: string | undefined;
  /** Paths the interpreter reads (its package, its entry file), bound read-only; absolute. */
  readOnly: readonly string[];
}

/** The system folders an isolated interpreter reads (read-only), where they exist. */
const SYSTEM_FOLDERS = ['/usr', '/lib', '/lib64', '/lib32', '/bin', '/etc/ld.so.cache'];

/**
 * The bubblewrap command line of an isolated interpreter: every namespace new (no network),
 * no capabilities, uid and gid 65534, an empty environment, and a file system holding only
 * the system folders, Node and `readOnly` (read-only), a new `/proc` and `/dev`, an empty
 * `/tmp` (its working folder). Ends with `--`.
 */
function interpreterSandboxArgv(bwrap: string, readOnly: readonly string[]): string[] {
  const args = [bwrap, '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--uid', '65534', '--gid', '65534', '--clearenv'];
  for (const dir of SYSTEM_FOLDERS) if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir);
  const node = fs.realpathSync(process.execPath);
  if (!node.startsWith('/usr/')) args.push('--ro-bind', node, node);
  // The empty /tmp first: the paths given may live under /tmp, and a later mount would hide them.
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const file of readOnly) args.push('--ro-bind', file, file);
  args.push('--chdir', '/tmp', '--');
  return args;
}

/**
 * The launcher of a profile (see the table of this module).
 * @throws SandboxUnavailableError (`shell-command`) when the policy needs bubblewrap and it does not work here.
 *
 * @internal
 */
export function launchPrefix(profile: 'tool-child'): string[];
export function launchPrefix(profile: 'shell-command', policy: SandboxPolicy, mounts: SandboxMounts, who: string): string[];
export function launchPrefix(profile: 'interpreter', launch: InterpreterLaunch): string[];
export function launchPrefix(profile: LaunchProfileName, ...rest: unknown[]): string[] {
  switch (profile) {
    case 'tool-child':
      return parentDeathLauncher();
    case 'shell-command': {
      const [policy, mounts, who] = rest as [SandboxPolicy, SandboxMounts, string];
      return sandboxLauncher(policy, mounts, who);
    }
    case 'interpreter': {
      const { bwrap, readOnly } = rest[0] as InterpreterLaunch;
      // bash, not sh, for the descriptor loop: dash keeps a descriptor of its own open that it would close.
      const bash = findExecutable('bash');
      const closeFds = bash === undefined ? [] : [bash, '--norc', '--noprofile', '-c', launchScript('close-inherited-fds'), 'toolgate-python'];
      return [...parentDeathLauncher(), ...closeFds, ...(bwrap === undefined ? [] : interpreterSandboxArgv(bwrap, readOnly))];
    }
  }
}
