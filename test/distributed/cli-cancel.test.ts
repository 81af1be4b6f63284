/**
 * Ctrl-C (or SIGTERM) in `toolgate call --queue` whose call is parked on a worker waiting for a
 * person's answer: the call is cancelled through the store and the cancel channel, ends
 * `ABORTED` (its question no longer waiting), never runs, and the command exits 130 (143)
 * at once. Before, the process sat until its timeout and the call stayed pending.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Ledger } from '../../src/ledger/store.js';
import { BIN, REPO_ROOT } from '../helpers.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();
const pg = skip === undefined ? await postgresForTests(import.meta.url) : { skip };

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`toolgate call --queue interrupted while its call waits for an answer (queue on ${kind})`, { skip: skip ?? (kind === 'PostgreSQL' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;

  before(async () => {
    cluster = await Cluster.start(undefined, kind === 'PostgreSQL' ? (pg as PgTestServer).url : undefined);
    await cluster.worker('asking', ['--concurrency', '1']);
    store = Ledger.open({ file: cluster.store });
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
  });

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} cancels the parked call: ABORTED, its question gone, never run, exit ${code}`, async () => {
      const callId = `cancel-${kind}-${signal}`;
      const child = spawn(process.execPath, [BIN, 'call', 'append_call_id_asking', `{"file":"${callId}.txt"}`, '--call-id', callId, '--store', cluster.store,
        '--queue', cluster.queue, '--pool', 'asking', '--workspace', cluster.workspace], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const closed = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
      try {
        await new Promise<void>((resolve, reject) => {
          child.stderr!.on('data', (d) => {
            stderr += d;
            if (stderr.includes('Ctrl-C cancels the call')) resolve();
          });
          child.once('close', () => reject(new Error(`exited before the notice: ${stderr}`)));
        });
        child.kill(signal);
        // Bounded so that a hang fails here instead of at the test runner's timeout (not a speed assertion).
        const exit = await Promise.race([closed, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000).unref())]);
        assert.equal(exit, code, stderr);
        assert.match(stderr, /cancel/i, stderr);
        const record = await store.get(callId, 'cli');
        assert.notEqual(record?.state, 'pending', 'the call ended');
        assert.equal(record?.errorCode, 'ABORTED', JSON.stringify(record));
        assert.equal((await store.pendingApprovals()).some((q) => q.callId === callId && q.answer === undefined), false, 'its question is no longer waiting');
        assert.equal(cluster.marker(`${callId}.txt`).length, 0, 'never ran');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await closed;
      }
    });
  }
});
}

describe('toolgate call --queue interrupted while a worker that does not stop holds its call', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: Ledger;

  before(async () => {
    cluster = await Cluster.start();
    // A lease far longer than the test: the call never ends interrupted meanwhile.
    await cluster.worker('stuck', ['--concurrency', '1', '--lease-ms', '600000']);
    store = Ledger.open({ file: cluster.store });
  });
  after(async () => {
    for (const worker of cluster?.workers ?? []) if (worker.child.exitCode === null) worker.child.kill('SIGCONT');
    await store?.close();
    await cluster?.stop();
  });

  it('the first Ctrl-C returns ABORTED after its grace, exit 130, the cancel still recorded', async () => {
    const callId = 'cancel-stuck';
    const child = spawn(process.execPath, [BIN, 'call', 'append_call_id', `{"file":"${callId}.txt","waitMs":600000}`, '--call-id', callId, '--store', cluster.store,
      '--queue', cluster.queue, '--pool', 'stuck', '--workspace', cluster.workspace], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const closed = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    try {
      const waitFor = async (what: string, check: () => boolean) => {
        for (const end = Date.now() + 30_000; !check(); await new Promise((r) => setTimeout(r, 50))) if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${output}`);
      };
      await waitFor('the call to run', () => cluster.marker(`${callId}.txt`).length === 1);
      // The worker stops answering (frozen), holding the call under its long lease.
      cluster.workers[0]!.child.kill('SIGSTOP');
      child.kill('SIGINT');
      // Bounded so that a hang fails here instead of at the test runner's timeout (not a speed assertion).
      const exit = await Promise.race([closed, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000).unref())]);
      assert.equal(exit, 130, output);
      assert.match(output, /has not stopped it yet/, output);
      const record = await store.get(callId, 'cli');
      assert.equal(record?.cancelRequested, true, 'the cancel request stays recorded');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await closed;
    }
  });
});

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
