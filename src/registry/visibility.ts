/**
 * Which tools are visible: the one place that decides what a model is offered and which
 * names it may call at all. Two questions, kept apart:
 * - **selection** ({@link isSelected}): is the tool inside the caller's `tags` / `names`
 *   choice? A call to a tool outside it is answered `UNKNOWN_TOOL`, as if it did not exist.
 * - **offer in a mode** ({@link isOfferedInMode}): would the mode ever let it run? A read-only
 *   mode offers read-only tools, plus the tools that may write inside scoped folders when it
 *   has some. This only hides what would always be denied; the mode decider still decides
 *   every call (visibility is not authorization).
 * - **offer to a model class** ({@link isOfferedToModel}): is the tool meant for the model's
 *   class (`forModel`)? A text-only model is not offered `read_image`, a vision model not
 *   `describe_image`; tools without `forModel` are offered to every model. Not authorization
 *   either: a call is not refused for it.
 * - **caller tools** ({@link isCallerTool}): toolgate's caller-side builtins (`ask_user`,
 *   `request_tools`, `run_subagent`, `input_subagent`) are registered like every tool, but no
 *   selection holds them: the caller (an agent, the MCP server) offers each with a spec of its
 *   own when it lends what the tool needs, and the visibility decider denies a call to one it
 *   did not lend (`src/decisions/visibility.decider.ts`).
 *
 * Which calls are refused for visibility (lazy domains: `TOOL_HIDDEN`; caller tools not lent:
 * `UNKNOWN_TOOL`) is the visibility decider's; this module only says what is offered.
 *
 * @module
 */
import type { AgentMode } from '../modes/modes.js';
import type { ModelClass } from '../types/model-class.js';
import type { RegisteredTool } from './registered-tool.js';

/** The caller's choice of tools. */
export interface ToolSelectionFilter {
  /** Keep tools carrying at least one of these tags. Default: every tool. */
  tags?: ReadonlySet<string> | readonly string[] | undefined;
  /** Keep only these names. Default: every name. */
  names?: ReadonlySet<string> | readonly string[] | undefined;
}

function has(list: ReadonlySet<string> | readonly string[], value: string): boolean {
  return Array.isArray(list) ? list.includes(value) : (list as ReadonlySet<string>).has(value);
}

function isEmpty(list: ReadonlySet<string> | readonly string[] | undefined): boolean {
  return list === undefined || (Array.isArray(list) ? list.length === 0 : (list as ReadonlySet<string>).size === 0);
}

/** The `source` of the caller tools' registrations (`src/builtin/caller-tools.ts`). */
export const CALLER_TOOL_SOURCE = 'toolgate:caller-tool';

/** Is `tool` one of toolgate's caller-side builtins (offered by its caller, never by a selection)? */
export function isCallerTool(tool: { readonly source?: string }): boolean {
  return tool.source === CALLER_TOOL_SOURCE;
}

/** Is `tool` inside the selection (an empty or absent list selects everything)? A caller tool never is. */
export function isSelected(tool: Pick<RegisteredTool, 'name' | 'tags'> & { readonly source?: string }, filter: ToolSelectionFilter): boolean {
  if (isCallerTool(tool)) return false;
  if (!isEmpty(filter.names) && !has(filter.names!, tool.name)) return false;
  if (!isEmpty(filter.tags) && !tool.tags.some((t) => has(filter.tags!, t))) return false;
  return true;
}

/**
 * Would `mode` ever let `tool` run? `false` for an unknown mode (`undefined`): nothing is
 * offered where everything is denied.
 * @param scopedWriteDirs - scoped write folders the caller adds to the mode's own.
 * @param scopedWriteTools - the executor's `scopedWriteTools` narrowing, if any.
 */
export function isOfferedInMode(
  tool: Pick<RegisteredTool, 'name' | 'readOnly' | 'scopedWrite'>, mode: AgentMode | undefined, scopedWriteDirs: readonly string[] = [], scopedWriteTools?: ReadonlySet<string>,
): boolean {
  if (mode === undefined) return false;
  if (!mode.readOnly || tool.readOnly) return true;
  const scoped = (mode.scopedWriteDirs?.length ?? 0) + scopedWriteDirs.length > 0;
  return scoped && tool.scopedWrite && (scopedWriteTools === undefined || scopedWriteTools.has(tool.name));
}

/**
 * Is `tool` offered to a model of class `modelClass`? Yes when the tool names no class
 * (`forModel` unset) or names this one; when no class is given (`undefined`), every tool is.
 */
export function isOfferedToModel(tool: Pick<RegisteredTool, 'forModel'>, modelClass: ModelClass | undefined): boolean {
  return modelClass === undefined || tool.forModel === undefined || tool.forModel === modelClass;
}
