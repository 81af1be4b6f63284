import { tool } from './tool.js';

export interface Settings {
  /** Theme name. */
  theme: string;
  /** Font size in points. */
  fontSize: number;
  /** Whether to wrap lines. */
  wrap: boolean;
}

export interface UpdateSettingsInput {
  /** What to change: every field optional. */
  changes: Partial<Settings>;
  /** The fields to keep as they are. */
  keep: Pick<Settings, 'theme'>;
  /** Everything but the theme. */
  rest?: Omit<Settings, 'theme'>;
  /** Read-only view. */
  frozen?: Readonly<Settings>;
}

/** Update settings. */
@tool({ name: 'update_settings', version: '1.0.0' })
export class UpdateSettingsTool {
  async run(args: UpdateSettingsInput): Promise<Required<Partial<Settings>>> {
    return { theme: 'x', fontSize: 1, wrap: true, ...args.changes };
  }
}

export const valid: UpdateSettingsInput[] = [{ changes: { wrap: false }, keep: { theme: 'dark' } }];
export const invalid: unknown[] = [{ changes: { wrap: 'no' }, keep: { theme: 'dark' } }, { changes: {}, keep: { theme: 'dark', wrap: true } }];
