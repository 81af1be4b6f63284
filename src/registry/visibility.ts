/**
 * Which registrations are toolgate's caller tools (`ask_user`, `request_tools`, `run_subagent`,
 * `input_subagent`; `src/builtin/caller-tools.ts`): registered like every tool, but offered by
 * their caller, never by a selection. What is offered and which calls are refused for
 * visibility is decided in one place, `src/decisions/visibility.decider.ts`.
 *
 * @module
 */

/** The `source` of the caller tools' registrations (`src/builtin/caller-tools.ts`). */
export const CALLER_TOOL_SOURCE = 'toolgate:caller-tool';

/** Is `tool` one of toolgate's caller-side builtins (offered by its caller, never by a selection)? */
export function isCallerTool(tool: { readonly source?: string }): boolean {
  return tool.source === CALLER_TOOL_SOURCE;
}
