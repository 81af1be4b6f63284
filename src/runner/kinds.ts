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
  /** Piscina worker threads (the default). */
  pool: { loadsModule: true },
  /** The main thread, for tools that keep state between calls. */
  main: { loadsModule: false },
} as const satisfies Record<string, { readonly loadsModule: boolean }>;

/** Where a tool runs: a key of {@link RUNNER_KINDS}. */
export type RunnerKind = keyof typeof RUNNER_KINDS;

/** Is `kind` a runner kind? */
export function isRunnerKind(kind: unknown): kind is RunnerKind {
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(RUNNER_KINDS, kind);
}
