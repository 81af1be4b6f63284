/**
 * The policy files as a call's {@link PathFilter} (`src/workspace/path-filter.ts`): a path is
 * withheld when a policy file, asked about the call with that path as its only path, says
 * `deny`, or `ask` by a rule the person did not answer for this call. The same files and the
 * same matching (`matchPolicyRules`) as the policy decider (`policy-files.decider.ts`), so a folder-walking tool
 * withholds exactly what a call naming the entry would be denied or asked about.
 *
 * @module
 */
import type { ActionKind } from '../policy/action-kinds.js';
import type { PolicyFile } from '../policy/policy-file.js';
import { defaultPolicyPaths, PolicySet } from '../policy/policy-set.js';
import { matchPolicyRules, policyCallInput } from '../policy/policy-rules.js';
import type { PathFilter, PathFilterSpec } from '../workspace/path-filter.js';
import type { Decision, PreparedCall } from './decision.js';
import type { PolicyFilesOptions } from './policy-files.decider.js';

/** Policy sets by their files, kept across calls of one process (each re-checks its files). */
const sets = new Map<string, PolicySet>();
const MAX_SETS = 64;

/**
 * The filter a {@link PathFilterSpec} describes. The policy files are read (re-checked) once,
 * when the filter is made (the tool's first question), and each file's rules judge each path
 * as `PolicySet.decide` would (the stricter verdict of the two files wins; an invalid file
 * withholds everything). Answers are remembered for the call's life.
 */
export function policyPathFilter(spec: PathFilterSpec): PathFilter {
  const files = setOf(spec.user, spec.workspace).check();
  const invalid = files.some((f) => f.state === 'invalid');
  const policies = files.flatMap((f) => (f.state === 'ok' && f.policy !== undefined ? [f.policy] : []));
  const tool = { name: spec.tool.name, kind: spec.tool.kind as ActionKind, commandArguments: spec.tool.commandArguments };
  const args = spec.args ?? {};
  const answered = new Set(spec.answered);
  const known = new Map<string, boolean>();
  const judge = (relative: string): boolean => {
    const input = policyCallInput(tool, args, [relative], []);
    let asked = false;
    for (const policy of policies) {
      const match = matchPolicyRules(policy, input);
      if (match?.verdict === 'deny') return true;
      if (match?.verdict === 'ask' && !answered.has(match.rule.id)) asked = true;
    }
    return asked;
  };
  const filter = (relative: string): boolean => {
    if (invalid) return true;
    let withheld = known.get(relative);
    if (withheld === undefined) {
      withheld = judge(relative);
      if (known.size < 10_000) known.set(relative, withheld);
    }
    return withheld;
  };
  const rulesKey = rulesKeyOf(invalid, policies, spec);
  return rulesKey === undefined ? filter : Object.assign(filter, { rulesKey });
}

/** A number for each parse of a policy file (a parse is immutable: an edited file is parsed anew). */
const parseIds = new WeakMap<PolicyFile, number>();
let nextParseId = 0;

/**
 * The `rulesKey` of a filter: what its answers depend on (the parses its rules come from, the
 * tool as the rules see it, the answered `ask` rules); every filter of an invalid file
 * withholds everything. Undefined when a rule with `paths` also has `args` (the call's
 * arguments then count: each call's differ, and nothing is kept).
 */
function rulesKeyOf(invalid: boolean, policies: readonly PolicyFile[], spec: PathFilterSpec): string | undefined {
  if (invalid) return 'invalid';
  if (spec.args !== undefined) return undefined;
  const parses = policies.map((p) => {
    let id = parseIds.get(p);
    if (id === undefined) parseIds.set(p, (id = nextParseId++));
    return id;
  });
  return JSON.stringify([parses, spec.tool.name, spec.tool.kind, spec.tool.commandArguments, [...spec.answered].sort()]);
}

/** What a file's `deny` and `ask` rules with `paths` are: whether it has any, and whether one of them also has `args`. */
interface PathRules {
  readonly some: boolean;
  readonly args: boolean;
}

const NO_PATH_RULES: PathRules = Object.freeze({ some: false, args: false });

/** {@link PathRules} of each parsed file (a parse is immutable: worked out once, not per call). */
const pathRulesByFile = new WeakMap<PolicyFile, PathRules>();

function pathRulesOf(policy: PolicyFile): PathRules {
  let rules = pathRulesByFile.get(policy);
  if (rules === undefined) {
    const withPaths = policy.rules.filter((r) => r.action !== 'allow' && r.matchers.path !== undefined);
    rules = withPaths.length === 0 ? NO_PATH_RULES : { some: true, args: withPaths.some((r) => r.matchers.args !== undefined) };
    pathRulesByFile.set(policy, rules);
  }
  return rules;
}

/** The last set {@link setOf} gave, with its files (calls of one process nearly always name the same). */
let last: { user: string | undefined; workspace: string | undefined; set: PolicySet } | undefined;

/** The policy set of these files (one per pair, kept across calls; each re-checks its files). */
function setOf(user: string | undefined, workspace: string | undefined): PolicySet {
  if (last !== undefined && last.user === user && last.workspace === workspace) return last.set;
  const key = `${user ?? ''}\u0000${workspace ?? ''}`;
  let set = sets.get(key);
  if (set === undefined) {
    if (sets.size >= MAX_SETS) sets.delete(sets.keys().next().value!);
    set = new PolicySet({ user, workspace });
    sets.set(key, set);
  }
  last = { user, workspace, set };
  return set;
}

/** The workspace policy file of each workspace (real root), as the policy decider found it. */
const workspaceFiles = new Map<string, string | undefined>();

/**
 * The {@link PathFilterSpec} of a decided call: its tool, its policy files, its arguments (only
 * when a rule with `paths` also has `args`), and the `ask` rules of the policy decider that the
 * call's trail settled (answered by a person, or by a remembered answer) before it was allowed.
 * `undefined` when no policy file counts or none has a `deny` or `ask` rule with `paths` (then
 * nothing can be withheld, and the call carries nothing).
 */
export function pathFilterSpecOf(policyFiles: PolicyFilesOptions | undefined, call: PreparedCall, trail: readonly Decision[]): PathFilterSpec | undefined {
  if (policyFiles === undefined) return undefined;
  const root = call.workspace.realRoot;
  let workspace = workspaceFiles.get(root);
  if (workspace === undefined && policyFiles.workspaceFiles && !workspaceFiles.has(root)) {
    if (workspaceFiles.size >= MAX_SETS) workspaceFiles.delete(workspaceFiles.keys().next().value!);
    workspace = defaultPolicyPaths({ workspaceRoot: root }).workspace;
    workspaceFiles.set(root, workspace);
  }
  if (!policyFiles.workspaceFiles) workspace = undefined;
  // The files as the policy decider checked them for this call (no stat more), else checked now.
  let some = false;
  let withArgs = false;
  for (const status of setOf(policyFiles.userFile, workspace).check(call)) {
    const rules = status.policy === undefined ? NO_PATH_RULES : pathRulesOf(status.policy);
    some ||= rules.some;
    withArgs ||= rules.args;
  }
  if (!some) return undefined;
  const { tool } = call;
  const answered = trail.filter((d) => d.decider === 'policy' && d.verdict === 'ask' && d.rule !== undefined).map((d) => d.rule!);
  return {
    ...(policyFiles.userFile === undefined ? {} : { user: policyFiles.userFile }),
    ...(workspace === undefined ? {} : { workspace }),
    tool: { name: tool.name, kind: tool.kind, commandArguments: [...tool.commandArguments] },
    ...(withArgs ? { args: call.args } : {}),
    answered,
  };
}
