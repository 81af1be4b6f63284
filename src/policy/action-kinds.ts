/**
 * Action kinds: what a tool call does to the world, in the field's terms (seed
 * `004_1a9ea3106da7ef2e.txt`). Every tool declares one in `@tool({ kind })`; a bridged MCP
 * tool gets one derived from its server's hints; a shell call gets the most severe kind of the
 * commands in it. Policy rules and approval modes match on them.
 *
 * @module
 */

/**
 * Every action kind, from the least to the most severe. The order is what "the most severe
 * kind wins" means for a compound shell command or a batch.
 * - `internal`: touches nothing outside toolgate (a calculator, a clock, asking the user).
 * - `file_read`: reads workspace files or folders.
 * - `mcp_read`: a bridged MCP tool its (trusted) server marks read-only.
 * - `file_write`: creates, changes or deletes workspace files.
 * - `mcp_write_or_unknown`: any other bridged MCP tool.
 * - `task_subagent`: starts an agent or a long task of its own.
 * - `shell_command`: runs a program.
 * - `dynamic_skill_tool`: a tool a skill declares (a script, a shell line or an HTTP request
 *   from a `SKILL.md`), registered at run time.
 * - `shell_command`: runs a program.
 * - `network`: reaches another machine (an HTTP request, `curl`, `ssh`, `git push`).
 * - `computer_use`: drives a desktop (screenshots, clicks, keys): whatever a person at that
 *   screen could do.
 * - `unknown`: not classified: the most severe, so that what nothing understands is judged
 *   as the worst case (fail closed).
 */
export const ACTION_KINDS = Object.freeze([
  'internal', 'file_read', 'mcp_read', 'file_write', 'mcp_write_or_unknown', 'task_subagent', 'dynamic_skill_tool', 'shell_command', 'network', 'computer_use', 'unknown',
] as const);

/** One of {@link ACTION_KINDS}. */
export type ActionKind = (typeof ACTION_KINDS)[number];

const RANK: ReadonlyMap<string, number> = new Map(ACTION_KINDS.map((kind, i) => [kind, i]));

/** Whether `value` names an action kind. */
export function isActionKind(value: unknown): value is ActionKind {
  return typeof value === 'string' && RANK.has(value);
}

/** The most severe of `kinds` (`internal` for none). */
export function mostSevere(kinds: Iterable<ActionKind>): ActionKind {
  let worst: ActionKind = 'internal';
  for (const kind of kinds) if (RANK.get(kind)! > RANK.get(worst)!) worst = kind;
  return worst;
}

/** Kinds that only read: what the `read-only` approval mode approves without asking. */
export function onlyReads(kind: ActionKind): boolean {
  return kind === 'internal' || kind === 'file_read' || kind === 'mcp_read';
}
