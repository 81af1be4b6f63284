/**
 * A Redis server for the distributed tests: `redis-server` on a free loopback port, in a
 * temporary folder, with AOF and `noeviction` (as in production); restartable on the same
 * folder and port; killed by {@link RedisServer.stop} and when the test process exits.
 * {@link startRedis} answers `undefined` (the test skips, saying why) when `redis-server` is
 * not installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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
  private constructor(readonly port: number, readonly dir: string) {}

  /** Its URL. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Start a server (`undefined` when redis-server is missing). */
  static async start(): Promise<RedisServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-redis-'));
    const server = new RedisServer(await freePort(), dir);
    await server.launch();
    process.on('exit', () => server.kill());
    return server;
  }

  private async launch(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes',
      '--maxmemory-policy', 'noeviction', '--save', '', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
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
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${seen.slice(-500)}`)));
    });
  }

  /** Kill it hard (`SIGKILL`) and start it again on the same port and folder (its AOF replayed). */
  async restart(): Promise<void> {
    await this.halt();
    await this.launch();
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
  }
}
