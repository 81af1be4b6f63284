/**
 * The one `/proc` reader (`src/sandbox/proc.ts`): a live process, a zombie, a gone pid, and
 * this process's memory, cgroups and boot id, checked against real processes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { bootId, hasExited, isZombie, ownCgroups, procStat, residentBytes, signalReaches } from '../../src/sandbox/proc.js';

describe('the /proc reader', { skip: process.platform === 'linux' ? false : 'Linux only' }, () => {
  test('this process: running, a start time, some resident memory; a pid that is gone: unknown, unreachable', () => {
    const self = procStat(process.pid);
    assert.ok(self !== undefined && !hasExited(self));
    assert.match(self.start ?? '', /^\d+$/);
    assert.ok(residentBytes(process.pid) > 1024 * 1024);
    assert.equal(signalReaches(process.pid), true);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    assert.equal(procStat(gone), undefined);
    assert.equal(residentBytes(gone), 0);
    assert.equal(signalReaches(gone), false);
    assert.equal(isZombie(gone), false);
  });

  test('a child that exited and is not reaped yet is a zombie, though signal 0 still reaches it', async () => {
    // `sh` forks `true` and execs into a sleep: the `true` it never waits for stays a zombie.
    const parent = spawn('sh', ['-c', 'true & exec sleep 5'], { stdio: 'ignore' });
    try {
      let zombie: number | undefined;
      const deadline = Date.now() + 5000;
      while (zombie === undefined && Date.now() < deadline) {
        const children = spawnSync('ps', ['-o', 'pid=,stat=', '--ppid', String(parent.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
        zombie = children.map((l) => l.trim().split(/\s+/)).find(([, stat]) => stat!.startsWith('Z'))?.map(Number)[0];
        if (zombie === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(zombie !== undefined, 'a zombie child appeared');
      assert.equal(isZombie(zombie), true);
      assert.equal(signalReaches(zombie), true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  test('this process\'s cgroups are read from /proc/self/cgroup', () => {
    const found = ownCgroups();
    assert.ok(found.unified !== undefined || found.pidsV1 !== undefined, JSON.stringify(found));
    for (const value of Object.values(found)) assert.match(value, /^\//);
  });

  test('the boot id is the kernel\'s, its first 8 hex digits; the ledger\'s host id carries it', async () => {
    const kernel = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').replace(/-/g, '').trim().slice(0, 8);
    assert.match(bootId(), /^[0-9a-f]{8}$/);
    assert.equal(bootId(), kernel);
    const { hostId } = await import('../../src/ledger/owner.js');
    assert.ok(hostId().endsWith(`/${kernel}`), hostId());
  });
});
