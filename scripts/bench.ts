/**
 * `npm run bench`: per-call latency and throughput of the executor against baselines measured
 * in the same run, on the same machine:
 *   (a) a direct call of the tool's run method,
 *   (b) the executor with the main runner,
 *   (c) a raw Piscina round trip of a no-op task,
 *   (d) the executor with the pool runner,
 *   (e) a raw child-process round trip (Node's IPC, advanced serialization, a child that
 *       answers at once),
 *   (f) the executor with the process runner,
 * each executor call going through the full gate chain (mode gate in a read-only mode, a
 * policy hook, confirmation check) with a timeout set. Also the time from a timed-out call to
 * the next completed call (pool), and from a call killed at its memory cap to the next
 * completed call in the same group of child processes (process). Prints medians and the
 * ratios (d)/(c), (f)/(e) and (b)-(a). Last, the cost of one policy-file decision
 * (`bench-policy.ts`: 1,000 mixed calls against 50 rules), and the cost a durable ledger adds
 * to a call (`bench-ledger.ts`: main-runner calls with and without a store on local disk), and
 * whether a ledger at its call limit slows small calls (`bench-ledger-full.ts`: the p99 of
 * `read_file` through `toolgate mcp` with a full and an empty ledger, target <= 2x).
 *
 * Latency (c) is measured on the executor's own worker threads (`executor.ping()`: Piscina
 * runs a no-op export of the worker file, none of toolgate's call path). On a shared VM a
 * worker round trip is about 2.5x faster when the kernel happens to keep the worker on the
 * main thread's CPU than when it must wake another CPU, and that placement is fixed per pool
 * for a while; two separate pools are often in different modes, so their ratio says more
 * about the scheduler than about toolgate. A separate raw pool is still measured and printed
 * as (c2), with its own per-round ratios; throughput is compared with it and with (c'), a raw
 * pool holding two tasks per worker.
 *
 * Each round's fresh pools first serve --warm-calls sequential calls of each latency path,
 * uncounted: a new worker thread runs its code unoptimized until V8 has seen it run for a
 * while, and the target is about a pool in its steady state, not its first moments.
 *
 * Options: --rounds N (default 15; latency uses 4x and 20x as many shorter samples),
 * --workers N (default 2), --in-flight N (default 1000), --warm-calls N (default 1000).
 * `--startup [--runs N]` runs the start-up bench instead (`bench-startup.ts`);
 * `--ledger-full [--calls N]` runs only the full-ledger entry (`bench-ledger-full.ts`);
 * `--distributed [--calls N]` runs the distributed mode's bench (`bench-distributed.ts`);
 * `--covers [--calls N] [--sizes 1000,20000,100000]` runs the sandbox covers' bench
 * (`bench-covers.ts`: a shell command under a deny path rule vs none, by workspace size).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { loadTools, ToolExecutor, type ExecuteOptions } from '../src/index.js';
import { BenchNoopMainTool } from '../test/fixtures/bench.tool.js';
import { policyBenchLine } from './bench-policy.js';
import { ledgerBenchLine } from './bench-ledger.js';
import { runStartupBench, startupRequested } from './bench-startup.js';
import { fullLedgerBenchLine, fullLedgerRequested } from './bench-ledger-full.js';
import { coversRequested, runCoversBench } from './bench-covers.js';

// `--startup`: the start-up bench (bench-startup.ts) instead of the call path.
if (startupRequested()) {
  const code = await runStartupBench();
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

// `--covers`: the sandbox covers' bench (bench-covers.ts) instead of the call path.
if (coversRequested()) {
  const code = await runCoversBench();
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

// `--distributed`: the distributed mode's bench (bench-distributed.ts) instead of the call path.
if (process.argv.includes('--distributed')) {
  // Loaded only here: it starts Redis and workers with the test helpers.
  const { runDistributedBench } = await import('./bench-distributed.js');
  const code = await runDistributedBench();
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

// `--ledger-full`: only the full-ledger entry (bench-ledger-full.ts); exit 1 when it misses its target.
if (fullLedgerRequested()) {
  const { line, pass } = await fullLedgerBenchLine();
  await new Promise<void>((resolve) => process.stdout.write(line, () => resolve()));
  process.exit(pass ? 0 : 1);
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const ROUNDS = option('rounds', 15);
const WORKERS = option('workers', 2);
const IN_FLIGHT = option('in-flight', 1000);
const WARM_CALLS = option('warm-calls', 1000);

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One latency sample in µs per call: `batch` sequential calls. */
async function latencySample(fn: () => Promise<unknown>, batch: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < batch; i++) await fn();
  return ((performance.now() - t0) * 1000) / batch;
}

/** One throughput sample in calls/s: `IN_FLIGHT` calls started at once. */
async function throughputSample(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, fn));
  return IN_FLIGHT / ((performance.now() - t0) / 1000);
}

/**
 * Measure paths in interleaved rounds (a, b, a, b... with the order alternating), so that
 * the machine's noise falls on every path alike, and return each path's samples in order
 * (sample r of every path taken side by side).
 */
async function interleavedSamples(paths: Array<() => Promise<number>>, rounds = ROUNDS): Promise<number[][]> {
  const samples = paths.map(() => [] as number[]);
  for (const p of paths) await p(); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? paths.map((_, i) => i) : paths.map((_, i) => paths.length - 1 - i);
    for (const i of order) samples[i]!.push(await paths[i]!());
  }
  return samples;
}

/** {@link interleavedSamples}, and the median of each path. */
async function interleaved(paths: Array<() => Promise<number>>, rounds = ROUNDS): Promise<number[]> {
  return (await interleavedSamples(paths, rounds)).map(median);
}

/** Host CPU (user + system) in µs per call, summed over latency samples. */
class HostCpu {
  private micros = 0;
  private calls = 0;
  /** {@link latencySample}, with the host CPU it used added here. */
  sample(fn: () => Promise<unknown>, batch: number): Promise<number> {
    const before = process.cpuUsage();
    return latencySample(fn, batch).then((latency) => {
      const used = process.cpuUsage(before);
      this.micros += used.user + used.system;
      this.calls += batch;
      return latency;
    });
  }
  get perCall(): number {
    return this.micros / this.calls;
  }
}

const fixtures = new URL('../test/fixtures/', import.meta.url);
const { registry } = await loadTools({
  modules: [new URL('bench.tool.js', fixtures)],
  schemas: fileURLToPath(new URL('../../test/fixtures/tool-schemas.json', import.meta.url)),
});
const gated: ExecuteOptions = { mode: 'explore', timeoutMs: 30_000 };
const args = { n: 1 };
const newExecutor = () => new ToolExecutor(registry, { poolSize: WORKERS, policyHook: () => undefined });
const newRaw = (tasksPerWorker = 1) =>
  new Piscina({ filename: new URL('bench.tool.js', fixtures).href, minThreads: WORKERS, maxThreads: WORKERS, idleTimeout: Infinity, concurrentTasksPerWorker: tasksPerWorker });
const settle = () => new Promise((resolve) => setTimeout(resolve, 300)); // let new pools' threads start

/** `count` raw child processes answering IPC messages at once, called round robin. */
class RawChildren {
  private next = 0;
  private seq = 0;
  private readonly waiting = new Map<number, () => void>();

  private constructor(private readonly children: ChildProcess[]) {
    for (const child of children) {
      child.on('message', (message: unknown) => {
        if (!Array.isArray(message)) return;
        const done = this.waiting.get(message[0] as number);
        this.waiting.delete(message[0] as number);
        done?.();
      });
    }
  }

  static async start(count: number): Promise<RawChildren> {
    const children = Array.from({ length: count }, () => fork(fileURLToPath(new URL('./bench-raw-child.js', import.meta.url)), [], { serialization: 'advanced', execArgv: ['--max-old-space-size=64'] }));
    await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
    return new RawChildren(children);
  }

  /** One round trip: the same shape of message the process runner sends, answered at once. */
  readonly call = (): Promise<void> =>
    new Promise((resolve) => {
      const seq = ++this.seq;
      this.waiting.set(seq, resolve);
      const child = this.children[this.next++ % this.children.length]!;
      child.send([seq, { m: 'file:///bench', e: 'Bench', k: 'bench@1.0.0', o: 16000, x: true, t: 'head' }, args, `call-${seq}`, process.cwd(), Date.now() + 30_000]);
    });

  close(): void {
    for (const child of this.children) child.kill('SIGKILL');
  }
}

// (a) direct call and (b) the executor's main runner: no threads involved.
const executor = newExecutor();
const direct = new BenchNoopMainTool();
const directCall = () => Promise.resolve(direct.run(args));
const mainCall = () => executor.execute({ name: 'do_nothing_main', arguments: args }, gated);
for (const name of ['do_nothing', 'do_nothing_main']) {
  const r = await executor.execute({ name, arguments: args }, gated);
  if (!r.success) throw new Error(`bench call ${name} failed: ${r.error}`);
}
const [la, lb] = await interleaved([() => latencySample(directCall, 2_000), () => latencySample(mainCall, 2_000)], ROUNDS * 4 + 1);
const [ta, tb] = await interleaved([() => throughputSample(directCall), () => throughputSample(mainCall)]);

// (c) raw Piscina and (d) the executor's pool runner. A worker round trip on a shared 2-core
// machine is bimodal, and which mode a pool's threads fall into depends on where the
// scheduler puts them. So each round builds fresh pools, measures latency (c) on the
// executor's own threads, alternates short samples between the paths, and the result is the
// median over rounds.
const POOL_ROUNDS = Math.max(3, Math.round(ROUNDS / 2));
const latC: number[] = [];
const latC2: number[] = [];
const latD: number[] = [];
const thrC: number[] = [];
const thrD: number[] = [];
const thrC2: number[] = [];
// Round 0 warms up the pool path's code on the main thread and is not counted.
for (let round = 0; round <= POOL_ROUNDS; round++) {
  const raw = newRaw();
  const raw2 = newRaw(2); // (c') two tasks per worker, as the pool runner holds by default
  const pooled = newExecutor();
  pooled.warmUp();
  await settle();
  const pingCall = () => pooled.ping();
  const rawCall = () => raw.run(args);
  const raw2Call = () => raw2.run(args);
  const poolCall = () => pooled.execute({ name: 'do_nothing', arguments: args }, gated);
  // Let V8 optimize the fresh workers' code (uncounted), as in a pool that has been serving.
  for (const call of [pingCall, poolCall, rawCall]) await latencySample(call, WARM_CALLS);
  const [lc, ld, lc2] = await interleaved([() => latencySample(pingCall, 20), () => latencySample(poolCall, 20), () => latencySample(rawCall, 20)], 41);
  const [tc, td, tc2] = await interleaved([() => throughputSample(rawCall), () => throughputSample(poolCall), () => throughputSample(raw2Call)], 5);
  await Promise.all([raw.destroy(), raw2.destroy(), pooled.close()]);
  if (round === 0) continue;
  latC.push(lc!);
  latD.push(ld!);
  latC2.push(lc2!);
  thrC.push(tc!);
  thrD.push(td!);
  thrC2.push(tc2!);
}
const lat = { a: la!, b: lb!, c: median(latC), d: median(latD) };
const thr = { a: ta!, b: tb!, c: median(thrC), d: median(thrD) };
const tc2 = median(thrC2);
const rows: Array<[string, number, number]> = [];
rows.push(['(a) direct call of run()', lat.a, thr.a]);
rows.push(['(b) executor, main runner', lat.b, thr.b]);
rows.push(['(c) raw Piscina no-op, same threads', lat.c, Number.NaN]);
rows.push(['(c2) raw Piscina no-op, own pool', median(latC2), thr.c]);
rows.push(["(c') raw Piscina, 2 tasks per worker", Number.NaN, tc2]);
rows.push(['(d) executor, pool runner', lat.d, thr.d]);
const roundRatios = latC.map((c, i) => latD[i]! / c);
const separateRatios = latC2.map((c, i) => latD[i]! / c);
const perRound = roundRatios.map((r) => r.toFixed(2)).join(' ');
executor.warmUp();
await settle();
// Concurrent calls, so that every worker of the pool has loaded the tool (a pool that has
// served a while): the call after a timeout goes to another worker than the ended one.
await Promise.all(Array.from({ length: 64 }, () => executor.execute({ name: 'do_nothing', arguments: args }, gated)));

// Time from a timed-out call to the next completed call.
const afterTimeout: number[] = [];
for (let i = 0; i < 11; i++) {
  const r = await executor.execute({ name: 'spin_forever_pool', arguments: args }, { timeoutMs: 50 });
  if (r.errorCode !== 'TIMEOUT') throw new Error(`expected a timeout, got ${r.errorCode}`);
  const t0 = performance.now();
  const next = await executor.execute({ name: 'do_nothing', arguments: args }, gated);
  afterTimeout.push(performance.now() - t0);
  if (!next.success) throw new Error(`call after timeout failed: ${next.error}`);
  await new Promise((resolve) => setTimeout(resolve, 150)); // let the pool replace the worker
}

await executor.close();

// (e) raw child processes and (f) the process runner, alternated in each round, fresh each round.
// A round's children keep where the scheduler put them: on a busy shared VM some rounds' (f)
// runs 2x to 6x its usual time while (e), measured alternately beside it, does not move (per
// round, e.g. e 29-33 µs, f 31-35 µs in most rounds and 73-208 µs in three of eight), and in
// other rounds (e) is the slow one (single rounds read 0.45x to 2.8x with the runner's own
// child entry answering raw messages, none of toolgate's call path). So the section runs many
// short rounds: the ratio of a round is the median of its side-by-side pairs (f sample / e
// sample, 20 calls each, taken one after the other), and the line is the median over rounds.
// With 9 rounds and one ratio of medians per round the line read 1.11x to 1.41x at the same
// code. Resampling 30 rounds at load 10 (2026-12-05) gave the same centre either way (1.26x
// ratio of medians, 1.25x paired) and a 5-95% spread of 1.22x-1.31x for 9 rounds of the first
// and 1.22x-1.30x for 15 of the second: most of the run-to-run movement is the machine's load,
// not the estimator, hence the load and the host CPU lines. The memory-kill entry is taken in
// the first rounds only (each kill waits 400 ms for the replacement).
const PROCESS_ROUNDS = Math.max(3, ROUNDS);
const MEMORY_ROUNDS = Math.max(1, Math.round(PROCESS_ROUNDS / 3));
// The ratio rises with the machine's load: when host and child share a CPU, the runner's extra
// CPU per call adds to the round trip instead of hiding in the other CPU's wake-up. The same
// code (2026-12-05) measured 1.09x to 1.17x at load average 2 to 8 on 2 vCPUs, 1.15x to 1.32x
// at 11 to 12, and 1.75x to 3.25x with host and children pinned to one CPU. So the line
// prints the load average over the section, and a run on a busy machine reads as such; it also
// prints the host CPU each path used per call (process.cpuUsage over the latency samples),
// which the scheduler's placement does not move: what toolgate adds is that difference.
const loadBefore = loadavg()[0]!;
const latE: number[] = [];
const latF: number[] = [];
const thrE: number[] = [];
const thrF: number[] = [];
const afterMemory: number[] = [];
const processRatios: number[] = [];
const cpuE = new HostCpu();
const cpuF = new HostCpu();
for (let round = 0; round <= PROCESS_ROUNDS; round++) {
  const raw = await RawChildren.start(WORKERS);
  const processes = newExecutor();
  const processCall = () => processes.execute({ name: 'do_nothing_process', arguments: args }, gated);
  await Promise.all(Array.from({ length: WORKERS * 4 }, processCall)); // every child has loaded the tool
  for (const call of [processCall, raw.call]) await latencySample(call, WARM_CALLS);
  const counted = round > 0;
  const [se, sf] = await interleavedSamples([() => (counted ? cpuE.sample(raw.call, 20) : latencySample(raw.call, 20)), () => (counted ? cpuF.sample(processCall, 20) : latencySample(processCall, 20))], 41);
  const [te, tf] = await interleaved([() => throughputSample(raw.call), () => throughputSample(processCall)], 5);
  // Time from a memory-limit kill to the next completed call of the same group (a spare takes it).
  for (let i = 0; round <= MEMORY_ROUNDS && i < 3; i++) {
    const r = await processes.execute({ name: 'fill_heap_process', arguments: args }, gated);
    if (r.errorCode !== 'MEMORY_LIMIT') throw new Error(`expected MEMORY_LIMIT, got ${r.errorCode}: ${r.error}`);
    const t0 = performance.now();
    const next = await processCall();
    if (!next.success) throw new Error(`call after a memory kill failed: ${next.error}`);
    if (counted) afterMemory.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 400)); // let the group replace the child
  }
  raw.close();
  await processes.close();
  if (!counted) continue;
  latE.push(median(se!));
  latF.push(median(sf!));
  processRatios.push(median(sf!.map((f, i) => f / se![i]!)));
  thrE.push(te!);
  thrF.push(tf!);
}
rows.push(['(e) raw child process, IPC round trip', median(latE), median(thrE)]);
rows.push(['(f) executor, process runner', median(latF), median(thrF)]);
const processLoad = `load average ${loadBefore.toFixed(2)} to ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} CPUs`;

const fmt = (n: number, digits = 1) => n.toFixed(digits);
process.stdout.write(`toolgate bench: node ${process.version}, ${WORKERS} workers, ${IN_FLIGHT} calls in flight; medians of ${ROUNDS * 4 + 1} main-thread rounds and of ${POOL_ROUNDS} rounds with fresh pools\n\n`);
process.stdout.write(`${'path'.padEnd(38)}${'latency µs/call'.padStart(17)}${'throughput calls/s'.padStart(21)}\n`);
for (const [name, l, t] of rows) process.stdout.write(`${name.padEnd(38)}${(Number.isNaN(l) ? '-' : fmt(l, 2)).padStart(17)}${(Number.isNaN(t) ? '-' : fmt(t, 0)).padStart(21)}\n`);
const afterMs = median(afterTimeout);
process.stdout.write(`\n`);
process.stdout.write(`pool latency (d)/(c):       ${fmt(median(roundRatios), 2)}x   (target <= 1.2x; median of rounds: ${perRound})\n`);
process.stdout.write(`  against a separate pool:  ${fmt(median(separateRatios), 2)}x   (scheduler placement, not toolgate: ${separateRatios.map((r) => r.toFixed(2)).join(' ')})\n`);
process.stdout.write(`pool throughput (d)/(c2):   ${fmt(thr.d / thr.c, 2)}x   (target >= 1.0x; against (c') ${fmt(thr.d / tc2!, 2)}x)\n`);
process.stdout.write(`main overhead (b)-(a):      ${fmt(lat.b - lat.a, 2)} µs  (target <= 2 µs; ratio (b)/(a) ${fmt(lat.b / lat.a, 1)}x)\n`);
process.stdout.write(`next call after a timeout:  ${fmt(afterMs, 2)} ms  (target <= 5 ms)\n`);
process.stdout.write(`process latency (f)/(e):    ${fmt(median(processRatios), 2)}x   (target <= 1.3x; median of ${processRatios.length} rounds' paired ratios: ${processRatios.map((r) => r.toFixed(2)).join(' ')}; ${processLoad})\n`);
process.stdout.write(`  host CPU per call:        ${fmt(cpuF.perCall, 2)} µs (f), ${fmt(cpuE.perCall, 2)} µs (e): toolgate adds ${fmt(cpuF.perCall - cpuE.perCall, 2)} µs, ${fmt(cpuF.perCall / cpuE.perCall, 2)}x (no target; not moved by where the scheduler puts the children)\n`);
process.stdout.write(`process throughput (f)/(e): ${fmt(median(thrF) / median(thrE), 2)}x   (no target: raw children take calls back to back, the runner one at a time per child)\n`);
process.stdout.write(`next call after memory kill: ${fmt(median(afterMemory), 2)} ms  (target <= 50 ms, with a spare)\n`);
process.stdout.write(policyBenchLine());
process.stdout.write(await ledgerBenchLine());
process.stdout.write((await fullLedgerBenchLine()).line);
