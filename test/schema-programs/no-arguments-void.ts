import { tool } from './tool.js';

/** Clear the cache: no arguments, nothing returned. */
@tool({ name: 'clear_cache', version: '1.0.0' })
export class ClearCacheTool {
  async run(): Promise<void> {
    return undefined;
  }
}

export const valid: unknown[] = [{}];
export const invalid: unknown[] = [{ force: true }];
