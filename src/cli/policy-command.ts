/**
 * `toolgate policy check [--workspace DIR] [--explain CALL_JSON]`: validate the user's and the
 * workspace's policy files, and with `--explain` show what each says about one call and the
 * verdict they give together.
 *
 * Exit codes: 0 both files valid (or absent); 1 a file is invalid or cannot be read; 2 usage
 * error (an unknown tool in `--explain` too).
 *
 * @module
 */
import { namedByCommands } from '../decisions/policy-files.decider.js';
import { analyzeCommandArguments, loadShellAnalyzer } from '../policy/shell/analyze.js';
import { judgedPaths } from '../workspace/judged-paths.js';
import { workspaceFor } from '../workspace/workspace.js';
import { policyCallInput, type CommandVerdict, type PolicyCallInput, type PolicyMatch } from '../policy/policy-rules.js';
import { defaultPolicyPaths, PolicySet, type PolicyFileStatus } from '../policy/policy-set.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import { pathValues } from '../schema/path-arguments.js';
import { EXIT, logLevel, parse, UsageError, workspaceOption, type CliContext } from './context.js';
import { cliToolSystem } from './tool-system.js';


/** Width of the label column. */
const LABEL = 11;

/** Run `toolgate policy`; `argv` are the arguments after `policy`. */
export async function policyCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { workspace: { type: 'string' }, explain: { type: 'string' } });
  const [sub, ...rest] = positionals;
  if (sub !== 'check') throw new UsageError(sub === undefined ? 'policy needs a subcommand: policy check' : `unknown policy subcommand ${JSON.stringify(sub)}; the one there is: check`);
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote CALL_JSON as one word)`);
  const workspace = workspaceOption(values, ctx);
  const call = values.explain === undefined ? undefined : parseCall(values.explain as string);
  const policies = new PolicySet(defaultPolicyPaths({ workspaceRoot: workspace, env: ctx.env, home: ctx.env.HOME }));
  const out = (label: string, text: string) => ctx.stdout.write(`${label.padEnd(LABEL)}${text}\n`);

  const statuses = policies.check();
  for (const status of statuses) {
    out(status.layer, status.path);
    out('', describeStatus(status));
    for (const warning of warnings(status)) out('', `warning: ${warning}`);
  }
  const invalid = statuses.some((s) => s.state === 'invalid');
  if (call === undefined) return invalid ? EXIT.failed : EXIT.ok;

  const system = cliToolSystem(values, ctx, { workspace, logLevel: logLevel(values) });
  try {
    await system.start();
    const found = system.registry.resolve(call.name);
    if (!(found instanceof RegisteredTool)) throw new UsageError(found.message);
    const { input, notes } = await explainInput(found, call.arguments, workspace);
    out('call', `${call.name} ${JSON.stringify(call.arguments)}`);
    out('', `kind ${input.kind}; paths ${input.paths.length ? input.paths.join(', ') : '(none)'}`);
    for (const note of notes) out('', note);
    const { files, decision } = policies.explain(input);
    for (const file of files) {
      out(file.layer, describeMatch(file, file.match));
      // per command: the rule, and the table entry or the option that decided
      for (const command of file.match?.commands ?? []) out('', `  ${describeCommand(command)}`);
    }
    // the words and redirect targets of a shell command, judged as the policy decider judges them
    const words = decision.verdict === 'deny' || input.shell === undefined ? undefined : namedByCommands(policies, { tool: found, args: call.arguments, workspace: workspaceFor(workspace), paths: [], commands: [input.shell] });
    if (words !== undefined) out('paths', `${words.verdict}: ${words.reason}`);
    const verdict = words !== undefined && (words.verdict === 'deny' || decision.verdict !== 'ask') ? words : decision;
    out('verdict', verdict.verdict === undefined ? 'no rule matched (the approval mode decides)' : `${verdict.verdict}: ${verdict.reason}`);
    // The decider takes an allow from the user's file only: say so where the verdict would mislead.
    if (verdict === decision && decision.verdict === 'allow' && decision.layer !== 'user') {
      out('', `but that allow is the workspace's: its file only narrows yours, so the call still asks if ${found.name} requires confirmation or the approval mode asks (an allow rule in your own file, ${statuses.find((f) => f.layer === 'user')?.path ?? 'policy.toml'}, lifts that)`);
    }
    if (decision.fresh && decision.verdict !== 'deny') out('', 'always_ask is set: a person is asked afresh, whatever was allowed or remembered');
  } finally {
    await system.close();
  }
  return invalid ? EXIT.failed : EXIT.ok;
}

/** `--explain`'s JSON: `{"name": "...", "arguments": {...}}`. */
function parseCall(text: string): { name: string; arguments: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--explain must be a JSON object {"name": ..., "arguments": {...}}: ${(error as Error).message}`);
  }
  const call = value as { name?: unknown; arguments?: unknown } | null;
  if (call === null || typeof call !== 'object' || Array.isArray(call) || typeof call.name !== 'string') {
    throw new UsageError('--explain must be a JSON object with a "name" string and an "arguments" object');
  }
  const args = call.arguments ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new UsageError('--explain: "arguments" must be a JSON object');
  return { name: call.name, arguments: args as Record<string, unknown> };
}

/**
 * What the policy rules are shown of a call from the command line: its tool's kind, its path
 * arguments (resolved inside the workspace, as the executor resolves them) and, for a shell
 * tool, the analysis of its command.
 */
async function explainInput(tool: RegisteredTool, args: Record<string, unknown>, workspace: string): Promise<{ input: PolicyCallInput; notes: string[] }> {
  const notes: string[] = [];
  const ws = workspaceFor(workspace);
  const resolved = pathValues(args, tool.pathArguments)
    .filter((p): p is string => typeof p === 'string')
    .map((p) => {
      try {
        return { given: p, real: ws.resolve(p) };
      } catch (error) {
        throw new UsageError(`--explain: ${(error as Error).message}`);
      }
    });
  const analyses = tool.commandArguments.length === 0 ? [] : analyzeCommandArguments(await loadShellAnalyzer(), tool.commandArguments, args);
  // The paths the policy decider judges: real paths and spellings, other names, what a moved folder holds.
  const judged = resolved.length === 0 ? undefined : judgedPaths(resolved, { workspace: ws, contents: !tool.readOnly && analyses.length === 0 });
  const paths = judged === undefined ? [] : [...new Set(judged.paths.map((p) => p.relative))];
  if (judged?.incomplete !== undefined) notes.push(`incomplete: ${judged.incomplete} (a deny or ask rule on paths makes the call ask)`);
  const input = policyCallInput(tool, args, paths, analyses);
  const { shell } = input;
  if (shell === undefined) return { input, notes };
  for (const command of shell.commands) notes.push(`command ${command.argv.join(' ')}${command.wrappers.length ? ` (wrapped in ${command.wrappers.join(', ')})` : ''}${command.writes.length ? ` writes ${command.writes.join(', ')}` : ''}${command.reads?.length ? ` reads ${command.reads.join(', ')}` : ''}: ${command.kind}`);
  for (const why of shell.uncertain) notes.push(`uncertain: ${why}`);
  return { input, notes };
}

/**
 * Argument names that shell tools use for their command line (`@format shell-command`): an
 * `args` pattern on one never matches (see `PolicyCallInput.commandArguments`).
 */
const COMMAND_ARGUMENT_NAMES: ReadonlySet<string> = new Set(['command', 'cmd', 'script', 'commandLine', 'command_line']);

/**
 * Rules that look written for a shell tool's command line with `args` (they never match it),
 * and allow rules whose `command` ends in `"*"` (it adds nothing: an allow rule covers what the
 * program's table knows safe, or exactly its words).
 */
function warnings(status: PolicyFileStatus): string[] {
  if (status.state !== 'ok') return [];
  const rules = status.policy!.rules;
  const args = rules
    .filter((rule) => rule.args !== undefined && Object.keys(rule.args).some((name) => COMMAND_ARGUMENT_NAMES.has(name)))
    .map((rule) => `${rule.id}: args.${Object.keys(rule.args!).find((name) => COMMAND_ARGUMENT_NAMES.has(name))} never matches a shell tool's command line (a glob would match \`git status; rm -rf data\`); use command = "..." for shell commands`);
  const stars = rules
    .filter((rule) => rule.action === 'allow' && rule.command !== undefined && rule.command.length > 1 && rule.command[rule.command.length - 1] === '*' && rule.allowOptions === undefined)
    .map((rule) => `${rule.id}: the trailing "*" of command = "${rule.command!.join(' ')}" adds nothing: an allow rule covers only what the program's table knows safe (or, for a program no table knows, exactly its words); say more with allow_options`);
  // A workspace's allow counts within its own file only (an exception to its own deny and ask).
  const allows = status.layer === 'user' ? [] : rules.filter((rule) => rule.action === 'allow');
  const narrow = allows.length === 0 ? [] : [`${allows.map((rule) => rule.id).join(', ')}: an allow rule of the workspace's file only makes an exception to this file's own deny and ask rules; it lifts no question (a tool that requires confirmation, the approval mode): only an allow rule in your own file does`];
  return [...args, ...stars, ...narrow];
}

function describeStatus(status: PolicyFileStatus): string {
  if (status.state === 'absent') return 'not found (no rules)';
  if (status.state === 'invalid') return `invalid: ${status.error!.message}`;
  const { rules, alwaysAsk } = status.policy!;
  return `ok, ${rules.length} rule${rules.length === 1 ? '' : 's'}${alwaysAsk ? ', always_ask' : ''}`;
}

/** One command's line under a file's verdict: `` `git log --output=f`: ask by FILE:3 [git log]: --output writes files ``. */
function describeCommand(command: CommandVerdict): string {
  const text = command.text.length > 80 ? `${command.text.slice(0, 77)}...` : command.text;
  if (command.verdict === undefined) return `\`${text}\`: no rule matched`;
  const entry = command.entry === undefined ? '' : ` [table: ${command.entry}]`;
  return `\`${text}\`: ${command.verdict} by ${command.rule}${entry}${command.why === undefined ? '' : `: ${command.why}`}`;
}

function describeMatch(status: PolicyFileStatus, match: PolicyMatch | undefined): string {
  if (status.state === 'absent') return 'no file';
  if (status.state === 'invalid') return `invalid: denies every call (${status.error!.message})`;
  if (match === undefined) return 'no rule matched';
  return `${match.verdict} by ${match.rule.id}${match.command === undefined ? '' : ` for \`${match.command}\``}${match.rule.reason === undefined ? '' : ` ("${match.rule.reason}")`}`;
}
