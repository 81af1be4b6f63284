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
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { BroadcastChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { StoppableCall } from '../call-watch.js';
import { deadlineOf, type RunnableTool, type Runner, type RunOutcome, type RunRequest } from '../runner.js';
import { sweepOwner } from '../../workspace/leftovers.js';
import { appendLines, createSharedLines, type SharedLines } from './shared-lines.js';
import { ToolgateOptionError } from '../../errors/errors.js';
import { sizingOf } from '../sizing.js';
import { answerClientMessage, clientMethods, isClientMessage } from '../client-relay.js';
import type { ToolClient } from '../../types/tool.js';
import { SLOT_LOADING, SLOT_CANCELLED, SLOT_DONE, SLOT_FREE, threadOf, type ToolEntry, type WorkerReply, type WorkerTask } from './protocol.js';

/** Longest wait, in ms, for a finished call's last client messages (its worker's end marker). */
const CLIENT_END_WAIT_MS = 1000;

/** How many calls may be in flight in the pool runner at once (size of the shared call table). */
export const MAX_CALLS_IN_FLIGHT = 65_536;

/** How often a call that never started is moved to another worker after its worker died. */
const MAX_RESUBMITS = 3;

/** Room for the shared tool table, in bytes (a few thousand tools; later ones are sent whole). */
const TOOL_TABLE_BYTES = 1024 * 1024;
/** Largest tool table accepted (its length header is a 32-bit integer). */
const MAX_TOOL_TABLE_BYTES = 256 * 1024 * 1024;
/** Room for the list of modules new workers preload, in bytes (about a thousand modules). */
const PRELOAD_LIST_BYTES = 256 * 1024;

/** Notes of a call that made none (shared; never written to). */
const NO_NOTES: readonly string[] = Object.freeze([]);

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
  /**
   * Bytes of shared memory for the tool table (tasks name their tool by index there; one line
   * of about 150 bytes per distinct tool entry). Default 1 MiB, at most 256 MiB; tools past a
   * full table are sent whole with every call.
   */
  toolTableBytes?: number;
}

/** Per tool: how tasks name it, and whether its pool's new workers preload its module yet. */
interface ToolRecord {
  ref: number | ToolEntry;
  preloaded: boolean;
}

/** The CommonJS shim in front of `worker.js` (see `worker-entry.cts` for why). */
const WORKER_URL = new URL('./worker-entry.cjs', import.meta.url).href;

/** Runs calls in worker threads. Call {@link PoolRunner.close} to end the workers. */
export class PoolRunner implements Runner {
  readonly kind = 'pool';
  private readonly pools = new Map<number, Piscina>();
  private readonly slotsBuffer = new SharedArrayBuffer(MAX_CALLS_IN_FLIGHT * Int32Array.BYTES_PER_ELEMENT);
  /** @internal the shared call table: per call slot, its state (`SLOT_*`, or the thread id running it). */
  readonly slots = new Int32Array(this.slotsBuffer);
  private readonly freeSlots: number[] = [];
  /** @internal per slot, the call holding it (to name a crashed worker's other calls). */
  readonly calls: Array<PoolCallRun | undefined> = [];
  /** Per crashed worker (thread id), its calls as they were when the first of them failed. */
  private readonly crashes = new Map<number, Array<{ callId: string; done: boolean }>>();
  private nextSlot = 0;
  private readonly poolSize: number;
  private readonly defaultMemoryMb: number;
  /**
   * Per pool (memory cap): modules that have answered a call there, which new workers of that
   * pool import before taking calls. Per pool, since a module that fits one cap may not fit
   * a smaller one.
   */
  private readonly preloads = new Map<number, { list: SharedLines; known: Set<string> }>();
  /**
   * The tool table shared with every worker: a task names its tool by index here instead of
   * carrying module URL, export name and output settings on every call.
   */
  private readonly toolTable: SharedLines;
  /** Per registered tool, its record; registered tools with the same entry share one index. */
  private readonly tools = new WeakMap<RunnableTool, ToolRecord>();
  /**
   * Table index by entry (its JSON line), so re-registering a tool does not grow the table.
   * Every appended line is here once, so its size is the next index.
   */
  private readonly toolIndexes = new Map<string, number>();
  private closed = false;
  /** Name of this runner's channel for calls' client messages (`ctx.progress` and the like). */
  private readonly channelName = `toolgate-pool-client-${process.pid}-${crypto.randomUUID()}`;
  /** The channel, opened by the first call with a client. */
  private channel: BroadcastChannel | undefined;
  /** Calls with a client, by their key on the channel. */
  private readonly listeners = new Map<string, { client: ToolClient; tool: string; done: AbortController; end(): void }>();
  /** Why recently terminated workers were ended, by thread id (for their other calls' results). */
  private readonly killed = new Map<number, string>();
  private readonly callsPerWorker: number;

  constructor(options: PoolRunnerOptions = {}) {
    const { size, memoryMb } = sizingOf(options);
    this.poolSize = size;
    this.defaultMemoryMb = memoryMb;
    const per = options.callsPerWorker ?? 2;
    if (!Number.isInteger(per) || per < 1 || per > 64) throw ToolgateOptionError.fromBadOption('callsPerWorker', `must be an integer from 1 to 64; got ${per}`);
    this.callsPerWorker = per;
    const tableBytes = options.toolTableBytes ?? TOOL_TABLE_BYTES;
    if (!Number.isInteger(tableBytes) || tableBytes < 0 || tableBytes > MAX_TOOL_TABLE_BYTES) {
      throw ToolgateOptionError.fromBadOption('toolTableBytes', `must be an integer from 0 to ${MAX_TOOL_TABLE_BYTES}; got ${tableBytes}`);
    }
    this.toolTable = createSharedLines(tableBytes);
  }

  /** The pool for a memory cap, created on first use. */
  private poolFor(memoryMb: number | undefined): Piscina {
    const cap = memoryMb ?? this.defaultMemoryMb;
    let pool = this.pools.get(cap);
    if (pool === undefined) {
      const preload = { list: createSharedLines(PRELOAD_LIST_BYTES), known: new Set<string>() };
      this.preloads.set(cap, preload);
      // piscina (CommonJS) loads with the first pool: a process that runs no pool tool never loads it.
      const { Piscina: Pool } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
      pool = new Pool({
        filename: WORKER_URL,
        minThreads: this.poolSize,
        maxThreads: this.poolSize,
        idleTimeout: Infinity,
        concurrentTasksPerWorker: this.callsPerWorker,
        resourceLimits: { maxOldGenerationSizeMb: cap, maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(cap / 8))) },
        workerData: { slots: this.slotsBuffer, preload: preload.list, tools: this.toolTable, channel: this.channelName },
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

  /** Start the pool's workers now instead of on the first call: `tool`'s memory cap's pool, else the default one. */
  warmUp(tool?: RunnableTool): void {
    this.poolFor(tool?.memoryMb);
  }

  /**
   * Run one call in a worker.
   * @returns how the call ended; never rejects.
   */
  run(call: RunRequest, signal: AbortSignal | undefined): Promise<RunOutcome> {
    return this.runThen(call, signal, sameOutcome);
  }

  /**
   * {@link run}, with `then` applied to the outcome (and the request, as given) inside the same promise turn: the pool
   * call path is a bench target, and a `.then` of the caller costs a turn on caches the
   * worker round trip has just cooled.
   * @returns `then(outcome, request)`; rejects with what `then` throws.
   */
  runThen<T>(call: RunRequest, signal: AbortSignal | undefined, then: (outcome: RunOutcome, request: RunRequest) => T): Promise<T> {
    if (this.closed) return settled({ kind: 'unavailable', code: 'ABORTED', message: 'the executor is closed; no more calls run' }, call, then);
    if (signal?.aborted) return settled({ kind: 'aborted' }, call, then);
    const { tool } = call;
    if (tool.moduleUrl === undefined) {
      // Registration refuses pool tools without a module URL; a hand-made request may still lack one.
      return settled({ kind: 'error', error: { name: 'Error', message: `${tool.key} has no module URL; only tools loaded from a module run in the pool` }, notes: NO_NOTES }, call, then);
    }
    const record = this.recordOf(tool);
    const slot = this.takeSlot();
    if (slot < 0) {
      return settled({ kind: 'unavailable', code: 'OVERLOADED', message: `more than ${MAX_CALLS_IN_FLIGHT} calls are in flight; retry later` }, call, then);
    }
    const pool = this.poolFor(tool.memoryMb);
    const task: WorkerTask = [record.ref, call.args, call.callId, slot, call.workspaceRoot, deadlineOf(call) ?? 0];
    const methods = clientMethods(call.client);
    const filtered = call.pathFilter !== undefined;
    const more = call.traceparent !== undefined || methods !== 0 || filtered;
    if (call.writeRoots !== undefined || call.fullOutputDir !== undefined || more) task.push(call.writeRoots);
    if (call.fullOutputDir !== undefined || more) task.push(call.fullOutputDir);
    if (more) task.push(call.traceparent);
    const listening = methods === 0 ? undefined : this.listen(`${slot}:${call.callId}`, call);
    if (methods !== 0 || filtered) task.push(methods === 0 ? undefined : methods);
    if (filtered) task.push(call.pathFilter);
    return new Promise<T>((resolve, reject) => {
      const finish = (outcome: RunOutcome) => {
        let value: T;
        try {
          value = then(outcome, call);
        } catch (error) {
          reject(error);
          return;
        }
        resolve(value);
      };
      // A call with a client: its last progress and log messages travel on the channel, not
      // with the reply, so the reply waits for the worker's end marker (briefly: a worker that
      // died sends none).
      const run = new PoolCallRun(this, pool, call, signal, record, slot, task, listening === undefined ? finish : (outcome) => {
        const waited = outcome.kind === 'ok' || outcome.kind === 'error' ? listening.ended() : Promise.resolve();
        void waited.then(() => {
          listening.release();
          finish(outcome);
        });
      });
      // Send first: arming the deadline then overlaps with the worker waking up. Nothing can
      // settle the call before this function returns (the signal was checked above). The
      // deadline keeps the process alive: a task stranded in Piscina's queue (its workers
      // failing at start-up) holds nothing else that would.
      this.calls[slot] = run;
      run.submit();
      run.watch(call.timeoutMs, call.timeoutFrom, call);
    });
  }

  /**
   * Take the `ctx.progress`/`log`/`elicit`/`sample` messages of the call `key` from the pool's
   * channel and answer them with the call's client, until the returned function is called
   * (the call ended; an elicitation still open is aborted).
   */
  private listen(key: string, call: RunRequest): { ended(): Promise<void>; release(): void } {
    if (this.channel === undefined) {
      const channel = new BroadcastChannel(this.channelName);
      channel.unref();
      channel.onmessage = (event) => {
        const message = (event as MessageEvent).data as unknown;
        if (!isClientMessage(message)) return;
        const listener = this.listeners.get(message[0]);
        if (listener === undefined) return;
        if (message[1] === 'end') {
          listener.end();
          return;
        }
        void answerClientMessage(listener.client, message, listener.tool, listener.done.signal).then((reply) => {
          if (reply !== undefined && this.listeners.get(message[0]) === listener) this.channel?.postMessage(reply);
        });
      };
      this.channel = channel;
    }
    let end!: () => void;
    const endMarker = new Promise<void>((resolve) => {
      end = resolve;
    });
    const listener = { client: call.client!, tool: call.tool.name, done: new AbortController(), end };
    this.listeners.set(key, listener);
    return {
      // The wait for a missing end marker starts when the reply is in, not when the call
      // started: a call longer than the wait would otherwise lose its last messages.
      ended: () => new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CLIENT_END_WAIT_MS);
        timer.unref();
        void endMarker.then(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
      release: () => {
        listener.done.abort(new Error('the call ended'));
        if (this.listeners.get(key) === listener) this.listeners.delete(key);
      },
    };
  }

  /** @internal a call ended (or moved off its slot for good): its slot may be reused. */
  freeSlot(slot: number): void {
    this.calls[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /** @internal whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal Classify a rejected task: memory cap, a reply that cannot be sent, or a dead worker. */
  failureOutcome(error: unknown, state: number, call: RunRequest, attempts: number): RunOutcome {
    const code = (error as { code?: unknown })?.code;
    const message = (error as Error)?.message ?? String(error);
    const done = state <= SLOT_DONE;
    const running = state > 0 && (state & SLOT_LOADING) === 0;
    if (running) this.sweepAfter(state); // its worker was ended or died while it ran: what it left goes
    if (this.closed) {
      return running || done
        ? { kind: 'crashed', message: 'interrupted: the executor was closed while it ran; it may have had partial effects' }
        : { kind: 'unavailable', code: 'ABORTED', message: 'the executor was closed before it started' };
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return { kind: 'memory', memoryMb: call.tool.memoryMb ?? this.defaultMemoryMb, message };
    }
    if ((error as Error)?.name === 'DataCloneError' || (done && !(error instanceof Error))) {
      // The call finished but its reply could not be cloned (Piscina then rejects with an
      // empty object): the value held functions, symbols or other uncloneable things.
      return { kind: 'invalid-output', message: 'its return value cannot be sent from the worker; return plain data: strings, numbers, booleans, arrays and plain objects' };
    }
    if (!running && !done) {
      return { kind: 'crashed', message: `not run: it never started; the workers given it exited ${attempts} times before they could run it (${message})` };
    }
    const thread = threadOf(state);
    const why = this.killed.get(thread);
    if (why) return { kind: 'crashed', message: `interrupted: its worker was ended because ${why}; the tool may have run and had partial effects` };
    const others = this.neighbours(thread).filter((other) => other.callId !== call.callId);
    const culprits = others.filter((other) => !other.done).map((other) => other.callId);
    if (done) {
      const by = culprits.length > 0 ? `another call (${culprits.join(', ')}) crashed its worker` : `its worker exited (${message})`;
      return { kind: 'crashed', message: `interrupted: ${by} after the tool had returned, before its result could be sent; the tool ran, so check its effects before repeating it` };
    }
    if (culprits.length > 0) {
      return { kind: 'crashed', message: `interrupted: its worker exited (${message}) while it ran beside call ${culprits.join(', ')}; either may have crashed it; the tool may have run and had partial effects` };
    }
    return { kind: 'crashed', message: `interrupted: its worker exited while the tool ran (${message}); the tool may have run and had partial effects` };
  }

  /** @internal A call of worker `thread` failed: note its other calls before any lets go of its slot. */
  noteCrash(thread: number): void {
    this.neighbours(thread);
  }

  /** The calls that ran, or had just finished, on worker `thread`, as they were when the first of them failed. */
  private neighbours(thread: number): Array<{ callId: string; done: boolean }> {
    let list = this.crashes.get(thread);
    if (list === undefined) {
      list = [];
      for (let i = 0; i < this.calls.length; i++) {
        const run = this.calls[i];
        const state = Atomics.load(this.slots, i);
        if (run === undefined || threadOf(state) !== thread || (state > 0 && (state & SLOT_LOADING) !== 0)) continue;
        list.push({ callId: run.callId, done: state <= SLOT_DONE });
      }
      this.crashes.set(thread, list);
      // Piscina fails a dead worker's calls in one go; forget the snapshot after.
      setTimeout(() => this.crashes.delete(thread), 1000).unref();
    }
    return list;
  }

  /**
   * How tasks name a tool: its index in the shared tool table, added on first use, or (with
   * the table full) the entry itself.
   * @throws Error for a tool without a module URL (never a registered pool tool).
   */
  private recordOf(tool: RunnableTool): ToolRecord {
    let record = this.tools.get(tool);
    if (record === undefined) {
      // A registered pool tool always has a module URL (registration refuses it otherwise).
      if (tool.moduleUrl === undefined) throw new Error(`${tool.key} has no module URL; only tools loaded from a module run in the pool`);
      const entry: ToolEntry = { m: tool.moduleUrl, e: tool.exportName, k: tool.key, o: tool.maxOutputLength, x: tool.cutInWorker, t: tool.truncation };
      const line = JSON.stringify(entry);
      let ref: number | ToolEntry | undefined = this.toolIndexes.get(line);
      if (ref === undefined) {
        if (appendLines(this.toolTable, [line]) === 1) {
          ref = this.toolIndexes.size;
          this.toolIndexes.set(line, ref);
        } else ref = entry;
      }
      record = { ref, preloaded: false };
      this.tools.set(tool, record);
    }
    return record;
  }

  /** @internal Remember that a tool's module loads and answers in its pool, so that pool's new workers preload it. */
  notePreload(tool: RunnableTool, record: ToolRecord): void {
    record.preloaded = true;
    const cap = tool.memoryMb ?? this.defaultMemoryMb;
    const preload = this.preloads.get(cap);
    const url = tool.moduleUrl!;
    if (preload === undefined || preload.known.has(url) || appendLines(preload.list, [url]) !== 1) return;
    preload.known.add(url);
    // Workers already running load it too: in a sequential session Piscina gives every call
    // to the first idle worker, so the spare would otherwise load the module on the call after
    // a timeout (about 30 ms here). One task per worker: Piscina's least-busy balancer gives
    // each idle worker one. A worker that has the module answers at once.
    const pool = this.pools.get(cap);
    if (pool === undefined || this.poolSize < 2) return;
    for (let i = 0; i < this.poolSize; i++) pool.run(null, { name: 'preload' }).catch(() => undefined);
  }

  /** @internal Terminate the worker with thread id `threadId`, remembering why for its other calls. */
  terminate(pool: Piscina, threadId: number, why: string): void {
    const worker = pool.threads.find((w) => w.threadId === threadId);
    if (worker === undefined) return;
    this.killed.set(threadId, why);
    if (this.killed.size > 1024) this.killed.delete(this.killed.keys().next().value!);
    const ended = worker.terminate();
    ended.then(() => this.sweepAfter(threadId), () => this.sweepAfter(threadId));
  }

  /**
   * Remove the temporary files worker thread `threadId` left (it was terminated or died: its
   * own cleanup never ran). Never rejects; see `src/workspace/leftovers.ts`.
   */
  private sweepAfter(threadId: number): void {
    void sweepOwner(process.pid, threadId);
  }

  /**
   * Send a no-op task to a worker of the default pool and wait for its answer: Piscina alone,
   * none of toolgate's call path (no gates, no tool, no timeout). For a readiness check, and
   * for the bare worker round trip that `npm run bench` measures calls against.
   * @returns resolves once a worker answered.
   * @throws (rejects) when the runner is closed, or with Piscina's error when no worker can run it.
   */
  ping(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the executor is closed'));
    return this.poolFor(undefined).run(null, { name: 'ping' }) as Promise<void>;
  }

  /** End every worker. Calls in flight end as crashed. Tool instances live in the workers, so no `close()` of theirs runs. */
  async close(): Promise<Array<{ key: string; error: unknown }>> {
    this.closed = true;
    this.channel?.close();
    this.channel = undefined;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy()));
    return [];
  }
}

const sameOutcome = (outcome: RunOutcome): RunOutcome => outcome;

/** A promise of `then(outcome, request)`, rejecting when `then` throws. */
function settled<T>(outcome: RunOutcome, request: RunRequest, then: (outcome: RunOutcome, request: RunRequest) => T): Promise<T> {
  try {
    return Promise.resolve(then(outcome, request));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * One call in the pool runner: its slot, task, attempts, deadline and abort listener in one
 * object (a call's bookkeeping costs about as much as the rest of the call path together, on
 * caches cooled by every worker round trip).
 */
class PoolCallRun extends StoppableCall {
  private attempts = 0;

  constructor(
    private readonly runner: PoolRunner,
    private readonly pool: Piscina,
    private readonly call: RunRequest,
    signal: AbortSignal | undefined,
    private readonly record: ToolRecord,
    private readonly slot: number,
    private readonly task: WorkerTask,
    resolve: (outcome: RunOutcome) => void,
  ) {
    super(signal, call.timeoutMs, resolve);
  }

  get callId(): string {
    return this.call.callId;
  }

  /** Send the task to a worker (again, after a worker died before starting it). */
  submit(): void {
    this.attempts++;
    this.pool.run(this.task).then(
      (reply: WorkerReply) => this.onReply(reply),
      (error: unknown) => this.onFailure(error),
    );
  }

  /** End the call with `outcome` (timeout or abort): cancel it, or end the worker running it. */
  protected stop(outcome: RunOutcome): void {
    const { slots } = this.runner;
    const { slot } = this;
    let state = Atomics.compareExchange(slots, slot, SLOT_FREE, SLOT_CANCELLED);
    if (state <= SLOT_DONE) return; // finished just now; its reply is on the way
    if (state > 0 && state & SLOT_LOADING) {
      // Stuck loading its module: cancel it and end the worker (the load may never end).
      const before = Atomics.compareExchange(slots, slot, state, SLOT_CANCELLED);
      if (before <= SLOT_DONE) return;
      state = before;
    }
    if (state > 0) {
      this.runner.terminate(this.pool, state & ~SLOT_LOADING, `another call (${this.call.tool.key}) ${outcome.kind === 'timeout' ? 'timed out' : 'was aborted'}`);
    }
    this.settle(outcome);
  }

  private onReply(reply: WorkerReply): void {
    this.runner.freeSlot(this.slot);
    const { record } = this;
    if (typeof reply === 'string') {
      // The common case: a string and nothing else.
      if (!record.preloaded) this.runner.notePreload(this.call.tool, record);
      this.settle({ kind: 'ok', value: reply, notes: NO_NOTES, cut: false });
      return;
    }
    if ('cancelled' in reply) return;
    if (!record.preloaded && (reply.ok || reply.loadFailed !== true)) this.runner.notePreload(this.call.tool, record);
    if (reply.ok) {
      const outcome: RunOutcome = { kind: 'ok', value: reply.value, notes: reply.notes ?? NO_NOTES, cut: reply.cut === true };
      if (reply.images !== undefined) outcome.images = reply.images;
      if (reply.attachments !== undefined) outcome.attachments = reply.attachments;
      if (reply.reported !== undefined) outcome.reported = reply.reported;
      if (reply.full !== undefined) outcome.full = reply.full;
      this.settle(outcome);
    } else this.settle({ kind: 'error', error: reply.error, notes: reply.notes ?? NO_NOTES });
  }

  private onFailure(error: unknown): void {
    const { slots } = this.runner;
    const state = Atomics.load(slots, this.slot);
    const notStarted = state === SLOT_FREE || (state > 0 && (state & SLOT_LOADING) !== 0);
    // Name this worker's calls before any of them lets go of its slot.
    if (!notStarted) this.runner.noteCrash(threadOf(state));
    if (notStarted && !this.settled && !this.runner.isClosed && this.attempts < MAX_RESUBMITS) {
      // The worker died before this call started (it was waiting behind another call on
      // that worker, or loading its module): nothing of it ran, so it is safe to run it on
      // another worker.
      Atomics.store(slots, this.slot, SLOT_FREE);
      this.submit();
      return;
    }
    this.runner.freeSlot(this.slot);
    if (this.settled) return;
    this.settle(this.runner.failureOutcome(error, state, this.call, this.attempts));
  }
}
