/**
 * The one reader of `/proc` for what toolgate asks of processes: whether one is alive (its
 * state and start time, `/proc/<pid>/stat`; signal 0 where `/proc` cannot be read), how much
 * memory it holds (`/proc/<pid>/status`), and this process's own surroundings (its cgroups,
 * `/proc/self/cgroup`; the kernel's boot id, `/proc/sys/kernel/random/boot_id`). Used by the ledger (which process owns a call), the leftovers sweep
 * (which owner is gone), the process runner and the Python interpreters (a child's memory,
 * its process tree) and the pids cgroup.
 *
 * Linux only in effect: elsewhere every read answers "unknown" (`undefined`, `0`, `[]`), and
 * liveness falls back to signal 0. No function throws.
 *
 * @module
 */
import fs from 'node:fs';

/** What `/proc/<pid>/stat` says of a process: its state (field 3) and start time (field 22, clock ticks since boot, as text). */
export interface ProcStat {
  readonly state: string;
  readonly start: string | undefined;
}

/**
 * The state and start time of process `pid` from `/proc/<pid>/stat`, or `undefined` when the
 * process is gone or `/proc` cannot be read.
 */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // Field 2 (the command name) is in parentheses and may hold spaces or ')': fields after it
  // are counted from the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so field 22 is rest[19].
  return { state: rest[0] ?? '', start: rest[19] };
}

/** States of `/proc/<pid>/stat` field 3 of a process that has exited: zombie, dead. */
const EXITED_STATES = new Set(['Z', 'X', 'x']);

/** Whether a state of field 3 is an exited process's (a zombie, waiting for its parent to reap it, is one). */
export function hasExited(stat: ProcStat): boolean {
  return EXITED_STATES.has(stat.state);
}

/** Whether `pid` is a zombie or dead (`false` when that cannot be read: gone, or no `/proc`). */
export function isZombie(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && hasExited(stat);
}

/**
 * Whether signal 0 reaches `pid`: `false` only when no such process exists (`ESRCH`); a
 * process of another user (`EPERM`) exists.
 */
export function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Resident memory of process `pid` in bytes (`VmRSS` of `/proc/<pid>/status`, in kB whatever the page size); 0 when it cannot be read.
 *
 * @internal
 */
export function residentBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * A process and all its descendants, `pid` first (from `/proc/<pid>/task/<tid>/children`;
 * just `[pid]` where that cannot be read).
 *
 * @internal
 */
export function processTree(pid: number): number[] {
  const found: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const current = stack.pop()!;
    if (found.includes(current)) continue;
    found.push(current);
    try {
      for (const task of fs.readdirSync(`/proc/${current}/task`)) {
        for (const child of fs.readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').split(' ')) if (child.trim()) stack.push(Number(child));
      }
    } catch {
      // gone, or not Linux
    }
  }
  return found;
}

/**
 * This process's pids cgroup, as `/proc/self/cgroup` names it: the v1 `pids` controller's
 * path and the v2 unified path (relative to their hierarchies' roots), each when present;
 * `{}` where it cannot be read.
 */
export function ownCgroups(): { pidsV1?: string; unified?: string } {
  if (process.platform !== 'linux') return {};
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return {};
  }
  const found: { pidsV1?: string; unified?: string } = {};
  const v1 = /^\d+:pids:(.*)$/m.exec(text);
  if (v1) found.pidsV1 = v1[1]!;
  const v2 = /^0::(.*)$/m.exec(text);
  if (v2) found.unified = v2[1]!;
  return found;
}

/**
 * The first 8 hex digits of the kernel's boot id (`/proc/sys/kernel/random/boot_id`): with the
 * host name, what makes a pid and start time comparable only on the boot that recorded them.
 * `''` where it cannot be read (not Linux).
 */
export function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').replace(/[^0-9a-f]/gi, '').slice(0, 8);
  } catch {
    return '';
  }
}
