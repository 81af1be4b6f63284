/**
 * The file Piscina loads in each pool worker: a CommonJS shim in front of the ESM worker
 * (`worker.js`).
 *
 * Piscina loads a worker file with `require()` first and falls back to `import()`. On Node
 * 20.19 and later `require()` of an ES module is supported, but not of one with top-level
 * await (our worker awaits its preloads): it refuses, and when a second load of the file
 * (the first call, while Piscina's own start-up load is still linking it) reaches `require()`
 * at that moment, Node aborts the whole process ("FATAL ERROR: v8::Module::IsGraphAsync must
 * be used on an instantiated module"; seen in CI under load). A plain CommonJS file never
 * takes that path; it loads the ES module with `import()`.
 *
 * The export is ES-module shaped with a promised default: Piscina awaits the handler it looks
 * up before it reports the worker ready, so a new worker takes no call until `worker.js` and
 * its preloads have loaded (a replacement worker must not hold up the call after a timeout
 * while a warm one is idle).
 *
 * @module
 */
import type { WorkerReply, WorkerTask } from './protocol.js';

type RunTask = (task: WorkerTask) => WorkerReply | Promise<WorkerReply>;

const worker = import('./worker.js');

/** The worker's task function, once `worker.js` has loaded. */
exports.default = worker.then((module): RunTask => module.default);

/**
 * Load the tool modules that answered in other workers of this pool since this one started
 * (`PoolRunner` sends this task to every worker when a module first answers), so that a spare
 * worker answers its first call, such as the one after a timeout, without loading them.
 */
exports.preload = function preload(): Promise<void> {
  return worker.then((module) => module.preloadNew());
};

/**
 * A no-op task (`PoolRunner.ping`): answers at once without loading any tool, to check
 * that a worker responds and to measure the bare Piscina round trip on the pool's own threads.
 */
exports.ping = function ping(): void {};
