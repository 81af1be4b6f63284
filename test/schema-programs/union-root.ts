import { tool } from './tool.js';

export interface ByName {
  /** A name. */
  name: string;
}

export interface ById {
  /** An id. */
  id: number;
}

/** Refused: the arguments are a union of shapes, which providers do not take at the root. */
@tool({ name: 'find_record', version: '1.0.0' })
export class FindRecordTool {
  async run(args: ByName | ById): Promise<string> {
    return JSON.stringify(args);
  }
}
