/**
 * Which process owns a call, told apart from a later process that got the same pid: the pid
 * and the process's start time (field 22 of `/proc/<pid>/stat`, clock ticks since boot). A
 * zombie (state `Z` or `X` in field 3: it exited and its parent has not reaped it yet) is dead,
 * though `kill(pid, 0)` still reaches it. A pid whose start time differs from the recorded one
 * is another process (the pid was reused, or it is another pid namespace's, a container
 * sharing the state folder). Where `/proc` cannot be read (not Linux), the start time is
 * `undefined` and a pid that `kill(pid, 0)` reaches counts as the owner. `/proc` is read by
 * `src/sandbox/proc.ts`, which the leftovers sweep shares.
 *
 * @module
 */
import os from 'node:os';
import { bootId, hasExited, procStat, signalReaches } from '../sandbox/proc.js';

/** A process: its pid and start time (`undefined` where it cannot be read). */
export interface ProcessIdentity {
  readonly pid: number;
  readonly start: string | undefined;
}

/**
 * The start time of process `pid` as `/proc/<pid>/stat` gives it (field 22, clock ticks
 * since boot, as text), or `undefined` when the process is gone or `/proc` cannot be read.
 */
function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.start;
}

let self: ProcessIdentity | undefined;

/** This process's identity (read once). */
export function thisProcess(): ProcessIdentity {
  return (self ??= Object.freeze({ pid: process.pid, start: processStartTime(process.pid) }));
}

/**
 * Whether the process that recorded `pid` and `start` still runs: `/proc/<pid>/stat` exists,
 * its state is not a zombie's (`Z`) or a dead one's (`X`), and when both start times are known
 * they are equal (else the pid was reused, or names another pid namespace's process). Where
 * `/proc/<pid>/stat` cannot be read (no `/proc`, or one mounted with `hidepid`), the pid exists
 * when signal 0 reaches it (or it is someone else's: `EPERM`).
 */
export function isAlive(pid: number, start: string | undefined | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return start == null || start === thisProcess().start;
  const stat = procStat(pid);
  if (stat !== undefined) {
    if (hasExited(stat)) return false;
    return start == null || stat.start === undefined || stat.start === start;
  }
  return signalReaches(pid);
}

let host: string | undefined;

/**
 * This host, as owners name it: the host name and the first 8 hex digits of the kernel's boot
 * id (`/proc/sys/kernel/random/boot_id`), so that a pid is compared with `/proc` only on the
 * host (and boot) that recorded it. Without a boot id: the host name alone.
 */
export function hostId(): string {
  if (host !== undefined) return host;
  const boot = bootId(); // '' where not Linux: the host name alone
  host = `${os.hostname() || 'localhost'}${boot ? `/${boot}` : ''}`;
  return host;
}

/** The owner id of this process: `host:pid:start` ({@link hostId}; start as {@link thisProcess} reads it, `0` when unknown). */
export function processOwner(): string {
  const me = thisProcess();
  return `${hostId()}:${me.pid}:${me.start ?? '0'}`;
}

/** What {@link ownerAlive} reads of a call: its process, the host of that process, and its lease. */
export interface OwnerFacts {
  readonly ownerPid: number;
  readonly ownerStart: string | undefined;
  /** `undefined`: this host (a call recorded before owners named their host). */
  readonly ownerHost?: string | undefined;
  /** `undefined`: no lease (process liveness only). */
  readonly leaseExpiresAt?: number | undefined;
}

/**
 * Whether the owner of a call is still there: a lease that lapsed (`leaseExpiresAt <= now`)
 * says no; a process of this host ({@link hostId}) says what {@link isAlive} says; a process of
 * another host is there while its lease lasts, and, without a lease, is taken to be there (fail
 * closed: nothing of another host is interrupted or taken over on a guess).
 */
export function ownerAlive(owner: OwnerFacts, now = Date.now()): boolean {
  if (owner.leaseExpiresAt !== undefined && owner.leaseExpiresAt <= now) return false;
  if (owner.ownerHost === undefined || owner.ownerHost === hostId()) return isAlive(owner.ownerPid, owner.ownerStart);
  return true;
}
