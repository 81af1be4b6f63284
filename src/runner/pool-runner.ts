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
import { SLOT_CANCELLED, SLOT_DONE, SLOT_FREE, type RunOutcome, type WorkerReply, type WorkerTask } from './protocol.js';

/** How many calls may be in flight in the pool runner at once (size of the shared call table). */
export const MAX_CALLS_IN_FLIGHT = 65_536;

/** Options of {@link PoolRunner}. */
export interface PoolRunnerOptions {
  /** Worker threads per pool. Default: `max(2, os.availableParallelism())`. At least 2 keeps a spare. */
  poolSize?: number;
  /** Memory cap in MiB for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
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
  private closed = false;

  constructor(options: PoolRunnerOptions = {}) {
    const size = options.poolSize ?? Math.max(2, os.availableParallelism());
    if (!Number.isInteger(size) || size < 1 || size > 256) throw new RangeError(`options.poolSize must be an integer from 1 to 256; got ${size}`);
    const mem = options.defaultMemoryMb ?? 1024;
    if (!Number.isInteger(mem) || mem < 16) throw new RangeError(`options.defaultMemoryMb must be an integer >= 16; got ${mem}`);
    this.poolSize = size;
    this.defaultMemoryMb = mem;
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
        resourceLimits: { maxOldGenerationSizeMb: cap, maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(cap / 8))) },
        workerData: { slots: this.slotsBuffer },
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
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        if (call.signal !== undefined) call.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const stop = (outcome: RunOutcome) => {
        const state = Atomics.compareExchange(this.slots, slot, SLOT_FREE, SLOT_CANCELLED);
        if (state === SLOT_DONE) return; // finished just now; its reply is on the way
        if (state > 0) {
          const worker = pool.threads.find((w) => w.threadId === state);
          void worker?.terminate();
        }
        settle(outcome);
      };
      const onAbort = () => stop({ kind: 'aborted' });
      if (call.timeoutMs > 0) timer = setTimeout(() => stop({ kind: 'timeout', timeoutMs: call.timeoutMs }), call.timeoutMs);
      if (call.signal !== undefined) {
        if (call.signal.aborted) {
          stop({ kind: 'aborted' });
        } else {
          call.signal.addEventListener('abort', onAbort, { once: true });
        }
      }
      pool.run(task).then(
        (reply: WorkerReply) => {
          this.freeSlots.push(slot);
          if ('cancelled' in reply) return;
          if (reply.ok) settle({ kind: 'ok', value: reply.value, notes: reply.notes ?? [] });
          else settle({ kind: 'error', error: reply.error, notes: reply.notes ?? [] });
        },
        (error: unknown) => {
          this.freeSlots.push(slot);
          const code = (error as { code?: unknown })?.code;
          if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
            settle({ kind: 'memory', memoryMb: call.memoryMb ?? this.defaultMemoryMb, message: (error as Error).message });
          } else {
            settle({ kind: 'crashed', message: (error as Error)?.message ?? String(error) });
          }
        },
      );
    });
  }

  /** End every worker. Calls in flight end as crashed. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy()));
  }
}
