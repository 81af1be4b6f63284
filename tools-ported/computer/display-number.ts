/**
 * A display number of the host for an unsandboxed Xvfb (computer_use under the `none`
 * profile), reserved the way X servers reserve theirs: the lock file `/tmp/.X<n>-lock` holding
 * the owner's pid as ten characters and a newline, made whole in a temporary file and linked
 * into place (a link fails when the name exists, so two reservations never both succeed, and no
 * reader ever sees a half-written lock).
 *
 * Why not Xvfb's own `-displayfd` pick: it takes no lock file in that mode, and two servers
 * started at once both took `:0` (one bound the socket, the other saw it refuse connections
 * while it was still being set up, removed it and bound its own), so two sessions' clients
 * reached one server. A number reserved here is also skipped by any X server that honours the
 * locks, and a number whose socket (`/tmp/.X11-unix/X<n>`) exists is skipped even without a
 * lock (a server that took none, or a socket left behind).
 *
 * Locks of toolgate processes that died (`kill -9`) are removed by the next start
 * ({@link sweepDisplayLock}), only while they still hold the dead pid.
 *
 * Dependency-free (Node's own modules).
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** X's folder for lock files and sockets: fixed by X, whatever `TMPDIR` says. */
const X_TMP = '/tmp';
/** The first number tried: lower ones are where a person's own X servers and SSH forwarding usually are. */
const FIRST_NUMBER = 32;
/** Numbers tried at most. */
const NUMBERS_TRIED = 1000;

/** A display number held for this process until {@link DisplayNumber.release}. */
export interface DisplayNumber {
  /** The number: `DISPLAY=:<number>`. */
  readonly number: number;
  /** Remove the lock, if it still holds this process's pid. Never throws. */
  release(): void;
}

function lockPath(n: number): string {
  return path.join(X_TMP, `.X${n}-lock`);
}

function socketPath(n: number): string {
  return path.join(X_TMP, '.X11-unix', `X${n}`);
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** The pid a lock file holds, or undefined when it cannot be read as one. */
function lockOwner(file: string): number | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return /^\s*(\d+)\n$/.test(text) ? Number(text.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/** Remove `n`'s lock when it still holds `pid`. */
function removeLockOf(n: number, pid: number): void {
  const file = lockPath(n);
  if (lockOwner(file) !== pid) return;
  try {
    fs.unlinkSync(file);
  } catch {
    // gone
  }
}

/**
 * Reserve a free display number, from {@link FIRST_NUMBER} upwards, skipping `skip`.
 * @throws Error when none of {@link NUMBERS_TRIED} numbers is free, or `/tmp` refuses the lock's
 *   temporary file (the message says which).
 */
export function reserveDisplayNumber(skip: ReadonlySet<number> = new Set()): DisplayNumber {
  const pid = process.pid;
  const temporary = path.join(X_TMP, `.toolgate-xlock-${pid}-${crypto.randomBytes(6).toString('hex')}`);
  fs.writeFileSync(temporary, `${String(pid).padStart(10)}\n`, { flag: 'wx', mode: 0o444 });
  try {
    for (let n = FIRST_NUMBER; n < FIRST_NUMBER + NUMBERS_TRIED; n += 1) {
      if (skip.has(n) || exists(socketPath(n))) continue;
      try {
        fs.linkSync(temporary, lockPath(n));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw error;
      }
      // A server that takes no lock may have bound the socket meanwhile.
      if (exists(socketPath(n))) {
        removeLockOf(n, pid);
        continue;
      }
      let held = true;
      return {
        number: n,
        release() {
          if (!held) return;
          held = false;
          removeLockOf(n, pid);
        },
      };
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  throw new Error(`no free X display number from :${FIRST_NUMBER} to :${FIRST_NUMBER + NUMBERS_TRIED - 1} (each has a lock file in ${X_TMP} or a socket in ${X_TMP}/.X11-unix)`);
}

/** Remove display `n`'s lock when it still holds `pid`, a process that is gone. Never throws. */
export function sweepDisplayLock(n: number, pid: number): void {
  removeLockOf(n, pid);
}
