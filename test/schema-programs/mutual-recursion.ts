import { tool } from './tool.js';
import type { Person } from './lib/tree.js';

export interface EnrolInput {
  /** The person to enrol, with their department and its staff. */
  person: Person;
}

/** Enrol a person. */
@tool({ name: 'enrol_person', version: '1.0.0' })
export class EnrolPersonTool {
  async run(args: EnrolInput): Promise<string> {
    return args.person.name;
  }
}

export const valid: EnrolInput[] = [{ person: { name: 'A', department: { name: 'D', staff: [{ name: 'B' }] } } }];
export const invalid: unknown[] = [{ person: { name: 'A', department: { name: 'D', staff: [{}] } } }];
