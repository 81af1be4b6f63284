// Nothing left behind (issue 14, item 4): toolgate's temporary names carry their owner, each
// owner journals the folders it made temporaries in, and the sweeps of
// src/workspace/leftovers.ts remove what a gone owner left, and nothing else. The writers
// themselves remove their temporary file when the call's signal aborts or its deadline passes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import { pinFolder } from '../../src/workspace/pinned-folder.js';
import { writeFileInside } from '../../src/workspace/safe-io.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { processGone, sweepOwner, sweepStale } from '../../src/workspace/leftovers.js';
import { journalFolder, noteTemporaryFolder, temporaryName } from '../../src/workspace/temp-names.js';
import { streamToFileInside } from '../../tools-ported/common/stream-inside.js';

// Everything of these tests stays in a folder of their own: journals and output folders too.
const tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-leftovers-'));
process.env.TMPDIR = tmpdir;

/** The pid of a process that has exited (spawned and waited for). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  assert.ok(child.pid !== undefined && processGone(child.pid, Date.now()), 'the child has exited');
  return child.pid;
}

const TEMP = /\.tmp$/;
const temporaries = (dir: string) => fs.readdirSync(dir).filter((n) => TEMP.test(n));

after(() => fs.rmSync(tmpdir, { recursive: true, force: true }));

describe('leftovers', () => {
  let ws: string;
  before(() => {
    ws = fs.mkdtempSync(path.join(tmpdir, 'ws-'));
  });

  it('names a temporary after its owner: .NAME.tg-<pid>-<threadId>.<12 hex>.tmp', () => {
    assert.match(temporaryName('notes.md'), new RegExp(`^\\.notes\\.md\\.tg-${process.pid}-${threadId}\\.[0-9a-f]{12}\\.tmp$`));
  });

  it('journals a folder once, 0600 in a 0700 folder of this user', async () => {
    const dir = fs.mkdtempSync(path.join(ws, 'j-'));
    const real = fs.realpathSync(ws);
    await noteTemporaryFolder(real, fs.realpathSync(dir));
    await noteTemporaryFolder(real, fs.realpathSync(dir));
    const journal = path.join(journalFolder(), `${process.pid}-${threadId}.list`);
    const lines = fs.readFileSync(journal, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.filter((l) => l === JSON.stringify([real, fs.realpathSync(dir)])).length, 1);
    assert.equal(fs.statSync(journal).mode & 0o777, 0o600);
    assert.equal(fs.statSync(journalFolder()).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.dirname(journalFolder())).mode & 0o777, 0o700);
  });

  it("sweepOwner removes that owner's temporaries and journal, never a user's file or another owner's", async () => {
    const pid = deadPid();
    const dir = fs.mkdtempSync(path.join(ws, 'owner-'));
    const real = fs.realpathSync(dir);
    const mine = [`.a.txt.tg-${pid}-3.0123456789ab.tmp`, `.b c.tg-${pid}-3.ba9876543210.tmp`];
    const others = [
      `.a.txt.tg-${pid}-4.0123456789ab.tmp`, // another thread of that process
      `.a.txt.tg-${pid}9-3.0123456789ab.tmp`, // another process
      `.a.txt.0123456789ab.tmp`, // the old naming, or a user's
      `a.txt.tg-${pid}-3.0123456789ab.tmp`, // not hidden
      `.a.txt.tg-${pid}-3.0123456789ab.tmp.keep`,
      'user.tmp',
    ];
    for (const name of [...mine, ...others]) fs.writeFileSync(path.join(dir, name), 'x');
    // A temporary folder (makeTemporaryFolder's) goes with what it holds; another owner's stays.
    fs.mkdirSync(path.join(dir, `.stage.tg-${pid}-3.0123456789ab.tmp`, 'inner'), { recursive: true });
    fs.writeFileSync(path.join(dir, `.stage.tg-${pid}-3.0123456789ab.tmp`, 'inner', 'part.txt'), 'x');
    fs.mkdirSync(path.join(dir, `.stage.tg-${pid}-4.0123456789ab.tmp`));
    fs.mkdirSync(journalFolder(), { recursive: true, mode: 0o700 });
    const journal = path.join(journalFolder(), `${pid}-3.list`);
    fs.writeFileSync(journal, `${JSON.stringify([fs.realpathSync(ws), real])}\n{"cut by a ki`, { mode: 0o600 });
    const report = await sweepOwner(pid, 3);
    assert.equal(report.temporaries, 3);
    assert.equal(report.journals, 1);
    assert.deepEqual(fs.readdirSync(dir).sort(), [...others, `.stage.tg-${pid}-4.0123456789ab.tmp`].sort());
    assert.equal(fs.existsSync(journal), false);
  });

  it('makeTemporaryFolder makes a private folder of the owner naming, journaled, which the sweep of that owner removes', async () => {
    const dir = fs.mkdtempSync(path.join(ws, 'stage-'));
    const { folder } = await pinFolder(new Workspace(ws), fs.realpathSync(dir), 'stage');
    let name: string;
    try {
      name = await folder.makeTemporaryFolder('toolgate-extract');
    } finally {
      await folder.close();
    }
    assert.match(name, new RegExp(`^\\.toolgate-extract\\.tg-${process.pid}-${threadId}\\.[0-9a-f]{12}\\.tmp$`));
    assert.equal(fs.statSync(path.join(dir, name)).mode & 0o777, 0o700);
    fs.writeFileSync(path.join(dir, name, 'half-extracted.txt'), 'x');
    // As the pool runner does once the thread that made it is gone (here: pretend it is).
    const report = await sweepOwner(process.pid, threadId);
    assert.ok(report.temporaries >= 1);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('sweepOwner does not follow a journaled folder that became a link to the outside', async () => {
    const pid = deadPid();
    const outside = fs.mkdtempSync(path.join(tmpdir, 'outside-'));
    const victim = path.join(outside, `.x.tg-${pid}-0.0123456789ab.tmp`);
    fs.writeFileSync(victim, 'not toolgate\'s to remove');
    const dir = path.join(fs.realpathSync(ws), 'swapped');
    fs.symlinkSync(outside, dir);
    fs.mkdirSync(journalFolder(), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(journalFolder(), `${pid}-0.list`), `${JSON.stringify([fs.realpathSync(ws), dir])}\n`);
    const report = await sweepOwner(pid);
    assert.equal(report.temporaries, 0);
    assert.equal(fs.existsSync(victim), true);
  });

  it('sweepStale removes journals, temporaries and output folders of gone processes only', async () => {
    const dead = deadPid();
    const dir = fs.mkdtempSync(path.join(ws, 'stale-'));
    const deadTemp = path.join(dir, `.f.tg-${dead}-0.00000000000a.tmp`);
    const liveTemp = path.join(dir, `.f.tg-${process.ppid}-0.00000000000b.tmp`);
    fs.writeFileSync(deadTemp, 'x');
    fs.writeFileSync(liveTemp, 'x');
    fs.mkdirSync(journalFolder(), { recursive: true, mode: 0o700 });
    const line = `${JSON.stringify([fs.realpathSync(ws), fs.realpathSync(dir)])}\n`;
    fs.writeFileSync(path.join(journalFolder(), `${dead}-0.list`), line);
    fs.writeFileSync(path.join(journalFolder(), `${process.ppid}-0.list`), line);
    const deadOutput = path.join(tmpdir, `toolgate-output-${dead}-0123456789ab`);
    const liveOutput = path.join(tmpdir, `toolgate-output-${process.ppid}-0123456789ab`);
    const misnamed = [`toolgate-output-${dead}-0123456789a`, `toolgate-output-${dead}-0123456789abc`, `toolgate-output-${dead}-0123456789aB`, `toolgate-outputs-${dead}-0123456789ab`];
    for (const folder of [deadOutput, liveOutput, ...misnamed.map((n) => path.join(tmpdir, n))]) {
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, 'call-m1.txt'), 'kept output');
    }
    const report = await sweepStale({ cgroupRoots: [] });
    assert.ok(report.temporaries >= 1 && report.journals >= 1 && report.outputFolders === 1, JSON.stringify(report));
    assert.equal(fs.existsSync(deadTemp), false);
    assert.equal(fs.existsSync(liveTemp), true, "a live process's temporary stays");
    assert.equal(fs.existsSync(path.join(journalFolder(), `${dead}-0.list`)), false);
    assert.equal(fs.existsSync(path.join(journalFolder(), `${process.ppid}-0.list`)), true);
    assert.equal(fs.existsSync(deadOutput), false);
    assert.equal(fs.existsSync(liveOutput), true);
    for (const name of misnamed) assert.equal(fs.existsSync(path.join(tmpdir, name)), true, `${name} is not of toolgate's naming`);
  });

  it('sweeps nothing through a journal folder that is a link or that others may write (planted by another user)', async () => {
    const planted = fs.mkdtempSync(path.join(tmpdir, 'planted-'));
    const victim = fs.mkdtempSync(path.join(tmpdir, 'victim-'));
    const dead = deadPid();
    fs.writeFileSync(path.join(victim, `${dead}-0.list`), 'not toolgate\'s\n');
    const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
    fs.mkdirSync(path.join(planted, `toolgate-${uid}`), { mode: 0o700 });
    fs.symlinkSync(victim, path.join(planted, `toolgate-${uid}`, 'temps'));
    await sweepStale({ tmpdir: planted, cgroupRoots: [] });
    await sweepOwner(dead, undefined, { tmpdir: planted });
    assert.equal(fs.existsSync(path.join(victim, `${dead}-0.list`)), true, 'the file the link leads to stays');
    fs.rmSync(path.join(planted, `toolgate-${uid}`, 'temps'));
    fs.mkdirSync(path.join(planted, `toolgate-${uid}`, 'temps'), { mode: 0o777 });
    fs.chmodSync(path.join(planted, `toolgate-${uid}`, 'temps'), 0o777);
    fs.writeFileSync(path.join(planted, `toolgate-${uid}`, 'temps', `${dead}-0.list`), 'x\n');
    await sweepStale({ tmpdir: planted, cgroupRoots: [] });
    assert.equal(fs.existsSync(path.join(planted, `toolgate-${uid}`, 'temps', `${dead}-0.list`)), true, 'a folder others may write is not trusted');
  });

  it("counts this process's own pid on something older than it as gone (a pid reused after a restart)", () => {
    assert.equal(processGone(process.pid, Date.now()), false);
    assert.equal(processGone(process.pid, Date.now() - process.uptime() * 1000 - 60_000), true);
    assert.equal(processGone(process.ppid, 0), false);
    assert.equal(processGone(0, 0), false);
  });

  it('counts a zombie as gone: an orphan nobody reaps (an init that does not, in many containers) writes nothing', async (t) => {
    // The forked child exits at once and stays a zombie: its parent (perl, from Debian's
    // essential perl-base) prints its pid and sleeps without ever waiting for it. (A shell
    // parent, `sleep 0 & exec sleep 30`, could reap the child before the exec under load.)
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork() // die; if ($pid == 0) { exit 0 } print "$pid\n"; sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    t.after(() => parent.kill('SIGKILL'));
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    const state = (): string => {
      const stat = fs.readFileSync(`/proc/${zombie}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    };
    for (let waited = 0; state() !== 'Z'; waited += 20) {
      assert.ok(waited < 10_000, 'the background sleep became a zombie');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(processGone(zombie, Date.now()), true);
    assert.equal(processGone(parent.pid!, Date.now()), false, 'its live parent is not gone');
  });

  it('sweepStale removes an empty pids cgroup of a gone process, and keeps others', async (t) => {
    // In a parent cgroup of this test's own (a name no sweep matches), so that the real
    // hierarchy's cgroups of other processes are not this test's business.
    const parent = path.join('/sys/fs/cgroup/pids', `toolgate-test-${process.pid}`);
    try {
      fs.mkdirSync(parent);
    } catch {
      t.skip('no writable pids cgroup hierarchy here');
      return;
    }
    const gone = path.join(parent, `toolgate-${deadPid()}-1`);
    const probe = path.join(parent, `toolgate-probe-${deadPid()}`);
    const live = path.join(parent, `toolgate-${process.ppid}-1`);
    const other = path.join(parent, `toolgate-x-${deadPid()}-1`);
    try {
      for (const dir of [gone, probe, live, other]) fs.mkdirSync(dir);
      const report = await sweepStale({ cgroupRoots: [parent], tmpdir: fs.mkdtempSync(path.join(tmpdir, 'empty-')) });
      assert.equal(report.cgroups, 2);
      assert.equal(fs.existsSync(gone), false);
      assert.equal(fs.existsSync(probe), false);
      assert.equal(fs.existsSync(live), true, "a live process's cgroup stays");
      assert.equal(fs.existsSync(other), true, 'not of toolgate\'s naming');
    } finally {
      for (const dir of [gone, probe, live, other, parent]) {
        try {
          fs.rmdirSync(dir);
        } catch {
          // already gone
        }
      }
    }
  });
});

describe('writers stop, and leave nothing, when the call is aborted or out of time', () => {
  let ws: string;
  let workspace: Workspace;
  before(() => {
    ws = fs.mkdtempSync(path.join(tmpdir, 'stop-'));
    workspace = new Workspace(ws);
  });

  it('writeFileInside: an abort in the middle of a 200 MiB write removes the temporary file', async () => {
    const controller = new AbortController();
    // Abort as soon as the temporary file exists (the write is under way).
    const watcher = fs.watch(ws, (_event, name) => {
      if (typeof name === 'string' && name.startsWith('.big.bin.tg-')) controller.abort();
    });
    try {
      await assert.rejects(writeFileInside(workspace, 'big.bin', new Uint8Array(200 * 1024 * 1024), { signal: controller.signal }), /stopped \(the call was aborted\); nothing was written/);
    } finally {
      watcher.close();
    }
    assert.equal(controller.signal.aborted, true, 'the abort came mid-write');
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('writeFileInside: a deadline already passed writes nothing', async () => {
    await assert.rejects(writeFileInside(workspace, 'late.txt', 'x', { deadline: Date.now() - 1 }), /ran out of time/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('replaceFile: a deadline that passes before the rename keeps the target as it was', async () => {
    fs.writeFileSync(path.join(ws, 'kept.txt'), 'old');
    const { folder } = await pinFolder(workspace, fs.realpathSync(ws), '.');
    try {
      const deadline = Date.now() + 50;
      await assert.rejects(
        folder.replaceFile('kept.txt', 'kept.txt', async (file) => {
          await file.write(Buffer.from('new'));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }, undefined, { deadline }),
        /ran out of time/,
      );
    } finally {
      await folder.close();
    }
    assert.equal(fs.readFileSync(path.join(ws, 'kept.txt'), 'utf8'), 'old');
    assert.deepEqual(temporaries(ws), []);
  });

  it('streamToFileInside: a deadline passing between chunks removes the temporary file', async () => {
    async function* slow(): AsyncIterable<Uint8Array> {
      yield new Uint8Array(1024);
      await new Promise((resolve) => setTimeout(resolve, 150));
      yield new Uint8Array(1024);
    }
    await assert.rejects(streamToFileInside(workspace, 'dl/file.bin', slow(), { maxBytes: 1 << 20, overwrite: false, deadline: Date.now() + 50 }), /ran out of time/);
    assert.equal(fs.existsSync(path.join(ws, 'dl')), false, 'the folder it made goes too');
    assert.deepEqual(temporaries(ws), []);
  });
});
