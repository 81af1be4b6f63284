/**
 * Name spaces of tools that come from outside the code: the tools skills declare and the
 * tools bridged from MCP servers. Policy rules match tools by name (`github__*`), so the two
 * must never meet: a skill named like a bridged server must not fall under that server's
 * rules, nor take its tools' names.
 *
 * - A skill's tool is `skill__<skill>__<tool>` ({@link SKILL_TOOL_PREFIX}), and only a tool of
 *   kind `dynamic_skill_tool` may have a name with that prefix (the registry refuses any other,
 *   a bridged tool included).
 * - A bridged tool is `<server>__<tool>` (`src/mcp/proxy-names.ts`): the server prefix
 *   {@link RESERVED_SERVER_PREFIX} (`skill`) is refused by the MCP config, so no bridged name
 *   starts with `skill__`.
 *
 * @module
 */
import type { ActionKind } from '../policy/action-kinds.js';

/**
 * The prefix of every tool a skill declares: `skill__<skill>__<tool>`.
 * @internal
 */
export const SKILL_TOOL_PREFIX = 'skill__';

/**
 * The MCP server name prefix reserved for skills: a bridged server whose name makes this
 * prefix would name its tools like skills' tools.
 * @internal
 */
export const RESERVED_SERVER_PREFIX = 'skill';

/**
 * Why `name` may not be registered with `kind`, or `undefined` when it may: a name in the
 * skills' name space ({@link SKILL_TOOL_PREFIX}) is only for kind `dynamic_skill_tool`, and a
 * tool of that kind must be named in it.
 * @internal
 */
export function toolNamespaceProblem(name: string, kind: ActionKind): string | undefined {
  const inSkills = name.startsWith(SKILL_TOOL_PREFIX);
  if (inSkills && kind !== 'dynamic_skill_tool') {
    return `the name ${name} is in the skills' name space (${SKILL_TOOL_PREFIX}<skill>__<tool>), which only tools skills declare (kind dynamic_skill_tool) may use; rename the tool (a bridged MCP server may not be named "${RESERVED_SERVER_PREFIX}")`;
  }
  if (!inSkills && kind === 'dynamic_skill_tool') {
    return `a tool of kind dynamic_skill_tool is named ${SKILL_TOOL_PREFIX}<skill>__<tool>, so that policy rules on names cannot confuse it with another tool; got ${name}`;
  }
  return undefined;
}
