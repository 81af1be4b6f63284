/**
 * The distributed soak (TOOLGATE_DIST_SOAK=1; `.ci/run` runs it): three workers and two caller
 * processes on loopback, 320 calls whose tool appends the call id to a marker file (every
 * seventh asks a person, answered by this process through the store), with random `kill -9`
 * of workers and callers while they work, one Redis restart (`kill -9`, AOF replayed) and, on
 * PostgreSQL (the default when its binaries are here), one `pg_ctl restart -m immediate` (down
 * for 3 s, while a worker is started). With TOOLGATE_DIST_SOAK_QUEUE=postgres, the queue is on
 * the store's PostgreSQL database too (`--queue postgres://`: one server; no Redis, so its
 * restart is the PostgreSQL one, which then stops the queue as well). At the end: no call
 * id twice in the marker file, every call ended, every question answered at most once and
 * none of an ended call left waiting, no process left. Prints the counts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { REPO_ROOT } from '../helpers.js';
import { Cluster, type WorkerProcess } from './cluster.js';
import { redisMissing } from './redis-server.js';

const SOAK = process.env.TOOLGATE_DIST_SOAK === '1';
const skip = redisMissing() ?? (SOAK ? undefined : 'set TOOLGATE_DIST_SOAK=1 to run the distributed soak');
const CALLER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'soak-caller.js');
const PER_CALLER = 160;
const PG_QUEUE = process.env.TOOLGATE_DIST_SOAK_QUEUE === 'postgres';

interface CallerProcess {
  child: ChildProcess;
  prefix: string;
  done: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

describe('distributed soak', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let store: CallStore;
  let pg: PgTestServer | undefined;
  const callers: CallerProcess[] = [];

  before(async () => {
    // On PostgreSQL (with one `pg_ctl restart -m immediate`) when its binaries are here (or
    // TOOLGATE_PG_URL names a server, then without the restart); on a SQLite file otherwise,
    // or with TOOLGATE_DIST_SOAK_SQLITE=1.
    const server = process.env.TOOLGATE_DIST_SOAK_SQLITE === '1' && !PG_QUEUE ? { skip: 'TOOLGATE_DIST_SOAK_SQLITE=1' } : await postgresForTests(import.meta.url, { restarts: true });
    pg = 'skip' in server ? undefined : server;
    if (pg === undefined) process.stdout.write(`# distributed soak on SQLite: ${(server as { skip: string }).skip}\n`);
    assert.ok(!PG_QUEUE || pg !== undefined, 'TOOLGATE_DIST_SOAK_QUEUE=postgres needs PostgreSQL');
    cluster = await Cluster.start(pg?.url, PG_QUEUE ? pg?.url : undefined);
    store = await openCallStore(cluster.store);
  });
  after(async () => {
    for (const caller of callers) if (alive(caller.child)) caller.child.kill('SIGKILL');
    await store?.close();
    await cluster?.stop();
    await pg?.stop();
  });

  function startCaller(prefix: string): CallerProcess {
    const child = spawn(process.execPath, [CALLER, cluster.store, cluster.queue, cluster.workspace, prefix, String(PER_CALLER), '6'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const caller: CallerProcess = { child, prefix, done: false };
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\ndone\n') || out.startsWith('done\n')) caller.done = true;
    });
    return caller;
  }

  it('runs every call once through kills of workers and callers, a Redis restart and a PostgreSQL restart', { timeout: 600_000 }, async () => {
    const counts = { workerKills: 0, callerKills: 0, redisRestarts: 0, pgRestarts: 0, answers: 0 };
    await Promise.all([cluster.worker(), cluster.worker(), cluster.worker()]);
    callers.push(startCaller('a'), startCaller('b'));
    let approving = true;
    const approver = (async () => {
      while (approving) {
        for (const question of await store.pendingApprovals().catch(() => [])) {
          if (question.answer !== undefined) continue;
          const counted = await store.answer(question.id, 'allow_once', 'soak').catch(() => undefined);
          if (counted?.first === true) counts.answers++;
        }
        await sleep(300);
      }
    })();
    // Chaos while the callers work (at least 40 s, at most 150 s): a kill every 1 to 3 s, a
    // caller first, then one Redis restart, then workers or callers at random.
    const chaosStart = Date.now();
    let step = 0;
    while (Date.now() - chaosStart < 40_000 || (!callers.every((c) => c.done) && Date.now() - chaosStart < 150_000)) {
      await sleep(1000 + Math.random() * 2000);
      step++;
      if (step === 3 && !PG_QUEUE) {
        await cluster.redis.restart();
        counts.redisRestarts++;
      } else if (step === 6 && pg?.own === true) {
        // Down for 3 s; a worker killed and another started meanwhile (it waits for the store).
        const restarting = pg.restartImmediate(3000);
        const live = cluster.workers.filter((w: WorkerProcess) => alive(w.child));
        if (live[0] !== undefined) {
          await cluster.kill(live[0]);
          counts.workerKills++;
        }
        await Promise.all([restarting, cluster.worker()]);
        counts.pgRestarts++;
      } else if (step !== 1 && Math.random() < 0.6) {
        const live = cluster.workers.filter((w: WorkerProcess) => alive(w.child));
        const victim = live[Math.floor(Math.random() * live.length)];
        if (victim !== undefined) {
          await cluster.kill(victim);
          counts.workerKills++;
          await cluster.worker();
        }
      } else {
        const index = Math.floor(Math.random() * callers.length);
        const victim = callers[index]!;
        if (alive(victim.child) && !victim.done) {
          victim.child.kill('SIGKILL');
          counts.callerKills++;
          await new Promise((resolve) => victim.child.once('exit', resolve));
          callers[index] = startCaller(victim.prefix);
        }
      }
    }
    // Calm: every caller finishes its list (a killed one is started again and retries its ids).
    const calmEnd = Date.now() + 300_000;
    while (!callers.every((c) => c.done)) {
      assert.ok(Date.now() < calmEnd, 'the callers finish within 5 minutes after the chaos');
      for (let i = 0; i < callers.length; i++) if (!callers[i]!.done && !alive(callers[i]!.child)) callers[i] = startCaller(callers[i]!.prefix);
      await sleep(500);
    }
    approving = false;
    await approver;

    const lines = cluster.marker('soak.txt').map((l) => l.split(' ')[0]!);
    const seen = new Map<string, number>();
    for (const id of lines) seen.set(id, (seen.get(id) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no call id twice in the marker file');
    const states: Record<string, number> = {};
    for (const prefix of ['a', 'b']) {
      for (let n = 0; n < PER_CALLER; n++) {
        const record = await store.get(`${prefix}-${n}`, 'soak');
        assert.ok(record !== undefined, `${prefix}-${n} recorded`);
        assert.ok(['done', 'failed', 'denied', 'interrupted'].includes(record.state), `${prefix}-${n} ended (${record.state})`);
        states[record.state] = (states[record.state] ?? 0) + 1;
      }
    }
    const waiting = (await store.pendingApprovals()).filter((q) => q.callState !== 'pending');
    assert.deepEqual(waiting, [], 'no question of an ended call left waiting');
    // No process left: the callers exited by themselves, the workers stop on SIGTERM.
    for (const caller of callers) if (alive(caller.child)) await new Promise((resolve) => caller.child.once('exit', resolve));
    assert.equal(await cluster.stopWorkers(), 0, 'every worker stops on SIGTERM');
    assert.ok(cluster.workers.every((w) => !alive(w.child)) && callers.every((c) => !alive(c.child)));
    process.stdout.write(`# distributed soak: ${2 * PER_CALLER} calls, ${JSON.stringify(states)}, marker lines ${lines.length}, `
      + `questions answered ${counts.answers}, worker kills ${counts.workerKills}, caller kills ${counts.callerKills}, redis restarts ${counts.redisRestarts}, PostgreSQL restarts ${counts.pgRestarts} (store: ${pg === undefined ? 'SQLite' : 'PostgreSQL'}, queue: ${PG_QUEUE ? 'PostgreSQL' : 'Redis'})\n`);
  });
});
