/**
 * Matching one call against one policy file's rules ({@link matchPolicyRules}). Within one
 * file the LAST matching rule wins. A shell call is judged command by command, so a rule
 * written for one command never approves another beside it (security cases C1, C2).
 *
 * @module
 */
import { mostSevere, type ActionKind } from './action-kinds.js';
import { argumentReadings } from './argument-readings.js';
import { ruleNamedInArguments } from './named-in-arguments.js';
import type { PolicyAction, PolicyFile, PolicyRule } from './policy-file.js';
import { commandCoverage, type Coverage } from './shell/program-tables/coverage.js';
import type { ShellAnalysis, ShellCommand } from './shell/types.js';

/** What the rules are shown of one call. */
export interface PolicyCallInput {
  /** The tool's name. */
  readonly tool: string;
  /** The tool's action kind. For a shell call, each command is judged with its own kind instead. */
  readonly kind: ActionKind;
  /** The validated arguments. */
  readonly args: Readonly<Record<string, unknown>>;
  /**
   * Every path the call reaches, workspace-relative with `/` separators (`.` for the root):
   * each path argument's real path, and (from the policy decider) its spelling, other names
   * of the same file, and what a moved or copied folder holds and where it lands.
   */
  readonly paths: readonly string[];
  /** The analysis of the shell tool's command argument; present exactly for shell tools. */
  readonly shell?: ShellAnalysis;
  /**
   * The names of the tool's `@format shell-command` and `@format shell-input` arguments
   * (`RegisteredTool.commandArguments`, `inputArguments`).
   * A rule whose `args` names one of them never matches: a glob on a command line (`"git
   * status*"`) would match `git status; rm -rf data`. Rules for shell commands use `command`.
   */
  readonly commandArguments?: readonly string[];
}

/**
 * The rules' input for a call: `paths` workspace-relative with `/` separators (`.` for the
 * root), and the analyses of its command arguments joined into one `shell` (absent when there
 * are none). What the policy decider and `toolgate policy check --explain` both show the rules.
 */
export function policyCallInput(
  tool: { readonly name: string; readonly kind: ActionKind; readonly commandArguments: readonly string[]; readonly inputArguments?: readonly string[] },
  args: Readonly<Record<string, unknown>>,
  paths: readonly string[],
  analyses: readonly ShellAnalysis[],
): PolicyCallInput {
  // Shell-input arguments (text typed into a session) are command text too: no `args` glob matches them.
  const commandArguments = tool.inputArguments === undefined || tool.inputArguments.length === 0 ? tool.commandArguments : [...tool.commandArguments, ...tool.inputArguments];
  const input = { tool: tool.name, kind: tool.kind, args, paths, commandArguments };
  if (analyses.length === 0) return input;
  const shell = analyses.length === 1
    ? analyses[0]!
    : {
      commands: analyses.flatMap((a) => a.commands), uncertain: analyses.flatMap((a) => a.uncertain), kind: mostSevere(analyses.map((a) => a.kind)),
      ...(analyses.some((a) => a.beyondLimits === true) && { beyondLimits: true }),
      ...(analyses.some((a) => a.callerInput !== undefined) && { callerInput: analyses.flatMap((a) => a.callerInput ?? []) }),
    };
  return { ...input, shell };
}

/** What one file's rules say about one call. */
export interface PolicyMatch {
  readonly verdict: PolicyAction;
  /** Readable: names the rule (by file and line) and, for a shell call, the command. */
  readonly reason: string;
  /** The deciding rule. */
  readonly rule: PolicyRule;
  /** For a shell call: the text of the command the verdict is about. */
  readonly command?: string;
  /** For a shell call with commands, when asked for detail: what the file's rules said of each command, in order (what `policy check --explain` shows). */
  readonly commands?: readonly CommandVerdict[];
  /**
   * On an `ask`: only a person may answer it (a deny rule may match a command the analysis
   * cannot see), never an advance approval (`--yes`, `confirm`, `allow-all`) or a remembered
   * answer.
   */
  readonly person?: true;
}

/** What one file's rules said of one command of a shell call. */
export interface CommandVerdict {
  /** The command's text. */
  readonly text: string;
  /** Its verdict; `undefined` when no rule matched it. */
  readonly verdict: PolicyAction | undefined;
  /** The rule that decided (or the allow rule that did not cover it), as `file:line`. */
  readonly rule?: string;
  /** For an allow rule with a `command` key: the table entry that decided (`git log`, `sed`, `exact words`). */
  readonly entry?: string;
  /** When an allow rule did not cover it, or it writes through a redirection: why. */
  readonly why?: string;
}

/**
 * What `file`'s rules say about `input`, or `undefined` when no rule matches. With `detail`,
 * a shell call's match carries every command's verdict (`commands`), for explanations.
 *
 * A call without `shell`: the last matching rule among those without a `command` key (a
 * `command` rule never matches a call that is not a shell call).
 *
 * A call with `shell` (a shell tool): an allow rule with `paths` and no `command` is left out
 * (it names where the commands start, not what they touch). Each command of
 * `shell.commands` is judged on its own;
 * a rule matches a command when its `tool`, `paths` and `args` keys match the call, its
 * `kind` (if any) lists the command's kind, and its `command` (if any) matches the command's
 * argv (see {@link PolicyRule.command}). A command's verdict is its last matching rule's
 * action, except that a command that writes through a redirection (`> out.txt`) is only
 * asked about, never allowed, by a rule with a `command` key: a rule for `echo` is not a rule
 * for writing files; and text typed into a program that is not a shell (`opaqueInput`) is
 * allowed only by a rule with a `tool` key; a command of such text read as shell text
 * (`readAsShell`) is judged by deny and ask rules only, and needs no rule. Then, in this order:
 * - any command denied: deny (the first in source order, named with its rule);
 * - any command asked about: ask;
 * - every command allowed: allow, unless `shell.uncertain` is non-empty (then ask, naming
 *   its first reason);
 * - some commands allowed and the others matched by no rule: ask ("allowed by a rule written
 *   for something else");
 * - no command matched by any rule: `undefined`.
 * A shell call with no commands at all is judged as a whole by the rules without `command`,
 * with `shell.kind`; `uncertain` turns an allow into ask there too.
 *
 * A call with more than one path (see {@link PolicyCallInput.paths}) is judged path by path:
 * any path denied denies, any asked about asks, and only a call whose every path is allowed
 * is allowed.
 *
 * Finally, when `shell.uncertain` is non-empty (a parse error, a program name computed at run
 * time), `commands` may miss what bash runs: if the file has a `deny` or `ask` rule with a
 * `command` key (one that could match the hidden command) for this tool, the verdict is at
 * least `ask`, naming that rule, unless a rule already denies; when that rule is a `deny`,
 * the ask is one only a person may answer (`person`), whatever else the rules said, unless
 * every doubt is only that a program reads the call's own standard input (`callerInput`).
 */
export function matchPolicyRules(file: PolicyFile, input: PolicyCallInput, detail = false): PolicyMatch | undefined {
  if (input.paths.length > 1) return matchEachPath(file, input, detail);
  const match = matchWithDoubts(file, input, detail);
  const shell = input.shell;
  if (shell === undefined || match?.verdict === 'deny' || match?.person === true) return match;
  // A deny or ask rule's program named in the arguments of a program that may run them as a command line
  const named = ruleNamedInArguments(file, shell, (rule) => callMatches(rule, input));
  if (named === undefined || (named.action === 'ask' && match?.verdict === 'ask')) return match;
  const reason = `a command's arguments name the program of the ${named.action} rule at ${named.id}, which the command may run (the analysis does not read them as a command line)${named.action === 'deny' ? ', so only a person can allow it' : ''}`;
  return { verdict: 'ask', reason, rule: named, ...(match?.command !== undefined && { command: match.command }), ...(named.action === 'deny' && { person: true as const }) };
}

/** {@link matchPolicyRules} before the check of rule programs named in arguments. */
function matchWithDoubts(file: PolicyFile, input: PolicyCallInput, detail: boolean): PolicyMatch | undefined {
  const match = matchRules(file, input, detail);
  const shell = input.shell;
  if (shell === undefined || shell.uncertain.length === 0 || match?.verdict === 'deny') return match;
  if (shell.beyondLimits === true) return beyondLimits(file, input, shell, match);
  // What bash runs may hold commands the analysis missed: a deny or ask rule on a command
  // could be one of them, so the line is at least asked about; and when a deny rule could be
  // one of them, only a person answers (issue 30, item 6; case C6).
  const hidden = hiddenFrom(file, input);
  if (hidden?.action === 'deny' && shell.uncertain.some((u) => !(shell.callerInput ?? []).includes(u))) {
    const reason = `the command line cannot be checked against the deny rule at ${hidden.id} (${shell.uncertain[0]}), so only a person can allow it`;
    return match?.command === undefined ? { verdict: 'ask', reason, rule: hidden, person: true } : { verdict: 'ask', reason, rule: hidden, command: match.command, person: true };
  }
  if (match?.verdict === 'ask' || hidden === undefined) return match;
  const reason = `the command line cannot be checked against the rule at ${hidden.id}: ${shell.uncertain[0]}`;
  return match?.command === undefined ? { verdict: 'ask', reason, rule: hidden } : { verdict: 'ask', reason, rule: hidden, command: match.command };
}

/**
 * A call with several paths (a copy's source and destination, a link and its target, what a
 * moved folder holds): each path is judged as if it were the call's only one, and a deny of
 * any one denies the call (the first, naming the path), an ask of any one asks; the call is
 * allowed only when every path is (a rule written for one of its paths grants nothing for
 * the others); else no rule decides.
 */
function matchEachPath(file: PolicyFile, input: PolicyCallInput, detail: boolean): PolicyMatch | undefined {
  let firstAsk: PolicyMatch | undefined;
  let firstAllow: PolicyMatch | undefined;
  let unmatched = false;
  for (const p of input.paths) {
    const match = matchPolicyRules(file, { ...input, paths: [p] }, detail);
    if (match === undefined) unmatched = true;
    else if (match.verdict === 'deny') return { ...match, reason: `${JSON.stringify(clip(p, 200))}: ${match.reason}` };
    else if (match.verdict === 'ask') firstAsk ??= { ...match, reason: `${JSON.stringify(clip(p, 200))}: ${match.reason}` };
    else firstAllow ??= match;
  }
  if (firstAsk !== undefined) return firstAsk;
  return unmatched ? undefined : firstAllow;
}

/**
 * A command line beyond the analysis's limits (`ShellAnalysis.beyondLimits`): any command may
 * hide in it, so a deny rule that applies to this tool's calls denies it, whatever it names
 * (issue 30, item 6); with no such rule it asks, if the file has any rule for this tool.
 */
function beyondLimits(file: PolicyFile, input: PolicyCallInput, shell: ShellAnalysis, match: PolicyMatch | undefined): PolicyMatch | undefined {
  const rules = file.rules;
  let any: PolicyRule | undefined;
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (!callMatches(rule, input)) continue;
    any ??= rule;
    if (rule.action === 'deny') {
      return { verdict: 'deny', rule, reason: `the command line is beyond what the analysis reads (${shell.uncertain[0]}), and ${says(rule)} denies a command it could hold` };
    }
  }
  if (match?.verdict === 'ask') return match;
  if (any === undefined) return match;
  return { verdict: 'ask', rule: match?.rule ?? any, reason: `the command line is beyond what the analysis reads (${shell.uncertain[0]}), so no rule can vouch for it` };
}

/** The last rule with a `command` key that denies (else asks) and could apply to this tool's call, if any. */
function hiddenFrom(file: PolicyFile, input: PolicyCallInput): PolicyRule | undefined {
  const rules = file.rules;
  let ask: PolicyRule | undefined;
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.matchers.command === undefined || rule.action === 'allow' || !callMatches(rule, input)) continue;
    if (rule.action === 'deny') return rule;
    ask ??= rule;
  }
  return ask;
}

/** {@link matchPolicyRules} before the uncertainty check. */
function matchRules(file: PolicyFile, input: PolicyCallInput, detail: boolean): PolicyMatch | undefined {
  const rules = file.rules;
  const shell = input.shell;
  if (shell === undefined || shell.commands.length === 0) {
    const kind = shell === undefined ? input.kind : shell.kind;
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (rule.matchers.command !== undefined || !callMatches(rule, input) || (rule.kind !== undefined && !rule.kind.includes(kind))) continue;
      if (shell !== undefined && pathsOnlyAllow(rule)) continue;
      if (rule.action === 'allow' && shell !== undefined && shell.uncertain.length > 0) return uncertain(shell, rule, undefined);
      return { verdict: rule.action, reason: says(rule), rule };
    }
    return undefined;
  }

  // Which rules match the call as a whole (tool, paths, args): the same for every command.
  const callOk = rules.map((rule) => callMatches(rule, input));
  let firstDeny: PolicyMatch | undefined;
  let firstAsk: PolicyMatch | undefined;
  let firstAllow: { rule: PolicyRule; command: ShellCommand } | undefined;
  let firstUnmatched: ShellCommand | undefined;
  const verdicts: CommandVerdict[] | undefined = detail ? [] : undefined;
  for (const command of shell.commands) {
    // without detail, the first deny decides (with it, every command gets its line)
    if (firstDeny !== undefined && !detail) break;
    let rule: PolicyRule | undefined;
    let covered: Coverage | undefined;
    let uncovered: { rule: PolicyRule; coverage: Coverage } | undefined;
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!;
      if (!callOk[i] || pathsOnlyAllow(r) || unnamedInputAllow(r, command) || (command.readAsShell === true && r.action === 'allow') || (r.kind !== undefined && !r.kind.includes(command.kind))) continue;
      if (r.matchers.command === undefined) {
        rule = r;
        break;
      }
      const how = commandMatch(r.matchers.command, command, r.action, r.matchers.literalWords);
      if (how === undefined) continue;
      if (r.action === 'allow') {
        // an allow rule covers only the forms the program's table knows safe (issue 30, item 1)
        const coverage = command.opaqueInput === true ? typedInputCoverage(how.named) : commandCoverage(command, { named: how.named, matched: how.matched, namedWrapper: how.wrapper, allowOption: r.matchers.allowOption ?? NOTHING });
        if (!coverage.covered) {
          uncovered ??= { rule: r, coverage };
          continue;
        }
        covered = coverage;
      }
      rule = r;
      break;
    }
    const text = command.text;
    const entry = covered === undefined ? undefined : { entry: covered.entry };
    if (rule === undefined && uncovered !== undefined) {
      const { rule: r, coverage } = uncovered;
      const why = coverage.why ?? 'not covered';
      firstAsk ??= { verdict: 'ask', rule: r, command: text, reason: `\`${clip(text)}\` is not covered by ${says(r)}: ${why} (table entry: ${coverage.entry}; allow_options in the rule can widen it)` };
      verdicts?.push({ text, verdict: 'ask', rule: r.id, entry: coverage.entry, why });
    } else if (rule === undefined) {
      // a command of typed text read as shell text only in case may be denied or asked about; no rule for it is needed
      if (command.readAsShell !== true) firstUnmatched ??= command;
      verdicts?.push({ text, verdict: undefined });
    } else if (rule.action === 'deny') {
      firstDeny ??= { verdict: 'deny', reason: `\`${clip(text)}\` is denied by ${says(rule)}`, rule, command: text };
      verdicts?.push({ text, verdict: 'deny', rule: rule.id });
    } else if (rule.action === 'ask') {
      firstAsk ??= { verdict: 'ask', reason: `\`${clip(text)}\` asks first: ${says(rule)}`, rule, command: text };
      verdicts?.push({ text, verdict: 'ask', rule: rule.id });
    } else if (rule.matchers.command !== undefined && command.writes.length > 0) {
      const why = `writes to ${command.writes.map((w) => clip(w, 80)).join(', ')}`;
      firstAsk ??= { verdict: 'ask', rule, command: text, reason: `\`${clip(text)}\` ${why}; ${says(rule)} allows the command, not writing files` };
      verdicts?.push({ text, verdict: 'ask', rule: rule.id, ...entry, why });
    } else {
      firstAllow ??= { rule, command };
      verdicts?.push({ text, verdict: 'allow', rule: rule.id, ...entry });
    }
  }
  const withVerdicts = (match: PolicyMatch): PolicyMatch => (verdicts === undefined ? match : { ...match, commands: verdicts });
  if (firstDeny !== undefined) return withVerdicts(firstDeny);
  if (firstAsk !== undefined) return withVerdicts(firstAsk);
  if (firstAllow === undefined) return undefined;
  const { rule } = firstAllow;
  if (firstUnmatched !== undefined) {
    return withVerdicts({
      verdict: 'ask', rule, command: firstUnmatched.text,
      reason: `\`${clip(firstUnmatched.text)}\` matches no policy rule; \`${clip(firstAllow.command.text)}\` beside it is allowed by a rule written for something else (${rule.id})`,
    });
  }
  if (shell.uncertain.length > 0) return withVerdicts(uncertain(shell, rule, firstAllow.command.text));
  return withVerdicts(shell.commands.length === 1
    ? { verdict: 'allow', reason: `\`${clip(firstAllow.command.text)}\` is allowed by ${says(rule)}`, rule, command: firstAllow.command.text }
    : { verdict: 'allow', reason: `each of its ${shell.commands.length} commands is allowed by a policy rule (the first by ${says(rule)})`, rule, command: firstAllow.command.text });
}

/** The `allow_options` of a rule without any: nothing more is allowed. */
const NOTHING = (): boolean => false;

/** An allow turned into ask because the analysis cannot vouch for the command line. */
function uncertain(shell: ShellAnalysis, rule: PolicyRule, command: string | undefined): PolicyMatch {
  const reason = `the command line cannot be vouched for (${shell.uncertain[0]}), so ${rule.id} does not allow it without asking`;
  return command === undefined ? { verdict: 'ask', reason, rule } : { verdict: 'ask', reason, rule, command };
}

/**
 * What an allow rule that names the tool covers of text typed into a program that is not a
 * shell (`opaqueInput`): the program was started (and judged) by an earlier call, so its own
 * options are not this call's; the rule covers the typed text when it names the program by a
 * literal word (`command = "python3"`), never by a glob alone.
 */
function typedInputCoverage(named: number): Coverage {
  return named >= 1 ? { covered: true, entry: 'typed input' } : { covered: false, entry: 'typed input', why: 'a rule allows typed input only when it names the program by name' };
}

/**
 * An allow rule without a `tool` key, for text typed into a program that is not a shell
 * (`ShellCommand.opaqueInput`): a rule for running `python3` is not a rule for typing code
 * into a python3 session. Such input is allowed only by a rule that names the tool
 * (`tool = "input_command"`, with `command = "python3"` to name the program); it still denies
 * or asks.
 */
function unnamedInputAllow(rule: PolicyRule, command: ShellCommand): boolean {
  return command.opaqueInput === true && rule.action === 'allow' && rule.matchers.tool === undefined;
}

/**
 * An allow rule with `paths` and no `command`: it speaks of the call's path arguments, and a
 * shell tool's only path argument is where its commands start (`workdir`), not what they
 * touch (`printf x > ../src/a.ts` from `docs/`). Such a rule never allows a shell call; it
 * still denies or asks.
 */
function pathsOnlyAllow(rule: PolicyRule): boolean {
  return rule.action === 'allow' && rule.matchers.path !== undefined && rule.matchers.command === undefined;
}

/** Whether the rule's `tool`, `paths` and `args` keys match the call. */
function callMatches(rule: PolicyRule, input: PolicyCallInput): boolean {
  const m = rule.matchers;
  if (m.tool !== undefined && !m.tool(input.tool)) return false;
  if (m.path !== undefined) {
    const paths = input.paths;
    if (paths.length === 0) return false;
    for (const p of paths) if (!plainRelative(p) || !m.path(p)) return false;
  }
  if (m.args !== undefined) {
    const commandArguments = input.commandArguments;
    for (const [name, matches] of m.args) {
      if (commandArguments !== undefined && commandArguments.includes(name)) return false;
      // every reading of the value (a URL as the tool parses it): an allow must match each, a deny or ask any
      const readings = argumentReadings(Object.hasOwn(input.args, name) ? input.args[name] : undefined, rule.action !== 'allow');
      if (readings.length === 0 || (rule.action === 'allow' ? !readings.every(matches) : !readings.some(matches))) return false;
    }
  }
  return true;
}

/** A workspace-relative path with no `..` segment, not absolute: the only kind a `paths` glob may match. */
function plainRelative(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\\')) return false;
  if (p === '..' || p.startsWith('../') || p.endsWith('/..') || p.includes('/../')) return false;
  return true;
}

/**
 * How a rule's `command` words match `command`, or undefined when they do not: the first word
 * matches the program and the rest are a prefix of the arguments (`matched` is the number of
 * words, `named` the number of literal words among the first: see `RuleMatchers.literalWords`);
 * or the first word names one of its wrappers (`wrapper`, its index) and the rest are a prefix
 * of the whole unwrapped argv (each one less).
 *
 * A program run by path (`argv[0]` holds a `/`: `./git status`, `/tmp/x`) may be any file, so
 * an allow rule's first word must match `argv[0]` exactly as written (`./build.sh` matches
 * `./build.sh`; `git status` does not match `./git status`). Deny and ask rules match it by
 * its program name as well, so that `rm` still denies `/bin/rm -rf x`.
 */
function commandMatch(
  words: readonly ((value: string) => boolean)[], command: ShellCommand, action: PolicyRule['action'], literal = words.length,
): { named: number; matched: number; wrapper: number } | undefined {
  if (words.length === 0) return { named: 0, matched: 0, wrapper: -1 };
  const first = words[0]!;
  const argv = command.argv;
  const head = argv[0] ?? command.program;
  const byPath = head.includes('/');
  const program = byPath ? first(head) || (action !== 'allow' && first(command.program)) : first(command.program) || first(head);
  if (program && prefixMatches(words, argv, 1)) return { named: Math.min(literal, words.length), matched: words.length, wrapper: -1 };
  const wrapper = command.wrappers.findIndex((w) => first(w));
  return wrapper >= 0 && prefixMatches(words, argv, 0) ? { named: Math.max(0, Math.min(literal, words.length) - 1), matched: words.length - 1, wrapper } : undefined;
}

/** Whether `words[1..]` match `argv[from..]` word for word (argv may go on). */
function prefixMatches(words: readonly ((value: string) => boolean)[], argv: readonly string[], from: number): boolean {
  if (argv.length - from < words.length - 1) return false;
  for (let i = 1; i < words.length; i++) if (!words[i]!(argv[from + i - 1]!)) return false;
  return true;
}

/** `"the policy rule FILE:LINE (action: reason)"`. */
function says(rule: PolicyRule): string {
  return `the policy rule ${rule.id} (${rule.action}${rule.reason === undefined ? '' : `: ${rule.reason}`})`;
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
