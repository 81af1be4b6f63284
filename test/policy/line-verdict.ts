/**
 * The policy's verdict on one command line as a `run_command`, with no executor: the shell
 * analysis, then the rules of one policy file's text. For tests of the analysis and the rules
 * (the regressions of issue 30, the differential check).
 */
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, policyCallInput } from '../../src/policy/policy-rules.js';
import { analyzeCommandArguments, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import type { ShellAnalysis } from '../../src/policy/shell/types.js';

/** `run_command` as the rules see it: a shell tool whose `command` argument is analysed. */
export const RUN_COMMAND = { name: 'run_command', kind: 'shell_command' as const, commandArguments: ['command'] };

/** The analysis of `line` as `run_command`'s command. */
export function analysisOf(analyze: ShellAnalyzer, line: string): ShellAnalysis {
  return analyzeCommandArguments(analyze, RUN_COMMAND.commandArguments, { command: line })[0] ?? { commands: [], uncertain: [], kind: 'shell_command' };
}

/** The verdict of the policy file `rules` (TOML text) on `line`: `allow`, `ask`, `deny`, or `none` when no rule decides. */
export function lineVerdict(analyze: ShellAnalyzer, rules: string, line: string, analysis = analysisOf(analyze, line)): 'allow' | 'ask' | 'deny' | 'none' {
  const match = matchPolicyRules(parsePolicyFile(rules, '/test/policy.toml'), policyCallInput(RUN_COMMAND, { command: line }, [], [analysis]));
  return match?.verdict ?? 'none';
}
