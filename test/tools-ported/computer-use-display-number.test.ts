/**
 * computer_use's unsandboxed displays (the `none` profile): each session's Xvfb is its own, on a
 * display number reserved with X's lock file (display-number.ts), and it starts without the
 * user's login shell. Before: Xvfb picked its number itself (`-displayfd`, which takes no lock),
 * and sessions starting at once were both given `:0`, one server for both; and it was started
 * through `bash -l`, so a profile that waited (a version manager's stale lock: 60 s) held every
 * unsandboxed start past its 15 s timeout.
 *
 * Needs Debian's xvfb and xprop (x11-utils); skipped where they are missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { findExecutable } from '../../src/internal.js';
import { reserveDisplayNumber, sweepDisplayLock } from '../../tools-ported/computer/display-number.js';
import { findXPrograms, VirtualDisplay } from '../../tools-ported/computer/virtual-display.js';
import { tempWorkspace } from '../helpers.js';
import { waitFor, wholeNumberIn } from '../wait.js';

const missing = ['Xvfb', 'xprop', 'xdotool', 'scrot'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : false;
const OFF = { profile: 'none', network: false } as const;

describe('reserveDisplayNumber', () => {
  it('holds a number with a lock in X format; a second reservation gets another; release removes only its own lock', () => {
    const a = reserveDisplayNumber();
    const b = reserveDisplayNumber();
    try {
      assert.notEqual(a.number, b.number);
      const lock = `/tmp/.X${a.number}-lock`;
      assert.equal(fs.readFileSync(lock, 'utf8'), `${String(process.pid).padStart(10)}\n`, 'the pid in ten characters and a newline, as X servers write and read it');
      a.release();
      assert.equal(fs.existsSync(lock), false);
      // A lock someone else wrote at a released number is theirs: a late release leaves it.
      fs.writeFileSync(lock, `${String(1).padStart(10)}\n`);
      a.release();
      assert.equal(fs.existsSync(lock), true);
      fs.rmSync(lock);
    } finally {
      a.release();
      b.release();
    }
  });

  it('skips a number with a lock file and one with only a socket (a server that takes no lock)', () => {
    const probe = reserveDisplayNumber();
    const n = probe.number;
    probe.release();
    const socketDir = '/tmp/.X11-unix';
    fs.mkdirSync(socketDir, { recursive: true, mode: 0o1777 });
    const socket = path.join(socketDir, `X${n + 1}`);
    fs.writeFileSync(`/tmp/.X${n}-lock`, `${String(1).padStart(10)}\n`);
    const socketWasThere = fs.existsSync(socket);
    if (!socketWasThere) fs.writeFileSync(socket, '');
    let got: ReturnType<typeof reserveDisplayNumber> | undefined;
    try {
      got = reserveDisplayNumber();
      assert.ok(got.number !== n && got.number !== n + 1, `took :${got.number}`);
    } finally {
      got?.release();
      fs.rmSync(`/tmp/.X${n}-lock`, { force: true });
      if (!socketWasThere) fs.rmSync(socket, { force: true });
    }
  });

  it('sweepDisplayLock removes a lock only while it holds the pid named', () => {
    const r = reserveDisplayNumber();
    try {
      sweepDisplayLock(r.number, process.pid + 1_000_000);
      assert.equal(fs.existsSync(`/tmp/.X${r.number}-lock`), true);
      sweepDisplayLock(r.number, process.pid);
      assert.equal(fs.existsSync(`/tmp/.X${r.number}-lock`), false);
    } finally {
      r.release();
    }
  });
});

describe('computer_use with the sandbox off: one server per display', { skip, concurrency: 1 }, () => {
  const homes: string[] = [];
  after(() => {
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  });

  it('four displays started at once have four numbers, and a root window property set through each is read back only from it', async () => {
    const t = tempWorkspace();
    const displays: VirtualDisplay[] = [];
    try {
      const started = await Promise.allSettled([1, 2, 3, 4].map(() => VirtualDisplay.start({ workspaceRoot: t.ws, sandbox: OFF, programs: findXPrograms() })));
      for (const s of started) if (s.status === 'fulfilled') displays.push(s.value);
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      assert.equal(new Set(displays.map((d) => d.display)).size, 4, displays.map((d) => d.display).join(' '));
      for (const [i, d] of displays.entries()) {
        const set = await d.run(['xprop', '-root', '-f', 'TOOLGATE_WHO', '8s', '-set', 'TOOLGATE_WHO', `display ${i}`]);
        assert.equal(set.code, 0, set.stderr);
      }
      for (const [i, d] of displays.entries()) {
        const got = await d.run(['xprop', '-root', 'TOOLGATE_WHO']);
        assert.equal(got.stdout.toString().trim(), `TOOLGATE_WHO(STRING) = "display ${i}"`, `${d.display}: ${got.stderr}`);
        assert.equal(fs.existsSync(`/tmp/.X${d.display.slice(1)}-lock`), true, 'its number is locked while it runs');
      }
    } finally {
      await Promise.all(displays.map((d) => d.stop()));
      t.cleanup();
    }
    for (const d of displays) assert.equal(fs.existsSync(`/tmp/.X${d.display.slice(1)}-lock`), false, `${d.display}'s lock is removed when it stops`);
  });

  it('starts while the login profile waits forever: Xvfb is not started through the login shell', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-display-home-'));
    homes.push(home);
    fs.writeFileSync(path.join(home, '.bash_profile'), 'sleep 600\n');
    const t = tempWorkspace();
    const saved = process.env.HOME;
    process.env.HOME = home;
    let display: VirtualDisplay | undefined;
    try {
      display = await VirtualDisplay.start({ workspaceRoot: t.ws, sandbox: OFF, programs: findXPrograms() });
      const info = await display.run(['xprop', '-root', '-f', 'TOOLGATE_PROBE', '8s', '-set', 'TOOLGATE_PROBE', 'up']);
      assert.equal(info.code, 0, info.stderr);
    } finally {
      process.env.HOME = saved;
      await display?.stop();
      t.cleanup();
    }
  });
});

describe('computer_use with the sandbox off: a start lost to another X server', () => {
  it('leaves nothing of the lost try running: its lifeline\'s process group is killed before the next number is tried', async () => {
    // A stand-in for Xvfb: the first run says another server has its display (as Xvfb does when
    // one that takes no lock bound the socket first) and exits; the next one starts.
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-fake-xvfb-'));
    const fake = path.join(state, 'Xvfb');
    fs.writeFileSync(fake, [
      '#!/bin/bash',
      `if [ ! -e '${state}/first' ]; then echo $$ > '${state}/first'; echo "_XSERVTransMakeAllCOTSServerListeners: server already running" >&2; exit 1; fi`,
      'echo "${1#:}"',
      'exec sleep 600',
      '',
    ].join('\n'), { mode: 0o755 });
    const t = tempWorkspace();
    let display: VirtualDisplay | undefined;
    try {
      display = await VirtualDisplay.start({ workspaceRoot: t.ws, sandbox: OFF, programs: { xvfb: fake, xdotool: 'xdotool', scrot: 'scrot' } });
      const first = wholeNumberIn(path.join(state, 'first'), { newline: true });
      assert.ok(first !== undefined, 'the first try ran');
      // Its group held the lifeline's watcher (reading descriptor 3 until this process ends).
      await waitFor(() => {
        try {
          process.kill(-first, 0);
          return false;
        } catch (error) {
          return (error as NodeJS.ErrnoException).code === 'ESRCH';
        }
      }, { what: `the process group ${first} of the lost try to be gone`, timeoutMs: 10_000 });
    } finally {
      await display?.stop();
      t.cleanup();
      fs.rmSync(state, { recursive: true, force: true });
    }
  });
});
