/**
 * The Python sandbox: runs model-written Python in Pyodide, in a child process the host is
 * out of reach from.
 *
 * Layers, outermost first (see `shared/design/PYTHON-SANDBOX.md` for what was checked):
 * 1. a child process, killed whole (SIGKILL) at the timeout, on abort, or when its resident
 *    memory passes the cap; the child can start no processes of its own;
 * 2. a network namespace of its own (`unshare --net`, as root or through a user namespace)
 *    where the machine allows one: no route to any host, loopback included; where none is
 *    available, results say the code may reach the network;
 * 3. Node's permission model: the child may read only its entry file and the Pyodide
 *    package, and may not write files, start processes or workers, or load native addons;
 * 4. code generation from strings disabled in the child, so a host `Function` reached
 *    through an object's constructor chain cannot compile code;
 * 5. memory caps: WebAssembly memory (`--wasm-max-mem-pages`: Python sees `MemoryError`),
 *    the JavaScript heap (`--max-old-space-size`), and a watch on the child's resident set;
 * 6. Pyodide's JavaScript bridge closed (`js`, `pyodide_js`, `run_js` refused to Python;
 *    `process` and `fetch` removed from the child's global scope).
 *
 * State: every call runs in a fresh interpreter, so nothing leaks between calls. To keep
 * calls fast, one interpreter is loaded ahead of time (a standby) and a new one is started
 * after each call. A named session keeps its interpreter (and its variables) between calls
 * until it is closed, times out, crashes or is evicted.
 *
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How a sandboxed run ended. */
export type PythonRunStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'aborted' | 'crashed';

/** The result of one run. Never thrown: every ending is a value. */
export interface PythonRunResult {
  /** `ok`: the code finished; `error`: it raised; the rest: the interpreter was stopped. */
  status: PythonRunStatus;
  /** Captured standard output (at most `maxOutputChars` characters). */
  stdout: string;
  /** Captured standard error (at most `maxOutputChars` characters). */
  stderr: string;
  /** Characters of standard output dropped past `maxOutputChars`. */
  stdoutOmitted: number;
  /** Characters of standard error dropped past `maxOutputChars`. */
  stderrOmitted: number;
  /** The Python exception when `status` is `error`: its type, message and traceback. */
  error?: { type: string; message: string; traceback: string };
  /** What stopped the interpreter, when `status` is not `ok` or `error`. */
  reason?: string;
  /** Milliseconds from sending the code to its result (interpreter start-up excluded). */
  runMs: number;
  /** Milliseconds spent waiting for an interpreter to load (0 when one was ready). */
  waitMs: number;
  /** True when the code could not reach any network host (a network namespace held it). */
  networkIsolated: boolean;
  /** True when a named session's interpreter ran the code. */
  session: boolean;
}

/** Options of a {@link PythonSandbox}. */
export interface PythonSandboxOptions {
  /**
   * Memory cap of one interpreter, in MB (default 512): WebAssembly memory is capped at this
   * size and the child process is killed when its resident set passes it plus 256 MB.
   */
  memoryMb?: number;
  /** Characters kept per stream per run (default 1 000 000); the rest is counted. */
  maxOutputChars?: number;
  /** Keep a loaded interpreter ready for the next call (default true). */
  standby?: boolean;
  /** Named sessions kept at once (default 4); the least recently used is evicted. */
  maxSessions?: number;
  /** Milliseconds an interpreter may take to load before it is given up (default 60000). */
  loadTimeoutMs?: number;
  /**
   * Network isolation: `auto` (default) uses a network namespace when the machine offers
   * one and reports when it does not; `require` refuses to run without one; `off` skips it.
   */
  network?: 'auto' | 'require' | 'off';
}

/** Options of one run. */
export interface PythonRunOptions {
  /** Milliseconds the code may run, start-up excluded (`<= 0`: no limit). */
  timeoutMs: number;
  /** Aborting it kills the interpreter; the result says `aborted`. */
  signal?: AbortSignal;
  /** Run in this named session's interpreter, keeping its state for later calls. */
  session?: string;
}

const CHILD_ENTRY = fileURLToPath(new URL('./python-child.mjs', import.meta.url));
const RSS_MARGIN_MB = 256;
const RSS_POLL_MS = 100;

/** Folder of the installed `pyodide` package. */
function pyodideFolder(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('pyodide/package.json'));
}

/** The command prefix that puts a child in a network namespace of its own, if any works here. */
function detectNetworkWrapper(): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const prefix of [['unshare', '--net', '--'], ['unshare', '--user', '--map-root-user', '--net', '--']]) {
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 5000 });
    if (probe.status === 0) return prefix;
  }
  return undefined;
}

let networkWrapper: string[] | undefined | null = null;

/** One interpreter in its own child process. */
class Interpreter {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private pending: ((message: Record<string, unknown>) => void) | undefined;
  private ended: string | undefined;
  private readonly endListeners = new Set<(reason: string) => void>();
  private rssTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  overMemory = false;
  lastUsed = Date.now();

  constructor(argv: string[], private readonly rssLimitBytes: number, loadTimeoutMs: number) {
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} });
    let stderrTail = '';
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`the Python interpreter did not load within ${loadTimeoutMs} ms`));
        this.kill('load timeout');
      }, loadTimeoutMs);
      this.child.on('message', (raw) => {
        const message = raw as Record<string, unknown>;
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve();
        } else if (message.type === 'failed') {
          clearTimeout(timer);
          reject(new Error(`the Python interpreter failed to load: ${String(message.message)}`));
        } else if (message.type === 'result' || message.type === 'output') this.pending?.(message);
      });
      this.child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
        this.end(`could not start: ${error.message}`);
      });
      this.child.on('exit', (code, signal) => {
        clearTimeout(timer);
        const why = this.ended ?? (signal ? `ended by ${signal}` : `exited with status ${code}`);
        const detail = stderrTail.trim() ? `: ${stderrTail.trim().split('\n').slice(-3).join(' | ')}` : '';
        reject(new Error(`the Python interpreter ${why} while loading${detail}`));
        this.end(why);
      });
    });
    this.ready.catch(() => undefined);
    this.rssTimer = setInterval(() => this.checkMemory(), RSS_POLL_MS);
    this.rssTimer.unref();
    this.setIdle(true);
  }

  /** An idle interpreter must not keep the host process alive. */
  setIdle(idle: boolean): void {
    const channel = (this.child as unknown as { channel?: { ref(): void; unref(): void } }).channel;
    if (idle) {
      this.child.unref();
      channel?.unref();
      (this.child.stderr as unknown as { unref?(): void })?.unref?.();
    } else {
      this.child.ref();
      channel?.ref();
      (this.child.stderr as unknown as { ref?(): void })?.ref?.();
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
    for (const listener of [...this.endListeners]) listener(reason);
    this.endListeners.clear();
  }

  kill(reason: string): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.end(reason);
  }

  private checkMemory(): void {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return;
    let status: string;
    try {
      status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return; // not Linux, or already gone
    }
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (kb * 1024 > this.rssLimitBytes) {
      this.overMemory = true;
      this.kill(`its memory passed ${Math.round(this.rssLimitBytes / 1048576)} MB`);
    }
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
      this.child.send({ type: 'run', id, code, maxOutputChars });
    });
  }
}

/**
 * Runs Python code in sandboxed Pyodide interpreters. One instance per host process is
 * enough; {@link PythonSandbox.close} kills every interpreter it started.
 */
export class PythonSandbox {
  private readonly memoryMb: number;
  private readonly maxOutputChars: number;
  private readonly keepStandby: boolean;
  private readonly maxSessions: number;
  private readonly loadTimeoutMs: number;
  private readonly network: 'auto' | 'require' | 'off';
  private standby: Interpreter | undefined;
  private readonly sessions = new Map<string, Interpreter>();
  private readonly running = new Set<Interpreter>();
  private closed = false;
  private readonly onExit = () => this.killAll();

  constructor(options: PythonSandboxOptions = {}) {
    this.memoryMb = options.memoryMb ?? 512;
    this.maxOutputChars = options.maxOutputChars ?? 1_000_000;
    this.keepStandby = options.standby ?? true;
    this.maxSessions = options.maxSessions ?? 4;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 60_000;
    this.network = options.network ?? 'auto';
    if (!Number.isInteger(this.memoryMb) || this.memoryMb < 64) throw new RangeError('options.memoryMb must be an integer of at least 64 (MB)');
    process.on('exit', this.onExit);
  }

  /** True when interpreters run in a network namespace of their own on this machine. */
  get networkIsolated(): boolean {
    return this.wrapper() !== undefined;
  }

  private wrapper(): string[] | undefined {
    if (this.network === 'off') return undefined;
    if (networkWrapper === null) networkWrapper = detectNetworkWrapper();
    return networkWrapper;
  }

  private spawnInterpreter(): Interpreter {
    const pyodide = pyodideFolder();
    const argv = [
      ...(this.wrapper() ?? []),
      process.execPath,
      '--experimental-permission',
      `--allow-fs-read=${CHILD_ENTRY}`,
      `--allow-fs-read=${pyodide}/*`,
      '--disallow-code-generation-from-strings',
      '--no-warnings',
      `--wasm-max-mem-pages=${this.memoryMb * 16}`,
      '--max-old-space-size=256',
      CHILD_ENTRY,
      pyodide,
    ];
    return new Interpreter(argv, (this.memoryMb + RSS_MARGIN_MB) * 1048576, this.loadTimeoutMs);
  }

  /** Start loading an interpreter for the next call, if none is waiting. */
  warm(): void {
    if (this.closed || !this.keepStandby) return;
    if (this.standby?.alive) return;
    this.standby = this.spawnInterpreter();
  }

  private take(session: string | undefined): { interpreter: Interpreter; fromSession: boolean } {
    if (session !== undefined) {
      const kept = this.sessions.get(session);
      if (kept?.alive) {
        this.sessions.delete(session);
        this.sessions.set(session, kept); // most recently used last
        return { interpreter: kept, fromSession: true };
      }
    }
    let interpreter = this.standby?.alive ? this.standby : undefined;
    this.standby = undefined;
    interpreter ??= this.spawnInterpreter();
    if (session !== undefined) {
      this.sessions.set(session, interpreter);
      while (this.sessions.size > this.maxSessions) {
        const [oldest, victim] = this.sessions.entries().next().value as [string, Interpreter];
        this.sessions.delete(oldest);
        if (!this.running.has(victim)) victim.kill('evicted');
      }
    }
    return { interpreter, fromSession: false };
  }

  /**
   * Run `code` in a fresh interpreter (or a session's). Every ending of the code (finished,
   * raised, timed out, out of memory, aborted, crashed) resolves as a {@link PythonRunResult}.
   * @throws Error (rejects) when the sandbox is closed, the interpreter cannot load, or `network` is
   *   `require` and no network namespace is available.
   */
  async run(code: string, options: PythonRunOptions): Promise<PythonRunResult> {
    if (this.closed) throw new Error('the Python sandbox is closed');
    if (this.network === 'require' && this.wrapper() === undefined) {
      throw new Error('no network namespace is available on this machine (unshare --net failed), and network isolation is required');
    }
    const { interpreter, fromSession } = this.take(options.session);
    const keep = options.session !== undefined;
    this.running.add(interpreter);
    interpreter.setIdle(false);
    let result: PythonRunResult | undefined;
    try {
      result = await this.runOn(interpreter, code, options, fromSession);
      return result;
    } finally {
      this.running.delete(interpreter);
      if (!keep || !interpreter.alive || result?.status !== 'ok' && result?.status !== 'error') {
        interpreter.kill('done');
        if (keep && this.sessions.get(options.session!) === interpreter) this.sessions.delete(options.session!);
      } else interpreter.setIdle(true);
      this.warm();
    }
  }

  private async runOn(interpreter: Interpreter, code: string, options: PythonRunOptions, fromSession: boolean): Promise<PythonRunResult> {
    const base = { stdout: '', stderr: '', stdoutOmitted: 0, stderrOmitted: 0, networkIsolated: this.wrapper() !== undefined, session: options.session !== undefined };
    const waitStarted = Date.now();
    if (options.signal?.aborted) return { ...base, status: 'aborted', reason: 'the call was aborted', runMs: 0, waitMs: 0 };
    // Wait for the interpreter to load, but stop waiting on abort.
    let onWaitAbort: (() => void) | undefined;
    const stopWaiting = new Promise<'aborted'>((resolve) => {
      onWaitAbort = () => resolve('aborted');
      options.signal?.addEventListener('abort', onWaitAbort, { once: true });
    });
    const loaded = await Promise.race([interpreter.ready.then(() => 'ready' as const), stopWaiting]);
    options.signal?.removeEventListener('abort', onWaitAbort!);
    if (loaded === 'aborted') {
      interpreter.kill('aborted');
      return { ...base, status: 'aborted', reason: 'the call was aborted while the interpreter loaded', runMs: 0, waitMs: Date.now() - waitStarted };
    }
    const waitMs = fromSession ? 0 : Date.now() - waitStarted;
    const started = Date.now();
    let stopped: { status: PythonRunStatus; reason: string } | undefined;
    const stop = (status: PythonRunStatus, reason: string) => {
      stopped ??= { status, reason };
      interpreter.kill(reason);
    };
    const timer = options.timeoutMs > 0 ? setTimeout(() => stop('timeout', `timed out after ${options.timeoutMs} ms`), options.timeoutMs) : undefined;
    const onAbort = () => stop('aborted', 'the call was aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const output = { stdout: '', stderr: '' };
    const reply = await interpreter.run(code, this.maxOutputChars, output);
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    const runMs = Date.now() - started;
    if ('ended' in reply) {
      const partial = { ...base, ...output, runMs, waitMs };
      if (stopped) return { ...partial, status: stopped.status, reason: stopped.reason };
      if (interpreter.overMemory) return { ...partial, status: 'memory', reason: `the interpreter was killed: ${reply.ended}` };
      return { ...partial, status: 'crashed', reason: `the interpreter ${reply.ended}` };
    }
    const error = reply.error as PythonRunResult['error'];
    const result: PythonRunResult = {
      ...base,
      ...output,
      status: reply.ok ? 'ok' : error?.type === 'MemoryError' ? 'memory' : 'error',
      stdoutOmitted: Number(reply.stdoutOmitted ?? 0),
      stderrOmitted: Number(reply.stderrOmitted ?? 0),
      runMs,
      waitMs,
    };
    if (error) result.error = error;
    if (result.status === 'memory') result.reason = `Python ran out of memory (cap ${this.memoryMb} MB)`;
    return result;
  }

  /** End a named session (its interpreter is killed). @returns whether it existed. */
  closeSession(session: string): boolean {
    const interpreter = this.sessions.get(session);
    if (interpreter === undefined) return false;
    this.sessions.delete(session);
    interpreter.kill('session closed');
    return true;
  }

  /** Kill every interpreter; later runs throw. */
  close(): void {
    this.closed = true;
    this.killAll();
    process.off('exit', this.onExit);
  }

  private killAll(): void {
    this.standby?.kill('sandbox closed');
    this.standby = undefined;
    for (const interpreter of this.sessions.values()) interpreter.kill('sandbox closed');
    this.sessions.clear();
    for (const interpreter of this.running) interpreter.kill('sandbox closed');
  }
}
