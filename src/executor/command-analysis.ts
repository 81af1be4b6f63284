/**
 * The analysis of a call's shell-command arguments, made once before any decider reads them.
 * The shell analysis modules and the parser load on first use: calls of tools without a
 * command argument load neither.
 *
 * @module
 */
import type { ShellAnalyzer } from '../policy/shell/analyze.js';
import type { ShellAnalysis } from '../policy/shell/types.js';
import { clip } from '../util/values.js';

/** The analyses of a call's command arguments (`analyzeCommandArguments` with the parser bound). */
type CommandAnalysis = (commandArguments: readonly string[], args: Readonly<Record<string, unknown>>) => ShellAnalysis[];

/** {@link commandAnalysis} once the parser has loaded: the synchronous path of later calls. */
let readyCommandAnalysis: CommandAnalysis | undefined;

/** The command-argument analysis when the parser has loaded (the synchronous path), else `undefined`: call {@link commandAnalysis}. */
export function loadedCommandAnalysis(): CommandAnalysis | undefined {
  return readyCommandAnalysis;
}

/**
 * The command-argument analysis, importing the shell analysis modules and loading the parser on
 * first use (calls of tools without a command argument load neither). When the parser cannot
 * load, every command line is uncertain, and a later call tries again.
 */
export async function commandAnalysis(): Promise<CommandAnalysis> {
  if (readyCommandAnalysis !== undefined) return readyCommandAnalysis;
  const { analyzeCommandArguments, loadShellAnalyzer } = await import('../policy/shell/analyze.js');
  let loaded = true;
  const analyze = await loadShellAnalyzer().then(undefined, (error: unknown) => {
    loaded = false;
    return unavailableAnalyzer(error);
  });
  const analysis: CommandAnalysis = (names, args) => analyzeCommandArguments(analyze, names, args);
  if (loaded) readyCommandAnalysis = analysis;
  return analysis;
}

/**
 * The analyzer when the parser cannot be loaded: every command line is uncertain, so no rule
 * allows it and no approval is remembered for its commands, and a deny rule on any command
 * denies it, as for a line beyond the analysis's limits (fail closed).
 */
function unavailableAnalyzer(error: unknown): ShellAnalyzer {
  const why = `the shell parser could not be loaded (${clip((error as Error)?.message ?? String(error), 200)})`;
  return () => ({ commands: [], uncertain: [why], kind: 'shell_command', beyondLimits: true });
}
