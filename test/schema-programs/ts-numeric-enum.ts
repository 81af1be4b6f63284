import { tool } from './tool.js';

/** A priority, as a numeric enum with implicit values. */
export enum Priority {
  Low,
  Medium,
  High,
}

/** HTTP statuses, with explicit values out of order. */
export enum Status {
  NotFound = 404,
  Ok = 200,
  Teapot = 418,
}

export interface TicketInput {
  /** Priority (0 low, 1 medium, 2 high). */
  priority: Priority;
  /** The status to report. */
  status?: Status;
}

/** File a ticket. */
@tool({ name: 'file_ticket', version: '1.0.0' })
export class FileTicketTool {
  async run(args: TicketInput): Promise<number> {
    return args.priority;
  }
}

export const valid: TicketInput[] = [{ priority: Priority.High, status: Status.Teapot }];
export const invalid: unknown[] = [{ priority: 3 }, { priority: 'High' }];
