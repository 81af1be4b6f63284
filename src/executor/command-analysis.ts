/**
 * The analysis of a call's shell-command arguments, made once before any decider reads them.
 * The shell analysis modules and the parser load on first use: calls of tools without a
 * command argument load neither.
 *
 * @module
 */
import type { ShellAnalyzer } from '../policy/shell/analyze.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ShellAnalysis } from '../policy/shell/types.js';
import { clip } from '../util/values.js';

/** The analyses of a call's command and shell-input arguments (`callAnalyses` with the parser bound). */
type CommandAnalysis = (tool: RegisteredTool, args: Readonly<Record<string, unknown>>, workspaceRoot: string) => ShellAnalysis[];

/** {@link commandAnalysis} once the parser has loaded: the synchronous path of later calls. */
let readyCommandAnalysis: CommandAnalysis | undefined;

/** The command-argument analysis when the parser has loaded (the synchronous path), else `undefined`: call {@link commandAnalysis}. */
export function loadedCommandAnalysis(): CommandAnalysis | undefined {
  return readyCommandAnalysis;
}

/**
 * The command-argument analysis, importing the shell analysis modules and loading the parser on
 * first use (calls of tools without a command or shell-input argument load neither), and the
 * class of a tool with shell input (`tool.load()`: it says what reads the input). When the
 * parser cannot load, every command line is uncertain, and a later call tries again.
 */
export async function commandAnalysis(tool: RegisteredTool): Promise<CommandAnalysis> {
  // A tool with shell input says what reads it from its class: load it (once) first.
  if (tool.inputArguments.length !== 0) await tool.load();
  if (readyCommandAnalysis !== undefined) return readyCommandAnalysis;
  const [{ loadShellAnalyzer }, { callAnalyses }] = await Promise.all([import('../policy/shell/analyze.js'), import('../policy/shell-input.js')]);
  let loaded = true;
  const analyze = await loadShellAnalyzer().then(undefined, (error: unknown) => {
    loaded = false;
    return unavailableAnalyzer(error);
  });
  const analysis: CommandAnalysis = (t, args, workspaceRoot) => callAnalyses(analyze, t, args, workspaceRoot);
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
