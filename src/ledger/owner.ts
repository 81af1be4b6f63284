/**
 * Which process owns a call, told apart from a later process that got the same pid: the pid
 * and the process's start time (field 22 of `/proc/<pid>/stat`, clock ticks since boot). Where
 * `/proc` cannot be read (not Linux), the start time is `undefined` and a live pid counts as
 * the owner.
 *
 * @module
 */
import fs from 'node:fs';

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
  return rest[19];
}

let self: ProcessIdentity | undefined;

/** This process's identity (read once). */
export function thisProcess(): ProcessIdentity {
  return (self ??= Object.freeze({ pid: process.pid, start: processStartTime(process.pid) }));
}

/**
 * Whether the process that recorded `pid` and `start` still runs: the pid exists (signal 0
 * reaches it, or it is someone else's: `EPERM`) and, when both start times are known, it
 * started at the same moment (else the pid was reused).
 */
export function isAlive(pid: number, start: string | undefined | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return start == null || start === thisProcess().start;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (start == null) return true;
  const now = processStartTime(pid);
  return now === undefined ? true : now === start;
}
