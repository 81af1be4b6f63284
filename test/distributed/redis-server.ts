/**
 * A Redis server for the distributed tests: `redis-server` on a free loopback port, in a
 * temporary folder, with AOF and `noeviction` (as in production); restartable on the same
 * folder and port; killed by {@link RedisServer.stop}, when the test process exits, and, when
 * the test process is killed from outside, by its watchdog (`../server-guard.ts`).
 * {@link startRedis} answers `undefined` (the test skips, saying why) when `redis-server` is
 * not installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ServerGuard } from '../server-guard.js';
import { waitFor } from '../wait.js';

/** Why the tests that need Redis skip here, or `undefined` when they can run. */
export function redisMissing(): string | undefined {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? undefined : 'redis-server is not installed (Debian: apt-get install redis-server): the distributed tests skip';
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A running test Redis. */
export class RedisServer {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number, readonly dir: string, private readonly guard: ServerGuard) {}

  /** The running redis-server's pid (`undefined` while it is down). */
  get pid(): number | undefined {
    const child = this.child;
    return child === undefined || child.exitCode !== null || child.signalCode !== null ? undefined : child.pid;
  }

  /** Its URL. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Start a server (`undefined` when redis-server is missing). Redis cannot listen on port 0:
   * the port is chosen free, then bound by redis-server a moment later, and another process
   * may take it in between (other test files run at once): then it starts again on another.
   * @param choosePort - how a port is chosen (a test gives a taken one first).
   */
  static async start(choosePort: () => Promise<number> = freePort): Promise<RedisServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-redis-'));
    const guard = ServerGuard.start();
    guard.remove('folder', dir);
    for (let attempt = 1; ; attempt++) {
      const server = new RedisServer(await choosePort(), dir, guard);
      try {
        await server.launch();
      } catch (error) {
        if (attempt < 5 && /Address already in use/.test((error as Error).message)) continue;
        fs.rmSync(dir, { recursive: true, force: true });
        guard.disarm();
        throw error;
      }
      process.on('exit', () => server.kill());
      return server;
    }
  }

  private async launch(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes',
      '--maxmemory-policy', 'noeviction', '--save', '', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    if (child.pid !== undefined) this.guard.kill('server', child.pid);
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const onData = (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ready to accept connections')) {
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.resume();
      // 'close', not 'exit': its output (why it exited) is all read by then.
      child.once('close', (code) => reject(new Error(`redis-server exited (${code}) on port ${this.port}: ${seen.slice(-500)}`)));
    });
  }

  /**
   * Kill it hard (`SIGKILL`) and start it again on the same port and folder (its AOF replayed).
   * The same port, since its clients (workers, callers) hold its URL and must find it there
   * again: another process that took the port while it was down is waited out (up to
   * `portWaitMs`, default 30 s), then the restart fails saying so.
   * @param options.down - awaited while the server is down (a test takes its port there).
   */
  async restart(options: { portWaitMs?: number; down?: () => Promise<void> } = {}): Promise<void> {
    const { portWaitMs = 30_000, down } = options;
    await this.halt();
    await down?.();
    let refused = '';
    try {
      await waitFor(async () => {
        try {
          await this.launch();
          return true;
        } catch (error) {
          refused = (error as Error).message;
          if (!/Address already in use/.test(refused)) throw error;
          return false;
        }
      }, { what: `port ${this.port} to be free again`, timeoutMs: portWaitMs, intervalMs: 200 });
    } catch (error) {
      if (!/Address already in use/.test(refused)) throw error;
      throw new Error(`the test Redis cannot restart on port ${this.port}: another process took the port while it was down, and kept it for ${portWaitMs / 1000} s (its clients hold redis://127.0.0.1:${this.port}, so it must come back there): ${refused}`);
    }
  }

  private async halt(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private kill(): void {
    try {
      this.child?.kill('SIGKILL');
    } catch {
      // gone
    }
  }

  /** Stop it and remove its folder. */
  async stop(): Promise<void> {
    await this.halt();
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.guard.disarm();
  }
}
