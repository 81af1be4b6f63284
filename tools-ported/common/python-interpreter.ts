/**
 * One Python interpreter of the sandbox (`python-sandbox.ts`) in its own child process: how it
 * is launched and confined (the `interpreter` launch profile, bubblewrap probed once per binary,
 * or none when the user chose no sandbox), the line protocol it speaks on stdout (trusted in
 * nothing: a line that does not parse, or is over-long, kills it), the watch on its process
 * tree's resident memory, and its death. Which interpreter runs which code (the standby,
 * sessions) is the sandbox's.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxProfile } from '../../src/tool.js';
import { launchPrefix, processTree, probeBubblewrap, residentBytes, resolveOptional } from '../../src/internal.js';

/** The child's entry file (started under the launcher, read-only inside bubblewrap). */
export const CHILD_ENTRY = fileURLToPath(new URL('./python-child.cjs', import.meta.url));
const RSS_POLL_MS = 100;

/**
 * Folder of the installed `pyodide` package.
 * @throws PackageUnavailableError when pyodide (an optional peer dependency) is not installed.
 */
export function pyodideFolder(): string {
  return path.dirname(resolveOptional('pyodide/package.json', 'execute_python'));
}

/** How an interpreter is confined: `bubblewrap`, or `none` when the user chose no sandbox. */
export type PythonIsolation = 'bubblewrap' | 'none';

/** The launcher for an isolation kind (before the node command line): the `interpreter` launch profile of `src/sandbox/launch-profiles.ts`. */
function launcher(kind: PythonIsolation, bwrap: string | undefined, pyodide: string): string[] {
  return launchPrefix('interpreter', { bwrap: kind === 'bubblewrap' ? bwrap : undefined, readOnly: [pyodide, CHILD_ENTRY] });
}

/** How interpreters are started, or why they cannot be. */
export type Isolation = { kind: PythonIsolation; prefix: string[] } | { kind: 'unavailable'; problem: string };

/** Probes of the bubblewrap launcher, by bwrap binary (it can change with `TOOLGATE_BWRAP`). */
const isolationProbes = new Map<string, Promise<Isolation>>();

/**
 * The launcher for `profile`: without bubblewrap for `none`; else bubblewrap, checked once per
 * binary and process by running it with `node -e 0`, or `unavailable` with the reason.
 */
export function probeIsolation(profile: SandboxProfile, pyodide: string): Promise<Isolation> {
  if (profile === 'none') {
    return Promise.resolve({ kind: 'none', prefix: process.platform === 'linux' ? launcher('none', undefined, pyodide) : [] });
  }
  const bwrap = probeBubblewrap();
  if (!bwrap.works) return Promise.resolve({ kind: 'unavailable', problem: bwrap.problem ?? 'bubblewrap does not work here' });
  let probe = isolationProbes.get(bwrap.binary);
  if (probe === undefined) {
    probe = new Promise<Isolation>((resolve) => {
      const prefix = launcher('bubblewrap', bwrap.binary, pyodide);
      const run = spawn(prefix[0]!, [...prefix.slice(1), process.execPath, '-e', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
      let stderr = '';
      run.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-500);
      });
      const timer = setTimeout(() => run.kill('SIGKILL'), 10_000);
      run.on('error', (error) => resolve({ kind: 'unavailable', problem: `${bwrap.binary} could not be started (${error.message})` }));
      run.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve(code === 0 ? { kind: 'bubblewrap', prefix } : { kind: 'unavailable', problem: `${bwrap.binary} could not start the interpreter (${stderr.trim().split('\n').at(-1) || `exit ${code ?? signal}`})` });
      });
    });
    isolationProbes.set(bwrap.binary, probe);
  }
  return probe;
}

/** Resident memory of a process and all its descendants, in bytes (Linux; 0 elsewhere). */
function treeRss(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) total += residentBytes(member);
  return total;
}

/** Longest protocol line accepted from a child, in characters. */
const MAX_LINE = 8 * 1024 * 1024;

/** One interpreter in its own child process. */
export class Interpreter {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private pending: ((message: Record<string, unknown>) => void) | undefined;
  private ended: string | undefined;
  private readonly endListeners = new Set<(reason: string) => void>();
  private rssTimer: NodeJS.Timeout | undefined;
  private loadTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  /** Runs on this interpreter go one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  overMemory = false;
  lastUsed = Date.now();

  constructor(argv: string[], private readonly rssLimitBytes: number, loadTimeoutMs: number) {
    // Its own process group, so a kill reaches a process forked after the tree was read
    // (bubblewrap's init before it calls setsid and sets its parent-death signal).
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: {}, detached: true });
    let stderrTail = '';
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    this.child.stdin!.on('error', () => undefined); // writing to a child that died
    let buffered = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line) as Record<string, unknown>;
        } catch {
          this.kill('it wrote something that is not a protocol message');
          return;
        }
        this.receive(message);
      }
      if (buffered.length > MAX_LINE) this.kill('it wrote an over-long protocol line');
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.loadTimer = setTimeout(() => {
        reject(new Error(`the Python interpreter did not load within ${loadTimeoutMs} ms`));
        this.kill('load timeout');
      }, loadTimeoutMs);
      this.readyHandlers = { resolve, reject };
      this.child.on('error', (error) => {
        reject(error);
        this.end(`could not start: ${error.message}`);
      });
      this.child.on('exit', (code, signal) => {
        const why = this.ended ?? (signal ? `ended by ${signal}` : `exited with status ${code}`);
        const detail = stderrTail.trim() ? `: ${stderrTail.trim().split('\n').slice(-3).join(' | ')}` : '';
        reject(new Error(`the Python interpreter ${why} while loading${detail}`));
        this.end(why);
      });
    });
    this.ready.catch(() => undefined);
    this.ready.finally(() => clearTimeout(this.loadTimer)).catch(() => undefined);
    this.rssTimer = setInterval(() => this.checkMemory(), RSS_POLL_MS);
    this.rssTimer.unref();
    this.setIdle(true);
  }

  private readyHandlers: { resolve: () => void; reject: (error: Error) => void } | undefined;

  private receive(message: Record<string, unknown>): void {
    if (message.type === 'ready') this.readyHandlers?.resolve();
    else if (message.type === 'failed') {
      this.readyHandlers?.reject(new Error(`the Python interpreter failed to load: ${String(message.message).slice(0, 2000)}`));
    } else if (message.type === 'result' || message.type === 'output') this.pending?.(message);
  }

  /** An idle interpreter must not keep the host process alive. */
  setIdle(idle: boolean): void {
    const streams = [this.child.stdout, this.child.stderr, this.child.stdin] as Array<{ ref?(): void; unref?(): void } | null>;
    if (idle) {
      this.child.unref();
      for (const stream of streams) stream?.unref?.();
      this.loadTimer?.unref();
    } else {
      this.child.ref();
      for (const stream of streams) stream?.ref?.();
      this.loadTimer?.ref();
    }
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  onEnd(listener: (reason: string) => void): () => void {
    if (this.ended !== undefined) {
      listener(this.ended);
      return () => undefined;
    }
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  private end(reason: string): void {
    if (this.ended !== undefined) return;
    this.ended = reason;
    if (this.rssTimer) clearInterval(this.rssTimer);
    clearTimeout(this.loadTimer);
    for (const listener of [...this.endListeners]) listener(reason);
    this.endListeners.clear();
  }

  kill(reason: string): void {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      // The whole tree, not only the launcher: killed while it starts, bubblewrap's init may
      // not have set its parent-death signal yet and would linger.
      const tree = processTree(this.child.pid).reverse();
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // no group (not Linux) or gone
      }
      for (const pid of tree) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    this.end(reason);
  }

  private checkMemory(): void {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return;
    if (treeRss(pid) > this.rssLimitBytes) {
      this.overMemory = true;
      this.kill(`its memory passed ${Math.round(this.rssLimitBytes / 1048576)} MB`);
    }
  }

  /** Queue `work` behind the runs already waiting on this interpreter. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Send code and wait for its result message (or the interpreter's end). Output arrives in
   * `output` as it is printed, so what a killed run printed is kept.
   */
  run(code: string, maxOutputChars: number, output: { stdout: string; stderr: string }): Promise<Record<string, unknown> | { ended: string }> {
    const id = this.nextId++;
    this.lastUsed = Date.now();
    return new Promise((resolve) => {
      const off = this.onEnd((reason) => {
        this.pending = undefined;
        resolve({ ended: reason });
      });
      this.pending = (message) => {
        if (message.id !== id) return;
        if (message.type === 'output') {
          const stream = message.stream === 'stderr' ? 'stderr' : 'stdout';
          output[stream] += String(message.text).slice(0, Math.max(0, maxOutputChars - output[stream].length));
          return;
        }
        this.pending = undefined;
        off();
        resolve(message);
      };
      this.child.stdin!.write(`${JSON.stringify({ type: 'run', id, code, maxOutputChars })}\n`);
    });
  }
}
