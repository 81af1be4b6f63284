/**
 * Test servers die with the test process that started them (`server-guard.ts`): a child test
 * process starts a Redis (`distributed/redis-server.ts`) and, where its binaries are here, a
 * PostgreSQL of its own (`ledger/postgres-server.ts`), and is killed with SIGKILL (no exit
 * hook runs; PostgreSQL runs in a session of its own): both servers and their folders must be
 * gone; so must the `toolgate worker` processes of its distributed cluster (`distributed/cluster.ts`,
 * which outlive their parent otherwise). A guard disarmed by its owner exits and kills nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { redisMissing } from './distributed/redis-server.js';
import { ServerGuard } from './server-guard.js';
import { textFrom, waitFor } from './wait.js';

const PG_BIN = process.env.TOOLGATE_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const HAS_PG = fs.existsSync(path.join(PG_BIN, 'pg_ctl'));

/** Whether process `pid` is running (a zombie counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('test servers die with their test process', () => {
  it('a test process killed with SIGKILL leaves no Redis or PostgreSQL running, and no folder of theirs', { skip: redisMissing() }, async () => {
    const here = new URL('.', import.meta.url).href;
    const script = `
      import { RedisServer } from ${JSON.stringify(`${here}distributed/redis-server.js`)};
      import { postgresForTests } from ${JSON.stringify(`${here}ledger/postgres-server.js`)};
      const redis = await RedisServer.start();
      const pg = ${HAS_PG} ? await postgresForTests(import.meta.url, { restarts: true }) : undefined;
      console.log(JSON.stringify({ redis: { pid: redis.pid, dir: redis.dir }, pg: pg && 'pid' in pg ? { pid: pg.pid } : undefined }));
      setInterval(() => {}, 1000);`;
    // Its own server, not the run's shared one or a given URL.
    const env = { ...process.env };
    for (const name of ['TOOLGATE_PG_URL', 'TOOLGATE_PG_TEST_DB', 'TOOLGATE_PG_TEST_SHARED']) delete env[name];
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const out = textFrom(owner.stdout!);
    const err = textFrom(owner.stderr!);
    let started: { redis: { pid: number; dir: string }; pg?: { pid: number } };
    try {
      const said = await out.waitFor(/\}\n/, 'the servers to start', 120_000).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${err.text()}`)));
      started = JSON.parse(said.trim().split('\n').pop()!) as typeof started;
    } finally {
      owner.kill('SIGKILL');
    }
    assert.ok(running(started.redis.pid), 'the Redis was running');
    assert.ok(fs.existsSync(started.redis.dir));
    const pgDir = started.pg === undefined ? undefined : path.dirname(fs.readlinkSync(`/proc/${started.pg.pid}/cwd`));
    if (started.pg !== undefined) assert.ok(running(started.pg.pid), 'the PostgreSQL was running');
    else assert.equal(HAS_PG, false, 'PostgreSQL is here: the owner started one');
    await waitFor(() => !running(started.redis.pid), { what: 'the Redis of the killed test process to be gone' });
    await waitFor(() => !fs.existsSync(started.redis.dir), { what: 'the Redis folder to be removed' });
    if (started.pg !== undefined) {
      await waitFor(() => !running(started.pg!.pid), { what: 'the PostgreSQL of the killed test process to be gone' });
      await waitFor(() => !fs.existsSync(pgDir!), { what: 'the PostgreSQL folder to be removed', seen: () => pgDir! });
    }
  });

  it('a test process killed with SIGKILL leaves no worker of its cluster running, and not its folder', { skip: redisMissing() }, async () => {
    const script = `
      import { Cluster } from ${JSON.stringify(new URL('./distributed/cluster.js', import.meta.url).href)};
      const cluster = await Cluster.start();
      const worker = await cluster.worker();
      console.log(JSON.stringify({ worker: worker.pid, redis: cluster.redis.pid, root: cluster.root }));
      setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = textFrom(owner.stdout!);
    const err = textFrom(owner.stderr!);
    let started: { worker: number; redis: number; root: string };
    try {
      const said = await out.waitFor(/\}\n/, 'the cluster to start', 120_000).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${err.text()}`)));
      started = JSON.parse(said.trim().split('\n').pop()!) as typeof started;
    } finally {
      owner.kill('SIGKILL');
    }
    assert.ok(running(started.worker), 'the worker was running');
    await waitFor(() => !running(started.worker), { what: 'the worker of the killed test process to be gone' });
    await waitFor(() => !running(started.redis), { what: 'the Redis of the killed test process to be gone' });
    await waitFor(() => !fs.existsSync(started.root), { what: 'the cluster folder to be removed' });
  });

  it('a guard disarmed by its owner exits and kills nothing', async () => {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    const guard = ServerGuard.start();
    try {
      guard.kill('server', sleeper.pid!);
      guard.disarm();
      await waitFor(() => !running(guard.pid!), { what: 'the disarmed guard to exit' });
      assert.ok(running(sleeper.pid!), 'what it watched runs on');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});
