import { tool } from './tool.js';

export type Channel = 'email' | 'sms';

export interface NotifyInput {
  /** Whether each channel is on: a Record with literal keys (a mapped type). */
  channels: Record<Channel, boolean>;
}

/** Set notification channels. */
@tool({ name: 'set_channels', version: '1.0.0' })
export class SetChannelsTool {
  async run(args: NotifyInput): Promise<string> {
    return JSON.stringify(args.channels);
  }
}

export const valid: NotifyInput[] = [{ channels: { email: true, sms: false } }];
export const invalid: unknown[] = [{ channels: { email: true } }, { channels: { email: true, sms: false, fax: true } }];
