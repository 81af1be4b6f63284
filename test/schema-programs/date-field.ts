import { tool } from './tool.js';

export interface RemindInput {
  /** When to remind, as an ISO 8601 date-time (a Date in TypeScript). */
  at: Date;
  /** What to say. */
  text: string;
}

/** Set a reminder. */
@tool({ name: 'set_reminder', version: '1.0.0' })
export class SetReminderTool {
  async run(args: RemindInput): Promise<string> {
    return String(args.at);
  }
}

export const invalid: unknown[] = [{ at: 'tomorrow', text: 'x' }, { at: 5, text: 'x' }];
export const validJson: unknown[] = [{ at: '2026-12-01T10:00:00Z', text: 'x' }];
