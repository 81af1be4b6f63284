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
 * takes that path; it loads the ES module once with `import()`, and calls that arrive before
 * it has loaded wait for it.
 *
 * @module
 */
import type { WorkerReply, WorkerTask } from './protocol.js';

type RunTask = (task: WorkerTask) => WorkerReply | Promise<WorkerReply>;

let run: RunTask | undefined;
const loading: Promise<RunTask> = import('./worker.js').then((module) => (run = module.default));

/** Run one call (Piscina calls the export): directly once the worker module has loaded. */
function runToolTask(task: WorkerTask): WorkerReply | Promise<WorkerReply> {
  return run !== undefined ? run(task) : loading.then((loaded) => loaded(task));
}

export = runToolTask;
