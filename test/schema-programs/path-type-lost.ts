/*
 * A named path type in a form the gates cannot check (a union with another type): refused,
 * naming the field and the forms a path field may take, instead of silently losing its
 * `@format workspace-path`.
 */
import { tool } from './tool.js';

/**
 * A path inside the workspace.
 * @format workspace-path
 */
export type WorkspacePath = string;

export interface OpenInput {
  /** A path or a file descriptor number. */
  target: WorkspacePath | number;
}

/** Open a file. */
@tool({ name: 'open_target', version: '1.0.0' })
export class OpenTargetTool {
  async run(args: OpenInput): Promise<string> {
    return String(args.target);
  }
}
