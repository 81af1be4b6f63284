/**
 * Policy-files decider: the user's and the workspace's policy files (`src/policy/`), asked
 * about every call, re-checked before each decision and again after a person's yes (a rule
 * added while they were answering applies).
 *
 * Path rules see every path the call reaches, judged one by one (`matchPolicyRules`): each
 * path argument's real path (links resolved) and its spelling, other names of the same file
 * (hard links), and for a writing tool what a folder argument holds and where it lands. A
 * deny of any one denies; when that list was cut short (a huge folder), a deny or ask rule
 * on paths makes the call ask. A shell command's words that name workspace files are judged
 * by the deny and ask rules with `paths` too (`cat env-link` under a deny on `.env`).
 *
 * - a `deny` rule, or a file that cannot be read or is invalid: `deny` (`POLICY_DENIED`),
 *   naming the rule's file and line, or the file and the line of the problem;
 * - an `ask` rule: `ask`, settled by a person or a remembered answer to this exact request;
 * - an `allow` rule of the user's file: `allow` with `grants`, which lifts the default
 *   question of the tool and of the approval mode (never a protected path's, another rule's
 *   `ask` or `always-ask`); an `allow` of the workspace's file is an `allow` without
 *   `grants`: a repository's file only narrows, so it lifts no question, and its reason (shown
 *   by `--explain` and added to the question the call is asked) says so and names the user's file;
 * - `always_ask = true` in either file: every call that is not denied asks afresh.
 * The workspace file is the one of the call's workspace: one {@link PolicySet} per workspace
 * is kept (at most {@link MAX_WORKSPACES}, the least recently used forgotten first).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PolicyRule } from '../policy/policy-file.js';
import { defaultPolicyPaths, PolicySet, type PolicyDecision } from '../policy/policy-set.js';
import { couldMatchBelow, gitContentRead, type PathKind } from '../policy/git-content-reads.js';
import { policyCallInput, type PolicyCallInput } from '../policy/policy-rules.js';
import { judgedPaths } from '../workspace/judged-paths.js';
import { spelledRelative } from '../workspace/workspace.js';
import { lineReading, namesNotInWords, shownText } from './command-word-paths.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';
import { commandBeyondView } from './shown-arguments.js';
import { unseenProgram } from './understood-programs.js';
import type { ShellCommand } from '../policy/shell/types.js';

const NAME = 'policy';

/** Workspaces whose policy sets are kept at once. */
const MAX_WORKSPACES = 64;

/** Where the policy files are (resolved from the executor's `policy` option). */
export interface PolicyFilesOptions {
  /** The user's policy file (absolute); `undefined` for none. */
  readonly userFile: string | undefined;
  /** Whether each workspace's `.toolgate/policy.toml` (or `policy.json`) counts. */
  readonly workspaceFiles: boolean;
}

/** The policy-files step of the pipeline. */
export class PolicyFilesDecider implements Decider {
  readonly name = NAME;
  readonly recheckAfterAnswer = true;
  private readonly sets = new Map<string, PolicySet>();

  constructor(private readonly options: PolicyFilesOptions) {}

  /** The policy set of a workspace (made on first use). */
  setFor(workspaceRoot: string): PolicySet {
    let set = this.sets.get(workspaceRoot);
    if (set !== undefined) {
      // Most recently used last.
      this.sets.delete(workspaceRoot);
    } else {
      if (this.sets.size >= MAX_WORKSPACES) this.sets.delete(this.sets.keys().next().value!);
      const { userFile, workspaceFiles } = this.options;
      set = new PolicySet({ user: userFile, workspace: workspaceFiles ? defaultPolicyPaths({ workspaceRoot }).workspace : undefined });
    }
    this.sets.set(workspaceRoot, set);
    return set;
  }

  /**
   * Whether the user's policy file grants `command`'s program by name: see {@link programGranted}.
   * What the protected-paths decider asks before it holds a program it cannot see against a line.
   */
  grantsProgram(call: Pick<PreparedCall, 'tool' | 'args' | 'workspace'>, command: ShellCommand): boolean {
    return programGranted(this.setFor(call.workspace.realRoot), call, command);
  }

  decide(call: PreparedCall): Decision | undefined {
    const set = this.setFor(call.workspace.realRoot);
    const { input, incomplete } = policyInput(call);
    // Checked now (a stat per file), and marked as checked for this call: its later looks (its commands' paths, its path filter) use the same states.
    const said = set.decide(input, { call, recheck: true });
    const decided = decisionOf(said, call, this.options.userFile);
    if (decided?.verdict === 'deny' || (decided?.verdict === 'ask' && decided.fresh === true)) return decided;
    if (call.commands.length !== 0) {
      const named = namedByCommands(set, call);
      if (named !== undefined && (named.verdict === 'deny' || named.fresh === true || decided?.verdict !== 'ask')) return named;
    }
    if (incomplete === undefined) return decided;
    // Paths the call reaches went unseen: a deny or ask rule on paths could be about one of them.
    const rule = pathRuleThatCouldMatch(set, call);
    if (rule === undefined) return decided;
    return { verdict: 'ask', decider: NAME, reason: `${incomplete}; the policy rule ${rule.id} could be about one of them`, rule: rule.id, source: { file: rule.file, line: rule.line } };
  }
}

/**
 * What the policy files are shown of a call: every path it reaches (`judged-paths.ts`: each
 * path argument's real path and spelling, other names of the same file, and for a tool that
 * writes, what a folder argument holds and where that lands), and why that list may be short.
 */
function policyInput(call: PreparedCall): { input: PolicyCallInput; incomplete: string | undefined } {
  if (call.paths.length === 0) return { input: policyCallInput(call.tool, call.args, [], call.commands), incomplete: undefined };
  const judged = judgedPaths(call.paths, { workspace: call.workspace, contents: !call.tool.readOnly && call.commands.length === 0 });
  const paths = [...new Set(judged.paths.map((p) => p.relative))];
  return { input: policyCallInput(call.tool, call.args, paths, call.commands), incomplete: judged.incomplete };
}

/**
 * A shell command's words and redirect targets that name a file or folder of the workspace
 * (resolved from the command's folder, links followed; options' `=` values too) are judged by
 * the `deny` and `ask` rules with `paths`, as a file tool's path would be: `cat env-link` under
 * a deny on `.env` is denied. A name in the workspace is judged as spelled too, whatever it
 * leads to: `cat .env` with `.env` a link to a file outside the workspace is denied. A word naming a folder (`.` included) is judged by what the
 * folder holds as well (links inside judged by where they lead): `grep -r SECRET .` under a
 * deny on `secrets/**` is denied, since a command's output cannot be filtered the way
 * `grep_files` leaves out withheld files; a folder too large to walk makes the call ask.
 * `policy check --explain` shows the same verdict (`src/cli/policy-command.ts`). Only a verdict whose rule has `paths` counts here (the command
 * rules judged the line already). A glob word is expanded against the folder's entries (dot
 * files included); words with variables, braces or `~` are not resolved. A git command that
 * may print committed content from git's objects (`git show HEAD`, `git log -p`: see
 * `git-content-reads.ts`) asks, and under a deny rule on paths only a person answers.
 */
export function namedByCommands(set: PolicySet, call: Pick<PreparedCall, 'tool' | 'args' | 'workspace' | 'paths' | 'commands' | 'sandbox'>): Decision | undefined {
  const pathRule = pathRuleThatCouldMatch(set, call);
  if (pathRule === undefined) return undefined;
  const { workspace } = call;
  const from = call.paths[0]?.real ?? workspace.realRoot;
  let asked: Decision | undefined;
  let gitAsk: Decision | undefined;
  const seen = new Set<string>();
  const walked = new Set<string>();
  const kindOf = (word: string): PathKind => pathKind(workspace, path.resolve(from, word));
  // a pathspec matches in every commit, where a file's name may have been a folder holding withheld paths
  const withheld = withheldGlobs(set);
  const underWithheld = (word: string): boolean => {
    const relative = relativeTo(workspace.realRoot, path.resolve(from, word));
    return relative.startsWith('../') || withheld.some((glob) => couldMatchBelow(glob, relative));
  };
  // Without a sandbox nothing hides a withheld path from what the words do not show: a word
  // computed when the line runs, a link or a folder change made earlier in the same line.
  const unsandboxed = call.sandbox === undefined || call.sandbox.profile === 'none';
  let unseen: string | undefined;
  const note = unsandboxed ? (why: string) => { unseen ??= why; } : () => {};
  // one reading of the words per decision, shared with the protected-paths decider
  const reading = lineReading(call);
  const bases = unsandboxed ? reading.bases(note) : reading.callFolder();
  for (const analysis of call.commands) {
    // what the analysis cannot vouch for may name any path (a variable cd reads, a hidden command)
    const doubt = analysis.uncertain.find((why) => !(analysis.callerInput ?? []).includes(why));
    if (unsandboxed && doubt !== undefined) unseen ??= `the analysis cannot vouch for the line (${doubt.slice(0, 160)})`;
    if (unsandboxed && analysis.commands.length > 1) {
      const link = analysis.commands.find(makesLink);
      if (link !== undefined) unseen ??= `\`${link.text.slice(0, 120)}\` makes a link that a later command of the line may read through`;
    }
    for (const command of analysis.commands) {
      if (unsandboxed) {
        const names = namesNotInWords(command) ?? ungrantedProgram(set, call, command);
        if (names !== undefined) unseen ??= names;
        for (const i of command.dynamicWords ?? []) {
          const word = command.argv[i] ?? '';
          if (!/^(~[^/'"\\$`{}]*)?[^'"\\$`{}~]*[*?[]/.test(word)) unseen ??= `the word \`${word.slice(0, 80)}\` of \`${command.text.slice(0, 120)}\` is computed when the line runs`;
        }
      }
      const gitReads = gitAsk === undefined ? gitContentRead(command, kindOf, underWithheld) : undefined;
      if (gitReads !== undefined) {
        // git reads its own objects, which no path word names and the sandbox does not hide
        const shown = command.text.length > 200 ? `${command.text.slice(0, 200)}…` : command.text;
        const reason = `the command \`${shown}\`: ${gitReads}, and the policy rule ${pathRule.id} (${pathRule.action}) withholds paths, so a person decides`;
        gitAsk = { verdict: 'ask', decider: NAME, reason, rule: pathRule.id, source: { file: pathRule.file, line: pathRule.line }, ...(pathRule.action === 'deny' && { fresh: true }) };
      }
      for (const { word, targets } of reading.targets(command, bases, note)) {
        {
          const judged: { relative: string; held: boolean }[] = [];
          const shown = command.text.length > 200 ? `${command.text.slice(0, 200)}…` : command.text;
          // not normalised: `..` after a link climbs from the link's target, as the kernel does (workspace.resolve walks it so)
          for (const named of targets) {
            let real: string;
            try {
              real = workspace.resolve(named);
            } catch {
              // A name in the workspace is judged as spelled whatever it leads to: `.env` linking
              // to a file kept elsewhere (a dotfile manager, a secrets folder) is still `.env`.
              const spelled = spelledRelative(workspace.root, workspace.realRoot, named);
              if (spelled !== undefined) judged.push({ relative: spelled, held: false });
              // outside the workspace: nothing more to judge, unless it is a folder holding the workspace (`grep -r x ..`)
              if (!unsandboxed || /^\.\.(\/|$)/.test(relativeTo(named, workspace.realRoot))) continue;
              real = named;
            }
            judged.push({ relative: relativeTo(workspace.realRoot, real), held: false }, { relative: relativeTo(workspace.realRoot, named), held: false });
            // other names of the same file (hard links): `cat notes.txt` after `ln .env notes.txt` reads .env
            const aliases = judgedPaths([{ given: word, real }], { workspace, contents: false });
            for (const p of aliases.paths) if (p.via === 'alias') judged.push({ relative: p.relative, held: false });
            if (aliases.incomplete !== undefined) asked ??= { verdict: 'ask', decider: NAME, reason: `the command \`${shown}\` names ${JSON.stringify(word)}, a file with other names: ${aliases.incomplete}, and a path rule may deny one of them`, rule: 'too-large' };
            // A folder word: the program may read everything below it (`grep -r x .`), which no
            // filter can trim from a command's output, so what the folder holds is judged too,
            // and what the links in it lead to (`grep -R` follows them).
            // With a sandbox, the command finds those paths hidden (src/sandbox: SandboxMounts.hidden).
            const folders = call.sandbox === undefined || call.sandbox.profile === 'none' ? [real] : [];
            while (folders.length > 0) {
              const folder = folders.pop()!;
              // path rules name workspace paths: a folder outside it holds nothing they judge, unless it holds the workspace (`grep -r x ..`)
              if (walked.has(folder) || !isFolder(folder)) continue;
              walked.add(folder);
              if (/^\.\.(\/|$)/.test(relativeTo(workspace.realRoot, folder))) {
                if (/^\.\.(\/|$)/.test(relativeTo(folder, workspace.realRoot))) continue;
                folders.push(workspace.realRoot);
                continue;
              }
              const inside = walked.size > MAX_WALKED_FOLDERS ? { paths: [], incomplete: `it leads through more than ${MAX_WALKED_FOLDERS} linked folders` } : judgedPaths([{ given: word, real: folder }], { workspace, contents: true, aliases: false });
              for (const p of inside.paths) {
                if (p.via !== 'inside') continue;
                judged.push({ relative: p.relative, held: true });
                if (p.isFile !== undefined) continue;
                try {
                  const target = workspace.resolve(path.join(workspace.realRoot, p.relative)); // a link: where it leads
                  judged.push({ relative: relativeTo(workspace.realRoot, target), held: true });
                  folders.push(target);
                } catch {
                  // a link that leads nowhere, or out of the workspace: nothing of it to judge
                }
              }
              if (inside.incomplete !== undefined) {
                asked ??= { verdict: 'ask', decider: NAME, reason: `the command \`${shown}\` names the folder ${JSON.stringify(word)}: ${inside.incomplete}, and a path rule may deny what it holds`, rule: 'too-large' };
              }
            }
          }
          for (const { relative: p, held } of judged) {
            if (seen.has(p) || p === '.' || p.startsWith('../')) continue;
            seen.add(p);
            const said = set.decide(policyCallInput(call.tool, call.args, [p], []), { call, recheck: false });
            if (said.rule?.matchers.path === undefined || said.verdict === undefined || said.verdict === 'allow') continue;
            const source = { file: said.rule.file, line: said.rule.line };
            const what = held ? `the folder ${JSON.stringify(word)}, which holds ${JSON.stringify(p)} (a command may read all a folder holds)` : `${JSON.stringify(word)}, which is ${JSON.stringify(p)}`;
            if (said.verdict === 'deny') return { ...deny(NAME, 'POLICY_DENIED', `Denied by policy: the command \`${shown}\` names ${what}: ${said.reason}.`, said.rule.id), source };
            asked ??= { verdict: 'ask', decider: NAME, reason: `the command \`${shown}\` names ${what}: ${said.reason}`, rule: said.rule.id, source };
          }
        }
      }
    }
  }
  if (gitAsk?.fresh === true) return gitAsk;
  if (unseen !== undefined && (asked === undefined || pathRule.action === 'deny')) {
    return { verdict: 'ask', decider: NAME, reason: `${unseen}; with no sandbox to hide what the policy rule ${pathRule.id} (${pathRule.action}) withholds, a person decides`, rule: pathRule.id, source: { file: pathRule.file, line: pathRule.line }, ...(pathRule.action === 'deny' && { fresh: true }) };
  }
  return asked ?? gitAsk;
}

/**
 * Whether an explicit allow rule of the user's policy file names `command`'s program exactly
 * and covers this command: the rule's first `command` word is literal and is the program as
 * the line runs it (`command = "make"` for `make test`, `command = "./build.sh"` for
 * `./build.sh`), and it is the rule that allows this command (the last matching rule of the
 * file, not overridden by an `ask`, a `deny` or `always_ask` of either file). Such a rule is
 * the person's grant for what that program's code does, which the analysis cannot see. A rule
 * for every command (`tool = "run_command"` with no `command`, `command = "*"`), a glob
 * (`command = "ma*"`), a workspace file's allow, a remembered answer and the `allow-all`
 * approval mode are not: they were not written for this program.
 */
function programGranted(set: PolicySet, call: Pick<PreparedCall, 'tool' | 'args'>, command: ShellCommand): boolean {
  const input = policyCallInput(call.tool, call.args, [], [{ commands: [command], uncertain: [], kind: command.kind }]);
  const said = set.decide(input, { call, recheck: false });
  if (said.verdict !== 'allow' || said.fresh || said.layer !== 'user' || said.rule === undefined) return false;
  const first = said.rule.command?.[0];
  return first !== undefined && (said.rule.matchers.literalWords ?? 0) >= 1 && first === command.argv[0];
}

/** Why `command`'s program is unseen ({@link unseenProgram}) and not granted by name ({@link programGranted}), or undefined. */
function ungrantedProgram(set: PolicySet, call: Pick<PreparedCall, 'tool' | 'args'>, command: ShellCommand): string | undefined {
  const unseen = unseenProgram(command);
  if (unseen === undefined || (unseen.grantable && programGranted(set, call, command))) return undefined;
  return `\`${shownText(command)}\` ${unseen.reason}`;
}

/** Programs and options that make a link (`ln`, `link`, `cp -s`/`-l`, a bind mount). */
function makesLink(command: { readonly program: string; readonly argv: readonly string[] }): boolean {
  if (['ln', 'link', 'mount', 'bindfs'].includes(command.program)) return true;
  return command.program === 'cp' && command.argv.some((w) => /^--(link|symbolic-link)$/.test(w) || /^-[A-Za-z]*[sl]/.test(w));
}

/** What `absolute` is in the workspace (links followed): a regular file, something else, or nothing (missing, outside, unreadable). */
function pathKind(workspace: PreparedCall['workspace'], absolute: string): PathKind {
  try {
    return fs.statSync(workspace.resolve(absolute)).isFile() ? 'file' : 'other';
  } catch {
    return undefined;
  }
}

/** `real` relative to the workspace's real root, `/`-separated (`.` for the root). */
function relativeTo(realRoot: string, real: string): string {
  return path.relative(realRoot, real).split(path.sep).join('/') || '.';
}

/** Whether `real` is a folder (links followed). */
function isFolder(real: string): boolean {
  try {
    return fs.statSync(real).isDirectory();
  } catch {
    return false;
  }
}

/** Most folders (a folder word's and those its links lead to) one call's command words walk for judging; past it the call asks. */
const MAX_WALKED_FOLDERS = 64;

/** The `paths` globs of every deny and ask rule in either file. */
function withheldGlobs(set: PolicySet): string[] {
  return set.check().flatMap((status) => status.policy?.rules.filter((r) => r.action !== 'allow').flatMap((r) => r.paths ?? []) ?? []);
}

/** A deny rule with `paths` in either file (the user's first), else such an ask rule, if any. */
function pathRuleThatCouldMatch(set: PolicySet, call: object): PolicyRule | undefined {
  let ask: PolicyRule | undefined;
  for (const status of set.check(call)) {
    const rules = status.policy?.rules.filter((r) => r.action !== 'allow' && r.matchers.path !== undefined) ?? [];
    const deny = rules.find((r) => r.action === 'deny');
    if (deny !== undefined) return deny;
    ask ??= rules[0];
  }
  return ask;
}

/** The pipeline's decision for what the policy files said. */
function decisionOf(said: PolicyDecision, call: PreparedCall, userFile: string | undefined): Decision | undefined {
  const { rule, error } = said;
  const source = rule !== undefined ? { file: rule.file, line: rule.line } : error !== undefined && error.line !== undefined ? { file: error.file, line: error.line } : undefined;
  const named = (d: Decision): Decision => (source === undefined ? d : { ...d, source });
  const ruleId = rule?.id ?? (error === undefined ? undefined : `${error.file}${error.line === undefined ? '' : `:${error.line}`}`);
  switch (said.verdict) {
    case 'deny':
      return named(deny(NAME, 'POLICY_DENIED', `Denied by policy: ${said.reason}.`, ruleId));
    case 'ask':
      return named({ verdict: 'ask', decider: NAME, reason: said.reason, rule: ruleId, fresh: said.fresh || undefined });
    case 'allow':
      if (said.fresh) return named({ verdict: 'ask', decider: NAME, reason: `${said.reason}, but always_ask is set, so every call is put to the user`, rule: ruleId, fresh: true });
      // A repository's file only narrows: its allow lifts no question the user's policy (or
      // the approval mode, or the tool) would ask. Only the user's own allow grants. Said as an
      // allow that grants nothing, so `--explain` shows it and a question the call is asked
      // tells why the rule did not settle it (`pipeline.ts`).
      if (said.layer !== 'user') return named({ verdict: 'allow', decider: NAME, reason: workspaceAllowReason(said.reason, userFile), rule: ruleId });
      // A command too long to show whole: nobody read what the rule would grant, so it grants
      // nothing and the call is put to the user as without the rule (the prompt offers the whole view).
      if (commandBeyondView(call.args, call.tool.commandArguments) !== undefined) {
        return named({ verdict: 'allow', decider: NAME, reason: `${said.reason}, but the command is too long to show whole, so the rule grants nothing`, rule: ruleId });
      }
      return named({ verdict: 'allow', decider: NAME, reason: said.reason, rule: ruleId, grants: true });
    default:
      if (said.fresh) return { verdict: 'ask', decider: NAME, reason: `always_ask is set in a policy file, so every ${call.tool.name} call is put to the user`, rule: 'always_ask', fresh: true };
      return undefined;
  }
}

/**
 * Why a workspace file's allow rule lifts no question (`said` names the rule by file:line),
 * and where an allow that would is written: the user's own policy file (its real path when it exists).
 */
function workspaceAllowReason(said: string, userFile: string | undefined): string {
  const own = userFile === undefined
    ? 'no policy file of your own is read here (the executor\'s policy option names none)'
    : `put that allow rule in your own policy file, ${realOrGiven(userFile)}`;
  return `${said}, but that rule is in the workspace's policy file, whose allow rules lift no question (a repository's file may only deny or ask: it must not grant itself); to let such a call run without asking, ${own}`;
}

/** The real path of `file` (links resolved; of its folder when the file does not exist yet), else `file` as given. */
function realOrGiven(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
    } catch {
      return file;
    }
  }
}
