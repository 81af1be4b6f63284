import { tool } from './tool.js';

export interface CopyInput {
  /**
   * The file to copy, relative to the workspace root.
   * @format workspace-path
   */
  source: string;
  /**
   * Where the copy goes.
   * @format workspace-path
   */
  destination: string;
  /**
   * More files.
   * @items.format workspace-path
   */
  others?: string[];
}

/** Copy a file inside the workspace. */
@tool({ name: 'copy_into_place', version: '1.0.0' })
export class CopyIntoPlaceTool {
  async run(args: CopyInput): Promise<string> {
    return args.destination;
  }
}

export const valid: CopyInput[] = [{ source: 'a.txt', destination: 'b.txt', others: ['c.txt'] }];
export const invalid: unknown[] = [{ source: 'a.txt' }];
