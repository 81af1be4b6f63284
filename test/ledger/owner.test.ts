/**
 * Whether a ledger owner process is alive (`src/ledger/owner.ts`), where `kill(pid, 0)` alone
 * is wrong (review finding of issue 16):
 * - a zombie (exited, not reaped by its parent) is dead, though signal 0 still reaches it;
 * - a live pid whose start time differs from the recorded one is another process (a reused
 *   pid, or one of another pid namespace);
 * - recovery marks a `running` call of a zombie owner `interrupted`.
 * The processes started here are killed and awaited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger } from 'toolgate';
import { isAlive, thisProcess } from '../../src/ledger/owner.js';
import { killChildren } from '../child-processes.js';

const children: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  await killChildren(children);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

const HAS_PROC = fs.existsSync(`/proc/${process.pid}/stat`);

/** Field 3 (state) and 22 (start time) of `/proc/<pid>/stat`. */
function stat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, start: rest[19]! };
  } catch {
    return undefined;
  }
}

/**
 * A zombie: `sh` starts a short `sleep` in the background, prints its pid, then becomes a long
 * `sleep` (exec) that never waits for it, so the short one stays unreaped once it exits.
 */
async function zombie(): Promise<{ pid: number; start: string }> {
  const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    parent.once('exit', () => reject(new Error('the zombie maker exited')));
  });
  const start = stat(pid)?.start;
  assert.ok(start, 'the child is readable while it runs');
  const deadline = Date.now() + 10_000;
  while (stat(pid)?.state !== 'Z') {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not become a zombie: ${JSON.stringify(stat(pid))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { pid, start };
}

describe('ledger owner liveness', { skip: HAS_PROC ? false : 'needs /proc (Linux)' }, () => {
  it('a zombie (exited, not reaped) is dead, though kill(pid, 0) still reaches it', async () => {
    const { pid, start } = await zombie();
    assert.doesNotThrow(() => process.kill(pid, 0), 'signal 0 reaches a zombie: the old check said alive');
    assert.equal(isAlive(pid, start), false);
    assert.equal(isAlive(pid, null), false, 'also when no start time was recorded');
  });

  it('a live pid with another start time than the recorded one is another process (a reused pid)', () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    const start = stat(child.pid!)!.start;
    assert.equal(isAlive(child.pid!, start), true);
    assert.equal(isAlive(child.pid!, String(Number(start) + 1)), false);
    assert.equal(isAlive(child.pid!, null), true, 'no recorded start time: the pid alone decides');
    assert.equal(isAlive(process.pid, thisProcess().start), true);
    assert.equal(isAlive(process.pid, '1'), false, 'this pid, another start: a process before this one');
  });

  it('recovery marks a running call of a zombie owner interrupted', async () => {
    const { pid, start } = await zombie();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-owner-'));
    folders.push(dir);
    const file = path.join(dir, 'ledger.sqlite');
    const ledger = Ledger.open({ file });
    const call = { callId: 'c1', session: 's', tool: 't', version: '1.0.0', arguments: {}, workspace: dir, turn: '' };
    assert.equal((await ledger.claim(call)), true);
    await ledger.close();
    // The call's owner becomes the zombie, as if it had claimed the call and then died.
    const db = new Database(file);
    db.prepare('UPDATE calls SET owner_pid = ?, owner_start = ?').run(pid, start);
    db.close();
    const reopened = Ledger.open({ file });
    try {
      assert.deepEqual(reopened.recovered.map((r) => r.callId), ['c1']);
      assert.equal((await reopened.get('c1', 's'))?.state, 'interrupted');
    } finally {
      await reopened.close();
    }
  });
});
