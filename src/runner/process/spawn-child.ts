/**
 * How the process runner starts a child process, and the one child `toolgate call` starts
 * before its modules load (see {@link prestartChild}), which the process runner then adopts.
 *
 * Why a child before the modules: the child's own start (Node, then its runtime's modules)
 * is the longest step of a one-call command, and it does not depend on anything the host
 * loads. Started first, it boots while the host loads the executor, reads the tools and
 * decides the call.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchPrefix } from '../../sandbox/launch-profiles.js';
import { DEFAULT_MEMORY_MB } from '../sizing.js';

/**
 * The child's entry: child.js as `npm run build` bundles it (dist/bundle/child.js, see
 * scripts/bundle.ts: fewer modules to load before the child is ready), else child.js beside
 * this module: when there is no bundle, or when `tsc` ran after the build (it compiled the
 * modules of toolgate/tool back from the re-exports of dist/bundle the build had made them,
 * and left the bundle as it was).
 */
const CHILD_PATH = ((bundled: URL) => fileURLToPath(bundleIsCurrent(bundled) ? bundled : new URL('./child.js', import.meta.url)))(new URL('../../../bundle/child.js', import.meta.url));

/** Whether the bundled child exists and dist/src/tool.js is still the build's re-export (SHIM_MARK of scripts/bundle.ts, as bin/toolgate.js checks). */
function bundleIsCurrent(bundled: URL): boolean {
  try {
    return fs.existsSync(bundled) && fs.readFileSync(new URL('../../tool.js', import.meta.url), 'utf8').startsWith('// Bundled into dist/bundle/');
  } catch {
    return false;
  }
}

/**
 * The command line of a child: its heap cap in MiB, and the modules it imports before it
 * says it is ready (a JSON list of module URLs).
 */
export function childArgv(capMb: number, preloads: readonly string[]): string[] {
  return [...launchPrefix('tool-child'), process.execPath, `--max-old-space-size=${capMb}`, CHILD_PATH, JSON.stringify(preloads)];
}

/** Start a child: an IPC channel with structured-clone messages, piped output, its own process group. */
export function spawnChild(argv: readonly string[]): ChildProcess {
  return spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
    detached: true, // a process group of its own, killed whole
  });
}

/**
 * Let a child keep this process alive (`true`: a call waits for it) or not (`false`: idle):
 * the process, its IPC channel and its pipes, whose 'close' comes after their end.
 */
export function holdOpen(child: ChildProcess, hold: boolean): void {
  for (const handle of [child, child.channel, child.stdout, child.stderr] as Array<{ ref?: () => void; unref?: () => void } | null | undefined>) {
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}

/** A child started ahead, with the messages it sent before a runner took it. */
export interface Prestarted {
  child: ChildProcess;
  /** Its messages so far, in order (a child says `ready` once: that must not be lost). */
  messages: unknown[];
}

let ahead: (Prestarted & { argv: string; keep: (message: unknown) => void; ignore: () => void }) | undefined;
let exitHook = false;

/** Whether Node has seen the child exit (then its pid may be another process's by now). */
function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * SIGKILL an unadopted child's process group (it ran no tool: nothing else is in it). Not once
 * it has exited: its pid and group id may be reused.
 */
function killChild(child: ChildProcess): void {
  if (exited(child)) return;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Start a child of the default heap cap with no preloads now, for a process runner to adopt:
 * the first child a process runner starts takes its place when their command lines match, and
 * kills it when they do not (see {@link adoptPrestarted}). Until then it holds nothing open: a
 * command that ends without running a call exits as it would have, and the child is killed
 * with it. One at a time: while a live one waits, this starts none. Never throws (a failed
 * start is the runner's to meet again).
 * @returns the process id of the child waiting to be adopted, `undefined` when none could start.
 */
export function prestartChild(): number | undefined {
  if (ahead !== undefined) {
    if (!exited(ahead.child)) return ahead.child.pid;
    drop(ahead);
  }
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      if (ahead !== undefined) killChild(ahead.child);
    });
  }
  const argv = childArgv(DEFAULT_MEMORY_MB, []);
  let child: ChildProcess;
  try {
    child = spawnChild(argv);
  } catch {
    return undefined;
  }
  const messages: unknown[] = [];
  const keep = (message: unknown): void => void messages.push(message);
  const ignore = (): void => undefined; // a failed start ends in 'exit', which adoption checks
  child.on('message', keep);
  child.on('error', ignore);
  holdOpen(child, false);
  ahead = { child, messages, argv: argv.join('\0'), keep, ignore };
  return child.pid;
}

/**
 * What the child started by {@link prestartChild} has said while it waits to be adopted (a copy;
 * empty when none waits): tests wait for its `ready` instead of a time.
 *
 * @internal
 */
export function prestartedMessages(): unknown[] {
  return ahead === undefined ? [] : [...ahead.messages];
}

/** Let go of the waiting child: our listeners off, and it is no longer waiting. */
function drop(taken: NonNullable<typeof ahead>): void {
  if (ahead === taken) ahead = undefined;
  taken.child.off('message', taken.keep);
  taken.child.off('error', taken.ignore);
}

/**
 * The child started by {@link prestartChild}, when it was started with exactly `argv` and is
 * still alive: it is then the caller's (referenced again, no listener of ours left) with the
 * messages it sent meanwhile, which the caller handles after attaching its own listeners.
 * Otherwise it is killed and the caller starts its own. Called by every child a process
 * runner starts: the first one settles the waiting child's fate.
 */
export function adoptPrestarted(argv: readonly string[]): Prestarted | undefined {
  const taken = ahead;
  if (taken === undefined) return undefined;
  drop(taken);
  const { child } = taken;
  if (taken.argv !== argv.join('\0') || child.pid === undefined || exited(child) || !child.connected) {
    killChild(child);
    return undefined;
  }
  holdOpen(child, true);
  return { child, messages: taken.messages };
}
