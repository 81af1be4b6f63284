/*
 * Path fields written every way a field can be nullable, optional or an array, directly and
 * through a named type: each keeps its `@format workspace-path`, so the gates find every path
 * argument (a named type or null, or an array of it, once lost its format, and the gates did
 * not see that path).
 */
import { tool } from './tool.js';

/**
 * A path inside the workspace.
 * @format workspace-path
 */
export type WorkspacePath = string;

/**
 * A share of a whole.
 * @minimum 0
 * @maximum 100
 */
export type Percent = number;

/**
 * A code holding the digits 123 (a pattern that reads as a number stays a pattern).
 * @pattern 123
 */
export type Code = string;

export interface BackupInput {
  /**
   * The file to back up.
   * @format workspace-path
   */
  source: string;
  /**
   * Where the backup goes; null for next to the source.
   * @format workspace-path
   */
  target: string | null;
  /**
   * An optional extra path, which strict exports make nullable.
   * @format workspace-path
   */
  extra?: string;
  /** A path through a named type. */
  named: WorkspacePath;
  /** A nullable path through a named type. */
  namedOrNull: WorkspacePath | null;
  /** More files through the named type, as an array. */
  batch: WorkspacePath[];
  /** Even more, optional and read-only. */
  more?: readonly WorkspacePath[];
  /** How much of the file to keep, optional and nullable through a named type. */
  keep?: Percent | null;
  /** A code, optional and nullable through a named type. */
  code?: Code | null;
}

/** Back a file up inside the workspace. */
@tool({ name: 'back_up_file', version: '1.0.0' })
export class BackUpFileTool {
  async run(args: BackupInput): Promise<string> {
    return args.target ?? args.source;
  }
}

export const valid: BackupInput[] = [{ source: 'a.txt', target: null, named: 'n.txt', namedOrNull: null, batch: [] }, { source: 'a.txt', target: 'b.txt', extra: 'c.txt', named: 'n.txt', namedOrNull: 'm.txt', batch: ['d.txt'], more: ['e.txt'], code: 'x123' }];
export const invalid: unknown[] = [{ source: 'a.txt' }, { source: 'a.txt', target: null, named: 'n.txt', namedOrNull: null, batch: [], keep: 101 }, { source: 'a.txt', target: null, named: 'n.txt', namedOrNull: null, batch: [], code: 'abc' }];
