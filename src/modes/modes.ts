/**
 * Agent modes and their policies.
 *
 * @module
 */

/** A mode an agent runs in. */
export interface AgentMode {
  /** Mode name (`default`, `explore`, `plan`, or a custom one). */
  readonly name: string;
  /** Only read-only tools are allowed (plus vetted scoped writes inside `scopedWriteDirs`). */
  readonly readOnly: boolean;
  /** Appended to the agent's system message so the model knows its constraints. */
  readonly systemPromptAddendum: string;
  /** Folders (workspace-relative) where vetted write tools may write in a read-only mode. */
  readonly scopedWriteDirs?: readonly string[];
}

/** The built-in modes. */
export const MODES: Readonly<Record<'default' | 'explore' | 'plan', AgentMode>> = Object.freeze({
  default: Object.freeze({ name: 'default', readOnly: false, systemPromptAddendum: '' }),
  explore: Object.freeze({
    name: 'explore',
    readOnly: true,
    systemPromptAddendum:
      'You are in explore mode: you may read and search, but tools that change files, run commands or have other side effects are refused.',
  }),
  plan: Object.freeze({
    name: 'plan',
    readOnly: true,
    systemPromptAddendum:
      'You are in plan mode: investigate with read-only tools and write your plan only inside the plan folders you were given; other changes are refused.',
  }),
});

/** Names of the built-in modes. */
export type ModeName = keyof typeof MODES;

/**
 * Resolve a mode by name or pass a custom one through.
 * @returns the mode, or `undefined` for an unknown name (callers fail closed).
 */
export function resolveMode(mode: string | AgentMode | undefined): AgentMode | undefined {
  if (mode === undefined) return MODES.default;
  if (typeof mode === 'object' && mode !== null) return mode;
  return Object.prototype.hasOwnProperty.call(MODES, mode) ? MODES[mode as ModeName] : undefined;
}
