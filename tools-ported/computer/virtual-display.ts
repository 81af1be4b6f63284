/**
 * The virtual X display of computer_use: one Xvfb per session (a tool instance, that is one
 * executor, and a workspace), started on first use and stopped when the executor closes, the
 * host exits, or the host dies (`kill -9` included). Every X program runs in the sandbox the
 * call's policy gives (bubblewrap, `src/sandbox/bubblewrap.ts`):
 *
 * - Xvfb runs in a `read-only` sandbox with no network, listening on its Unix socket only
 *   (`-nolisten tcp -nolisten local`: no TCP port, no abstract socket, which would bypass file
 *   permissions). The sandbox's private `/tmp/.X11-unix` is a folder of the host's
 *   (`<tmpdir>/toolgate-display-<pid>-<random>/X11-unix`, in a folder only this user may
 *   enter), bound in, so the socket is reachable by the processes this module starts and by
 *   no other user. Inside its sandbox every display is `:0`: sessions never compete for
 *   display numbers.
 * - Xvfb never resets (`-noreset`). By default an X server resets when its last client leaves,
 *   and the reset closes every connection still being set up: a browser connecting while the
 *   `xdotool` run that looks for its window leaves was dropped ("Missing X server or $DISPLAY",
 *   "The platform failed to initialize"), a start failing one time in a few under load. The
 *   reset also dropped what the display held between actions (root window properties, atoms).
 * - `xdotool` and `scrot` run in a sandbox of their own (read-only, no network) with the same
 *   folder bound in, once per action (a few milliseconds each).
 * - Programs opened on the display ({@link VirtualDisplay.open}) run in the call's sandbox
 *   (the workspace writable in `workspace-write`), with the folder bound in. The browser of
 *   `open` always gets a network namespace of its own; its way out is the display's egress
 *   proxy ({@link VirtualDisplay.egressProxy}, browser-launch.ts), stopped with the display.
 *
 * What cannot run sandboxed: nothing, as long as bubblewrap works. Under the `none` profile
 * (the user turned the sandbox off) Xvfb runs on the host, its socket in the host's
 * `/tmp/.X11-unix`: Xlib connects to a display by number only (a socket path in `DISPLAY` is
 * not understood by libX11 1.8), so the clients need that folder at that path, which only a
 * mount namespace can give them elsewhere. Its display number is reserved with X's own lock
 * file before it starts (display-number.ts): Xvfb's own pick (`-displayfd` alone) takes no
 * lock, and two sessions starting at once were both given `:0`, one server for both.
 *
 * The long-running X programs are started directly (the lifeline's `--exec`), never through
 * the user's login shell: a profile that waits (a version manager's lock left by a killed
 * shell waits 60 s) held the display's start past its timeout.
 *
 * No Xvfb is left behind: each long-running X process runs under toolgate's lifeline
 * (`src/sandbox/scripts/lifeline.sh`, as shell commands do): descriptor 3 is a socket only this
 * process holds, and at end-of-file (the host died) a watcher kills every process of the
 * sandbox's PID namespace (or, unsandboxed, the process group). The parent-death signal
 * (`setpriv --pdeathsig KILL`, bwrap's `--die-with-parent`) and a process `exit` hook that
 * kills every group are the other two locks. The display folders of processes that are gone
 * are removed when the next display starts.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandEnv, findExecutable, launchScript } from '../../src/internal.js';
import { sandboxLauncher, ToolExecutionError, type SandboxPolicy } from '../../src/tool.js';
import { EgressProxy } from '../common/egress-proxy.js';
import { reserveDisplayNumber, sweepDisplayLock, type DisplayNumber } from './display-number.js';

/** The X programs computer_use needs: the environment variable naming each (a path or a name on `PATH`), its default, and its Debian package. */
const X_PROGRAMS = Object.freeze({
  xvfb: { env: 'TOOLGATE_XVFB', name: 'Xvfb', package: 'xvfb' },
  xdotool: { env: 'TOOLGATE_XDOTOOL', name: 'xdotool', package: 'xdotool' },
  scrot: { env: 'TOOLGATE_SCROT', name: 'scrot', package: 'scrot' },
});

/** The browser of the `open` action: `TOOLGATE_BROWSER` (a path or a name on `PATH`), default Debian's `chromium`. */
const BROWSER = Object.freeze({ env: 'TOOLGATE_BROWSER', name: 'chromium', package: 'chromium' });

/**
 * The command line that opens `url` in the browser, its window at the top left filling the
 * screen. Chromium's own sandbox is off (`--no-sandbox`): it needs namespaces or a setuid
 * helper that a process inside bubblewrap cannot have; the bubblewrap sandbox the browser
 * runs in is its confinement instead. Its profile lives in {@link VirtualDisplay.scratchDir}.
 *
 * With `proxy` (`127.0.0.1:PORT`, the egress proxy or its forwarder) every connection goes
 * there: `--proxy-bypass-list=<-loopback>` removes Chromium's implicit bypass of loopback and
 * link-local hosts (net/docs/proxy.md), `--host-resolver-rules` makes every name the browser
 * would resolve itself fail (the proxy resolves), QUIC is off and WebRTC may not send UDP
 * outside the proxy (`--webrtc-ip-handling-policy=disable_non_proxied_udp`: no host
 * candidates, no STUN or TURN over UDP; TURN over TCP goes through the proxy, judged there).
 * The older `--force-webrtc-ip-handling-policy` is not a switch of Chromium 156 (Debian 12's):
 * with it alone a page's STUN requests left by UDP (computer-use-webrtc.test.ts).
 * @throws ToolExecutionError `PACKAGE_UNAVAILABLE` naming the Debian package when the browser is missing.
 */
export function browserCommand(url: string, display: Pick<VirtualDisplay, 'width' | 'height' | 'scratchDir'>, env: NodeJS.ProcessEnv = process.env, proxy?: string): string[] {
  const wanted = env[BROWSER.env]?.trim() || BROWSER.name;
  const file = findExecutable(wanted);
  if (file === undefined) {
    throw new ToolExecutionError(`unavailable: computer_use's open action needs a browser, the Debian package ${BROWSER.package} (${wanted} not found). Install it (apt-get install ${BROWSER.package}), or open the program another way. Nothing was opened.`, 'PACKAGE_UNAVAILABLE');
  }
  return [
    file, '--no-sandbox', '--test-type', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--password-store=basic', `--user-data-dir=${display.scratchDir}/browser`,
    '--window-position=0,0', `--window-size=${display.width},${display.height}`,
    ...(proxy === undefined ? [] : [
      `--proxy-server=http://${proxy}`, '--proxy-bypass-list=<-loopback>', `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${proxy.slice(0, proxy.lastIndexOf(':'))}`,
      '--disable-quic', '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    ]),
    '--new-window', url,
  ];
}

/** The absolute paths of the X programs. */
export type XPrograms = { readonly [K in keyof typeof X_PROGRAMS]: string };

/** The display's size in pixels when `TOOLGATE_DISPLAY_SIZE` (`WIDTHxHEIGHT`) does not say. */
const DEFAULT_DISPLAY_SIZE = Object.freeze({ width: 1024, height: 768 });

/** Milliseconds Xvfb may take to accept connections. */
const START_TIMEOUT_MS = 15_000;
/** Milliseconds one xdotool or scrot run may take. */
const CLIENT_TIMEOUT_MS = 15_000;
/** Bytes of a client's standard output kept at most (a screenshot is a PNG well under this). */
const CLIENT_MAX_BYTES = 16 * 1024 * 1024;
/** Milliseconds between TERM and KILL when a display stops. */
const KILL_GRACE_MS = 1000;
/** Programs opened on one display at most. */
const MAX_OPEN_PROGRAMS = 16;
const DIR_PREFIX = 'toolgate-display-';
/** The file of a display's folder holding its reserved host display number (unsandboxed only), for the sweep of a dead host's lock. */
const NUMBER_FILE = 'display-number';
/** Unsandboxed starts tried when another X server takes the reserved number first. */
const START_TRIES = 3;

/**
 * The X programs, each from its environment variable or `PATH`.
 * @throws ToolExecutionError `PACKAGE_UNAVAILABLE` naming the Debian packages of those missing
 *   (and the variables that point elsewhere); the call's result says so, nothing else happens.
 */
export function findXPrograms(env: NodeJS.ProcessEnv = process.env): XPrograms {
  const found: Partial<Record<keyof typeof X_PROGRAMS, string>> = {};
  const missing: string[] = [];
  for (const [key, program] of Object.entries(X_PROGRAMS) as Array<[keyof typeof X_PROGRAMS, (typeof X_PROGRAMS)[keyof typeof X_PROGRAMS]]>) {
    const wanted = env[program.env]?.trim() || program.name;
    const file = findExecutable(wanted);
    if (file === undefined) missing.push(`${program.package} (${wanted} not found${env[program.env] ? `; ${program.env} names it` : ''})`);
    else found[key] = file;
  }
  if (missing.length > 0) {
    const packages = Object.values(X_PROGRAMS).map((p) => p.package).join(' ');
    throw new ToolExecutionError(
      `unavailable: computer_use needs the Debian packages ${Object.values(X_PROGRAMS).map((p) => p.package).join(', ')} (a virtual X display, its input driver and a screenshot tool); missing here: ${missing.join(', ')}. ` +
        `Install them (apt-get install ${packages}) on the machine running toolgate. Nothing was done.`,
      'PACKAGE_UNAVAILABLE',
    );
  }
  return found as XPrograms;
}

/** The display size from `TOOLGATE_DISPLAY_SIZE` (`1280x800`), else {@link DEFAULT_DISPLAY_SIZE}; 320x200 to 3840x2160. */
export function displaySize(env: NodeJS.ProcessEnv = process.env): { width: number; height: number } {
  const match = /^(\d{3,4})x(\d{3,4})$/.exec(env.TOOLGATE_DISPLAY_SIZE?.trim() ?? '');
  if (match === null) return { ...DEFAULT_DISPLAY_SIZE };
  const width = Math.min(3840, Math.max(320, Number(match[1])));
  const height = Math.min(2160, Math.max(200, Number(match[2])));
  return { width, height };
}

/** What a client run gave. */
export interface ClientRun {
  /** Exit status (`null`: ended by a signal, such as the timeout). */
  code: number | null;
  stdout: Buffer;
  /** Its standard error, at most 4000 characters. */
  stderr: string;
}

/** Live displays of this process, stopped at its exit. */
const live = new Set<VirtualDisplay>();
let exitHook = false;

/** Options of {@link VirtualDisplay.start}. */
export interface DisplayStartOptions {
  /** The workspace's real root (the sandboxes' mounts and working folder). */
  workspaceRoot: string;
  /** The call's sandbox policy; only `profile: 'none'` changes how the display runs. */
  sandbox: SandboxPolicy;
  programs: XPrograms;
  /** Pixels; default {@link displaySize}. */
  width?: number;
  height?: number;
}

/** One Xvfb and the programs opened on it. Start with {@link VirtualDisplay.start}; {@link VirtualDisplay.stop} after. */
export class VirtualDisplay {
  /** Width and height in pixels. */
  readonly width: number;
  readonly height: number;
  /** The `DISPLAY` value inside the sandboxes (`:0`), or on the host under the `none` profile. */
  display = ':0';
  /** True when the X programs run in bubblewrap sandboxes. */
  readonly sandboxed: boolean;
  /** Pid of the Xvfb launcher (its process group's id). */
  get pid(): number | undefined {
    return this.server?.pid;
  }
  private server: ChildProcess | undefined;
  /** The host display number held for an unsandboxed Xvfb, released when it stops. */
  private hostNumber: DisplayNumber | undefined;
  private readonly opened = new Set<ChildProcess>();
  private readonly dir: string;
  private readonly socketDir: string;
  private stopped = false;
  private readonly proxies = new Map<string, Promise<EgressProxy>>();

  private constructor(private readonly options: DisplayStartOptions) {
    const size = displaySize();
    this.width = options.width ?? size.width;
    this.height = options.height ?? size.height;
    this.sandboxed = options.sandbox.profile !== 'none';
    sweepDisplayDirs();
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
    fs.chmodSync(this.dir, 0o700);
    this.socketDir = path.join(this.dir, 'X11-unix');
    fs.mkdirSync(this.socketDir, { mode: 0o1777 });
  }

  /**
   * Start Xvfb and wait until it accepts connections.
   * @throws SandboxUnavailableError when the policy needs bubblewrap and it does not work;
   *   ToolExecutionError when Xvfb does not start (its last error lines are in the message).
   */
  static async start(options: DisplayStartOptions): Promise<VirtualDisplay> {
    const display = new VirtualDisplay(options);
    try {
      await display.startServer();
    } catch (error) {
      await display.stop();
      throw error;
    }
    return display;
  }

  /**
   * The launcher prefix (ending with `--`, or empty) for an X program under `policy`, with the
   * socket folder bound in, and each of `readOnly` (host folder, path inside) bound read-only.
   */
  private prefix(policy: SandboxPolicy, readOnly: ReadonlyArray<readonly [string, string]> = []): string[] {
    if (!this.sandboxed) return [];
    const root = this.options.workspaceRoot;
    const launcher = sandboxLauncher(policy, { workspace: root, cwd: root }, 'computer_use');
    // bwrap takes mounts in order: these after the private /tmp they land in.
    return [...launcher.slice(0, -1), '--bind', this.socketDir, '/tmp/.X11-unix', ...readOnly.flatMap(([from, to]) => ['--ro-bind', from, to]), '--'];
  }

  private env(): Record<string, string> {
    return commandEnv(process.env, { DISPLAY: this.display });
  }

  /** Spawn a long-running X program under the lifeline, in a process group of its own. */
  private spawnLong(policy: SandboxPolicy, argv: readonly string[], env: Record<string, string>, readOnly: ReadonlyArray<readonly [string, string]> = []): ChildProcess {
    const shell = ['bash', '--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', this.sandboxed ? '-1' : '0', '--exec', ...argv];
    const full = [...this.prefix(policy, readOnly), ...shell];
    const child = spawn(full[0]!, full.slice(1), { cwd: this.options.workspaceRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    (child.stdio[3] as { unref?: () => void } | null | undefined)?.unref?.();
    child.on('error', () => undefined);
    return child;
  }

  private async startServer(): Promise<void> {
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const display of live) display.killNow();
      });
    }
    live.add(this);
    if (this.sandboxed) {
      // Its own /tmp: the first free number is :0, and no other session can take it.
      this.display = `:${await this.startXvfb([])}`;
      return;
    }
    const taken = new Set<number>();
    for (let attempt = 1; ; attempt += 1) {
      const reserved = reserveDisplayNumber(taken);
      this.hostNumber = reserved;
      fs.writeFileSync(path.join(this.dir, NUMBER_FILE), `${reserved.number}\n`);
      try {
        this.display = `:${await this.startXvfb([`:${reserved.number}`, '-nolock'])}`;
        return;
      } catch (error) {
        // Another X server, one that takes no lock, bound the socket between the check and the start.
        const lost = error instanceof XvfbExited && /already running|already in use|Cannot establish any listening sockets/i.test(error.stderr);
        if (!lost || attempt >= START_TRIES) throw error;
        taken.add(reserved.number);
        // Its Xvfb exited, but not its group: the lifeline's watcher reads descriptor 3 (and
        // holds the output pipes, keeping this process alive) until this process ends.
        if (this.server !== undefined) signalGroup(this.server, 'SIGKILL');
        reserved.release();
        this.hostNumber = undefined;
        this.server = undefined;
      }
    }
  }

  /**
   * Start Xvfb (on `numberArgs`' display, or the first free one) and wait until it accepts
   * connections: it writes its display number to its standard output (`-displayfd 1`) then.
   * @returns the display number it wrote.
   * @throws XvfbExited when it exits first; ToolExecutionError when it says nothing for {@link START_TIMEOUT_MS}.
   */
  private async startXvfb(numberArgs: readonly string[]): Promise<string> {
    const argv = [this.options.programs.xvfb, ...numberArgs, '-displayfd', '1', '-screen', '0', `${this.width}x${this.height}x24`, '-nolisten', 'tcp', '-nolisten', 'local', '-nocursor', '-noreset'];
    // The host's /tmp/.X11-unix is where an unsandboxed Xvfb puts its socket.
    const server = this.spawnLong({ profile: this.sandboxed ? 'read-only' : 'none', network: false }, argv, commandEnv(process.env));
    this.server = server;
    let out = '';
    let err = '';
    server.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    server.stderr!.setEncoding('utf8').on('data', (s: string) => (err = (err + s).slice(-4000)));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => fail(`Xvfb did not accept connections within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      const message = (why: string) => {
        const tail = err.trim().split('\n').slice(-3).join(' | ');
        return `computer_use: the virtual display did not start: ${why}${tail ? ` (${tail.slice(0, 600)})` : ''}. Nothing was done.`;
      };
      const settle = () => {
        clearTimeout(timer);
        server.stdout!.off('data', check);
        server.off('exit', exited);
      };
      const fail = (why: string) => {
        settle();
        reject(new ToolExecutionError(message(why)));
      };
      const exited = (code: number | null, signal: NodeJS.Signals | null) => {
        settle();
        reject(new XvfbExited(message(`Xvfb exited (${signal ?? `status ${code}`})`), err));
      };
      const check = () => {
        const line = /^(\d+)\n/m.exec(out);
        if (line === null) return;
        settle();
        resolve(line[1]!);
      };
      server.stdout!.on('data', check);
      server.once('exit', exited);
    });
  }

  /** A folder for programs on the display (a browser's profile): the sandbox's private `/tmp`, or unsandboxed this display's own folder. */
  get scratchDir(): string {
    return this.sandboxed ? '/tmp' : this.dir;
  }

  /** True while Xvfb runs. */
  get running(): boolean {
    return !this.stopped && this.server !== undefined && this.server.exitCode === null && this.server.signalCode === null;
  }

  /**
   * Run an X client (`xdotool ...`, `scrot ...`, or `sh -c` over them) on the display, in a
   * read-only sandbox without network, to its end.
   * @throws ToolExecutionError when the display is not running.
   */
  run(argv: readonly string[], extraEnv: Record<string, string> = {}): Promise<ClientRun> {
    if (!this.running) throw new ToolExecutionError('computer_use: the virtual display is not running (it was stopped); call again to start a new one.');
    const full = [...this.prefix({ profile: 'read-only', network: false }), ...argv];
    return new Promise((resolve) => {
      const child = spawn(full[0]!, full.slice(1), { cwd: this.options.workspaceRoot, env: { ...this.env(), ...extraEnv }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      const kill = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      };
      const timer = setTimeout(kill, CLIENT_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CLIENT_MAX_BYTES) kill();
        else chunks.push(chunk);
      });
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)));
      child.on('error', (error) => (stderr += error.message));
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(chunks), stderr });
      });
    });
  }

  /**
   * Open a program on the display (an `xterm`, a browser), in the sandbox `policy` gives (the
   * workspace writable under `workspace-write`), its working folder the workspace root. It
   * ends when the display stops. `readOnly` pairs (a host folder, its path inside) are bound
   * into its sandbox read-only (the egress proxy's socket folder, {@link egressSocketDir}).
   * @returns its launcher process (its process group's id is its pid).
   * @throws ToolExecutionError when the display is not running or {@link MAX_OPEN_PROGRAMS} are open.
   */
  open(argv: readonly string[], policy: SandboxPolicy = this.options.sandbox, readOnly: ReadonlyArray<readonly [string, string]> = []): ChildProcess {
    if (!this.running) throw new ToolExecutionError('computer_use: the virtual display is not running.');
    for (const child of this.opened) {
      if (child.exitCode === null && child.signalCode === null) continue;
      this.opened.delete(child);
      signalGroup(child, 'SIGKILL'); // what it left in its group (unsandboxed, the lifeline's watcher)
    }
    if (this.opened.size >= MAX_OPEN_PROGRAMS) throw new ToolExecutionError(`computer_use: at most ${MAX_OPEN_PROGRAMS} programs are open on one display.`);
    const child = this.spawnLong(policy, argv, this.env(), readOnly);
    child.stdout!.resume();
    child.stderr!.resume();
    this.opened.add(child);
    return child;
  }

  /**
   * The display's egress proxy (egress-proxy.ts), started on first use: with `refuseAll`, one
   * that refuses every connection with that reason. Sandboxed, it listens on a Unix socket in
   * {@link egressSocketDir}; unsandboxed, on a free loopback TCP port. Stopped with the display.
   */
  egressProxy(refuseAll?: string): Promise<EgressProxy> {
    const key = refuseAll ?? '';
    let proxy = this.proxies.get(key);
    if (proxy === undefined) {
      if (this.sandboxed) fs.mkdirSync(this.egressSocketDir, { recursive: true, mode: 0o700 });
      const listen = this.sandboxed ? { path: path.join(this.egressSocketDir, refuseAll === undefined ? 'proxy.sock' : 'refuse.sock') } : { host: '127.0.0.1', port: 0 };
      proxy = EgressProxy.start(listen, refuseAll === undefined ? {} : { refuseAll });
      proxy.catch(() => this.proxies.delete(key));
      this.proxies.set(key, proxy);
    }
    return proxy;
  }

  /** The host folder of the egress proxies' Unix sockets (inside the display's own folder, only this user may enter). */
  get egressSocketDir(): string {
    return path.join(this.dir, 'egress');
  }

  private async closeProxies(): Promise<void> {
    const proxies = [...this.proxies.values()];
    this.proxies.clear();
    await Promise.all(proxies.map(async (p) => (await p.catch(() => undefined))?.close()));
  }

  /** Kill every process of the display at once (the host is exiting). */
  killNow(): void {
    for (const child of [...this.opened, ...(this.server ? [this.server] : [])]) signalGroup(child, 'SIGKILL');
    this.hostNumber?.release();
    fs.rmSync(this.dir, { recursive: true, force: true });
    live.delete(this);
  }

  /** Stop the programs opened on the display, then Xvfb (TERM, then KILL to each process group), and remove the socket folder. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const children = [...this.opened, ...(this.server ? [this.server] : [])];
    await Promise.all(children.map(async (child) => {
      if (child.pid === undefined) return;
      // A program that ended by itself may leave its group behind: unsandboxed, the lifeline's
      // watcher holds the program's output pipes open, and with them this process.
      if (child.exitCode !== null || child.signalCode !== null) return signalGroup(child, 'SIGKILL');
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS);
      await exited;
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL'); // whatever is left in its group
    }));
    await this.closeProxies();
    this.hostNumber?.release();
    fs.rmSync(this.dir, { recursive: true, force: true });
    live.delete(this);
  }
}

/** Xvfb exited before it accepted connections; `stderr` is the end of what it wrote. */
class XvfbExited extends ToolExecutionError {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** A small file's text, or '' when it cannot be read (not a regular file, gone). */
function readSmall(file: string): string {
  try {
    return fs.lstatSync(file).isFile() ? fs.readFileSync(file, 'utf8').slice(0, 64) : '';
  } catch {
    return '';
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

/** Remove the display folders of toolgate processes that are gone (a host killed with SIGKILL cannot). Never throws. */
function sweepDisplayDirs(): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(os.tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = new RegExp(`^${DIR_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`).exec(entry);
    if (match === null || Number(match[1]) === process.pid) continue;
    try {
      process.kill(Number(match[1]), 0);
      continue; // still running
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') continue;
    }
    try {
      const full = path.join(os.tmpdir(), entry);
      if (fs.lstatSync(full).isDirectory() && fs.lstatSync(full).uid === process.getuid?.()) {
        const number = /^(\d+)\n$/.exec(readSmall(path.join(full, NUMBER_FILE)));
        if (number !== null) sweepDisplayLock(Number(number[1]), Number(match[1]));
        fs.rmSync(full, { recursive: true, force: true });
      }
    } catch {
      // not ours, or gone
    }
  }
}
