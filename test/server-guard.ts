/**
 * Test servers die with the test process that started them. A process killed from outside (a
 * runner's or a tool call's timeout, SIGKILL) runs no exit hook, so the Redis and PostgreSQL
 * servers it started (`distributed/redis-server.ts`, `ledger/postgres-server.ts`; PostgreSQL's
 * `pg_ctl` detaches the server into a session of its own) would run on. Each server is
 * watched by a small process of its own ({@link ./server-guard-main.ts}), started in a session
 * of its own with a pipe from this process on its standard input: when this process ends, by
 * any means, the kernel closes the pipe, and the watchdog kills the server (checked by its
 * start time, so a reused pid is never hit) and removes its folder. A server stopped by its
 * owner is {@link ServerGuard.disarm}ed first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./server-guard-main.js', import.meta.url));

/** A watchdog over the processes and folders of one test server. */
export class ServerGuard {
  private readonly child: ChildProcess;
  private ended = false;

  private constructor() {
    // No output of its own: an inherited stderr would hold the test runner's pipe open after
    // this process ended, while the watchdog works.
    this.child = spawn(process.execPath, [MAIN], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    this.child.on('error', () => undefined);
    this.child.stdin!.on('error', () => undefined);
    // Neither the watchdog nor its pipe keeps this process alive.
    this.child.unref();
    (this.child.stdin as unknown as { unref?: () => void }).unref?.();
  }

  /** Start a watchdog (one per server). */
  static start(): ServerGuard {
    return new ServerGuard();
  }

  /** The watchdog's pid (tests check that it ends). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * When this process ends without {@link disarm}: send process `pid` `signal` (default
   * SIGKILL), then SIGKILL to it (or, with `group`, to its process group) if it is still there
   * 10 s later. An order of the same `id` replaces this one (a restarted server's new pid).
   */
  kill(id: string, pid: number, options: { signal?: NodeJS.Signals; group?: boolean } = {}): void {
    this.send({ id, kill: pid, signal: options.signal ?? 'SIGKILL', group: options.group === true });
  }

  /** Remove `folder` (after the kills) when this process ends without {@link disarm}. */
  remove(id: string, folder: string): void {
    this.send({ id, remove: folder });
  }

  /** The owner stopped the server and removed its folder itself: the watchdog exits doing nothing. */
  disarm(): void {
    this.send({ disarm: true });
    this.ended = true;
    this.child.stdin!.end();
  }

  private send(order: Record<string, unknown>): void {
    if (this.ended) return;
    this.child.stdin!.write(`${JSON.stringify(order)}\n`);
  }
}
