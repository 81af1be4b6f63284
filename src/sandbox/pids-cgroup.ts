/**
 * Pids cgroups: a cap on how many processes a command or a runner's child may have, and a way
 * to kill all of them whatever process group or session they moved to.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownCgroups } from './proc.js';

/**
 * A pids cgroup (v1 or v2) that caps how many processes a group of them may have and lets all
 * of them be killed, including those that left their process group (`setsid`, double forks).
 * Made where this process may create cgroups (root, or a delegated v2 subtree); named
 * `toolgate-<pid>-<n>`, so what a killed host leaves is swept at the next start
 * (`src/workspace/leftovers.ts`). Source: the kernel's pids controller (cgroup v1
 * `Documentation/admin-guide/cgroup-v1/pids.rst`, cgroup v2 `pids.max`); the cap counts tasks,
 * threads included. Linux only; no method throws.
 *
 * @internal
 */
export class PidsCgroup {
  private constructor(readonly dir: string) {}

  /** Root of a writable pids hierarchy, found once. */
  private static root: string | null | undefined;

  private static findRoot(): string | null {
    if (process.platform !== 'linux') return null;
    const candidates: string[] = [];
    const { pidsV1, unified } = ownCgroups();
    if (pidsV1 !== undefined) candidates.push(path.join('/sys/fs/cgroup/pids', pidsV1));
    if (unified !== undefined && fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) candidates.push(path.join('/sys/fs/cgroup', unified));
    for (const base of candidates) {
      const probe = path.join(base, `toolgate-probe-${process.pid}`);
      try {
        fs.mkdirSync(probe);
        const ok = fs.existsSync(path.join(probe, 'pids.max')) && fs.existsSync(path.join(probe, 'cgroup.procs'));
        fs.rmdirSync(probe);
        if (ok) return base;
      } catch {
        try {
          fs.rmdirSync(probe);
        } catch {
          // not created
        }
      }
    }
    return null;
  }

  private static counter = 0;

  /**
   * A new cgroup capped at `max` tasks (processes and their threads), or `undefined` where none
   * can be made (not Linux, no pids controller, no permission). Call {@link remove} when done.
   */
  static create(max: number): PidsCgroup | undefined {
    if (PidsCgroup.root === undefined) PidsCgroup.root = PidsCgroup.findRoot();
    if (PidsCgroup.root === null) return undefined;
    const dir = path.join(PidsCgroup.root, `toolgate-${process.pid}-${++PidsCgroup.counter}`);
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pids.max'), String(max));
      return new PidsCgroup(dir);
    } catch {
      return undefined;
    }
  }

  /** Move process `pid` into the cgroup (its later children are born there). @returns false when it could not be moved. */
  join(pid: number): boolean {
    try {
      fs.writeFileSync(this.procsFile, String(pid));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * {@link join}, written from libuv's thread pool: moving a process between cgroups can take
   * the kernel tens of milliseconds, which the caller's thread need not wait out.
   * @returns false when it could not be moved.
   */
  joinLater(pid: number): Promise<boolean> {
    return fs.promises.writeFile(this.procsFile, String(pid)).then(() => true, () => false);
  }

  /** The `cgroup.procs` file: a process writes its own pid there to join. */
  get procsFile(): string {
    return path.join(this.dir, 'cgroup.procs');
  }

  /** Processes in the cgroup now. */
  pids(): number[] {
    try {
      return fs.readFileSync(this.procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** SIGKILL every process in the cgroup, until it is empty (or a few rounds have passed). */
  killAll(): void {
    for (let round = 0; round < 20; round++) {
      const pids = this.pids();
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }

  /** Remove the cgroup once it is empty (retried briefly: the kernel empties it asynchronously). */
  remove(): void {
    for (let i = 0; i < 50; i++) {
      try {
        fs.rmdirSync(this.dir);
        return;
      } catch {
        this.killAll();
      }
    }
  }
}
