/**
 * One shell command as a child process: started with `bash -lc` in a process group of its
 * own (and, where the machine allows, a pids cgroup that caps how many processes it may
 * have), inside the sandbox its caller chose (`src/sandbox/bubblewrap.ts`), with an
 * environment built from an allowlist, output kept in a bounded buffer, and a stop that sends
 * TERM and then KILL to the whole group.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { stripVTControlCharacters } from 'node:util';

/**
 * What the lifeline (`src/sandbox/scripts/lifeline.sh`; see {@link CommandProcess}) kills at
 * end-of-file: in the sandbox, every process of its PID namespace (`kill -1` there reaches no
 * host process); without one, its own process group (`kill 0`), which is the command's (it
 * runs in a session of its own), so that a command does not outlive a host killed with
 * `kill -9` (review finding of issue 16: an unsandboxed `sleep 60` ran on after its toolgate
 * died). A process that left the group (`setsid`) is out of its reach; the sandbox's PID
 * namespace has no such hole.
 */
const LIFELINE_TARGET = { sandbox: '-1', host: '0' } as const;

/** Processes one command may have at once (the command itself included). */
const MAX_PROCESSES = 256;
/** Milliseconds between TERM and KILL when a command is stopped. */
const KILL_GRACE_MS = 2000;

// The environment allowlist lives in src/sandbox/child-env.ts (stdio MCP servers use it too).
export { commandEnv } from '../../src/internal.js';
import { launchScript, PidsCgroup } from '../../src/internal.js';

/**
 * Output kept within a bound: the first `headChars` characters and the last `tailChars`,
 * with a count of what was dropped between them. Reading takes what arrived since the last
 * read (or everything, for {@link HeadTailBuffer.all}), without terminal escape sequences
 * (colours, cursor moves: ECMA-48 CSI and OSC sequences, as Node's
 * `util.stripVTControlCharacters` knows them), which cost a model tokens and tell it nothing.
 * Counts are of the characters the command wrote, escapes included.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;
  /** Characters written in all. */
  total = 0;
  /** Position (in `total`) up to which output was read. */
  private readUpTo = 0;
  /** Characters of the last read's range ({@link unread}, {@link all}) that were dropped from the middle. */
  lastDropped = 0;

  constructor(
    private readonly headChars = 512 * 1024,
    private readonly tailChars = 512 * 1024,
  ) {}

  write(text: string): void {
    this.total += text.length;
    const room = this.headChars - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === '') return;
    this.tail += text;
    if (this.tail.length > this.tailChars * 2) this.trimTail();
  }

  private trimTail(): void {
    const cut = this.tail.length - this.tailChars;
    if (cut > 0) {
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  /** Text from written position `from` on, with a marker where the middle was dropped. */
  private from(from: number): string {
    this.trimTail();
    const tailStart = this.head.length + this.dropped;
    let out = '';
    this.lastDropped = 0;
    if (from < this.head.length) out += this.head.slice(from);
    if (from < tailStart && this.dropped > 0) {
      const lost = tailStart - Math.max(from, this.head.length);
      this.lastDropped = lost;
      out += `\n[... ${lost} characters of output dropped here: the buffer keeps the first ${this.headChars} and the last ${this.tailChars} ...]\n`;
    }
    out += this.tail.slice(Math.max(0, from - tailStart));
    return out.includes('\u001b') || out.includes('\u009b') ? stripVTControlCharacters(out) : out;
  }

  /** Characters written since the last call to `unread()`. */
  get unreadChars(): number {
    return this.total - this.readUpTo;
  }

  /** What arrived since the last call to `unread()`. */
  unread(): string {
    const out = this.from(this.readUpTo);
    this.readUpTo = this.total;
    return out;
  }

  /** Everything kept. */
  all(): string {
    return this.from(0);
  }
}

/**
 * Tasks (threads) of this user now: RLIMIT_NPROC counts every thread of the user, so the
 * fallback limit is this plus {@link MAX_PROCESSES}.
 */
function tasksOfThisUser(): number {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return 0;
  const uid = process.getuid();
  let count = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

/**
 * Whether a command's processes can be capped on this machine: by a pids cgroup, or, for a
 * user other than root, by the process limit (which root ignores).
 */
export function processLimitAvailable(): boolean {
  const group = PidsCgroup.create(MAX_PROCESSES);
  if (group !== undefined) {
    group.remove();
    return true;
  }
  return typeof process.getuid === 'function' && process.getuid() !== 0;
}

/** Commands running in this process, killed when it exits. */
const live = new Set<CommandProcess>();
let exitHook = false;

/** Stop every running command `owner` started (see {@link CommandStartOptions.owner}). */
export async function stopOwnedBy(owner: object, reason: string): Promise<void> {
  await Promise.all([...live].filter((command) => command.owner === owner).map((command) => command.stop(reason)));
}

/** How a command ended. */
export interface CommandExit {
  /** Exit status, or `null` when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
}

/** Options of {@link CommandProcess.start}. */
export interface CommandStartOptions {
  /** The command line, run by `bash -lc`. */
  command: string;
  /** Working folder (absolute, already checked to be inside the workspace). */
  cwd: string;
  /** The whole environment of the command (see {@link commandEnv}). */
  env: Record<string, string>;
  /**
   * The sandbox launcher the command runs under (`sandboxLauncher` of `toolgate/tool`, ending
   * with `--`), or `[]` to run it unconfined (the `none` profile, which only the user chooses).
   */
  sandbox: readonly string[];
  /** Keep stdin open for writes (sessions); otherwise stdin is empty. */
  stdin: boolean;
  /** Who started it (a tool instance), so it can be stopped when that owner closes. */
  owner?: object;
  /**
   * Stop reading output while this many characters are unread (sessions nobody polls must
   * not keep the host busy); reading resumes with {@link CommandProcess.readNew}. Default:
   * never pause.
   */
  pauseAtUnread?: number;
}

/** A running (or finished) command. */
export class CommandProcess {
  readonly output = new HeadTailBuffer();
  /** Set when the process has exited. */
  exit: CommandExit | undefined;
  /** Resolves when the process has exited and its output is read. */
  readonly exited: Promise<CommandExit>;
  /** True when the processes of this command are capped by a pids cgroup. */
  readonly limited: boolean;
  /** Why it was stopped, when toolgate stopped it. */
  stoppedBecause: string | undefined;
  /**
   * True when the command runs in a sandbox: a PID namespace of its own (it cannot see or read
   * the host's processes, nor the host's environment through `/proc`), a file system it may
   * write only where the profile lets it, and all of it ends when it is stopped or the host dies.
   */
  readonly sandboxed: boolean;
  private readonly child: ChildProcess;
  private readonly cgroup: PidsCgroup | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly textListeners = new Set<(text: string) => void>();
  /** Set once the command's group was killed after its shell exited. */
  private groupGone = false;

  /** Who started it, if given. */
  readonly owner: object | undefined;
  private readonly pauseAtUnread: number;
  private paused = false;

  private constructor(options: CommandStartOptions) {
    this.owner = options.owner;
    this.pauseAtUnread = options.pauseAtUnread ?? Number.POSITIVE_INFINITY;
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const command of live) command.killNow();
      });
    }
    this.cgroup = PidsCgroup.create(MAX_PROCESSES);
    this.limited = this.cgroup !== undefined;
    // The wrapper (src/sandbox/scripts/command-wrapper.sh) joins the cgroup (or lowers the
    // process limit where no cgroup is available; that limit binds only non-root users)
    // outside the sandbox, where /sys is read-only, then becomes the sandbox launcher (its
    // arguments after the third), which runs the user's login shell with the command.
    const wrapper = launchScript('command-wrapper');
    const fallbackLimit = this.cgroup === undefined ? tasksOfThisUser() + MAX_PROCESSES : MAX_PROCESSES;
    this.sandboxed = options.sandbox.length > 0;
    // The user's shell runs under a lifeline: descriptor 3 is a socket whose other end only
    // this process holds, and a watcher kills every process of the command when it reads
    // end-of-file, that is when the host has died: in the sandbox, every process of its PID
    // namespace; without one, the command's process group. The parent-death signals alone
    // leave a window: bwrap sets its inner process's only after forking it, and a host killed
    // in between left the sandbox running; an unsandboxed shell had none at all.
    const shell = ['bash', '--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', this.sandboxed ? LIFELINE_TARGET.sandbox : LIFELINE_TARGET.host];
    const launch = [...options.sandbox, ...shell];
    // The wrapper ends with `exec "$@" "$c"`: the launcher, then the shell, then the command.
    const argv = ['bash', '--norc', '--noprofile', '-c', wrapper, 'toolgate-command', this.cgroup?.procsFile ?? '', options.command, String(fallbackLimit), ...launch];
    this.child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      detached: true, // a new session, so a process group of its own
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
    });
    (this.child.stdio[3] as { unref?: () => void } | null | undefined)?.unref?.();
    const decoder = { out: new TextDecoder(), err: new TextDecoder() };
    this.child.stdout!.on('data', (chunk: Buffer) => this.append(decoder.out.decode(chunk, { stream: true })));
    this.child.stderr!.on('data', (chunk: Buffer) => this.append(decoder.err.decode(chunk, { stream: true })));
    this.child.stdin?.on('error', () => undefined); // writing to a command that exited
    this.exited = new Promise<CommandExit>((resolve) => {
      let spawnError: Error | undefined;
      let exit: CommandExit | undefined;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        if (spawnError) this.append(`failed to start the command: ${spawnError.message}\n`);
        this.exit = exit ?? { code: 127, signal: null };
        this.cgroup?.remove();
        this.notify();
        resolve(this.exit);
      };
      this.child.once('error', (error) => {
        spawnError = error;
        exit = { code: 127, signal: null };
        setTimeout(finish, 50);
      });
      this.child.once('exit', (code, signal) => {
        exit = { code, signal };
        // The shell is gone; what it left behind in its group or cgroup goes too (a background
        // job would otherwise hold the output pipes open).
        this.killGroup('SIGKILL');
        this.groupGone = true;
        this.cgroup?.killAll();
        live.delete(this);
        // Output still in the pipes arrives before 'close'; a process that left the group and
        // still holds a pipe must not keep the call waiting.
        const late = setTimeout(() => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
          finish();
        }, 1000);
        late.unref();
      });
      this.child.once('close', () => finish());
    });
  }

  /** Start `bash -lc command`. */
  static start(options: CommandStartOptions): CommandProcess {
    return new CommandProcess(options);
  }

  /** Process id of the command's shell (also its process group id). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /**
   * Call `listener` with every piece of output as it arrives (standard output and error, as
   * written, escapes included) until the returned function is called.
   */
  onOutput(listener: (text: string) => void): () => void {
    this.textListeners.add(listener);
    return () => this.textListeners.delete(listener);
  }

  private append(text: string): void {
    if (text === '') return;
    this.output.write(text);
    for (const listener of [...this.textListeners]) listener(text);
    if (!this.paused && this.output.unreadChars > this.pauseAtUnread) {
      this.paused = true;
      this.child.stdout?.pause();
      this.child.stderr?.pause();
    }
    this.notify();
  }

  /** The output since the last read; reading resumes if it was paused. */
  readNew(): string {
    const text = this.output.unread();
    if (this.paused) {
      this.paused = false;
      this.child.stdout?.resume();
      this.child.stderr?.resume();
    }
    return text;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * Wait until the command exits, `ms` pass, or `signal` aborts, whichever comes first.
   * @returns true when the command has exited.
   */
  wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.exit !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
        signal?.removeEventListener('abort', done);
        resolve(this.exit !== undefined);
      };
      const check = () => {
        if (this.exit !== undefined) done();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.listeners.add(check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Write to the command's stdin. @returns false when stdin is closed or was never open. */
  write(chars: string): boolean {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable || this.exit !== undefined) return false;
    stdin.write(chars);
    return true;
  }

  /** Ctrl-C: SIGINT to the whole process group, as a terminal does. */
  interrupt(): void {
    this.killGroup('SIGINT');
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    // After the group is gone its id may belong to another process group.
    if (pid === undefined || this.groupGone) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  }

  /**
   * Stop the command: TERM to its process group, then after `graceMs` KILL to the group and to
   * every process left in its cgroup. Resolves when the shell has exited.
   */
  async stop(reason: string, graceMs = KILL_GRACE_MS): Promise<CommandExit> {
    this.stoppedBecause ??= reason;
    if (this.exit !== undefined) return this.exit;
    this.killGroup('SIGTERM');
    this.cgroup?.pids().forEach((pid) => {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone
      }
    });
    const exited = await this.wait(graceMs);
    if (!exited || this.cgroup?.pids().length) {
      this.killGroup('SIGKILL');
      this.cgroup?.killAll();
    }
    return this.exited;
  }

  /** Stop at once (KILL, no grace), for process exit. Synchronous. */
  killNow(): void {
    if (this.exit !== undefined) return;
    this.killGroup('SIGKILL');
    this.cgroup?.killAll();
  }
}

/** `[exit status N]` or `[killed by SIGNAL]`, the note that ends a command's output. */
export function exitNote(exit: CommandExit, stoppedBecause?: string): string {
  const signal = exitSignal(exit);
  const how = signal ? `killed by ${signal}` : `exit status ${exit.code}`;
  return stoppedBecause ? `[${how}: ${stoppedBecause}]` : `[${how}]`;
}

/**
 * The signal that ended a command, if one did. In a PID namespace the launcher reports a
 * command killed by signal N as exit status 128 + N.
 */
export function exitSignal(exit: CommandExit): string | undefined {
  return exit.signal ?? (exit.code !== null && exit.code > 128 ? signalName(exit.code - 128) : undefined);
}

/** The name of a signal number, if it is one. */
function signalName(n: number): string | undefined {
  return Object.entries(os.constants.signals).find(([, value]) => value === n)?.[0];
}
