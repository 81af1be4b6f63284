/**
 * The runner factories: the one place runners are assembled. Adding a runner is one folder
 * under `src/runner/` (a class implementing `Runner`), its kind in `kinds.ts`, and its line
 * here (the compiler asks for it once the kind exists).
 *
 * @module
 */
import type { RunnerKind } from './kinds.js';
import { MainRunner } from './main/main-runner.js';
import { PoolRunner } from './pool/pool-runner.js';
import { ProcessRunner } from './process/process-runner.js';
import type { Runner } from './runner.js';

/** Options the executor passes to every runner factory; each factory reads its own. */
export interface RunnerOptions {
  /** Worker threads per pool (pool runner), child processes per memory cap (process runner). */
  poolSize?: number;
  /** Memory cap in MiB for tools that declare none (pool and process runners). */
  defaultMemoryMb?: number;
  /** Calls a worker holds at once (pool runner). */
  callsPerWorker?: number;
}

/**
 * Makes the runner of a kind; called on the first call of that kind, or at once when options
 * for it are given, so that bad options fail the executor's constructor.
 * @throws ToolgateOptionError when an option is out of range.
 */
export type RunnerFactory = (options: RunnerOptions) => Runner;

/** Every runner's factory, by kind. */
export const RUNNERS: Readonly<Record<RunnerKind, RunnerFactory>> = {
  process: (options) => new ProcessRunner(options),
  pool: (options) => new PoolRunner(options),
  main: () => new MainRunner(),
};
