/**
 * The child `toolgate call` starts before its modules load: the process runner adopts it
 * (with the `ready` it said before anyone listened), a runner it does not fit starts its own
 * and the early one is killed, and one nobody adopts neither holds its host open nor outlives
 * it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { ToolExecutor } from 'toolgate';
import { processGone } from '../../src/workspace/leftovers.js';
// The same module (file URL) as SPAWN_CHILD below: one waiting child for both.
import { prestartedMessages } from '../../src/runner/process/spawn-child.js';
import { fixtureRegistry, REPO_ROOT } from '../helpers.js';
import { waitFor } from '../wait.js';

const SPAWN_CHILD = pathToFileURL(path.join(REPO_ROOT, 'dist/src/runner/process/spawn-child.js')).href;
const { prestartChild } = (await import(SPAWN_CHILD)) as typeof import('../../src/runner/process/spawn-child.js');

/** Wait (up to 10 s) for a process to be gone (a zombie is: an orphan's init may not reap it soon); false if it is still there. */
async function gone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (processGone(pid, Date.now())) return true;
    await sleep(50);
  }
  return false;
}

/** The process id an `answer_at_once` call ran in. */
function ranIn(output: unknown): number {
  return Number(/from (\d+)$/.exec(String(output))?.[1]);
}

const exitListeners = process.listenerCount('exit');

describe('the prestarted child', () => {
  test('a process runner of the default memory cap adopts it, with the ready it said before it was adopted', async () => {
    const pid = prestartChild();
    assert.ok(pid !== undefined && pid > 0);
    // It boots and says `ready` while no runner listens: wait for that (lost, the call below
    // would hang), not for a time that a loaded machine may outrun.
    await waitFor(() => prestartedMessages().includes('ready'), { what: 'the prestarted child to say ready before a runner adopts it', seen: () => JSON.stringify(prestartedMessages()) });
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1 });
    try {
      const result = await executor.execute({ name: 'answer_at_once', arguments: { text: 'adopted' } });
      assert.equal(result.success, true, result.error);
      assert.equal(ranIn(result.output), pid, String(result.output));
    } finally {
      await executor.close();
    }
    assert.ok(await gone(pid), 'the adopted child ends with its runner');
  });

  test('a runner of another memory cap starts its own child, and the early one is killed', async () => {
    const pid = prestartChild()!;
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1, defaultMemoryMb: 512 });
    try {
      const result = await executor.execute({ name: 'answer_at_once', arguments: { text: 'not adopted' } });
      assert.equal(result.success, true, result.error);
      assert.notEqual(ranIn(result.output), pid);
      assert.ok(await gone(pid), 'the unused early child is killed');
    } finally {
      await executor.close();
    }
  });

  test('starting and adopting one per call adds one exit listener per process, not one per child', async () => {
    const registry = await fixtureRegistry();
    for (let i = 0; i < 12; i++) {
      const pid = prestartChild();
      const executor = new ToolExecutor(registry, { poolSize: 1 });
      try {
        const result = await executor.execute({ name: 'answer_at_once', arguments: { text: 'x' } });
        assert.equal(ranIn(result.output), pid, String(result.output));
      } finally {
        await executor.close();
      }
    }
    assert.ok(process.listenerCount('exit') <= exitListeners + 2, `${process.listenerCount('exit')} exit listeners, ${exitListeners} before`);
  });

  test('one that died before it was adopted is replaced by the next start', async () => {
    const first = prestartChild()!;
    process.kill(first, 'SIGKILL');
    assert.ok(await gone(first));
    // The kernel has reaped it; Node's own 'exit' event for it comes after. Until then a start
    // gives the same pid again (it still waits): wait for the event, not for 100 ms that a
    // loaded machine can outrun.
    const second = await waitFor(() => {
      const pid = prestartChild();
      return pid !== first ? pid : undefined;
    }, { what: `a start after ${first} died to start a new child` });
    assert.notEqual(second, first);
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1 });
    try {
      const result = await executor.execute({ name: 'answer_at_once', arguments: { text: 'after a death' } });
      assert.equal(result.success, true, result.error);
      assert.equal(ranIn(result.output), second);
    } finally {
      await executor.close();
    }
  });

  test('one nobody adopts does not keep its host running, and ends with it', async () => {
    const host = spawn(process.execPath, ['--input-type=module', '-e', `const { prestartChild } = await import(${JSON.stringify(SPAWN_CHILD)}); console.log(prestartChild());`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    host.stdout.on('data', (chunk: Buffer) => (out += chunk));
    const code = await new Promise((resolve) => host.on('exit', resolve));
    assert.equal(code, 0);
    const pid = Number(out.trim());
    assert.ok(pid > 0, out);
    assert.ok(await gone(pid), `the early child ${pid} outlived its host`);
  });
});
