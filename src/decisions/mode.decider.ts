/**
 * Mode decider: read-only modes allow read-only tools, and tools that declare `scopedWrite`
 * only when every path argument resolves inside one of the mode's scoped write folders.
 * Fails closed: unknown modes, tools that do not declare `scopedWrite`, calls naming no path,
 * and scoped folders that cannot be resolved are all denied.
 *
 * The logic is the plain function {@link decideMode}; {@link ModeDecider} is the pipeline's
 * wrapper around it.
 *
 * @module
 */
import type { AgentMode } from '../modes/modes.js';
import { isInside, type Workspace } from '../workspace/workspace.js';
import { deny, type Decider, type Decision, type PreparedCall, type ResolvedPath } from './decision.js';

/** Inputs of {@link decideMode}. */
export interface ModeInput {
  tool: { readonly name: string; readonly readOnly: boolean; readonly scopedWrite: boolean };
  /** The call's path arguments, already resolved, so the decision checks exactly what was resolved once. */
  paths: readonly ResolvedPath[];
  /** The mode, or `undefined` when the caller named an unknown or invalid mode. */
  mode: AgentMode | undefined;
  /** Requested mode name, for the message when it is unknown. */
  modeName: string;
  /** Scoped write folders (workspace-relative or absolute inside it); joined with the mode's own. */
  scopedWriteDirs: readonly string[];
  /** Optional allowlist narrowing the scoped-write tools by name; `undefined` for all that declare it. */
  scopedWriteTools: ReadonlySet<string> | undefined;
  workspace: Workspace;
}

const NAME = 'mode';

/**
 * Decide. Returns `undefined` (no objection) when the mode does not restrict the tool, a
 * `deny` with code `MODE_DENIED`, or an `allow` carrying `writeRoots` for a scoped write.
 */
export function decideMode(input: ModeInput): Decision | undefined {
  const { tool, mode } = input;
  if (mode === undefined) {
    return deny(NAME, 'MODE_DENIED', `Unknown mode ${JSON.stringify(input.modeName)}; known modes: default, explore, plan.`);
  }
  if (!mode.readOnly || tool.readOnly) return undefined;
  const refuse = (why: string): Decision => deny(NAME, 'MODE_DENIED', `${tool.name} is not allowed in ${mode.name} mode: ${why}`);
  const dirs = [...(mode.scopedWriteDirs ?? []), ...input.scopedWriteDirs];
  if (dirs.length === 0) return refuse('this mode is read-only; use read-only tools.');
  if (!tool.scopedWrite || (input.scopedWriteTools !== undefined && !input.scopedWriteTools.has(tool.name))) {
    return refuse(`this mode only allows read-only tools, and writes by file-editing tools inside ${dirs.join(', ')}.`);
  }
  if (input.paths.length === 0) return refuse('the call names no path, so its writes cannot be checked.');
  let roots: string[];
  try {
    roots = dirs.map((d) => {
      if (typeof d !== 'string') throw new Error(`${JSON.stringify(d)} is not a folder name`);
      return input.workspace.resolve(d);
    });
  } catch (error) {
    return refuse(`a scoped write folder cannot be resolved (${(error as Error).message}).`);
  }
  if (roots.some((r) => r === input.workspace.realRoot)) {
    // A scoped folder that is the whole workspace would switch the read-only mode off.
    return refuse('a scoped write folder must be a subfolder of the workspace, not the workspace itself.');
  }
  for (const { given, real } of input.paths) {
    if (!roots.some((root) => real !== root && isInside(root, real))) {
      return refuse(`${JSON.stringify(given)} is outside the scoped write folders ${dirs.map((d) => JSON.stringify(d)).join(', ')}.`);
    }
  }
  return { verdict: 'allow', decider: NAME, reason: `scoped write inside ${dirs.join(', ')} in ${mode.name} mode`, writeRoots: roots };
}

/** The mode step of the pipeline. */
export class ModeDecider implements Decider {
  readonly name = NAME;

  /** @param scopedWriteTools - optional allowlist narrowing which `scopedWrite` tools read-only modes let write. */
  constructor(private readonly scopedWriteTools: ReadonlySet<string> | undefined) {}

  decide(call: PreparedCall): Decision | undefined {
    const { mode, tool } = call;
    // The common case costs two property reads: a mode that does not restrict this tool.
    if (mode !== undefined && (!mode.readOnly || tool.readOnly)) return undefined;
    return decideMode({
      tool, paths: call.paths, mode, modeName: call.modeName, scopedWriteDirs: call.scopedWriteDirs, scopedWriteTools: this.scopedWriteTools, workspace: call.workspace,
    });
  }
}
