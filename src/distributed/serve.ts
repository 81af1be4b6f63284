/**
 * A worker process's parts put together: the shared store, a tool system whose executor
 * records in it (adopting the calls of its jobs), and the {@link QueueWorker} feeding it.
 *
 * @module
 */
import type { CallStore } from '../ledger/call-store.js';
import { ToolSystem, type ToolSystemOptions } from '../system/tool-system.js';
import { adoptingStore } from './adopting-store.js';
import { QueueWorker } from './worker.js';

/** Options of {@link serveQueue}. */
export interface ServeQueueOptions {
  queue: string;
  store: CallStore;
  /** The workspace this worker owns (its policy files and protected paths count). */
  workspace: string;
  pool?: string;
  concurrency?: number;
  lockDurationMs?: number;
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

/** Start a worker. @throws ToolgateOptionError when an option is wrong or a peer is missing. */
export async function serveQueue(options: ServeQueueOptions): Promise<ServedQueue> {
  const adopted = new Set<string>();
  const system = new ToolSystem({
    ...options.system, workspace: options.workspace,
    executor: { ...options.system?.executor, ledger: adoptingStore(options.store, adopted) },
  });
  await system.start();
  const worker = await QueueWorker.start({
    queue: options.queue, store: options.store, system, adopted, pool: options.pool, concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs, reconcileMs: options.reconcileMs, logger: system.logger,
  });
  return {
    worker, system,
    async close() {
      await worker.close();
      await system.close();
      await options.store.flush().catch(() => undefined);
    },
  };
}
