/**
 * Mode gate: read-only modes allow read-only tools, and tools that declare `scopedWrite` only
 * when every path argument resolves inside one of the mode's scoped write folders. Fails
 * closed: unknown modes, tools that do not declare `scopedWrite`, calls naming no path, and
 * paths that cannot be resolved are all denied.
 *
 * @module
 */
import type { AgentMode } from '../modes/modes.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isInside, type Workspace } from '../workspace/workspace.js';
import type { GateDenial } from './gate.js';

/** Inputs of {@link modeGate}. */
export interface ModeGateInput {
  tool: RegisteredTool;
  /**
   * The call's path arguments, already resolved by the executor (`given` as the model sent
   * it, `real` the real path), so the gate checks exactly what was resolved once.
   */
  paths: ReadonlyArray<{ given: string; real: string }>;
  /** The mode, or `undefined` when the caller named an unknown mode. */
  mode: AgentMode | undefined;
  /** Requested mode name, for the message when it is unknown. */
  modeName: string;
  /** Scoped write folders (workspace-relative or absolute inside it); joined with the mode's own. */
  scopedWriteDirs: readonly string[];
  /** Optional allowlist narrowing the scoped-write tools by name; `undefined` for all that declare it. */
  scopedWriteTools: ReadonlySet<string> | undefined;
  workspace: Workspace;
}

/**
 * What the mode gate decided: a denial, or a pass that may confine the call's writes to
 * `writeRoots` (real paths of the scoped folders, for a scoped write in a read-only mode),
 * which the tool's workspace checks again at the moment of writing.
 */
export type ModeDecision = { denial: GateDenial } | { denial?: undefined; writeRoots?: string[] };

/** A pass with nothing to confine (shared; never written to). */
const PASS: ModeDecision = Object.freeze({});

/** Decide. */
export function modeGate(input: ModeGateInput): ModeDecision {
  const { tool, mode } = input;
  if (mode === undefined) {
    return { denial: { gate: 'mode', code: 'MODE_DENIED', reason: `Unknown mode ${JSON.stringify(input.modeName)}; known modes: default, explore, plan.` } };
  }
  if (!mode.readOnly || tool.readOnly) return PASS;
  const deny = (why: string): ModeDecision => ({
    denial: { gate: 'mode', code: 'MODE_DENIED', reason: `${tool.name} is not allowed in ${mode.name} mode: ${why}` },
  });
  const dirs = [...(mode.scopedWriteDirs ?? []), ...input.scopedWriteDirs];
  if (dirs.length === 0) return deny('this mode is read-only; use read-only tools.');
  if (!tool.scopedWrite || (input.scopedWriteTools !== undefined && !input.scopedWriteTools.has(tool.name))) {
    return deny(`this mode only allows read-only tools, and writes by file-editing tools inside ${dirs.join(', ')}.`);
  }
  if (input.paths.length === 0) return deny('the call names no path, so its writes cannot be checked.');
  let roots: string[];
  try {
    roots = dirs.map((d) => {
      if (typeof d !== 'string') throw new Error(`${JSON.stringify(d)} is not a folder name`);
      return input.workspace.resolve(d);
    });
  } catch (error) {
    return deny(`a scoped write folder cannot be resolved (${(error as Error).message}).`);
  }
  if (roots.some((r) => r === input.workspace.realRoot)) {
    // A scoped folder that is the whole workspace would switch the read-only mode off.
    return deny('a scoped write folder must be a subfolder of the workspace, not the workspace itself.');
  }
  for (const { given, real } of input.paths) {
    if (!roots.some((root) => real !== root && isInside(root, real))) {
      return deny(`${JSON.stringify(given)} is outside the scoped write folders ${dirs.map((d) => JSON.stringify(d)).join(', ')}.`);
    }
  }
  return { writeRoots: roots };
}
