/**
 * The Python sandbox: runs model-written Python in Pyodide, in a child process the host is
 * out of reach from.
 *
 * Layers, outermost first (see `shared/design/PYTHON-SANDBOX.md` for what was checked):
 * 1. a child process, killed whole (SIGKILL) at the timeout, on abort, or when the resident
 *    memory of its process tree passes the cap, and killed by the kernel when the host dies
 *    (parent-death signal); descriptors the host inherited are closed before it starts;
 * 2. bubblewrap (`bwrap`, found as `src/sandbox/bubblewrap.ts` finds it, the launch profile
 *    `interpreter` of `src/sandbox/launch-profiles.ts`): new user, PID, IPC,
 *    UTS and network namespaces, all capabilities dropped, an unprivileged uid, and a file
 *    system holding only the system libraries, Node, the Pyodide package and the child's entry
 *    (read-only) and an empty `/tmp`: no host file, socket or network is in reach. Where
 *    bubblewrap is missing or fails, runs are refused (`SandboxUnavailableError`) unless the
 *    user chose the sandbox profile `none`, which runs without this layer (results then say
 *    the code may have reached the network);
 * 3. Node's permission model: the child may read only its entry file and the Pyodide
 *    package, and may not write files, start processes or workers, or load native addons
 *    (it does not cover sockets or already-open descriptors: layers 1 and 2 do);
 * 4. code generation from strings disabled in the child, so a host `Function` reached
 *    through an object's constructor chain cannot compile code;
 * 5. memory caps: WebAssembly memory (`--wasm-max-mem-pages`: Python sees `MemoryError`),
 *    the JavaScript heap (`--max-old-space-size`), and the watch on resident memory;
 * 6. Pyodide's JavaScript bridge closed as far as it goes (`js`, `pyodide_js`, `run_js`
 *    refused to imports; `process` and `fetch` removed from the child's global scope): a
 *    determined script gets around it, which is why the layers above exist.
 *
 * The parent reads the child's messages as lines of JSON on its stdout and trusts none of
 * them: a line that does not parse kills the interpreter, never the host. One interpreter, its
 * launch and its protocol: `python-interpreter.ts`; this module: which interpreter runs what.
 *
 * State: every call runs in a fresh interpreter, so nothing leaks between calls. To keep
 * calls fast, one interpreter is loaded ahead of time (a standby) and a new one is started
 * after each call. A named session keeps its interpreter (and its variables) between calls
 * until it is closed, times out, crashes or is evicted.
 *
 * @module
 */
import { SandboxUnavailableError, type SandboxProfile } from '../../src/tool.js';
import { BUBBLEWRAP_PACKAGE } from '../../src/internal.js';
import { CHILD_ENTRY, Interpreter, probeIsolation, pyodideFolder, type Isolation, type PythonIsolation } from './python-interpreter.js';

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
  /** How the interpreter was confined; see {@link PythonSandbox.isolation}. */
  isolation: PythonIsolation;
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
  /** Named sessions kept at once (default 4); the least recently used idle one is evicted. */
  maxSessions?: number;
  /** Milliseconds a session may stay unused before its interpreter is killed (default 600000). */
  sessionIdleMs?: number;
  /** Milliseconds an interpreter may take to load before it is given up (default 60000). */
  loadTimeoutMs?: number;
  /**
   * The sandbox profile (default `workspace-write`): every profile but `none` runs the
   * interpreter under bubblewrap (the interpreter sees no workspace in any profile) and
   * refuses to run without it; `none`, only ever the user's explicit choice, runs it without
   * bubblewrap.
   */
  sandbox?: SandboxProfile;
}

/** Options of one run. */
export interface PythonRunOptions {
  /** Milliseconds the code may run, start-up excluded (`<= 0`: no limit). */
  timeoutMs: number;
  /** Aborting it kills the interpreter; the result says `aborted`. */
  signal?: AbortSignal;
  /** Run in this named session's interpreter, keeping its state for later calls. */
  session?: string;
  /** Sessions are named within a scope (the tool uses the workspace), so callers do not share them. */
  scope?: string;
}

/** Resident memory an interpreter may use above its heap and WebAssembly caps, in MiB, before it is killed. */
const RSS_MARGIN_MB = 256;

/** Sandboxes alive in this process, killed on exit (one listener for all). */
const liveSandboxes = new Set<PythonSandbox>();
let exitHook = false;

/**
 * Runs Python code in sandboxed Pyodide interpreters. One instance per host process is
 * enough; {@link PythonSandbox.close} kills every interpreter it started.
 */
export class PythonSandbox {
  private readonly memoryMb: number;
  private readonly maxOutputChars: number;
  private readonly keepStandby: boolean;
  private readonly maxSessions: number;
  private readonly sessionIdleMs: number;
  private readonly loadTimeoutMs: number;
  private readonly profile: SandboxProfile;
  private standby: Interpreter | undefined;
  private standbyPending = false;
  private readonly sessions = new Map<string, Interpreter>();
  /** Runs in flight per interpreter. */
  private readonly running = new Map<Interpreter, number>();
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: PythonSandboxOptions = {}) {
    this.memoryMb = options.memoryMb ?? 512;
    this.maxOutputChars = options.maxOutputChars ?? 1_000_000;
    this.keepStandby = options.standby ?? true;
    this.maxSessions = options.maxSessions ?? 4;
    this.sessionIdleMs = options.sessionIdleMs ?? 600_000;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 60_000;
    this.profile = options.sandbox ?? 'workspace-write';
    if (!Number.isInteger(this.memoryMb) || this.memoryMb < 64) throw new RangeError('options.memoryMb must be an integer of at least 64 (MB)');
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) throw new RangeError('options.maxSessions must be a positive integer');
    if (!Number.isInteger(this.maxOutputChars) || this.maxOutputChars < 1) throw new RangeError('options.maxOutputChars must be a positive integer (characters)');
    if (!(this.sessionIdleMs > 0)) throw new RangeError('options.sessionIdleMs must be a positive number of milliseconds');
    if (!(this.loadTimeoutMs > 0)) throw new RangeError('options.loadTimeoutMs must be a positive number of milliseconds');
    liveSandboxes.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const sandbox of liveSandboxes) sandbox.killAll();
      });
    }
  }

  /**
   * How this sandbox confines interpreters: `bubblewrap` (own file system view, no network,
   * unprivileged user), `none` (the profile `none`), or `unavailable` (bubblewrap missing or
   * not working: runs are refused). Probed once per bubblewrap binary and process.
   */
  async isolation(): Promise<PythonIsolation | 'unavailable'> {
    return (await probeIsolation(this.profile, pyodideFolder())).kind;
  }

  private spawnInterpreter(isolation: Isolation & { prefix: string[] }): Interpreter {
    const pyodide = pyodideFolder();
    const argv = [
      ...isolation.prefix,
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
    if (this.closed || !this.keepStandby || this.standby?.alive || this.standbyPending) return;
    let pyodide: string;
    try {
      pyodide = pyodideFolder();
    } catch {
      return; // pyodide is not installed: the call that needs it says so
    }
    this.standbyPending = true;
    void probeIsolation(this.profile, pyodide).then((isolation) => {
      this.standbyPending = false;
      if (this.closed || this.standby?.alive || isolation.kind === 'unavailable') return;
      this.standby = this.spawnInterpreter(isolation);
    });
  }

  private take(key: string | undefined, isolation: Isolation & { prefix: string[] }): { interpreter: Interpreter; fromSession: boolean } {
    if (key !== undefined) {
      const kept = this.sessions.get(key);
      if (kept?.alive) {
        this.sessions.delete(key);
        this.sessions.set(key, kept); // most recently used last
        return { interpreter: kept, fromSession: true };
      }
      this.sessions.delete(key);
      if (this.sessions.size >= this.maxSessions) {
        // Evict the least recently used session that is not running; never a running one.
        const victim = [...this.sessions.entries()].find(([, interpreter]) => !this.running.has(interpreter));
        if (victim === undefined) throw new Error(`all ${this.maxSessions} Python sessions are running; wait for one to finish or use no session`);
        this.sessions.delete(victim[0]);
        victim[1].kill('evicted');
      }
    }
    let interpreter = this.standby?.alive ? this.standby : undefined;
    this.standby = undefined;
    interpreter ??= this.spawnInterpreter(isolation);
    if (key !== undefined) this.sessions.set(key, interpreter);
    return { interpreter, fromSession: false };
  }

  /**
   * Run `code` in a fresh interpreter (or a session's; runs on one session go one at a time).
   * Every ending of the code (finished, raised, timed out, out of memory, aborted, crashed)
   * resolves as a {@link PythonRunResult}.
   * @throws SandboxUnavailableError (rejects) when bubblewrap is missing or fails and the
   *   profile is not `none`; PackageUnavailableError when pyodide is not installed; Error when the sandbox is closed, the interpreter cannot load, or
   *   every session is running.
   */
  async run(code: string, options: PythonRunOptions): Promise<PythonRunResult> {
    if (this.closed) throw new Error('the Python sandbox is closed');
    const isolation = await probeIsolation(this.profile, pyodideFolder());
    if (this.closed) throw new Error('the Python sandbox is closed');
    if (isolation.kind === 'unavailable') throw SandboxUnavailableError.fromMissingBubblewrap('execute_python', isolation.problem, BUBBLEWRAP_PACKAGE);
    const key = options.session === undefined ? undefined : `${options.scope ?? ''}\u0000${options.session}`;
    const { interpreter, fromSession } = this.take(key, isolation);
    this.running.set(interpreter, (this.running.get(interpreter) ?? 0) + 1);
    interpreter.setIdle(false);
    this.scheduleIdleCheck();
    let result: PythonRunResult | undefined;
    try {
      const work = () => this.runOn(interpreter, code, options, fromSession, isolation.kind);
      result = await (key === undefined ? work() : interpreter.exclusive(work));
      return result;
    } finally {
      const left = (this.running.get(interpreter) ?? 1) - 1;
      if (left > 0) this.running.set(interpreter, left);
      else this.running.delete(interpreter);
      const kept = key !== undefined && this.sessions.get(key) === interpreter;
      if (!kept || !interpreter.alive || (result?.status !== 'ok' && result?.status !== 'error')) {
        if (left === 0 || !interpreter.alive || !kept) interpreter.kill('done');
        if (kept) this.sessions.delete(key!);
      } else if (left === 0) interpreter.setIdle(true);
      this.warm();
    }
  }

  /** Kill sessions idle longer than `sessionIdleMs`. */
  private scheduleIdleCheck(): void {
    if (this.idleTimer !== undefined || this.closed) return;
    this.idleTimer = setInterval(() => {
      const now = Date.now();
      for (const [key, interpreter] of this.sessions) {
        if (!this.running.has(interpreter) && now - interpreter.lastUsed > this.sessionIdleMs) {
          this.sessions.delete(key);
          interpreter.kill('idle too long');
        }
      }
    }, Math.min(60_000, this.sessionIdleMs));
    this.idleTimer.unref();
  }

  private async runOn(interpreter: Interpreter, code: string, options: PythonRunOptions, fromSession: boolean, isolation: PythonIsolation): Promise<PythonRunResult> {
    const base = { stdout: '', stderr: '', stdoutOmitted: 0, stderrOmitted: 0, networkIsolated: isolation !== 'none', isolation, session: options.session !== undefined };
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
  closeSession(session: string, scope = ''): boolean {
    const key = `${scope}\u0000${session}`;
    const interpreter = this.sessions.get(key);
    if (interpreter === undefined) return false;
    this.sessions.delete(key);
    interpreter.kill('session closed');
    return true;
  }

  /** Kill every interpreter; later runs throw. */
  close(): void {
    this.closed = true;
    this.killAll();
    if (this.idleTimer) clearInterval(this.idleTimer);
    liveSandboxes.delete(this);
  }

  private killAll(): void {
    this.standby?.kill('sandbox closed');
    this.standby = undefined;
    for (const interpreter of this.sessions.values()) interpreter.kill('sandbox closed');
    this.sessions.clear();
    for (const interpreter of this.running.keys()) interpreter.kill('sandbox closed');
  }
}
