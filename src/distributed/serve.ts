/**
 * A worker process's parts put together: the shared store seen through the worker's leases
 * ({@link WorkerStore}), a tool system whose executor records in that view, and the
 * {@link QueueWorker} feeding it.
 *
 * @module
 */
import { DEFAULT_LEASE_MS, type CallStore } from '../ledger/call-store.js';
import { ToolSystem, type ToolSystemOptions } from '../system/tool-system.js';
import { QueueWorker, workerOwner } from './worker.js';
import { WorkerStore } from './worker-store.js';
import { openQueueBackend } from './queue-backends.js';
import { QueueTaskDispatch } from './task-dispatch.js';
import { setTaskDispatch } from '../system/task-dispatch.js';
import { poolOption } from './job.js';

/** Options of {@link serveQueue}. */
export interface ServeQueueOptions {
  queue: string;
  store: CallStore;
  /** The workspace this worker owns (its policy files and protected paths count). */
  workspace: string;
  pool?: string;
  concurrency?: number;
  /** The lease of each call, in ms: a dead worker's calls are `interrupted` within about this long. Default 30000. */
  leaseMs?: number;
  reconcileMs?: number;
  /** More options of the tool system (tool folders, the toolset, log level); its executor's `ledger` is set here. */
  system?: Omit<ToolSystemOptions, 'workspace'>;
}

/** A running worker: close it to stop. */
export interface ServedQueue {
  readonly worker: QueueWorker;
  readonly system: ToolSystem;
  /** Stop taking jobs and close the tool system (calls parked on a question stay pending). The store is the caller's. */
  close(): Promise<void>;
}

/**
 * Connections of a worker process's queue backend besides one per call it runs at once: the
 * LISTEN connection BullMQ's worker holds, and one for the reconciler's, the tasks' and the
 * turns' queries.
 */
const SPARE_CONNECTIONS = 2;

/** Start a worker. @throws ToolgateOptionError when an option is wrong or a peer is missing. */
export async function serveQueue(options: ServeQueueOptions): Promise<ServedQueue> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  let worker: QueueWorker | undefined;
  const leases = new WorkerStore(options.store, { owner: workerOwner(), leaseMs, resume: (key) => worker?.resume(key) });
  // rateLimitRpm holds across every worker: turns are taken on the queue's server.
  const pool = poolOption(options.pool);
  const concurrency = options.concurrency ?? 4;
  // One backend for the whole process (worker, reconciler, turns, task jobs): on PostgreSQL one
  // pool, sized for the calls it runs at once.
  const backend = await openQueueBackend(options.queue, 'queue', Number.isInteger(concurrency) && concurrency > 0 ? { connections: concurrency + SPARE_CONNECTIONS } : {});
  const system = new ToolSystem({
    ...options.system, workspace: options.workspace,
    executor: { ...options.system?.executor, ledger: leases.view, rateLimiter: backend.rateLimiter(options.system?.executor?.rateLimitMaxWaitMs) },
  });
  // The task domain's tasks are delayed jobs of the pool, their calls queued calls (task-dispatch.ts).
  const tasks = new QueueTaskDispatch(pool, backend, options.store, system.logger);
  setTaskDispatch(system, tasks);
  try {
    await system.start();
    worker = await QueueWorker.start({
      backend, leases, system, pool, concurrency, tasks,
      lockDurationMs: leaseMs, reconcileMs: options.reconcileMs, logger: system.logger,
    });
  } catch (error) {
    await system.close();
    await tasks.close();
    await backend.close();
    throw error;
  }
  const started = worker;
  return {
    worker: started, system,
    async close() {
      await started.close();
      await system.close();
      await tasks.close();
      await backend.close();
      await options.store.flush().catch(() => undefined);
    },
  };
}
