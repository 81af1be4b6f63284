/**
 * The runner kinds tools may name in `@tool({ runner })`, and what each needs of a tool.
 * Light on purpose (no runner code): the decorator checks `runner` against it in every worker
 * that loads a tool. Each kind has its factory in `runners.ts`; the compiler refuses a kind
 * without one.
 *
 * @module
 */

/** Every runner kind, with whether it loads tools from their module (then registration needs the tool's module URL). */
export const RUNNER_KINDS = {
  /**
   * Child processes with OS-enforced limits (the default): a memory breach, a crash or a
   * timeout ends that process, never the host.
   */
  process: { loadsModule: true },
  /**
   * Piscina worker threads: the fastest round trip, but a heap cap there is V8's best effort,
   * and some allocation shapes past it abort the whole host process.
   */
  pool: { loadsModule: true },
  /** The main thread, for tools that keep state between calls. */
  main: { loadsModule: false },
} as const satisfies Record<string, { readonly loadsModule: boolean }>;

/** Where a tool runs: a key of {@link RUNNER_KINDS}. */
export type RunnerKind = keyof typeof RUNNER_KINDS;

/** Where a tool that names no runner runs. */
export const DEFAULT_RUNNER: RunnerKind = 'process';

/** Is `kind` a runner kind? */
export function isRunnerKind(kind: unknown): kind is RunnerKind {
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(RUNNER_KINDS, kind);
}
