import { tool } from './tool.js';

export interface ContactInput {
  /** Full name. */
  name: string;
  /** E-mail, when known. */
  email?: string;
  /** Phone; null when the person has none. */
  phone: string | null;
  /** Age in years; may be left out or null. */
  age?: number | null;
}

/** Save a contact. */
@tool({ name: 'save_contact', version: '1.0.0' })
export class SaveContactTool {
  async run(args: ContactInput): Promise<string> {
    return args.name;
  }
}

export const valid: ContactInput[] = [{ name: 'A', phone: null }, { name: 'B', phone: '1', email: 'b@example.org', age: null }];
export const invalid: unknown[] = [{ name: 'A' }, { name: 'A', phone: null, age: 'old' }];
