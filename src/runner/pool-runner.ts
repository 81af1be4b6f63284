/**
 * The pool runner: Piscina worker pools, one per memory cap, with timeouts that terminate the
 * worker running the call. The only module that imports piscina.
 *
 * Timeouts do not use Piscina's abort signals (an abortable task runs alone on its worker and
 * costs about 1.5x a plain run). Instead each call owns a slot in a shared `Int32Array`; the
 * worker writes its thread id there when it starts the call, and on timeout the main thread
 * reads it and terminates that worker. A call that has not started yet is marked cancelled,
 * and the worker skips it. Pools keep `minThreads = maxThreads`, so a spare worker serves the
 * next call while a terminated one is replaced.
 *
 * @module
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { DeadlineTimers, type Deadline } from './deadlines.js';
import { SLOT_CANCELLED, SLOT_DONE, SLOT_FREE, type RunOutcome, type WorkerReply, type WorkerTask } from './protocol.js';

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
   * Module URLs each new worker imports before it takes calls, so that the first call to a
   * tool on a fresh worker (after a timeout replaced one, say) does not pay for loading it.
   * Read when a pool is created. Default: none.
   */
  preload?: () => readonly string[];
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
}

/** Shared by every pool runner of the process. */
const DEADLINES = new DeadlineTimers();

const WORKER_URL = new URL('./worker.js', import.meta.url).href;

/** Runs calls in worker threads. Call {@link PoolRunner.close} to end the workers. */
export class PoolRunner {
  private readonly pools = new Map<number, Piscina>();
  private readonly slotsBuffer = new SharedArrayBuffer(MAX_CALLS_IN_FLIGHT * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.slotsBuffer);
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly poolSize: number;
  private readonly defaultMemoryMb: number;
  private readonly preload: (() => readonly string[]) | undefined;
  private closed = false;
  /** Why recently terminated workers were ended, by thread id (for their other calls' results). */
  private readonly killed = new Map<number, string>();
  private readonly callsPerWorker: number;

  constructor(options: PoolRunnerOptions = {}) {
    const size = options.poolSize ?? Math.max(2, os.availableParallelism());
    if (!Number.isInteger(size) || size < 1 || size > 256) throw new RangeError(`options.poolSize must be an integer from 1 to 256; got ${size}`);
    const mem = options.defaultMemoryMb ?? 1024;
    if (!Number.isInteger(mem) || mem < 16) throw new RangeError(`options.defaultMemoryMb must be an integer >= 16; got ${mem}`);
    this.poolSize = size;
    this.defaultMemoryMb = mem;
    this.preload = options.preload;
    const per = options.callsPerWorker ?? 2;
    if (!Number.isInteger(per) || per < 1 || per > 64) throw new RangeError(`options.callsPerWorker must be an integer from 1 to 64; got ${per}`);
    this.callsPerWorker = per;
  }

  /** The pool for a memory cap, created on first use. */
  private poolFor(memoryMb: number | undefined): Piscina {
    const cap = memoryMb ?? this.defaultMemoryMb;
    let pool = this.pools.get(cap);
    if (pool === undefined) {
      pool = new Piscina({
        filename: WORKER_URL,
        minThreads: this.poolSize,
        maxThreads: this.poolSize,
        idleTimeout: Infinity,
        concurrentTasksPerWorker: this.callsPerWorker,
        resourceLimits: { maxOldGenerationSizeMb: cap, maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(cap / 8))) },
        workerData: { slots: this.slotsBuffer, preload: [...new Set(this.preload?.() ?? [])] },
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
    if (this.closed) return Promise.resolve({ kind: 'crashed', message: 'the executor was closed' });
    const slot = this.takeSlot();
    if (slot < 0) return Promise.resolve({ kind: 'crashed', message: `more than ${MAX_CALLS_IN_FLIGHT} calls in flight; retry later` });
    const pool = this.poolFor(call.memoryMb);
    const task: WorkerTask = { m: call.moduleUrl, e: call.exportName, k: call.key, a: call.args, w: call.workspaceRoot, c: call.callId, s: slot };
    return new Promise<RunOutcome>((resolve) => {
      let settled = false;
      let deadline: Deadline | undefined;
      let attempts = 0;
      const settle = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        deadline?.cancel();
        if (call.signal !== undefined) call.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const stop = (outcome: RunOutcome) => {
        const state = Atomics.compareExchange(this.slots, slot, SLOT_FREE, SLOT_CANCELLED);
        if (state === SLOT_DONE) return; // finished just now; its reply is on the way
        if (state > 0) this.terminate(pool, state, `another call (${call.key}) ${outcome.kind === 'timeout' ? 'timed out' : 'was aborted'}`);
        settle(outcome);
      };
      const onAbort = () => stop({ kind: 'aborted' });
      const onReply = (reply: WorkerReply) => {
        this.freeSlots.push(slot);
        if ('cancelled' in reply) return;
        if (reply.ok) settle({ kind: 'ok', value: reply.value, notes: reply.notes ?? [] });
        else settle({ kind: 'error', error: reply.error, notes: reply.notes ?? [] });
      };
      const onFailure = (error: unknown) => {
        const state = Atomics.load(this.slots, slot);
        if (state === SLOT_FREE && !settled && !this.closed && attempts < MAX_RESUBMITS) {
          // The worker died before this call started (it was queued behind another call on
          // that worker): nothing of it ran, so it is safe to run it on another worker.
          submit();
          return;
        }
        this.freeSlots.push(slot);
        if (settled) return;
        const code = (error as { code?: unknown })?.code;
        if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
          settle({ kind: 'memory', memoryMb: call.memoryMb ?? this.defaultMemoryMb, message: (error as Error).message });
          return;
        }
        const why = state > 0 ? this.killed.get(state) : undefined;
        settle({
          kind: 'crashed',
          message: why
            ? `its worker was ended because ${why}; this call was interrupted and may have had partial effects`
            : `the worker running it exited (${(error as Error)?.message ?? String(error)})`,
        });
      };
      const submit = () => {
        attempts++;
        pool.run(task).then(onReply, onFailure);
      };
      if (call.timeoutMs > 0) deadline = DEADLINES.add(call.timeoutMs, () => stop({ kind: 'timeout', timeoutMs: call.timeoutMs }));
      if (call.signal !== undefined) {
        if (call.signal.aborted) {
          stop({ kind: 'aborted' });
          return;
        }
        call.signal.addEventListener('abort', onAbort, { once: true });
      }
      submit();
    });
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
