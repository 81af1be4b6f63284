/**
 * `npm run bench -- --distributed [--calls N] [--warmup N] [--latency-only]`: the distributed mode (docs/distributed.md) on
 * loopback, with a Redis server and workers started for the run:
 *   (1) a no-op call through caller, queue and `toolgate worker` (recorded, leased, decided,
 *       run, finished in a shared SQLite store) against a raw BullMQ round trip in the same
 *       run (add a job with the same options as ours, a worker in another process with the
 *       same worker options returns, the result awaited), both warmed alike (`--warmup`
 *       round trips each, interleaved) and sampled in alternating blocks: the ratio of the
 *       medians, target at most 1.5x;
 *   (2) throughput of a 50 ms tool with 1 and with 3 workers of one slot each, 12 calls in
 *       flight: target at least 2.7x with 3;
 *   (3) the store's cost per call (record, hold, claim, finish, check), SQLite and PostgreSQL
 *       (a server started for the run, as the tests do; skipped without its binaries).
 * Exit code 1 when a target is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { completedResult } from '../src/closeout/results.js';
import type { CallStore } from '../src/ledger/call-store.js';
import { openCallStore } from '../src/ledger/open-store.js';
import { Ledger } from '../src/ledger/store.js';
import { postgresForTests } from '../test/ledger/postgres-server.js';
import { QueueCaller } from '../src/distributed/queue-caller.js';
import { Cluster } from '../test/distributed/cluster.js';
import { redisMissing } from '../test/distributed/redis-server.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** CPU time a process used so far (user and system), in ms; `undefined` where `/proc` is missing (not Linux). */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** `sysconf(_SC_CLK_TCK)` on Linux. */
const CLOCK_TICKS = 100;

/** Start the raw BullMQ worker process and wait until it is ready. */
function rawWorker(url: string, queue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bench-raw-bullmq-worker.js', import.meta.url)), url, queue], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`the raw worker exited (${code})`)));
  });
}

/** Run the bench; @returns the exit code. */
export async function runDistributedBench(): Promise<number> {
  const missing = redisMissing();
  if (missing !== undefined) {
    process.stdout.write(`distributed bench skipped: ${missing}\n`);
    return 0;
  }
  const calls = option('calls', 300);
  const warmup = option('warmup', 200);
  const { Queue, QueueEvents } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const cluster = await Cluster.start();
  const lines: string[] = [];
  let pass = true;
  let raw: ChildProcess | undefined;
  const store = Ledger.open({ file: cluster.store });
  try {
    // (1) Latency: raw BullMQ round trip, then ours, alternating blocks of 50.
    raw = await rawWorker(cluster.redis.url, 'raw');
    const connection = new Redis(cluster.redis.url, { maxRetriesPerRequest: null });
    const rawQueue = new Queue('raw', { connection });
    const rawEvents = new QueueEvents('raw', { connection: new Redis(cluster.redis.url, { maxRetriesPerRequest: null }) });
    await rawEvents.waitUntilReady();
    const ourWorker = await cluster.worker('lat');
    const caller = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace, pool: 'lat' });
    const rawTimes: number[] = [];
    const ourTimes: number[] = [];
    // CPU per call of the caller (this process) and of the worker, ours and raw: a measure the
    // load of a shared machine stretches less than the latency.
    const cpu = { raw: { caller: 0, worker: 0 }, ours: { caller: 0, worker: 0 } };
    const charge = (into: { caller: number; worker: number }, worker: number, run: () => Promise<void>) => async () => {
      const caller0 = process.cpuUsage();
      const worker0 = cpuMs(worker);
      await run();
      const used = process.cpuUsage(caller0);
      into.caller += (used.user + used.system) / 1000;
      into.worker += (cpuMs(worker) ?? Number.NaN) - (worker0 ?? Number.NaN);
    };
    // The raw job's options are the ones toolgate's caller gives its jobs (`queue-caller.ts`
    // `addJob`): its own id, removed once it completed or failed, one attempt. (With
    // `removeOnComplete: 1000` and no id, as before, the raw side kept a growing completed set
    // and its jobs' hashes: a different, slower round trip than ours, so not the floor.)
    // Its end is awaited as ours is: a listener on the queue's events registered before the
    // add (`waitUntilFinished` cannot be used with `removeOnComplete: true`: a job that
    // completed before its first look is gone, "Missing key"; it also costs a look more).
    let rawN = 0;
    const rawWaiters = new Map<string, (failed?: string) => void>();
    rawEvents.on('completed', ({ jobId }) => rawWaiters.get(jobId)?.());
    rawEvents.on('failed', ({ jobId, failedReason }) => rawWaiters.get(jobId)?.(failedReason));
    const rawTrip = async () => {
      const jobId = `raw-${rawN++}`;
      const done = new Promise<void>((resolve, reject) => rawWaiters.set(jobId, (failed) => (failed === undefined ? resolve() : reject(new Error(failed)))));
      try {
        await rawQueue.add('x', {}, { jobId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
        await done;
      } finally {
        rawWaiters.delete(jobId);
      }
    };
    let n = 0;
    const ourTrip = async () => {
      const result = await caller.call({ name: 'do_nothing_main', arguments: { n: 1 }, callId: `lat-${n++}` }, { session: 'bench' });
      if (!result.success) throw new Error(`bench call failed: ${result.output}`);
    };
    // Warm-up: both sides alike, interleaved, long enough for the JIT to settle (the first
    // few hundred calls of a process run mostly unoptimized code on either side).
    for (let i = 0; i < warmup; i++) {
      await rawTrip();
      await ourTrip();
    }
    // Measured in alternating blocks (a load spike hits both sides alike).
    while (rawTimes.length < calls) {
      await charge(cpu.raw, raw.pid!, async () => {
        for (let i = 0; i < 25; i++) {
          const t0 = performance.now();
          await rawTrip();
          rawTimes.push(performance.now() - t0);
        }
      })();
      await charge(cpu.ours, ourWorker.pid, async () => {
        for (let i = 0; i < 25; i++) {
          const t0 = performance.now();
          await ourTrip();
          ourTimes.push(performance.now() - t0);
        }
      })();
    }
    const ratio = median(ourTimes) / median(rawTimes);
    pass &&= ratio <= 1.5;
    lines.push(`no-op call via caller/queue/worker: median ${median(ourTimes).toFixed(2)} ms vs raw BullMQ round trip ${median(rawTimes).toFixed(2)} ms = ${ratio.toFixed(2)}x (target <= 1.5x) ${ratio <= 1.5 ? 'PASS' : 'FAIL'}`);
    const per = (ms: number) => (ms / rawTimes.length).toFixed(2);
    if (!Number.isNaN(cpu.ours.worker)) lines.push(`  CPU per call (user+system, ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}): caller ${per(cpu.ours.caller)} vs raw ${per(cpu.raw.caller)}, worker ${per(cpu.ours.worker)} vs raw ${per(cpu.raw.worker)}`);
    await caller.close();
    await rawQueue.close();
    await rawEvents.close();
    connection.disconnect();

    if (process.argv.includes('--latency-only')) {
      process.stdout.write(`${lines.join('\n')}\n`);
      return pass ? 0 : 1;
    }
    // (2) Throughput of a 50 ms tool: 1 worker, then 3 (one slot each).
    const throughput = async (pool: string, workers: number): Promise<number> => {
      for (let i = 0; i < workers; i++) await cluster.worker(pool, ['--concurrency', '1']);
      const c = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace, pool });
      const total = workers * 60;
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 12 }, async () => {
        while (next < total) {
          const i = next++;
          await c.call({ name: 'append_call_id', arguments: { file: `${pool}.txt`, waitMs: 50 }, callId: `${pool}-${i}` }, { session: 'bench' });
        }
      }));
      const perSecond = total / ((performance.now() - t0) / 1000);
      await c.close();
      return perSecond;
    };
    const one = await throughput('one', 1);
    const three = await throughput('three', 3);
    const speedup = three / one;
    pass &&= speedup >= 2.7;
    lines.push(`50 ms tool: ${one.toFixed(1)} calls/s with 1 worker, ${three.toFixed(1)} with 3 = ${speedup.toFixed(2)}x (target >= 2.7x) ${speedup >= 2.7 ? 'PASS' : 'FAIL'}`);

    // (3) The store's cost per call: record, hold, claim, finish and read back, in one process.
    const storeCost = async (s: CallStore): Promise<number> => {
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) {
        const key = { callId: `cost-${i}`, session: 'cost' };
        await s.record({ ...key, tool: 'do_nothing_main', version: '1.0.0', arguments: {}, workspace: cluster.workspace, turn: '', pool: 'cost' });
        const hold = await s.takeLease(key, { owner: 'bench', renew: false });
        const run = await s.claimLease(key, { owner: 'bench', renew: false, token: hold!.token });
        await s.finish(key, { state: 'done', decisions: undefined, result: completedResult('', { tool: 'do_nothing_main', callId: key.callId }) }, { token: run!.token });
        await s.check(key);
      }
      return (performance.now() - t0) / calls;
    };
    const sqliteCost = await storeCost(store);
    const pg = await postgresForTests(import.meta.url);
    let pgText: string;
    if ('skip' in pg) pgText = `PostgreSQL skipped (${pg.skip})`;
    else {
      const pgStore = await openCallStore(pg.url);
      try {
        pgText = `PostgreSQL ${(await storeCost(pgStore)).toFixed(3)} ms`;
      } finally {
        await pgStore.close();
        await pg.stop();
      }
    }
    lines.push(`store cost per call (record, hold, claim, finish, check; one process, loopback): SQLite ${sqliteCost.toFixed(3)} ms, ${pgText}`);
  } finally {
    raw?.kill('SIGTERM');
    await store.close();
    await cluster.stop();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return pass ? 0 : 1;
}
