import { tool } from './tool.js';

export interface Stats {
  /** Number of lines. */
  lines: number;
  /** Most common words, in order. */
  topWords: string[];
  /** Language, when detected. */
  language?: 'en' | 'fr' | 'de';
}

/** Describe a text: the result is an object with its own schema. */
@tool({ name: 'describe_text', version: '1.0.0' })
export class DescribeTextTool {
  async run(args: { /** The text. */ text: string }): Promise<Stats> {
    return { lines: args.text.split('\n').length, topWords: [] };
  }
}

export const valid: unknown[] = [{ text: 'a' }];
export const invalid: unknown[] = [{ text: 1 }];
