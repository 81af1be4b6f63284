/**
 * The distributed mode from the command line and the SDK: `toolgate call --queue --store
 * --pool`, `toolgate trace` saying a call waits for a worker of its pool while none runs, and
 * `ToolSystem({ queue })`; on the Redis queue and on the PostgreSQL queue (`--queue postgres://`,
 * whose password shows in no output or log).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { ToolSystem } from 'toolgate';
import { BIN, REPO_ROOT, runCli } from '../helpers.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster, until } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();
const pg = skip === undefined ? await postgresForTests(import.meta.url) : { skip };

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`distributed mode from the CLI and the SDK (queue on ${kind})`, { skip: skip ?? (kind === 'PostgreSQL' && 'skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.start(undefined, kind === 'PostgreSQL' ? (pg as PgTestServer).url : undefined);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('a call queued while no worker of its pool runs waits, says so in trace, and runs once a worker starts', async () => {
    const child = spawn(process.execPath, [BIN, 'call', 'append_call_id', '{"file":"late.txt"}', '--call-id', 'cli-late', '--store', cluster.store,
      '--queue', cluster.queue, '--pool', 'late', '--workspace', cluster.workspace], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let trace = '';
    await until(async () => {
      trace = (await runCli(['trace', '--store', cluster.store, '--workspace', cluster.workspace])).stdout;
      return trace.includes('cli-late');
    }, 30_000, 'the call to be recorded');
    assert.match(trace, /cli-late .*pending \(waiting for a worker of pool late\)/);
    assert.equal(cluster.marker('late.txt').length, 0);
    await cluster.worker('late');
    assert.equal(await exited, 0);
    assert.equal(stdout.trim(), 'appended cli-late');
    assert.equal(cluster.marker('late.txt').length, 1);
    if (kind === 'PostgreSQL') {
      const { password } = pg as PgTestServer;
      for (const text of [stdout, stderr, trace, ...cluster.workers.map((w) => w.stderr)]) assert.ok(!text.includes(password), 'the queue\'s password is never shown');
    }
  });

  it('ToolSystem({ queue }) sends its calls to the pool and returns the stored result', async () => {
    const system = new ToolSystem({ workspace: cluster.workspace, builtins: false, queue: { url: cluster.queue, pool: 'late' }, executor: { ledger: { file: cluster.store } } });
    try {
      const result = await system.execute({ name: 'append_call_id', arguments: '{"file":"sdk.txt"}', callId: 'sdk-1' });
      assert.equal(result.success, true, result.output);
      assert.equal(result.output, 'appended sdk-1');
      assert.equal(cluster.marker('sdk.txt').length, 1);
    } finally {
      await system.close();
    }
  });

  it('refuses --queue without --store', async () => {
    const run = await runCli(['call', 'append_call_id', '{}', '--queue', cluster.queue, '--workspace', cluster.workspace]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--store/);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
