import { tool } from './tool.js';

export interface EnvInput {
  /** Environment variables. */
  env: Record<string, string>;
  /** Tags per file. */
  tags?: Record<string, string[]>;
  /** Flags, as an index signature. */
  flags?: { [name: string]: boolean };
}

/** Run with an environment. */
@tool({ name: 'set_environment', version: '1.0.0' })
export class SetEnvironmentTool {
  async run(args: EnvInput): Promise<number> {
    return Object.keys(args.env).length;
  }
}

export const valid: EnvInput[] = [{ env: { A: '1' }, tags: { 'a.ts': ['x'] }, flags: { fast: true } }];
export const invalid: unknown[] = [{ env: { A: 1 } }, { env: {}, flags: { fast: 'yes' } }];
