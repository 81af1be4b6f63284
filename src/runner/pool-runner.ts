/**
 * The pool runner: Piscina worker pools, one per memory cap, with timeouts that terminate the
 * worker running the call. The only module that imports piscina.
 *
 * Timeouts do not use Piscina's abort signals (an abortable task runs alone on its worker and
 * costs about 1.5x a plain run). Instead each call owns a slot in a shared `Int32Array`; the
 * worker writes its thread id there when it starts the call, and on timeout the main thread
 * reads it and terminates that worker. A call that has not started yet is marked cancelled,
 * and the worker skips it. Pools keep `minThreads = maxThreads`, so with two or more threads
 * a spare worker serves the next call while a terminated one is replaced.
 *
 * @module
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { CallWatch } from './call-watch.js';
import { appendToPreloadList, createPreloadList, type PreloadList } from './preload-list.js';
import { ToolgateOptionError } from '../errors.js';
import type { TruncationStrategy } from '../types.js';
import { SLOT_LOADING, SLOT_CANCELLED, SLOT_DONE, SLOT_FREE, type RunOutcome, type WorkerReply, type WorkerTask } from './protocol.js';

/** How many calls may be in flight in the pool runner at once (size of the shared call table). */
export const MAX_CALLS_IN_FLIGHT = 65_536;

/** How often a call that never started is moved to another worker after its worker died. */
const MAX_RESUBMITS = 3;

/** Options of {@link PoolRunner}. */
export interface PoolRunnerOptions {
  /** Worker threads per pool. Default: `max(2, os.availableParallelism())`. At least 2 keeps a spare. */
  poolSize?: number;
  /** Memory cap in MiB for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
  /**
   * Calls a worker holds at once (Piscina's `concurrentTasksPerWorker`). Default 2: the next
   * call is already on the worker when the current one ends, which nearly doubles throughput
   * under load, and async tools overlap on a worker. The cost: when a worker must be ended (a
   * timeout, an abort, a memory cap), a call that had started beside the culprit on that
   * worker is ended too (reported as `WORKER_CRASHED`, saying why); a call still waiting on it
   * never started and is moved to another worker. Calls go to idle workers first, so this only
   * happens when more calls are in flight than there are workers. Set 1 for strict isolation.
   */
  callsPerWorker?: number;
}

/** What the pool runner needs to know of a call. */
export interface PoolCall {
  moduleUrl: string;
  exportName: string;
  key: string;
  args: unknown;
  workspaceRoot: string;
  callId: string;
  memoryMb: number | undefined;
  /** Timeout in ms; `<= 0` for none. */
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Output cap in characters (`<= 0`: none), given to the tool as `ctx.maxOutputLength`. */
  maxOutputLength: number;
  /** Cut long string output in the worker (only when the output schema allows it). */
  cutInWorker: boolean;
  /** Folders writes are confined to (real paths), for scoped writes. */
  writeRoots: string[] | undefined;
  truncation: TruncationStrategy;
  /** Folder where a worker that cuts the output keeps the whole of it, if any. */
  fullOutputDir?: string | undefined;
}

/** The CommonJS shim in front of `worker.js` (see `worker-entry.cts` for why). */
const WORKER_URL = new URL('./worker-entry.cjs', import.meta.url).href;

/** Runs calls in worker threads. Call {@link PoolRunner.close} to end the workers. */
export class PoolRunner {
  private readonly pools = new Map<number, Piscina>();
  private readonly slotsBuffer = new SharedArrayBuffer(MAX_CALLS_IN_FLIGHT * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.slotsBuffer);
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly poolSize: number;
  private readonly defaultMemoryMb: number;
  /**
   * Per pool (memory cap): modules that have answered a call there, which new workers of that
   * pool import before taking calls. Per pool, since a module that fits one cap may not fit
   * a smaller one.
   */
  private readonly preloads = new Map<number, { list: PreloadList; known: Set<string> }>();
  private closed = false;
  /** Why recently terminated workers were ended, by thread id (for their other calls' results). */
  private readonly killed = new Map<number, string>();
  private readonly callsPerWorker: number;

  constructor(options: PoolRunnerOptions = {}) {
    const size = options.poolSize ?? Math.max(2, os.availableParallelism());
    if (!Number.isInteger(size) || size < 1 || size > 256) throw ToolgateOptionError.fromBadOption('poolSize', `must be an integer from 1 to 256; got ${size}`);
    const mem = options.defaultMemoryMb ?? 1024;
    if (!Number.isInteger(mem) || mem < 16) throw ToolgateOptionError.fromBadOption('defaultMemoryMb', `must be an integer >= 16; got ${mem}`);
    this.poolSize = size;
    this.defaultMemoryMb = mem;
    const per = options.callsPerWorker ?? 2;
    if (!Number.isInteger(per) || per < 1 || per > 64) throw ToolgateOptionError.fromBadOption('callsPerWorker', `must be an integer from 1 to 64; got ${per}`);
    this.callsPerWorker = per;
  }

  /** The pool for a memory cap, created on first use. */
  private poolFor(memoryMb: number | undefined): Piscina {
    const cap = memoryMb ?? this.defaultMemoryMb;
    let pool = this.pools.get(cap);
    if (pool === undefined) {
      const preload = { list: createPreloadList(), known: new Set<string>() };
      this.preloads.set(cap, preload);
      pool = new Piscina({
        filename: WORKER_URL,
        minThreads: this.poolSize,
        maxThreads: this.poolSize,
        idleTimeout: Infinity,
        concurrentTasksPerWorker: this.callsPerWorker,
        resourceLimits: { maxOldGenerationSizeMb: cap, maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(cap / 8))) },
        workerData: { slots: this.slotsBuffer, preload: preload.list },
      });
      // A worker that dies between calls (memory cap hit by a stray timer, say) is replaced by
      // Piscina; keep its 'error' event from becoming an uncaught exception of the host.
      pool.on('error', () => {});
      this.pools.set(cap, pool);
    }
    return pool;
  }

  private takeSlot(): number {
    const slot = this.freeSlots.length ? this.freeSlots.pop()! : this.nextSlot < MAX_CALLS_IN_FLIGHT ? this.nextSlot++ : -1;
    if (slot >= 0) this.slots[slot] = SLOT_FREE;
    return slot;
  }

  /** Start the default pool's workers now instead of on the first call. */
  warmUp(): void {
    this.poolFor(undefined);
  }

  /**
   * Run one call in a worker.
   * @returns how the call ended; never rejects.
   */
  run(call: PoolCall): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'unavailable', code: 'ABORTED', message: 'the executor is closed; no more calls run' });
    if (call.signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    const slot = this.takeSlot();
    if (slot < 0) {
      return Promise.resolve({ kind: 'unavailable', code: 'OVERLOADED', message: `more than ${MAX_CALLS_IN_FLIGHT} calls are in flight; retry later` });
    }
    const pool = this.poolFor(call.memoryMb);
    const task: WorkerTask = {
      m: call.moduleUrl, e: call.exportName, k: call.key, a: call.args, w: call.workspaceRoot, c: call.callId, s: slot,
      o: call.maxOutputLength, x: call.cutInWorker, t: call.truncation, r: call.writeRoots,
    };
    if (call.fullOutputDir !== undefined) task.f = call.fullOutputDir;
    if (call.timeoutMs > 0) task.d = Date.now() + call.timeoutMs;
    return new Promise<RunOutcome>((resolve) => {
      const watch = new CallWatch(resolve, call.signal);
      let attempts = 0;
      const stop = (outcome: RunOutcome) => {
        let state = Atomics.compareExchange(this.slots, slot, SLOT_FREE, SLOT_CANCELLED);
        if (state === SLOT_DONE) return; // finished just now; its reply is on the way
        if (state > 0 && state & SLOT_LOADING) {
          // Stuck loading its module: cancel it and end the worker (the load may never end).
          const before = Atomics.compareExchange(this.slots, slot, state, SLOT_CANCELLED);
          if (before === SLOT_DONE) return;
          state = before;
        }
        if (state > 0) this.terminate(pool, state & ~SLOT_LOADING, `another call (${call.key}) ${outcome.kind === 'timeout' ? 'timed out' : 'was aborted'}`);
        watch.settle(outcome);
      };
      const onReply = (reply: WorkerReply) => {
        this.freeSlots.push(slot);
        if ('cancelled' in reply) return;
        if (reply.ok || reply.loadFailed !== true) this.noteGoodModule(call.memoryMb, call.moduleUrl);
        if (reply.ok) {
          const { ok: _ok, notes, ...rest } = reply;
          watch.settle({ ...rest, kind: 'ok', notes: notes ?? [], cut: reply.cut === true });
        }
        else watch.settle({ kind: 'error', error: reply.error, notes: reply.notes ?? [] });
      };
      const onFailure = (error: unknown) => {
        const state = Atomics.load(this.slots, slot);
        const notStarted = state === SLOT_FREE || (state > 0 && (state & SLOT_LOADING) !== 0);
        if (notStarted && !watch.settled && !this.closed && attempts < MAX_RESUBMITS) {
          // The worker died before this call started (it was waiting behind another call on
          // that worker, or loading its module): nothing of it ran, so it is safe to run it on
          // another worker.
          Atomics.store(this.slots, slot, SLOT_FREE);
          submit();
          return;
        }
        this.freeSlots.push(slot);
        if (watch.settled) return;
        watch.settle(this.failureOutcome(error, state, call, attempts));
      };
      const submit = () => {
        attempts++;
        pool.run(task).then(onReply, onFailure);
      };
      if (!watch.watch(call.timeoutMs, () => stop({ kind: 'timeout', timeoutMs: call.timeoutMs }), () => stop({ kind: 'aborted' }))) {
        this.freeSlots.push(slot);
        return;
      }
      submit();
    });
  }

  /** Classify a rejected task: memory cap, a reply that cannot be sent, or a dead worker. */
  private failureOutcome(error: unknown, state: number, call: PoolCall, attempts: number): RunOutcome {
    const code = (error as { code?: unknown })?.code;
    const message = (error as Error)?.message ?? String(error);
    const running = state > 0 && (state & SLOT_LOADING) === 0;
    if (this.closed) {
      return running
        ? { kind: 'crashed', message: 'the executor was closed while it ran; it was interrupted and may have had partial effects' }
        : { kind: 'unavailable', code: 'ABORTED', message: 'the executor was closed before it started' };
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return { kind: 'memory', memoryMb: call.memoryMb ?? this.defaultMemoryMb, message };
    }
    if ((error as Error)?.name === 'DataCloneError' || (state === SLOT_DONE && !(error instanceof Error))) {
      // The call finished but its reply could not be cloned (Piscina then rejects with an
      // empty object): the value held functions, symbols or other uncloneable things.
      return { kind: 'invalid-output', message: 'its return value cannot be sent from the worker; return plain data: strings, numbers, booleans, arrays and plain objects' };
    }
    if (!running) {
      return { kind: 'crashed', message: `it never started: the workers given it exited ${attempts} times before they could run it (${message})` };
    }
    const why = this.killed.get(state);
    return {
      kind: 'crashed',
      message: why
        ? `its worker was ended because ${why}; this call was interrupted and may have had partial effects`
        : `the worker running it exited (${message})`,
    };
  }

  /** Remember that a module loads and answers in a pool, so that pool's new workers preload it. */
  private noteGoodModule(memoryMb: number | undefined, url: string): void {
    const preload = this.preloads.get(memoryMb ?? this.defaultMemoryMb);
    if (preload !== undefined && !preload.known.has(url)) appendToPreloadList(preload.list, [url], preload.known);
  }

  /** Terminate the worker with thread id `threadId`, remembering why for its other calls. */
  private terminate(pool: Piscina, threadId: number, why: string): void {
    const worker = pool.threads.find((w) => w.threadId === threadId);
    if (worker === undefined) return;
    this.killed.set(threadId, why);
    if (this.killed.size > 1024) this.killed.delete(this.killed.keys().next().value!);
    void worker.terminate();
  }

  /** End every worker. Calls in flight end as crashed. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy()));
  }
}
